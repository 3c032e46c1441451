/* bench/fleet/mpi_net.c — MPI collectives over host memory, timed and checked (bench/fleet/mpi_net.h). */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ff_util.h"
#include "mpi_net.h"
#include "flopfit/profile_fields.h"

static const char *const names[FF_NET_COLL_COUNT] = {"all_reduce", "all_gather", "reduce_scatter",
                                                     "all_to_all"};

const char *ff_net_coll_name(enum ff_net_coll c)
{
    return c < FF_NET_COLL_COUNT ? names[c] : "?";
}

double ff_net_bus_factor(enum ff_net_coll c, int n)
{
    if (n < 1)
        return 0;
    /* nccl-tests doc/PERFORMANCE.md: all-reduce moves 2(n-1)/n of the buffer over each
     * rank's link, all-gather, reduce-scatter and all-to-all (n-1)/n. */
    double f = (double)(n - 1) / n;
    return c == FF_NET_ALL_REDUCE ? 2 * f : f;
}

float ff_net_input(int rank, size_t i)
{
    /* < 251: a sum over 2^16 ranks stays below 2^24, exact in fp32 */
    return (float)(((uint64_t)rank * 7u + i) % 251u);
}

/* Σ_j ff_net_input(j, i) over the n ranks. */
static float sum_inputs(int n, size_t i)
{
    double s = 0;
    for (int j = 0; j < n; j++)
        s += ff_net_input(j, i);
    return (float)s;
}

int ff_net_check(enum ff_net_coll c, int rank, int n, size_t count, const float *out, char *err,
                 size_t errlen)
{
    size_t block = count / (size_t)n;
    size_t out_count = c == FF_NET_REDUCE_SCATTER ? block : count;
    for (size_t i = 0; i < out_count; i++) {
        float want = 0;
        switch (c) {
        case FF_NET_ALL_REDUCE: want = sum_inputs(n, i); break;
        /* block j came from rank j: its elements 0..block */
        case FF_NET_ALL_GATHER: want = ff_net_input((int)(i / block), i % block); break;
        /* this rank's block of the sum */
        case FF_NET_REDUCE_SCATTER: want = sum_inputs(n, (size_t)rank * block + i); break;
        /* block j is what rank j sent this rank: its block `rank` */
        case FF_NET_ALL_TO_ALL:
            want = ff_net_input((int)(i / block), (size_t)rank * block + i % block);
            break;
        default: break;
        }
        if (out[i] != want)
            return ff_errf(err, errlen, FF_ERR_VERIFY,
                           "%s on rank %d of %d: element %zu is %g, expected %g", names[c], rank, n,
                           i, (double)out[i], (double)want);
    }
    return FF_OK;
}

static int run_coll(enum ff_net_coll c, const float *in, float *out, size_t count, int n,
                    MPI_Comm comm)
{
    int block = (int)(count / (size_t)n);
    switch (c) {
    case FF_NET_ALL_REDUCE: return MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM, comm);
    case FF_NET_ALL_GATHER: return MPI_Allgather(in, block, MPI_FLOAT, out, block, MPI_FLOAT, comm);
    case FF_NET_REDUCE_SCATTER:
        return MPI_Reduce_scatter_block(in, out, block, MPI_FLOAT, MPI_SUM, comm);
    case FF_NET_ALL_TO_ALL: return MPI_Alltoall(in, block, MPI_FLOAT, out, block, MPI_FLOAT, comm);
    default: return MPI_ERR_ARG;
    }
}

/* Seconds one collective takes: `iters` back to back, the slowest rank's mean. */
static double time_coll(enum ff_net_coll c, const float *in, float *out, size_t count, int n,
                        int iters, MPI_Comm comm)
{
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int k = 0; k < iters; k++)
        run_coll(c, in, out, count, n, comm);
    double dt = (MPI_Wtime() - t0) / iters, slowest = 0;
    MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return slowest;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define ROUNDS 3

