/*
 * estimate/util/bounds.c — the physical limits a measured figure must stay under, from what a
 * device reports (type, compute units, clock). The bench refuses a rate past them as it
 * measures; `flopfit results submit` refuses a profile that files one. Here, below both, so
 * the two read one definition from the same device facts.
 */
#include <stdio.h>
#include <string.h>

#include "ff_util.h"

double ff_bound_matmul_rate(const char *type, uint64_t compute_units, uint64_t clock_mhz,
                            uint64_t host_cpus, enum ff_precision p, char *why, size_t whylen)
{
    const char *unit = p == FF_PREC_INT8 ? "OP" : "FLOP";
    const int pi = p == FF_PREC_FP32 ? 0 : p == FF_PREC_FP16 ? 1 : 2;
    if (type && strcmp(type, "cpu") == 0 && (compute_units || host_cpus)) {
        static const double per_cycle[3] = {64, 128, 256};
        double units = compute_units ? (double)compute_units : (double)host_cpus;
        double hz = clock_mhz ? 2e6 * (double)clock_mhz : 6.5e9;
        snprintf(why, whylen,
                 "CPU: %.0f %s x %.2f GHz (%s) x %.0f %s/cycle (two 512-bit FMA or VNNI units)",
                 units, compute_units ? "compute units" : "host CPUs", hz * 1e-9,
                 clock_mhz ? "2x the reported clock" : "clock unknown", per_cycle[pi], unit);
        return units * hz * per_cycle[pi];
    }
    if (compute_units == 0) {
        static const double abs_lim[3] = {1e15, 20e15, 40e15};
        snprintf(why, whylen, "%.0f P%s/s, above any device shipping (no compute-unit count)",
                 abs_lim[pi] * 1e-15, unit);
        return abs_lim[pi];
    }
    static const double per_cycle[3] = {1024, 16384, 32768};
    double hz = clock_mhz ? 2e6 * (double)clock_mhz : 3e9;
    snprintf(why, whylen,
             "%llu compute units x %.2f GHz (%s) x %.0f %s/cycle (4x the densest matrix engine)",
             (unsigned long long)compute_units, hz * 1e-9,
             clock_mhz ? "2x the reported clock" : "clock unknown", per_cycle[pi], unit);
    return (double)compute_units * hz * per_cycle[pi];
}

double ff_bound_bandwidth(bool host_shared_memory, double host_read_bytes_per_s, char *why,
                          size_t whylen)
{
    if (host_shared_memory && host_read_bytes_per_s >= 0) {
        /*
         * The device streams through the host's memory, so the host's own streaming rate
         * bounds it. The measurement shares the machine with whatever else runs, so the bound
         * is generous (4x) and never below dual-channel DDR4-3200 (51.2 GB/s), the slowest
         * memory of this class.
         */
        double host = host_read_bytes_per_s;
        double lim = 4 * host > 51.2e9 ? 4 * host : 51.2e9;
        if (host > 0)
            snprintf(why, whylen,
                     "host memory: 4x the host's measured streaming read of %.1f GB/s, "
                     "at least 51.2 GB/s",
                     host * 1e-9);
        else
            snprintf(why, whylen, "host memory: 51.2 GB/s, host bandwidth not measurable");
        return lim;
    }
    snprintf(why, whylen, "10 TB/s, above any HBM/GDDR device memory");
    return 10e12;
}
