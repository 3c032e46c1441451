/*
 * results/src/load.c — profiles in: files and folders to runs, each run's figures read from
 * its tests through the public profile reader (flopfit/profile.h).
 *
 * A metric's figure is the best test that is "ok", carries a value in the metric's unit and
 * was verified (latency has nothing to verify: its tests count when ok). When no test is ok
 * the figure is unsupported or failed, with every distinct "impl: reason" of its tests, so a
 * table can say why instead of printing 0.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <flopfit/precision.h>
#include <flopfit/status.h>

#include "results_impl.h"

static const struct ff_pub_metric_info metrics[FF_PUB_METRIC_COUNT] = {
    [FF_PUB_FP32] = {"fp32", "fp32 matmul", FF_PF_FAMILY_MATMUL, NULL, FF_PREC_FP32,
                     FF_PF_UNIT_FLOPS, false},
    [FF_PUB_FP16] = {"fp16", "fp16 matmul", FF_PF_FAMILY_MATMUL, NULL, FF_PREC_FP16,
                     FF_PF_UNIT_FLOPS, false},
    [FF_PUB_INT8] = {"int8", "int8 matmul", FF_PF_FAMILY_MATMUL, NULL, FF_PREC_INT8, FF_PF_UNIT_OPS,
                     false},
    [FF_PUB_USABLE] = {"usable_memory", "usable memory", FF_PF_FAMILY_MEMORY, "usable", -1,
                       FF_PF_UNIT_BYTES, false},
    [FF_PUB_READ] = {"read_bandwidth", "read bandwidth", FF_PF_FAMILY_BANDWIDTH, "read", -1,
                     FF_PF_UNIT_BYTES_PER_S, false},
    [FF_PUB_UPLOAD] = {"upload", "host to device", FF_PF_FAMILY_TRANSFER,
                       "upload_pageable upload_pinned", -1, FF_PF_UNIT_BYTES_PER_S, false},
    [FF_PUB_DOWNLOAD] = {"download", "device to host", FF_PF_FAMILY_TRANSFER,
                         "download_pageable download_pinned", -1, FF_PF_UNIT_BYTES_PER_S, false},
    [FF_PUB_LAUNCH] = {"launch_latency", "launch latency", FF_PF_FAMILY_LATENCY, "launch", -1,
                       FF_PF_UNIT_SECONDS, true},
    [FF_PUB_PEAK_FP32] = {"peak_fp32", "fp32 arithmetic peak", FF_PF_FAMILY_PEAK, "peak",
                          FF_PREC_FP32, FF_PF_UNIT_FLOPS, false},
    [FF_PUB_PEAK_FP16] = {"peak_fp16", "fp16 arithmetic peak", FF_PF_FAMILY_PEAK, "peak",
                          FF_PREC_FP16, FF_PF_UNIT_FLOPS, false},
    [FF_PUB_PEAK_INT8] = {"peak_int8", "int8 arithmetic peak", FF_PF_FAMILY_PEAK, "peak",
                          FF_PREC_INT8, FF_PF_UNIT_OPS, false},
};

const struct ff_pub_metric_info *ff_pub_metrics(void)
{
    return metrics;
}

void ff_pub_options_init(struct ff_pub_options *o)
{
    memset(o, 0, sizeof(*o));
    o->estimate = true;
}

int ff_pub_set_create(struct ff_pub_set **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? FF_OK : FF_ERR_NO_MEMORY;
}

void ff_pub_set_destroy(struct ff_pub_set **setp)
{
    struct ff_pub_set *set = setp ? *setp : NULL;
    if (!set)
        return;
    for (size_t i = 0; i < set->n_runs; i++) {
        free(set->runs[i].path);
        ff_profile_close(&set->runs[i].doc);
    }
    for (size_t i = 0; i < set->n_devices; i++) {
        free(set->devices[i].runs);
        free(set->devices[i].ops);
    }
    for (size_t i = 0; i < set->n_skipped; i++) {
        free(set->skipped[i].path);
        free(set->skipped[i].reason);
    }
    for (size_t i = 0; i < set->notes.n; i++)
        free(set->notes.text[i]);
    free(set->notes.text);
    free(set->note_slots);
    free(set->runs);
    free(set->devices);
    free(set->skipped);
    free(set);
    *setp = NULL;
}

/* Is `word` one of the space-separated words of `list`? */
static bool word_in(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && memcmp(p, word, n) == 0)
            return true;
        p += len;
        while (*p == ' ')
            p++;
    }
    return false;
}

