/* bench/probe_latency.c — placeholder until the probe lands. */
#include "bench.h"

void ff_probe_latency(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_profile *p)
{
    (void)dev;
    (void)cfg;
    (void)p;
}
