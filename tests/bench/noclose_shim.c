/*
 * tests/bench/noclose_shim.c — LD_PRELOADed into the MPI tests' ranks: dlclose keeps the
 * library mapped. Open MPI unloads its components (mca_*.so) at MPI_Finalize, so the
 * allocations they keep until exit show in LeakSanitizer's report with "<unknown module>"
 * frames that no suppression can name; mapped, they read as mca_*.so and
 * tests/bench/lsan-mpi.supp matches them. flopfit itself never calls dlclose on its path.
 */
int dlclose(void *handle);

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