/* Append "who: why" to a "; "-separated list unless it is there already. */
static void add_reason(char *dst, size_t n, const char *who, const char *why)
{
    char item[FF_PUB_REASON_MAX];
    snprintf(item, sizeof(item), "%s: %s", who, why && *why ? why : "no reason given");
    if (strstr(dst, item))
        return;
    size_t len = strlen(dst);
    snprintf(dst + len, n - len, "%s%s", len ? "; " : "", item);
}

static double spread_of(const struct ff_profile_times *t)
{
    return t->present && t->median_s > 0 ? (t->max_s - t->min_s) / t->median_s : 0.0;
}

static void read_figure(const struct ff_profile_doc *doc, enum ff_pub_metric m,
                        struct ff_pub_figure *f)
{
    const struct ff_pub_metric_info *mi = &metrics[m];
    bool matched = false, failed = false;
    memset(f, 0, sizeof(*f));
    for (size_t i = 0; i < ff_profile_test_count(doc); i++) {
        const struct ff_profile_test *t = ff_profile_test_at(doc, i);
        if (strcmp(t->family, mi->family) != 0 || (mi->names && !word_in(mi->names, t->name)) ||
            (mi->prec >= 0 && t->prec != mi->prec))
            continue;
        matched = true;
        bool trusted = t->verified || strcmp(t->family, FF_PF_FAMILY_LATENCY) == 0;
        const char *who =
            t->impl && strcmp(t->family, FF_PF_FAMILY_MATMUL) == 0 ? t->impl : t->name;
        if (t->status == FF_PROFILE_TEST_OK && t->has_value && t->unit &&
            strcmp(t->unit, mi->unit) == 0 && trusted) {
            bool better = f->state != FF_PUB_OK ||
                          (mi->lower_is_better ? t->value < f->value : t->value > f->value);
            if (better) {
                f->state = FF_PUB_OK;
                f->value = f->min = f->max = t->value;
                f->runs = 1;
                f->impl = t->impl;
                f->name = t->name;
                f->size = t->n;
                f->noise = t->device_time_s.present ? spread_of(&t->device_time_s)
                                                    : spread_of(&t->wall_time_s);
                f->capped = t->capped;
                f->time_limited = t->time_limited;
                f->cap_bytes = t->cap_bytes;
            }
            continue;
        }
        if (t->status == FF_PROFILE_TEST_UNSUPPORTED) {
            add_reason(f->reason, sizeof(f->reason), who, t->reason);
            continue;
        }
        failed = true;
        if (t->status == FF_PROFILE_TEST_OK)
            add_reason(f->reason, sizeof(f->reason), who,
                       trusted ? "ok without a figure in the expected unit" : "not verified");
        else
            add_reason(f->reason, sizeof(f->reason), who, t->reason ? t->reason : t->status_text);
    }
    if (f->state == FF_PUB_OK)
        f->reason[0] = 0;
    else if (matched)
        f->state = failed ? FF_PUB_FAILED : FF_PUB_UNSUPPORTED;
}

/* "0.1" from "0.1.0": the part of flopfit's version a grouping key holds ("" unknown). */
static void tool_minor(const char *version, char *dst, size_t n)
{
    size_t len = 0;
    int dots = 0;
    for (const char *p = version ? version : ""; *p && len + 1 < n; p++) {
        if (*p == '.' && ++dots == 2)
            break;
        dst[len++] = *p;
    }
    dst[len] = 0;
}

static int skip(struct ff_pub_set *set, const char *path, const char *reason)
{
    struct ff_pub_skip *s = realloc(set->skipped, (set->n_skipped + 1) * sizeof(*s));
    if (!s)
        return FF_ERR_NO_MEMORY;
    set->skipped = s;
    s[set->n_skipped].path = strdup(path);
    s[set->n_skipped].reason = strdup(reason);
    if (!s[set->n_skipped].path || !s[set->n_skipped].reason) {
        free(s[set->n_skipped].path);
        free(s[set->n_skipped].reason);
        return FF_ERR_NO_MEMORY;
    }
    set->n_skipped++;
    return FF_OK;
}

