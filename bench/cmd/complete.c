/*
 * bench/cmd/complete.c — the words a shell completes after an option, read from the tables
 * the parsers and --help read: the backends built in, the --format writers, the families, the
 * precisions and the results columns; estimate's own tables come in as a function
 * (ff_estcli_option_words, passed by main.c).
 * scripts/gen-completion.py turns `flopfit complete-words` into the bash completion file.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <flopfit/model.h>

#include "backend.h"
#include "device_options.h"
#include "cli.h"
#include "commands.h"
#include "families/families.h"
#include "results.h"
#include "writers.h"

#define MAX_WORDS 256

struct words {
    const char *w[MAX_WORDS];
    size_t n;
};

static void add(struct words *ws, const char *w)
{
    if (ws->n < MAX_WORDS)
        ws->w[ws->n++] = w;
}

/* The precisions `--precision` of bench (every format: the unmeasured ones are reported
 * unsupported) or of tune (those with a matmul kernel). */
static void precisions(struct words *ws, bool kernels_only)
{
    for (int p = 0; p < FF_PREC_COUNT; p++)
        if (!kernels_only || ff_matmul_has_kernel((enum ff_precision)p))
            add(ws, ff_precision_name((enum ff_precision)p));
    add(ws, "all");
}

static void values(const char *command, const char *option, struct words *ws)
{
    bool results = strcmp(command, "results") == 0;
    if (strcmp(option, "backend") == 0) {
        for (const struct ff_backend *const *b = ff_backends(); *b; b++)
            add(ws, ff_backend_name(*b));
        add(ws, "all");
    } else if (strcmp(option, "format") == 0 && results) {
        for (const struct ff_pub_writer *w = ff_pub_writers(); w->name; w++)
            add(ws, w->name);
    } else if (strcmp(option, "format") == 0) {
        for (const struct ff_bench_writer *w = ff_bench_writers(); w->name; w++)
            add(ws, w->name);
    } else if (strcmp(option, "precision") == 0) {
        precisions(ws, strcmp(command, "tune") == 0);
    } else if (strcmp(option, "only") == 0) {
        for (const struct ff_family *f = ff_families(); f->name; f++)
            add(ws, f->name);
        add(ws, "all");
    } else if (strcmp(option, "weights") == 0 || strcmp(option, "kv") == 0) {
        /* bench --model: the op kernels' weight or KV formats */
        bool kv = strcmp(option, "kv") == 0;
        for (int p = 0; p < FF_PREC_COUNT; p++)
            if (kv ? ff_op_kv_format((enum ff_precision)p)
                   : ff_op_gemv_format((enum ff_precision)p))
                add(ws, ff_precision_name((enum ff_precision)p));
    } else if (strcmp(option, "model") == 0 && !results) {
        size_t n = 0;
        const struct ff_model_preset *presets = ff_model_presets(&n);
        for (size_t i = 0; i < n; i++)
            add(ws, presets[i].slug);
    } else if (strcmp(option, "override") == 0) {
        for (size_t i = 0; ff_device_option_at(i); i++)
            add(ws, ff_device_option_at(i)->name);
    } else if (strcmp(option, "sort") == 0 && results) {
        size_t n = 0;
        const struct ff_pub_column *cols = ff_pub_columns(&n);
        for (size_t i = 0; i < n; i++)
            add(ws, cols[i].id);
    }
}

void ff_complete_print(FILE *f, const char *command, const struct option *opts,
                       ff_option_words_fn words)
{
    for (const struct option *o = opts; o->name; o++) {
        fprintf(f, "--%s%s", o->name, o->has_arg == required_argument ? "=" : "");
        struct words ws = {.n = 0};
        if (o->has_arg == required_argument && words)
            ws.n = words(o->name, ws.w, MAX_WORDS);
        if (o->has_arg == required_argument && ws.n == 0)
            values(command, o->name, &ws);
        for (size_t i = 0; i < ws.n; i++)
            fprintf(f, " %s", ws.w[i]);
        fputc('\n', f);
    }
}

void ff_complete_environment(FILE *f)
{
    for (size_t i = 0; ff_device_option_at(i); i++) {
        const struct ff_device_option_desc *d = ff_device_option_at(i);
        fprintf(f, "%s\t%s\t%s\t%s\n", d->env, d->name, d->backend ? d->backend : "all", d->format);
    }
}
