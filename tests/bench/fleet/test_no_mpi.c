/*
 * tests/bench/fleet/test_no_mpi.c — a flopfit built without MPI (bench/fleet/fleet_none.c): `bench --mpi`
 * says what is missing and how to get it, and exits 2.
 */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "fleet/fleet.h"

Test(no_mpi, names_the_packages_and_the_reconfigure)
{
    cr_expect(!ff_fleet_built());
    char msg[512];
    ff_fleet_no_mpi_message(msg, sizeof(msg));
    cr_expect(strstr(msg, "built without MPI"), "%s", msg);
    cr_expect(strstr(msg, "openmpi-bin libopenmpi-dev"), "%s", msg);
    cr_expect(strstr(msg, "reconfigure") && strstr(msg, "-Dmpi=enabled"), "%s", msg);
    cr_expect(strstr(msg, "mpirun -np N flopfit bench --mpi"), "%s", msg);
}

Test(no_mpi, bench_mpi_exits_2, .init = cr_redirect_stderr)
{
    struct ff_run_config rc;
    memset(&rc, 0, sizeof(rc));
    cr_expect_eq(ff_fleet_bench(&rc), 2);
    fflush(stderr);
    cr_expect_stderr_neq_str("");
}
