/*
 * tests/noclose_shim.c — LD_PRELOADed into every test process (tests/meson.build; built
 * without the sanitizers so that it loads into any process): dlclose keeps the
 * library mapped. The Vulkan loader unloads its driver at vkDestroyInstance and Open MPI its
 * components (mca_*.so) at MPI_Finalize, so the allocations they keep until exit show in
 * LeakSanitizer's report with "<unknown module>" frames that no suppression can name; mapped,
 * they read as libvulkan_lvp.so or mca_*.so, which the lsan.supp files match. flopfit itself
 * never calls dlclose on its path.
 */
int dlclose(void *handle);

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
