/*
 * tests/bench/families/clblast_params.cc — which parameters CLBlast's SGEMM runs with on a device, for
 * the matmul benchmark's peer line. CLBlast exposes its database lookup only in C++
 * (clblast::RetrieveParameters, clblast.h since 1.5); this file wraps it for the C benchmark.
 * The values are CLBlast's database entry for the device, or its built-in defaults where the
 * database has none (CLBlast does not say which; the benchmark prints both possibilities).
 */
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <clblast.h>

extern "C" int ff_bench_clblast_params(const char *device_name, char *buf, size_t n);

static cl_device_id find_device(const char *name)
{
    cl_uint np = 0;
    if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0)
        return nullptr;
    std::vector<cl_platform_id> plats(np);
    clGetPlatformIDs(np, plats.data(), nullptr);
    for (cl_platform_id p : plats) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0)
            continue;
        std::vector<cl_device_id> devs(nd);
        clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devs.data(), nullptr);
        for (cl_device_id d : devs) {
            char dn[256] = "";
            clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof(dn) - 1, dn, nullptr);
            if (std::strcmp(dn, name) == 0)
                return d;
        }
    }
    return nullptr;
}

/* "Xgemm: GEMMK=0 KREG=1 ...; XgemmDirect: ...; GemmRoutine: XGEMM_MIN_INDIRECT_SIZE=..." into
 * buf; 0, or -1 with the reason in buf. */
int ff_bench_clblast_params(const char *device_name, char *buf, size_t n)
{
    cl_device_id dev = find_device(device_name);
    if (!dev) {
        std::snprintf(buf, n, "device \"%s\" not found by CLBlast's OpenCL", device_name);
        return -1;
    }
    std::string out;
    for (const char *kernel : {"GemmRoutine", "Xgemm", "XgemmDirect"}) {
        std::unordered_map<std::string, size_t> params;
        clblast::StatusCode st =
            clblast::RetrieveParameters(dev, kernel, clblast::Precision::kSingle, params);
        if (!out.empty())
            out += "; ";
        out += kernel;
        out += ":";
        if (st != clblast::StatusCode::kSuccess) {
            out += " (status " + std::to_string(static_cast<int>(st)) + ")";
            continue;
        }
        std::map<std::string, size_t> sorted(params.begin(), params.end());
        for (const auto &kv : sorted)
            out += " " + kv.first + "=" + std::to_string(kv.second);
    }
    std::snprintf(buf, n, "%s", out.c_str());
    return 0;
}
