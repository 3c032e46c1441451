/* bench/check/result.c — result records and the growing list of a profile. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

struct ff_result *ff_run_add(struct ff_run *p)
{
    if (p->n_results == p->cap_results) {
        size_t cap = p->cap_results ? p->cap_results * 2 : 32;
        struct ff_result *r = realloc(p->results, cap * sizeof(*r));
        if (!r)
            return NULL;
        p->results = r;
        p->cap_results = cap;
    }
    struct ff_result *r = &p->results[p->n_results++];
    memset(r, 0, sizeof(*r));
    r->prec = -1;
    return r;
}

void ff_run_finish(struct ff_run *p)
{
    free(p->results);
    p->results = NULL;
    p->n_results = p->cap_results = 0;
}

void ff_result_set(struct ff_result *r, const char *family, const char *name, const char *impl)
{
    snprintf(r->family, sizeof(r->family), "%s", family);
    snprintf(r->name, sizeof(r->name), "%s", name);
    snprintf(r->impl, sizeof(r->impl), "%s", impl ? impl : "flopfit");
}

void ff_result_extra(struct ff_result *r, const char *key, double value, bool is_bool)
{
    if (r->n_extra >= FF_RESULT_MAX_EXTRA)
        return;
    snprintf(r->extra[r->n_extra].key, sizeof(r->extra[0].key), "%s", key);
    r->extra[r->n_extra].value = value;
    r->extra[r->n_extra].is_bool = is_bool;
    r->n_extra++;
}

double ff_result_extra_get(const struct ff_result *r, const char *key, bool *found)
{
    for (size_t e = 0; e < r->n_extra; e++)
        if (strcmp(r->extra[e].key, key) == 0) {
            *found = true;
            return r->extra[e].value;
        }
    *found = false;
    return 0;
}

void ff_result_fail(struct ff_result *r, enum ff_res_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
    va_end(ap);
    r->status = status;
    r->verified = false;
    r->value = 0;
}

void ff_result_interrupted(struct ff_result *r)
{
    ff_result_fail(r, FF_RES_FAILED, "interrupted before it was measured");
    r->interrupted = true;
}

void ff_run_drop_interrupted(struct ff_run *p)
{
    size_t kept = 0;
    for (size_t i = 0; i < p->n_results; i++)
        if (!p->results[i].interrupted)
            p->results[kept++] = p->results[i];
    p->n_results = kept;
}

const char *ff_res_status_name(enum ff_res_status s)
{
    switch (s) {
    case FF_RES_OK: return "ok";
    case FF_RES_UNSUPPORTED: return "unsupported";
    case FF_RES_FAILED: return "failed";
    }
    return "?";
}

bool ff_result_implausible(struct ff_result *r, double value, double limit, const char *why)
{
    if (!(value > limit))
        return false;
    bool verified = r->verified; /* the data was right; the figure is what is wrong */
    ff_result_fail(r, FF_RES_FAILED, "implausible: %.4g %s above limit %.4g %s (%s)", value,
                   r->unit, limit, r->unit, why);
    r->verified = verified;
    return true;
}
