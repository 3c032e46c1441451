/* bench/check/host.c — OS, kernel, CPU and memory of the host. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host.h"

static void strip(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '"' || s[n - 1] == ' '))
        s[--n] = 0;
}

static uint64_t meminfo_kb(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    size_t klen = strlen(key);
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            sscanf(line + klen + 1, "%llu", &kb);
            break;
        }
    }
    fclose(f);
    return (uint64_t)kb;
}

uint64_t ff_host_available_bytes(void)
{
    return meminfo_kb("MemAvailable") * 1024;
}

void ff_host_read(struct ff_host *h)
{
    memset(h, 0, sizeof(*h));
    snprintf(h->os, sizeof(h->os), "unknown");
    snprintf(h->cpu, sizeof(h->cpu), "unknown");
    char line[512];
    FILE *f = fopen("/etc/os-release", "r");
    if (f) {
        while (fgets(line, sizeof(line), f)) {
            if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
                char *v = line + 12 + (line[12] == '"');
                strip(v);
                snprintf(h->os, sizeof(h->os), "%s", v);
            }
        }
        fclose(f);
    }
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(h->kernel, sizeof(h->kernel), "%s %s %s", u.sysname, u.release, u.machine);
    f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof(line), f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *v = strchr(line, ':');
                if (v) {
                    v += 1 + (v[1] == ' ');
                    strip(v);
                    snprintf(h->cpu, sizeof(h->cpu), "%s", v);
                }
                break;
            }
        }
        fclose(f);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->cpus = n > 0 ? (uint32_t)n : 1;
    h->ram_bytes = meminfo_kb("MemTotal") * 1024;
    h->available_bytes = meminfo_kb("MemAvailable") * 1024;
}
