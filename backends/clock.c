/*
 * backends/clock.c — the monotonic clock every wall-time figure of the backends and bench/
 * is taken from (ff_now_ns, backend.h).
 */
#include <time.h>

#include "backend_impl.h"

uint64_t ff_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
