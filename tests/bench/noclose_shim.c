/*
 * tests/bench/noclose_shim.c — LD_PRELOADed into the tests: dlclose keeps the library mapped.
 * A library unloaded before exit (Open MPI's components at MPI_Finalize, lavapipe at
 * vkDestroyInstance) leaves the allocations it keeps until exit in LeakSanitizer's report with
 * "<unknown module>" frames that no suppression can name; mapped, they read as the library
 * (tests/bench/lsan-mpi.supp matches mca_*.so) or stay reachable from its data. flopfit itself
 * never calls dlclose on its path. Built twice: with the sanitizers for the MPI tests' ranks
 * (tests/bench/meson.build), without them for every test process (tests/meson.build).
 */
int dlclose(void *handle);

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