void ff_net_record(struct ff_result *r, enum ff_net_coll c, int n, double sec, int iters,
                   const struct ff_net_cfg *cfg)
{
    if (!(sec > 0)) {
        ff_result_fail(r, FF_RES_FAILED, "the timer did not advance");
        return;
    }
    double algbw = (double)r->bytes / sec;
    double busbw = algbw * ff_net_bus_factor(c, n);
    r->status = FF_RES_OK;
    r->value = busbw;
    snprintf(r->variant, sizeof(r->variant),
             "MPI over host memory, %d rank%s, median of %d rounds of %d", n, n == 1 ? "" : "s",
             ROUNDS, iters);
    if (cfg->limit > 0) {
        ff_result_extra(r, FF_PF_TEST_LIMIT_BYTES_PER_S, cfg->limit, false);
        /* an implausible figure is not published, its algbw and time neither */
        if (ff_result_implausible(r, busbw, cfg->limit, cfg->limit_why))
            return;
    }
    ff_result_extra(r, FF_PF_TEST_ALGBW_BYTES_PER_S, algbw, false);
    /* the time of one collective, replaced by the smallest message's at the sweep's end */
    ff_result_extra(r, FF_PF_TEST_LATENCY_S, sec, false);
}

void ff_net_sweep(MPI_Comm comm, const char *scope, const struct ff_net_cfg *cfg, struct ff_run *p)
{
    int n = 1, rank = 0;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &rank);
    if (n < 2) { /* a bus bandwidth of 0: nothing crosses a link */
        ff_net_unsupported(scope, n, "one rank: no link to measure", p);
        return;
    }
    /* nccl-tests' usual sweep is 8 B to a few hundred MiB; ×8 steps keep it to 9 sizes here.
     * --quick stops at 1 MiB: a CI machine's shared memory, not a fabric. */
    static const uint64_t full[] = {8, 64, 512, 4096, 32768, 262144, 2097152, 16777216, 67108864};
    static const uint64_t quick[] = {8, 4096, 262144, 1048576};
    const uint64_t *sizes = cfg->quick ? quick : full;
    size_t n_sizes = cfg->quick ? sizeof(quick) / sizeof(quick[0]) : sizeof(full) / sizeof(full[0]);
    double budget = cfg->quick ? 0.02 : 0.1; /* seconds per timing round */
    /* Each buffer holds at least one float per rank; sizes round up to n floats. */
    size_t max_count = 0;
    for (size_t s = 0; s < n_sizes; s++) {
        size_t c = (size_t)((sizes[s] / 4 + (uint64_t)n - 1) / (uint64_t)n) * (size_t)n;
        if (c > max_count)
            max_count = c;
    }
    float *in = malloc(max_count * sizeof(float));
    float *out = malloc(max_count * sizeof(float));
    int have = in && out, all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, comm);
    if (!all_have) {
        free(in);
        free(out);
        ff_net_unsupported(scope, n, "a rank could not allocate the buffers", p);
        return;
    }
    for (size_t i = 0; i < max_count; i++)
        in[i] = ff_net_input(rank, i);

    for (int c = 0; c < FF_NET_COLL_COUNT; c++) {
        size_t first = p->n_results;
        size_t prev_count = 0;
        for (size_t s = 0; s < n_sizes; s++) {
            size_t count = (size_t)((sizes[s] / 4 + (uint64_t)n - 1) / (uint64_t)n) * (size_t)n;
            if (count == prev_count)
                continue;
            prev_count = count;
            uint64_t bytes = (uint64_t)count * sizeof(float);
            struct ff_result *r = ff_run_add(p);
            if (!r)
                break;
            ff_result_set(r, FF_PF_FAMILY_INTERCONNECT, names[c], "mpi");
            snprintf(r->scope, sizeof(r->scope), "%s", scope);
            snprintf(r->unit, sizeof(r->unit), "%s", FF_PF_UNIT_BYTES_PER_S);
            r->bytes = bytes;
            ff_result_extra(r, FF_PF_TEST_RANKS, n, false);

            /* The check: an output full of NaN (0xff bytes) must become what the inputs imply. */
            memset(out, 0xff, max_count * sizeof(float));
            int rc = run_coll((enum ff_net_coll)c, in, out, count, n, comm);
            char why[256] = "";
            int ok = rc == MPI_SUCCESS && ff_net_check((enum ff_net_coll)c, rank, n, count, out,
                                                       why, sizeof(why)) == FF_OK;
            if (rc != MPI_SUCCESS)
                snprintf(why, sizeof(why), "%s on rank %d: MPI error %d", names[c], rank, rc);
            /* Every rank learns the first rank whose output was wrong, and why. */
            int bad = ok ? n : rank, first_bad = n;
            MPI_Allreduce(&bad, &first_bad, 1, MPI_INT, MPI_MIN, comm);
            if (first_bad < n) {
                MPI_Bcast(why, sizeof(why), MPI_CHAR, first_bad, comm);
                ff_result_fail(r, FF_RES_FAILED, "wrong result: %s", why);
                continue;
            }
            r->verified = true;

            /* Iterations for one round of ~budget seconds, from one timed call. */
            double one = time_coll((enum ff_net_coll)c, in, out, count, n, 1, comm);
            int iters = one > 0 ? (int)(budget / one) : 1000;
            iters = iters < 3 ? 3 : iters > 10000 ? 10000 : iters;
            double t[ROUNDS];
            for (int k = 0; k < ROUNDS; k++)
                t[k] = time_coll((enum ff_net_coll)c, in, out, count, n, iters, comm);
            qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
            double sec = t[ROUNDS / 2];
            ff_net_record(r, (enum ff_net_coll)c, n, sec, iters, cfg);
        }
        /* latency_s: the time of this collective's smallest message, on each of its tests */
        double lat = -1;
        for (size_t k = first; k < p->n_results; k++)
            for (size_t e = 0; e < p->results[k].n_extra; e++)
                if (strcmp(p->results[k].extra[e].key, FF_PF_TEST_LATENCY_S) == 0) {
                    if (lat < 0)
                        lat = p->results[k].extra[e].value;
                    p->results[k].extra[e].value = lat;
                }
    }
    free(in);
    free(out);
}