static int add_file(struct ff_pub_set *set, const char *path)
{
    char msg[1024];
    struct ff_profile_doc *doc = NULL;
    set->n_found++;
    int rc = ff_profile_open(path, &doc, msg, sizeof(msg));
    if (rc == FF_ERR_NO_MEMORY)
        return rc;
    if (rc != FF_OK)
        return skip(set, path, msg);
    if (set->n_runs == set->runs_cap) {
        size_t cap = set->runs_cap ? 2 * set->runs_cap : 16;
        struct ff_pub_run *runs = realloc(set->runs, cap * sizeof(*runs));
        if (!runs) {
            ff_profile_close(&doc);
            return FF_ERR_NO_MEMORY;
        }
        set->runs = runs;
        set->runs_cap = cap;
    }
    struct ff_pub_run *r = &set->runs[set->n_runs];
    memset(r, 0, sizeof(*r));
    r->path = strdup(path);
    if (!r->path) {
        ff_profile_close(&doc);
        return FF_ERR_NO_MEMORY;
    }
    r->doc = doc;
    r->info = ff_profile_info(doc);
    for (int m = 0; m < FF_PUB_METRIC_COUNT; m++)
        read_figure(doc, (enum ff_pub_metric)m, &r->fig[m]);
    /* a 1.0 profile does not say how it was run: never guessed from its sizes */
    r->kind = r->info->run_kind && *r->info->run_kind ? r->info->run_kind : "unrecorded";
    tool_minor(r->info->tool_version, r->tool_minor, sizeof(r->tool_minor));
    r->order = set->n_runs;
    /* The estimator's own reading of the same file (usable-memory lower bounds, bf16 from
     * fp16): the "serves" column and the roofline points use exactly what `estimate
     * --profile` would. A profile it cannot plan with still gets its table row. */
    ff_spec_init(&r->spec);
    r->has_spec = ff_spec_from_profile(path, &r->spec, msg, sizeof(msg)) == FF_OK;
    set->n_runs++;
    return FF_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_dir(struct ff_pub_set *set, const char *dir, int depth, char *err, size_t errlen)
{
    if (depth > 16)
        return FF_OK; /* deeper than any results layout: a loop or a mistake, not profiles */
    DIR *d = opendir(dir);
    if (!d)
        return ff_errf(err, errlen, FF_ERR_IO, "%s: cannot read the folder: %s", dir,
                       strerror(errno));
    char **names = NULL;
    size_t n = 0;
    int rc = FF_OK;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (n + 1) * sizeof(*names));
        if (!grown || !(grown[n] = strdup(e->d_name))) {
            names = grown ? grown : names;
            rc = FF_ERR_NO_MEMORY;
            break;
        }
        names = grown;
        n++;
    }
    closedir(d);
    if (rc == FF_OK && n > 1)
        qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n && rc == FF_OK; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *path = malloc(len);
        if (!path) {
            rc = FF_ERR_NO_MEMORY;
            break;
        }
        snprintf(path, len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
        struct stat st;
        /* lstat: a link to a folder is not followed (no loops); a link to a file is read */
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            rc = add_dir(set, path, depth + 1, err, errlen);
        else if (strlen(names[i]) > 5 && strcmp(names[i] + strlen(names[i]) - 5, ".json") == 0 &&
                 !(strlen(names[i]) > 12 &&
                   strcmp(names[i] + strlen(names[i]) - 12, ".schema.json") == 0))
            rc = add_file(set, path); /* results/profile.schema.json is no profile */
        free(path);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int ff_pub_set_add(struct ff_pub_set *set, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return add_dir(set, path, 0, err, errlen);
    return add_file(set, path);
}

const char *ff_pub_run_path(const struct ff_pub_set *set, const struct ff_pub_run *r)
{
    size_t n = strlen(set->base);
    if (n && strncmp(r->path, set->base, n) == 0 && r->path[n] == '/')
        return r->path + n + 1;
    return r->path;
}
