/*
 * tests/bench/fleet/test_mpi_net.c — the network tests' arithmetic (bench/fleet/mpi_net.c): nccl-tests'
 * bus factors, the closed-form check of each collective's output (computed here by hand for
 * 3 ranks), an implausible figure failed and unpublished, and a one-rank sweep unsupported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fleet/mpi_net.h"

Test(mpi_net, bus_factors_are_nccl_tests)
{
    /* doc/PERFORMANCE.md: 2(n-1)/n for all-reduce, (n-1)/n for the others */
    cr_expect_float_eq(ff_net_bus_factor(FF_NET_ALL_REDUCE, 4), 1.5, 1e-12);
    cr_expect_float_eq(ff_net_bus_factor(FF_NET_ALL_GATHER, 4), 0.75, 1e-12);
    cr_expect_float_eq(ff_net_bus_factor(FF_NET_REDUCE_SCATTER, 8), 0.875, 1e-12);
    cr_expect_float_eq(ff_net_bus_factor(FF_NET_ALL_TO_ALL, 2), 0.5, 1e-12);
    cr_expect_eq(ff_net_bus_factor(FF_NET_ALL_REDUCE, 1), 0);
    cr_expect_str_eq(ff_net_coll_name(FF_NET_REDUCE_SCATTER), "reduce_scatter");
}

/* What rank `rank` of n receives, by the definitions of the collectives (MPI 4.0 §6). */
static void expected(enum ff_net_coll c, int rank, int n, size_t count, float *out)
{
    size_t block = count / (size_t)n;
    for (size_t i = 0; i < count; i++) {
        size_t j = i / block, e = i % block;
        double sum = 0;
        switch (c) {
        case FF_NET_ALL_REDUCE:
            for (int r = 0; r < n; r++)
                sum += ff_net_input(r, i);
            out[i] = (float)sum;
            break;
        case FF_NET_ALL_GATHER: out[i] = ff_net_input((int)j, e); break;
        case FF_NET_REDUCE_SCATTER:
            if (i < block) {
                for (int r = 0; r < n; r++)
                    sum += ff_net_input(r, (size_t)rank * block + i);
                out[i] = (float)sum;
            }
            break;
        case FF_NET_ALL_TO_ALL: out[i] = ff_net_input((int)j, (size_t)rank * block + e); break;
        default: break;
        }
    }
}

Test(mpi_net, check_takes_the_right_output_and_names_a_wrong_element)
{
    const int n = 3;
    const size_t count = 3 * 700; /* past 251: the inputs wrap */
    float *out = calloc(count, sizeof(float));
    char err[256];
    for (int c = 0; c < FF_NET_COLL_COUNT; c++)
        for (int rank = 0; rank < n; rank++) {
            memset(out, 0, count * sizeof(float));
            expected((enum ff_net_coll)c, rank, n, count, out);
            cr_expect_eq(ff_net_check((enum ff_net_coll)c, rank, n, count, out, err, sizeof(err)),
                         FF_OK, "%s rank %d: %s", ff_net_coll_name((enum ff_net_coll)c), rank, err);
            out[5] += 1;
            cr_expect_eq(ff_net_check((enum ff_net_coll)c, rank, n, count, out, err, sizeof(err)),
                         FF_ERR_VERIFY);
            cr_expect(strstr(err, "element 5 is"), "%s", err);
        }
    /* the sum over n ranks of inputs below 251 is exact in fp32 */
    cr_expect_eq(ff_net_input(0, 250), 250.0f);
    cr_expect_eq(ff_net_input(1, 244), 0.0f);
    free(out);
}

static struct ff_result measured(uint64_t bytes)
{
    struct ff_result r;
    memset(&r, 0, sizeof(r));
    r.prec = -1;
    ff_result_set(&r, "interconnect", "all_reduce", "mpi");
    snprintf(r.unit, sizeof(r.unit), "B/s");
    r.bytes = bytes;
    r.verified = true;
    return r;
}

static bool has_extra(const struct ff_result *r, const char *key, double *v)
{
    for (size_t e = 0; e < r->n_extra; e++)
        if (strcmp(r->extra[e].key, key) == 0) {
            *v = r->extra[e].value;
            return true;
        }
    return false;
}

Test(mpi_net, figures_and_the_implausible_bound)
{
    struct ff_net_cfg cfg = {.limit = 1e10};
    snprintf(cfg.limit_why, sizeof(cfg.limit_why), "host memory");
    /* 1 MiB in 1 ms on 4 ranks: algbw 1.048576 GB/s, busbw 1.5x */
    struct ff_result r = measured(1048576);
    ff_net_record(&r, FF_NET_ALL_REDUCE, 4, 1e-3, 10, &cfg);
    double v = 0;
    cr_expect_eq(r.status, FF_RES_OK);
    cr_expect_float_eq(r.value, 1.572864e9, 1);
    cr_expect(has_extra(&r, "algbw_bytes_per_s", &v) && v == 1.048576e9);
    cr_expect(has_extra(&r, "latency_s", &v) && v == 1e-3);
    cr_expect(has_extra(&r, "limit_bytes_per_s", &v) && v == 1e10);

    /* the same in 1 us: 1.57 TB/s busbw through host memory is not physical */
    r = measured(1048576);
    ff_net_record(&r, FF_NET_ALL_REDUCE, 4, 1e-6, 10, &cfg);
    cr_expect_eq(r.status, FF_RES_FAILED);
    cr_expect(strstr(r.reason, "implausible") && strstr(r.reason, "host memory"), "%s", r.reason);
    cr_expect_eq(r.value, 0);
    cr_expect(r.verified, "the data was right; the figure is what is wrong");
    cr_expect(!has_extra(&r, "algbw_bytes_per_s", &v) && !has_extra(&r, "latency_s", &v),
              "an implausible test publishes no figure");

    /* a timer that did not move */
    r = measured(8);
    ff_net_record(&r, FF_NET_ALL_GATHER, 2, 0, 10, &cfg);
    cr_expect_eq(r.status, FF_RES_FAILED);
}

Test(mpi_net, one_rank_has_no_link)
{
    cr_assert_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    struct ff_run p = {0};
    struct ff_net_cfg cfg = {.quick = true};
    ff_net_sweep(MPI_COMM_SELF, "intra_node", &cfg, &p);
    cr_expect_eq(p.n_results, FF_NET_COLL_COUNT);
    for (size_t k = 0; k < p.n_results; k++) {
        cr_expect_eq(p.results[k].status, FF_RES_UNSUPPORTED);
        cr_expect_str_eq(p.results[k].scope, "intra_node");
    }
    ff_run_finish(&p);
    MPI_Finalize();
}
