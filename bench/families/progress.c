/* bench/families/progress.c — progress lines, formatted here and handed to the run's callback. */
#include <stdarg.h>
#include <stdio.h>

#include "bench.h"

void ff_progress(const struct ff_bench_cfg *cfg, const char *fmt, ...)
{
    if (!cfg->progress)
        return;
    char line[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    cfg->progress(cfg->progress_ctx, line);
}
