/*
 * results/src/serve.c — what libflopfit's estimator says about a measured device: its
 * datasheet entry (when the catalog knows it), the largest preset it serves on its own, and
 * the operating points of a few models' decode steps for the roofline.
 *
 * Everything comes from ff_est_run on the device's ff_spec (ff_spec_from_profile, the same
 * reading as `flopfit estimate --profile`), so the table and `estimate` never disagree.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <flopfit/estimate.h>
#include <flopfit/model.h>
#include <flopfit/status.h>

#include "results_impl.h"

const char *ff_pub_serve_plan_text(void)
{
    return "one device, 4096 tokens of context (3840 prompt + 256 generated), batch 1";
}

/* Lower-case alphanumeric words of s into words[]; returns the count. */
static size_t words_of(const char *s, char words[][32], size_t max)
{
    size_t n = 0, len = 0;
    for (const char *p = s;; p++) {
        if (*p && isalnum((unsigned char)*p)) {
            if (len + 1 < 32 && n < max)
                words[n][len++] = (char)tolower((unsigned char)*p);
            continue;
        }
        if (len && n < max) {
            words[n][len] = 0;
            n++;
        }
        len = 0;
        if (!*p)
            return n;
    }
}

static bool has_word(char words[][32], size_t n, const char *w)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(words[i], w) == 0)
            return true;
    return false;
}

/*
 * The catalog entry whose slug words all appear in the device's name ("h200" in "NVIDIA
 * H200"), the one with most words when several do. A form-factor word of the device's name
 * (PCIe, NVL, SXM...) must appear in the entry too: an H100 PCIe is not the catalog's SXM part,
 * and showing its datasheet would be wrong. No match: no datasheet figures.
 */
static bool find_datasheet(const char *device_name, struct ff_spec *out)
{
    static const char *const form[] = {"pcie", "nvl", "sxm", "sxm4", "sxm5", "mobile", "laptop"};
    char dev[32][32], slug[8][32], name[32][32];
    size_t nd = words_of(device_name ? device_name : "", dev, 32), best = 0;
    const struct ff_spec *hit = NULL;
    for (size_t i = 0; i < ff_spec_catalog_count(); i++) {
        const struct ff_spec *c = ff_spec_catalog_at(i);
        size_t ns = words_of(c->slug, slug, 8), nn = words_of(c->name, name, 32);
        bool all = ns > 0;
        for (size_t k = 0; k < ns && all; k++)
            all = has_word(dev, nd, slug[k]);
        for (size_t k = 0; k < sizeof(form) / sizeof(form[0]) && all; k++)
            if (has_word(dev, nd, form[k]) && !has_word(name, nn, form[k]) &&
                !has_word(slug, ns, form[k]))
                all = false;
        if (all && ns > best) {
            best = ns;
            hit = c;
        }
    }
    if (hit)
        *out = *hit;
    return hit != NULL;
}

/* bf16 where the device has a 16-bit rate (the estimator takes fp16's for bf16), then the
 * formats it measured with smaller weights first: int8, fp32. */
static const enum ff_precision serve_order[] = {FF_PREC_BF16, FF_PREC_INT8, FF_PREC_FP32};
#define N_SERVE_ORDER (sizeof(serve_order) / sizeof(serve_order[0]))

static int run_serve(const struct ff_model *m, const struct ff_spec *s, enum ff_precision p,
                     int64_t batch, struct ff_estimate *est, char *err, size_t errlen)
{
    struct ff_plan plan;
    ff_plan_init(&plan);
    plan.task = FF_TASK_SERVE;
    plan.precision = p;
    plan.prompt = FF_PUB_SERVE_PROMPT;
    plan.generate = FF_PUB_SERVE_GENERATE;
    plan.batch = batch;
    plan.gpus = 1;
    ff_estimate_init(est);
    return ff_est_run(m, s, &plan, est, err, errlen);
}

