/* bench/check/host.h — facts about the host machine for profiles and memory caps. */
#ifndef FF_HOST_H
#define FF_HOST_H

#include <stdint.h>

struct ff_host {
    char os[128];
    char kernel[256];
    char cpu[128];
    uint32_t cpus;
    uint64_t ram_bytes;
    uint64_t available_bytes; /* MemAvailable now */
};

void ff_host_read(struct ff_host *h);
/* MemAvailable from /proc/meminfo in bytes; 0 when unknown. */
uint64_t ff_host_available_bytes(void);

#endif
