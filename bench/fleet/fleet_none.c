/* bench/fleet/fleet_none.c — `flopfit bench --mpi` in a build without MPI (bench/fleet/fleet.h). */
#include <stdio.h>

#include "fleet.h"

bool ff_fleet_built(void)
{
    return false;
}

void ff_fleet_no_mpi_message(char *dst, size_t n)
{
    snprintf(dst, n,
             "--mpi: this flopfit was built without MPI. Install an MPI (Debian/Ubuntu: "
             "apt-get install openmpi-bin libopenmpi-dev), then reconfigure and rebuild "
             "(meson setup --reconfigure build -Dmpi=enabled && ninja -C build) and run it as "
             "`mpirun -np N flopfit bench --mpi ...`");
}

int ff_fleet_bench(const struct ff_run_config *rc)
{
    (void)rc;
    char msg[512];
    ff_fleet_no_mpi_message(msg, sizeof(msg));
    fprintf(stderr, "flopfit bench: %s\n", msg);
    return 2;
}