void ff_net_unsupported(const char *scope, int ranks, const char *reason, struct ff_run *p)
{
    for (int c = 0; c < FF_NET_COLL_COUNT; c++) {
        struct ff_result *r = ff_run_add(p);
        if (!r)
            return;
        ff_result_set(r, FF_PF_FAMILY_INTERCONNECT, names[c], "mpi");
        snprintf(r->scope, sizeof(r->scope), "%s", scope);
        ff_result_extra(r, FF_PF_TEST_RANKS, ranks, false);
        ff_result_fail(r, FF_RES_UNSUPPORTED, "%s", reason);
    }
}

/* The number in a small sysfs file; false when absent or not a number. */
static bool read_number(const char *path, double *v)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char buf[64] = "";
    bool ok = fgets(buf, sizeof(buf), f) != NULL;
    fclose(f);
    char *end = NULL;
    *v = ok ? strtod(buf, &end) : 0;
    return ok && end != buf;
}

double ff_net_nic_rate(char *what, size_t n)
{
    double total = 0;
    size_t len = 0;
    if (n)
        what[0] = 0;
    DIR *d = opendir("/sys/class/net");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "lo") == 0)
            continue;
        char path[512], state[32] = "";
        snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", e->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(state, sizeof(state), f))
                state[0] = 0;
            fclose(f);
        }
        if (strncmp(state, "up", 2) != 0)
            continue;
        double mbps = 0;
        snprintf(path, sizeof(path), "/sys/class/net/%s/speed", e->d_name);
        /* speed is Mb/s; virtual links report -1 or nothing */
        if (read_number(path, &mbps) && mbps > 0) {
            total += mbps * 1e6 / 8;
            if (len < n)
                len += (size_t)snprintf(what + len, n - len, "%s%s %.0f Mb/s", len ? ", " : "",
                                        e->d_name, mbps);
        }
    }
    if (d)
        closedir(d);
    /* InfiniBand ports: "rate" reads "100 Gb/sec (4X EDR)"; only ACTIVE ports count. */
    d = opendir("/sys/class/infiniband");
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        for (int port = 1; port <= 4; port++) {
            char path[512], state[64] = "";
            snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/state", e->d_name,
                     port);
            FILE *f = fopen(path, "r");
            if (!f)
                break;
            if (!fgets(state, sizeof(state), f))
                state[0] = 0;
            fclose(f);
            double gbps = 0;
            snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/rate", e->d_name, port);
            if (strstr(state, "ACTIVE") && read_number(path, &gbps) && gbps > 0) {
                total += gbps * 1e9 / 8;
                if (len < n)
                    len += (size_t)snprintf(what + len, n - len, "%s%s/%d %.0f Gb/s",
                                            len ? ", " : "", e->d_name, port, gbps);
            }
        }
    }
    if (d)
        closedir(d);
    return total;
}