static void find_serves(struct ff_pub_device *d, enum ff_precision p)
{
    struct ff_pub_serves *sv = &d->serves;
    size_t n;
    const struct ff_model_preset *presets = ff_model_presets(&n);
    /* the largest preset that fits; where none is proven to (a capped memory probe), the
     * largest whose fit the probe could not decide, marked unproven */
    double best = 0, best_unknown = 0;
    struct ff_pub_serves unknown = {0};
    sv->state = FF_ERR_NOT_FOUND;
    sv->unproven = false;
    snprintf(sv->note, sizeof(sv->note), "no preset fits (%s, %s)", ff_pub_serve_plan_text(),
             ff_precision_name(p));
    for (size_t i = 0; i < n; i++) {
        const struct ff_model *m = presets[i].model;
        struct ff_param_count pc;
        /* a model is not served past the context it was trained for */
        if (m->max_positions < FF_PUB_SERVE_PROMPT + FF_PUB_SERVE_GENERATE ||
            ff_model_params(m, &pc) != FF_OK || (double)pc.total <= best)
            continue;
        struct ff_estimate est;
        char err[256];
        int rc = run_serve(m, &d->spec, p, 1, &est, err, sizeof(err));
        if (rc != FF_OK) {
            sv->state = rc;
            snprintf(sv->note, sizeof(sv->note), "no estimate: %s", err);
            return;
        }
        if (est.gpus != 1)
            continue;
        if (!est.fits) {
            if (est.fit_unknown && (double)pc.total > best_unknown) {
                best_unknown = (double)pc.total;
                ff_strlcpy(unknown.model, presets[i].slug, sizeof(unknown.model));
                unknown.params = best_unknown;
                unknown.tokens_per_s = est.tokens_per_second;
                snprintf(unknown.note, sizeof(unknown.note),
                         "fit unproven: it needs %.2f GiB; the memory probe stopped at %.2f GiB "
                         "(a lower bound) and the driver reports %.2f GiB",
                         est.mem.total / 1073741824.0, est.usable_bytes / 1073741824.0,
                         est.usable_driver_bytes / 1073741824.0);
            }
            continue;
        }
        best = (double)pc.total;
        sv->state = FF_OK;
        ff_strlcpy(sv->model, presets[i].slug, sizeof(sv->model));
        sv->params = best;
        sv->tokens_per_s = est.tokens_per_second;
        sv->note[0] = 0;
    }
    if (sv->state == FF_ERR_NOT_FOUND && best_unknown > 0) {
        sv->state = FF_OK;
        sv->unproven = true;
        ff_strlcpy(sv->model, unknown.model, sizeof(sv->model));
        sv->params = unknown.params;
        sv->tokens_per_s = unknown.tokens_per_s;
        ff_strlcpy(sv->note, unknown.note, sizeof(sv->note));
    }
}

/* A decode step as a roofline point: model FLOPs (2 per active weight per token) over the
 * bytes it reads (the weights once, the KV cache at the mean context) and over its time. */
static void add_point(struct ff_pub_device *d, const char *slug, enum ff_precision p, int64_t b)
{
    struct ff_model m;
    ff_model_init(&m);
    struct ff_estimate est;
    if (d->n_points >= FF_PUB_MAX_POINTS || ff_model_preset_find(slug, &m) != FF_OK ||
        run_serve(&m, &d->spec, p, b, &est, NULL, 0) != FF_OK || est.decode_seconds_per_token <= 0)
        return;
    double ctx = FF_PUB_SERVE_PROMPT + FF_PUB_SERVE_GENERATE;
    double kv = est.mem.kv_cache * (FF_PUB_SERVE_PROMPT + FF_PUB_SERVE_GENERATE / 2.0) / ctx;
    double flops = (double)b * 2.0 * (double)est.params.matmul_active;
    double bytes = est.mem.weights + kv;
    if (bytes <= 0 || flops <= 0)
        return;
    struct ff_pub_point *pt = &d->points[d->n_points++];
    ff_strlcpy(pt->model, slug, sizeof(pt->model));
    pt->batch = b;
    pt->intensity = flops / bytes;
    pt->rate = flops / est.decode_seconds_per_token;
    pt->fits = est.fits;
}

void ff_pub_estimate_device(struct ff_pub_device *d, bool run)
{
    d->has_datasheet = find_datasheet(d->info->device.name, &d->datasheet);
    d->n_points = 0;
    if (!run || !d->has_spec) {
        d->serves.state = FF_ERR_UNSUPPORTED;
        snprintf(d->serves.note, sizeof(d->serves.note), "%s",
                 run ? "no estimate: the estimator cannot read this profile"
                     : "estimate not run (--no-estimate)");
        return;
    }
    /* the first format the device measured in which some preset fits */
    enum ff_precision p = FF_PREC_BF16;
    bool first = true;
    for (size_t i = 0; i < N_SERVE_ORDER; i++) {
        if (ff_spec_rate(&d->spec, serve_order[i]) <= 0.0)
            continue;
        if (first || d->serves.state == FF_ERR_NOT_FOUND) {
            p = serve_order[i];
            d->serves.prec = p;
            find_serves(d, p);
            first = false;
        }
    }
    if (first)
        find_serves(d, p);
    if (d->serves.state == FF_ERR_NOT_FOUND)
        snprintf(d->serves.note, sizeof(d->serves.note),
                 "no preset fits (%s) in any format the device measured", ff_pub_serve_plan_text());
    /* the device's own model, then two fixed references so rooflines compare */
    const char *models[3] = {d->serves.state == FF_OK ? d->serves.model : NULL, "llama-3-8b",
                             "llama-3-70b"};
    for (size_t i = 0; i < 3; i++) {
        if (!models[i] || (i > 0 && models[0] && strcmp(models[0], models[i]) == 0))
            continue;
        add_point(d, models[i], p, 1);
        add_point(d, models[i], p, FF_PUB_POINT_BATCH_HIGH);
    }
}
