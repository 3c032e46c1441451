/*
 * estimate/cli/estimate_cli.c — `flopfit estimate`: parse (options.c), resolve the model and
 * device (resolve.c), then one estimate and its report, a ranking (rank.c) or a list.
 * Exit codes: 0 the plan fits (ranking: something fits), 1 it does not fit (or an internal
 * failure), 2 a usage or input error (message on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli_report.h"
#include "estimate_cli.h"
#include "estcli.h"

static int list_models(FILE *out, bool json)
{
    size_t n;
    const struct ff_model_preset *p = ff_model_presets(&n);
    json_object *arr = json ? json_object_new_array() : NULL;
    if (json && !arr)
        return 1;
    if (!json)
        fprintf(out, "%-16s %12s %12s  %s\n", "model", "params", "active", "source");
    for (size_t i = 0; i < n; i++) {
        struct ff_param_count pc;
        if (ff_model_params(p[i].model, &pc) != FF_OK)
            continue;
        if (json) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "slug", json_object_new_string(p[i].slug));
            json_object_object_add(o, "aliases", json_object_new_string(p[i].aliases));
            json_object_object_add(o, "params", json_object_new_int64((int64_t)pc.total));
            json_object_object_add(o, "active_params", json_object_new_int64((int64_t)pc.active));
            json_object_object_add(o, "context",
                                   json_object_new_int64(ff_model_context(p[i].model)));
            json_object_object_add(o, "source", json_object_new_string(p[i].model->source));
            json_object_array_add(arr, o);
        } else {
            fprintf(out, "%-16s %11.4gB %11.4gB  %s\n", p[i].slug, (double)pc.total / 1e9,
                    (double)pc.active / 1e9, p[i].model->source);
        }
    }
    if (json) {
        fprintf(out, "%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
        json_object_put(arr);
    }
    return 0;
}

static json_object *rate_or_null(double v)
{
    return v > 0 ? json_object_new_double(v) : NULL;
}

static int list_devices(FILE *out, bool json)
{
    size_t n = ff_spec_catalog_count();
    json_object *arr = json ? json_object_new_array() : NULL;
    if (json && !arr)
        return 1;
    if (!json)
        fprintf(out, "%-14s %-38s %8s %9s %9s %9s %8s\n", "device", "name", "mem GiB", "GB/s",
                "fp32 TF", "bf16 TF", "$/h");
    for (size_t i = 0; i < n; i++) {
        const struct ff_spec *d = ff_spec_catalog_at(i);
        if (json) {
            json_object *o = json_object_new_object(), *r = json_object_new_object();
            json_object_object_add(o, "slug", json_object_new_string(d->slug));
            json_object_object_add(o, "name", json_object_new_string(d->name));
            json_object_object_add(o, "memory_bytes", json_object_new_double(d->mem_bytes));
            json_object_object_add(o, "bandwidth_bytes_per_s",
                                   json_object_new_double(d->bandwidth_bytes_per_s));
            for (int k = 0; k < FF_PREC_COUNT; k++)
                if (d->flops_per_s[k] > 0)
                    json_object_object_add(r, ff_precision_name((enum ff_precision)k),
                                           json_object_new_double(d->flops_per_s[k]));
            json_object_object_add(o, "matmul_flops_per_s", r);
            json_object_object_add(o, "link_bytes_per_s", rate_or_null(d->link_bytes_per_s));
            json_object_object_add(o, "link_name",
                                   d->link_name ? json_object_new_string(d->link_name) : NULL);
            json_object_object_add(o, "gpus_per_node",
                                   d->gpus_per_node > 0 ? json_object_new_int(d->gpus_per_node)
                                                        : NULL);
            json_object_object_add(o, "inter_node_bytes_per_s",
                                   rate_or_null(d->inter_node_bytes_per_s));
            json_object_object_add(o, "price_per_hour", rate_or_null(d->price_per_hour));
            json_object_object_add(o, "price_source",
                                   d->price_source ? json_object_new_string(d->price_source)
                                                   : NULL);
            json_object_object_add(o, "source", json_object_new_string(d->source));
            json_object_array_add(arr, o);
            continue;
        }
        char price[16] = "-";
        if (d->price_per_hour > 0)
            snprintf(price, sizeof(price), "%.2f", d->price_per_hour);
        fprintf(out, "%-14s %-38s %8.0f %9.0f %9.1f %9.1f %8s\n", d->slug, d->name,
                d->mem_bytes / GIB, d->bandwidth_bytes_per_s / 1e9,
                d->flops_per_s[FF_PREC_FP32] / 1e12, d->flops_per_s[FF_PREC_BF16] / 1e12, price);
    }
    if (json) {
        fprintf(out, "%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
        json_object_put(arr);
    }
    return 0;
}

static int run_one(const struct ff_estcli_opts *o, const struct ff_model *m,
                   const struct ff_spec *d, const struct ff_plan *p)
{
    char err[512];
    struct ff_estimate *e = calloc(1, sizeof(*e));
    if (!e)
        return 1;
    ff_estimate_init(e);
    int rc = ff_est_run(m, d, p, e, err, sizeof(err));
    int code;
    if (rc != FF_OK) {
        code = ff_estcli_fail(rc, err);
        goto error_run;
    }
    /* Past the trained context the estimate still holds for memory and time, but the model
     * was not trained there: a warning, not an error (extending a context is a real plan). */
    if (e->context_exceeded)
        fprintf(stderr,
                "flopfit estimate: warning: %lld tokens per sequence is past %s's trained "
                "context of %lld tokens (max_position_embeddings%s)\n",
                (long long)(p->task == FF_TASK_SERVE ? p->prompt + p->generate
                                                     : (p->seq > 0 ? p->seq : 0)),
                m->name, (long long)e->context_tokens,
                m->context_max > m->max_positions ? " with rope scaling" : "");
    if (o->json)
        code = ff_report_json(stdout, m, d, p, e) == 0 ? 0 : 1;
    else {
        ff_report_text(stdout, m, d, p, e);
        code = 0;
    }
    if (code == 0 && !e->fits)
        code = 1;
