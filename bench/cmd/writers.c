/* bench/cmd/writers.c — the output formats of `flopfit bench`. */
#include "ff_util.h"
#include "report.h"
#include "writers.h"

static void write_table(FILE *f, const struct ff_bench_output *out)
{
    ff_report_header(f, out->label, &out->profile->info);
    ff_report_table(f, out->profile);
}

static void write_json(FILE *f, const struct ff_bench_output *out)
{
    fprintf(f, "%s\n", out->json);
}

static const struct ff_bench_writer writers[] = {
    {"table", "a table per device, one line a test (default)", write_table},
    {"json", "the profile of each device, one JSON object per device", write_json},
    {NULL, NULL, NULL},
};

const struct ff_bench_writer *ff_bench_writers(void)
{
    return writers;
}

const struct ff_bench_writer *ff_bench_writer_find(const char *name)
{
    for (const struct ff_bench_writer *w = writers; name && w->name; w++)
        if (ff_streq_ci(w->name, name))
            return w;
    return NULL;
}
