/*
 * tests/probes/bench_bandwidth_peer.c — our read bandwidth beside the
 * clpeak method, in the same process, on OpenCL device 0.
 *
 * clpeak is not packaged in Debian 12, so this reproduces its global-memory
 * test: a power-of-two float buffer up to the max allocation (here at most
 * 1 GiB), 16 loads per work-item with a global or a local-size offset,
 * float4/8/16 vectors, the largest work-group; its figure is the best of
 * those kernels. Rounds alternate peer and ours so both see the same load.
 * Exit status 1 when ours is below the peer's by more than 10%.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char *peer_src =
    "float r4(float4 s) { return s.x + s.y + s.z + s.w; }\n"
    "float r8(float8 s) { return r4(s.lo + s.hi); }\n"
    "float r16(float16 s) { return r8(s.lo + s.hi); }\n"
    "#define GLOBAL(T, R) __kernel void g_##T(__global const T *a, __global float *o) {\\\n"
    "  size_t id = get_global_id(0), gs = get_global_size(0); T s = (T)(0);\\\n"
    "  for (int i = 0; i < 16; i++) { s += a[id]; id += gs; }\\\n"
    "  o[get_global_id(0)] = R(s); }\n"
    "#define LOCAL(T, R) __kernel void l_##T(__global const T *a, __global float *o) {\\\n"
    "  size_t ls = get_local_size(0), id = get_group_id(0) * ls * 16 + get_local_id(0);\\\n"
    "  T s = (T)(0);\\\n"
    "  for (int i = 0; i < 16; i++) { s += a[id]; id += ls; }\\\n"
    "  o[get_global_id(0)] = R(s); }\n"
    "GLOBAL(float4, r4) GLOBAL(float8, r8) GLOBAL(float16, r16)\n"
    "LOCAL(float4, r4) LOCAL(float8, r8) LOCAL(float16, r16)\n";

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median GB/s of the best clpeak-style kernel; 0 on any error. */
static double peer_round(cl_context ctx, cl_command_queue q, cl_program prog, cl_mem a, cl_mem o,
                         size_t bytes, size_t wg)
{
    static const char *names[] = {"g_float4", "g_float8", "g_float16",
                                  "l_float4", "l_float8", "l_float16"};
    static const size_t width[] = {4, 8, 16, 4, 8, 16};
    double best = 0;
    (void)ctx;
    for (int k = 0; k < 6; k++) {
        cl_int rc;
        cl_kernel kern = clCreateKernel(prog, names[k], &rc);
        if (!kern)
            return 0;
        clSetKernelArg(kern, 0, sizeof(a), &a);
        clSetKernelArg(kern, 1, sizeof(o), &o);
        size_t global = bytes / 4 / width[k] / 16, local = wg;
        while (global % local)
            local /= 2;
        double t[6];
        int n = 0;
        for (int r = 0; r < 7; r++) {
            cl_event ev;
            if (clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, &local, 0, NULL, &ev))
                break;
            clWaitForEvents(1, &ev);
            cl_ulong t0 = 0, t1 = 0;
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL);
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL);
            clReleaseEvent(ev);
            if (r > 0) /* the first run warms up */
                t[n++] = (double)(t1 - t0) * 1e-9;
        }
        clReleaseKernel(kern);
        if (n == 0)
            continue;
        qsort(t, (size_t)n, sizeof(t[0]), cmp);
        double gbs = (double)bytes / t[n / 2] * 1e-9;
        if (gbs > best)
            best = gbs;
    }
    return best;
}

static double ours_round(struct ff_device *dev, const struct ff_bench_cfg *cfg, double *limit)
{
    struct ff_run p = {0};
    ff_probe_bandwidth(dev, cfg, &p);
    double v = 0;
    for (size_t i = 0; i < p.n_results; i++) {
        const struct ff_result *r = &p.results[i];
        if (!strcmp(r->name, "read")) {
            if (r->status == FF_RES_OK)
                v = r->value * 1e-9;
            else
                fprintf(stderr, "our read: %s\n", r->reason);
            for (size_t e = 0; e < r->n_extra; e++)
                if (!strcmp(r->extra[e].key, "limit_bytes_per_s"))
                    *limit = r->extra[e].value * 1e-9;
        }
    }
    ff_run_finish(&p);
    return v;
}

int main(void)
{
    cl_platform_id plat;
    cl_device_id did;
    cl_uint np = 0;
    if (clGetPlatformIDs(1, &plat, &np) != CL_SUCCESS || np == 0 ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &did, NULL) != CL_SUCCESS) {
        fprintf(stderr, "no OpenCL device\n");
        return 77;
    }
    cl_ulong max_alloc = 0;
    size_t max_wg = 256;
    clGetDeviceInfo(did, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc, NULL);
    clGetDeviceInfo(did, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg, NULL);
    size_t bytes = 1;
    while (bytes * 2 <= max_alloc && bytes * 2 <= (1u << 30))
        bytes *= 2;

    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &did, NULL, NULL, &rc);
    cl_command_queue q = clCreateCommandQueue(ctx, did, CL_QUEUE_PROFILING_ENABLE, &rc);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &peer_src, NULL, &rc);
    if (clBuildProgram(prog, 1, &did, "", NULL, NULL) != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(prog, did, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
        fprintf(stderr, "peer kernels do not build:\n%s\n", log);
        return 1;
    }
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &rc);
    cl_mem o = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, bytes / 16, NULL, &rc);
    float *h = malloc(bytes);
    for (size_t i = 0; i < bytes / 4; i++)
        h[i] = (float)(i % 1024) * 0.001f;
    clEnqueueWriteBuffer(q, a, CL_TRUE, 0, bytes, h, 0, NULL, NULL);
    free(h);

    struct ff_device *dev = NULL;
    char err[512] = "";
    if (ff_device_open(ff_backend_find("opencl"), 0, &dev, err, sizeof(err)) < 0) {
        fprintf(stderr, "flopfit: %s\n", err);
        return 1;
    }
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    cfg.measure.budget_s = 0.5;

    double peer[3], ours[3], limit = 0;
    for (int r = 0; r < 3; r++) {
        peer[r] = peer_round(ctx, q, prog, a, o, bytes, max_wg);
        ours[r] = ours_round(dev, &cfg, &limit);
        printf("round %d: clpeak-method read %.1f GB/s (%zu MiB buffer), flopfit read %.1f GB/s\n",
               r + 1, peer[r], bytes >> 20, ours[r]);
    }
    qsort(peer, 3, sizeof(double), cmp);
    qsort(ours, 3, sizeof(double), cmp);
    printf("%s: clpeak method %.1f GB/s, flopfit %.1f GB/s (%.2fx); physical limit %.1f GB/s\n",
           ff_device_info(dev)->name, peer[1], ours[1], ours[1] / peer[1], limit);
    ff_device_destroy(&dev);
    clReleaseMemObject(o);
    clReleaseMemObject(a);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return ours[1] >= 0.9 * peer[1] ? 0 : 1;
}
