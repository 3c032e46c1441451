/*
 * bench/fleet/fleet.h — `mpirun -np N flopfit bench --mpi`: a benchmark across a fleet, as one MPI
 * job. Every rank benchmarks its share of its node's devices (rank r of the k ranks on a node
 * takes the node's devices r, r+k, ...) and writes their profiles as a plain run does; all
 * ranks measure the network with MPI collectives over host memory (bench/fleet/mpi_net.c); rank 0
 * gathers every rank's profiles and writes one fleet file (results/SCHEMA.md, "Fleet files")
 * and prints one table.
 *
 * This header needs no MPI: a build without it (meson -Dmpi=disabled, or no MPI found)
 * links bench/fleet/fleet_none.c, whose ff_fleet_bench says how to get one and returns 2.
 */
#ifndef FF_FLEET_H
#define FF_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "run/bench_run.h"

/* The identity of a fleet file and the version written. */
#define FF_FLEET_SCHEMA_ID       "flopfit.fleet"
#define FF_FLEET_VERSION_WRITTEN "1.0"

/* Field names of a fleet file (results/SCHEMA.md "Fleet files"); "schema", "schema_version",
 * "tool", "created" and "complete" are the profile's (flopfit/profile_fields.h). */
#define FF_FLEET_RANKS        "ranks"        /* [] one object per rank, by rank */
#define FF_FLEET_HOSTS        "hosts"        /* [] {"name", "ranks": [..]} */
#define FF_FLEET_INTERCONNECT "interconnect" /* [] tests of family interconnect */
#define FF_FLEET_FAILED_RANKS "failed_ranks" /* [] {"rank", "host", "error"} */
#define FF_FLEET_RANK         "rank"
#define FF_FLEET_HOST         "host"
#define FF_FLEET_LOCAL_RANK   "local_rank"
#define FF_FLEET_DEVICES      "devices" /* [] this rank's share, one object per device: */
#define FF_FLEET_DEVICE       "device"  /*    "opencl:0" */
#define FF_FLEET_PROFILE      "profile" /*    its profile in full (when it opened) */
#define FF_FLEET_PATH         "path"    /*    where the rank wrote it (when it did) */
#define FF_FLEET_STATUS       "status"  /* a rank's or device's: ok, no_device, failed */
#define FF_FLEET_ERROR        "error"   /* why a rank or device failed */
#define FF_FLEET_NAME         "name"    /* a host's name */

/* True when this flopfit was built with MPI. */
bool ff_fleet_built(void);

/* The message of a build without MPI: what is missing and how to get it. */
void ff_fleet_no_mpi_message(char *dst, size_t n);

/*
 * The options a fleet's ranks must share, as canonical text (fleet_config.c): one
 * "--option=value" line each, in a fixed order; the output paths, the report format and the
 * seed are left out. FF_ERR_RANGE when n is too small (dst holds the lines that fit).
 */
int ff_fleet_config_text(const struct ff_run_config *rc, char *dst, size_t n);

/* Whether two such texts differ; if so `what` gets the first differing option and both
 * values: '--quick ("no" against "yes")'. */
bool ff_fleet_config_diff(const char *a, const char *b, char *what, size_t n);

/* Runs this rank of the fleet; returns the process's exit code (rank 0: the fleet's). Before
 * any collective of the run, rank 0 sends its ff_fleet_config_text to every rank; when any
 * rank's differs, every rank says which option and exits 2. */
int ff_fleet_bench(const struct ff_run_config *rc);

#endif