error_run:
    free(e);
    return code;
}

/* --gguf FILE: the weights a GGUF file stores, tensor by tensor (flopfit/gguf.h), for the
 * architecture --model gives; the file type sets the format unless --precision does. */
static int apply_gguf(const struct ff_estcli_opts *o, struct ff_model *m, struct ff_plan *p)
{
    char err[512];
    struct ff_gguf_info g;
    if (p->task != FF_TASK_SERVE)
        return ff_estcli_usage_error("--gguf applies to --serve (a GGUF file is an inference "
                                     "checkpoint)");
    int rc = ff_gguf_read(o->gguf, &g, err, sizeof(err));
    if (rc != FF_OK)
        return ff_estcli_fail(rc, err);
    if (!g.format[0] && !o->precision_set)
        return ff_estcli_usage_error(
            "%s: file type %d has no flopfit format (known: fp32 fp16 bf16 q4_0 q8_0 q4_k_m); "
            "give --precision",
            o->gguf, (int)g.file_type);
    m->stored_bytes = g.tensor_bytes;
    snprintf(m->stored_format, sizeof(m->stored_format), "%s", g.format);
    size_t used = strlen(m->source);
    snprintf(m->source + used, sizeof(m->source) - used,
             "; weights as stored in %s (GGUF v%u, %s, %llu tensors, %.4g GB%s%s%s%s)", o->gguf,
             g.version, g.architecture[0] ? g.architecture : "no architecture",
             (unsigned long long)g.tensors, g.tensor_bytes / 1e9,
             g.head_type[0] ? ", output.weight " : "", g.head_type,
             g.embed_type[0] ? ", token_embd " : "", g.embed_type);
    return 0;
}

int ff_cmd_estimate(int argc, char **argv)
{
    struct ff_estcli_opts o;
    memset(&o, 0, sizeof(o));
    struct ff_plan plan;
    ff_plan_init(&plan);
    char err[512];
    if (ff_estcli_parse(argc, argv, &o, &plan, err, sizeof(err)) != FF_OK)
        return ff_estcli_usage_error("%s", err);
    if (o.help) {
        fputs(ff_estcli_usage_text, stdout);
        return 0;
    }
    if (o.list_models && o.list_devices && o.json)
        return ff_estcli_usage_error("with --json give one list: --list-models or --list-devices");
    if (o.list_models || o.list_devices) {
        int code = 0;
        if (o.list_models)
            code = list_models(stdout, o.json);
        if (o.list_devices && code == 0)
            code = list_devices(stdout, o.json);
        return code;
    }
    struct ff_model model;
    int rc;
    if ((rc = ff_estcli_model(&o, &model)) != 0)
        return rc;

    if (o.gguf && (rc = apply_gguf(&o, &model, &plan)) != 0)
        return rc;
    /* A model folder states its exact stored size: serve it as stored unless --precision
     * says otherwise (the stored format sets the compute rate; unknown: bf16). */
    if (model.stored_bytes > 0 && !o.precision_set && plan.task == FF_TASK_SERVE) {
        enum ff_precision sp;
        plan.weights_as_stored = true;
        if (model.stored_format[0] && ff_precision_parse(model.stored_format, &sp) == FF_OK)
            plan.precision = sp;
    }
    bool all = o.device_arg && !strcmp(o.device_arg, "all");
    if (o.device_arg && !all && o.n_profiles > 0)
        return ff_estcli_usage_error("give either --device NAME or --profile FILE (--device all "
                                     "ranks the catalog with the profiles)");
    if (!o.device_arg && o.n_profiles == 0)
        return ff_estcli_usage_error(
            "no device: give --device NAME, --profile FILE or --device all");
    if (all || o.n_profiles > 1) {
        if (!all)
            o.device_arg = NULL;
        return ff_estcli_rank(&o, &model, &plan);
    }
    struct ff_spec dev;
    if ((rc = ff_estcli_device(&o, &dev)) != 0)
        return rc;
    if (o.plan_best)
        return ff_estcli_best(&o, &model, &dev, &plan);
    ff_estcli_apply_nodes(&o, &dev, &plan);
    return run_one(&o, &model, &dev, &plan);
}
