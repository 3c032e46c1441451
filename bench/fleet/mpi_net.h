/*
 * bench/fleet/mpi_net.h — the network between MPI ranks, measured with the collectives a training
 * step uses (all-reduce, all-gather, reduce-scatter, all-to-all) over host memory. Figures are
 * the nccl-tests ones (github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md): for a buffer of S
 * bytes per rank and the time t of one collective (the slowest rank's, averaged over the
 * iterations), algbw = S / t and busbw = algbw * 2(n-1)/n for all-reduce, algbw * (n-1)/n for
 * all-gather, reduce-scatter and all-to-all; busbw is the test's value. Every collective's
 * output is checked on every rank against what its closed-form inputs imply.
 *
 * Needs <mpi.h>: only the MPI build compiles the files that include it.
 */
#ifndef FF_MPI_NET_H
#define FF_MPI_NET_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "check/result.h"

/* The collectives, in the order measured. */
enum ff_net_coll {
    FF_NET_ALL_REDUCE,
    FF_NET_ALL_GATHER,
    FF_NET_REDUCE_SCATTER,
    FF_NET_ALL_TO_ALL,
    FF_NET_COLL_COUNT,
};

/* "all_reduce" ..: the test's name in a profile. */
const char *ff_net_coll_name(enum ff_net_coll c);
/* busbw / algbw for n ranks (nccl-tests' factors). */
double ff_net_bus_factor(enum ff_net_coll c, int n);

/*
 * Input element i of rank r (every collective sends these): small integers, so every sum
 * over up to 2^16 ranks is exact in fp32 and the check is exact.
 */
float ff_net_input(int rank, size_t i);
/*
 * Checks the output `out` of collective c on rank `rank` of n, where `count` is the element
 * count of the per-rank buffer S (a multiple of n). FF_OK, or FF_ERR_VERIFY naming the first
 * wrong element in err.
 */
int ff_net_check(enum ff_net_coll c, int rank, int n, size_t count, const float *out, char *err,
                 size_t errlen);

struct ff_net_cfg {
    bool quick;          /* fewer sizes, shorter timing */
    double limit;        /* B/s no busbw may exceed; 0: unknown, not checked */
    char limit_why[256]; /* what the limit is ("host memory copy bandwidth ...") */
};

/*
 * The figures of one measured test r (family, name, bytes and unit set; verified): sec is the
 * time of one collective, iters the iterations a round. busbw becomes the value, with algbw
 * and the time as latency_s beside it; above cfg->limit (when set) r is failed: implausible
 * and carries neither.
 */
void ff_net_record(struct ff_result *r, enum ff_net_coll c, int n, double sec, int iters,
                   const struct ff_net_cfg *cfg);

/*
 * Sweeps every collective over the sizes on comm (collective: every rank of comm calls it
 * with the same cfg) and appends one result per collective and size to p, with the scope
 * and ranks set. A rank whose check failed fails the test on every rank.
 */
void ff_net_sweep(MPI_Comm comm, const char *scope, const struct ff_net_cfg *cfg, struct ff_run *p);

/* Appends one unsupported result per collective (scope, ranks, reason) to p. */
void ff_net_unsupported(const char *scope, int ranks, const char *reason, struct ff_run *p);

/* The NICs' line rate of this host in B/s from /sys (Ethernet speed, InfiniBand rate),
 * summed over the links that are up; 0 when none is known. what: which links. */
double ff_net_nic_rate(char *what, size_t n);

#endif
