/*
 * tests/bench/test_no_mpi.c — a flopfit built without MPI (bench/fleet_none.c): `bench --mpi`
 * says what is missing and how to get it, and exits 2.
 */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "fleet.h"

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
    struct ff_bench_opts o;
    memset(&o, 0, sizeof(o));
    o.mpi = true;
    cr_expect_eq(ff_fleet_bench(&o), 2);
    fflush(stderr);
    cr_expect_stderr_neq_str("");
}
