/* bench/cmd/report.c — prints what was measured, one line a test. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "escape.h"
#include "report.h"
#include "families/families.h"

/* The driver's words as a terminal may show them (escape.h): b is emptied and refilled. */
static const char *term(struct ff_pub_sb *b, const char *s)
{
    ff_pub_sb_finish(b);
    ff_pub_esc_term(b, s);
    return ff_pub_sb_str(b);
}

void ff_report_header(FILE *f, const char *label, const struct ff_device_info *i)
{
    char mem[32];
    struct ff_pub_sb t[4];
    for (int k = 0; k < 4; k++)
        ff_pub_sb_init(&t[k]);
    ff_fmt_bytes_bin(mem, sizeof(mem), (double)i->global_mem_bytes);
    fprintf(f, "\n%s  %s\n    %s, driver %s, %s, %u compute units, %s reported\n", label,
            term(&t[0], i->name), term(&t[1], i->platform), term(&t[2], i->driver_version),
            term(&t[3], i->type), i->compute_units, mem);
    for (int k = 0; k < 4; k++)
        ff_pub_sb_finish(&t[k]);
}

/* Is results[j] unsupported like results[ref] (same family, impl and reason), for some ref
 * in [from, to)? */
static bool same_unsupported(const struct ff_run *p, size_t j, size_t from, size_t to)
{
    const struct ff_result *a = &p->results[j];
    if (a->status != FF_RES_UNSUPPORTED)
        return false;
    for (size_t k = from; k < to; k++) {
        const struct ff_result *b = &p->results[k];
        if (k != j && b->status == FF_RES_UNSUPPORTED && strcmp(a->family, b->family) == 0 &&
            strcmp(a->impl, b->impl) == 0 && strcmp(a->reason, b->reason) == 0)
            return true;
    }
    return false;
}

void ff_report_table(FILE *f, const struct ff_run *p)
{
    fprintf(f, "    %-10s %-16s %-8s %-5s %-6s %-11s %-8s %-14s %-8s %s\n", "family", "test",
            "impl", "prec", "size", "median", "spread", "rate", "verified", "vs library, peak");
    struct ff_pub_sb why; /* a reason may quote the driver (a build log) */
    ff_pub_sb_init(&why);
    for (size_t i = 0; i < p->n_results; i++) {
        const struct ff_result *r = &p->results[i];
        char size[48] = "-", med[24] = "-", spread[24] = "-", rate[32] = "-", ratio[96] = "";
        if (r->m && !r->k) /* an op of m rows of n */
            snprintf(size, sizeof(size), r->g ? "%ux%u g%u" : "%ux%u", r->m, r->n, r->g);
        else if (r->m && r->g)
            snprintf(size, sizeof(size), "%ux%ux%u g%u", r->m, r->n, r->k, r->g);
        else if (r->m)
            snprintf(size, sizeof(size), r->m == r->n && r->n == r->k ? "%u" : "%ux%ux%u", r->m,
                     r->n, r->k);
        else if (r->bytes)
            ff_fmt_bytes_bin(size, sizeof(size), (double)r->bytes);
        if (r->status == FF_RES_UNSUPPORTED && r->prec >= 0) {
            /* One line per implementation and reason, listing its precisions. */
            if (same_unsupported(p, i, 0, i))
                continue;
            char precs[32] = "";
            for (size_t j = i; j < p->n_results; j++)
                if (j == i || same_unsupported(p, j, i, i + 1))
                    snprintf(precs + strlen(precs), sizeof(precs) - strlen(precs), "%s%s",
                             precs[0] ? "," : "", ff_precision_name(p->results[j].prec));
            fprintf(f, "    %-10s %-16s %-8s %-11s unsupported: %s\n", r->family, r->name, r->impl,
                    precs, term(&why, r->reason));
            continue;
        }
        if (r->status != FF_RES_OK) {
            fprintf(f, "    %-10s %-16s %-8s %-5s %-6s %s: %s\n", r->family, r->name, r->impl,
                    r->prec >= 0 ? ff_precision_name(r->prec) : "-", size,
                    ff_res_status_name(r->status), term(&why, r->reason));
            continue;
        }
        bool figure_is_time = strcmp(r->unit, "s") == 0;
        if (r->has_timing && !figure_is_time) {
            ff_fmt_time(med, sizeof(med), r->t.dev_median_s);
            double base = r->t.dev_median_s > 0 ? r->t.dev_median_s : 1;
            snprintf(spread, sizeof(spread), "+-%.1f%%",
                     50.0 * (r->t.dev_max_s - r->t.dev_min_s) / base);
        }
        if (strcmp(r->unit, "B") == 0)
            ff_fmt_bytes_bin(rate, sizeof(rate), r->value);
        else if (figure_is_time)
            ff_fmt_time(rate, sizeof(rate), r->value);
        else
            ff_fmt_si(rate, sizeof(rate), r->value, r->unit);
        /* The last column is the family's own (vs library, what the driver reports). */
        const struct ff_family *fam = ff_family_find(r->family);
        if (fam && fam->note)
            fam->note(p, r, ratio, sizeof(ratio));
        fprintf(f, "    %-10s %-16s %-8s %-5s %-6s %-11s %-8s %-14s %-8s %s\n", r->family, r->name,
                r->impl, r->prec >= 0 ? ff_precision_name(r->prec) : "-", size, med, spread, rate,
                figure_is_time ? "-"
                : r->verified  ? "yes"
                               : "no",
                ratio);
    }
    ff_pub_sb_finish(&why);
}
