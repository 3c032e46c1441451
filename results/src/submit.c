/*
 * results/src/submit.c — `flopfit results submit PROFILE`: check a profile and file it into
 * the curated layout results/<vendor>/<device>/<backend>-<driver>-<date>.json, ready for a
 * pull request, with its Markdown row (and the row's footnotes).
 *
 * The file is copied byte for byte (a reviewer sees what the bench wrote) after the public
 * reader accepted it. A result is refused when the run was cut short, holds no verified test,
 * claims a figure above the device's physical limit (the bench's own bounds, ff_bound_*), calls
 * a test verified without the fields that show it was (the error against the reference and its
 * tolerance for a matmul, the repetitions and their times for a timed figure, the read-back
 * chunks of the memory probe), or carries this machine's host name or a home-folder path
 * anywhere in its text: in the raw text and in every string once its JSON escapes are decoded
 * (json-c), so "\/home\/" and "\u002fhome" are caught too.
 *
 * Before those checks the profile must be valid against results/profile.schema.json (the
 * embedded copy, jschema.h; the message names the field by its JSON pointer) and record a
 * standard or full run (schema 1.1 "run"."kind": quick and custom runs, and 1.0 profiles that
 * record no kind, do not compare with published ones). After them its content_hash must be the
 * one its device and tests give (ff_profile_content_hash) and no profile under the results
 * folder may have the same content: a second copy of one run would count as a second run.
 *
 * Every name in the filed path is a slug (ff_pub_slug) and each folder below the results
 * folder is opened with O_NOFOLLOW (dest.c).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include <flopfit/status.h>

#include "ff_json.h"
#include "jschema.h"
#include "results_impl.h"

/* Is the word w in text with no letter, digit, '-' or '.' on either side? */
static const char *find_word(const char *text, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(text, w); p; p = strstr(p + 1, w)) {
        char before = p > text ? p[-1] : ' ', after = p[n];
        bool inner_b = (before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') ||
                       (before >= '0' && before <= '9') || before == '-' || before == '.';
        bool inner_a = (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') ||
                       (after >= '0' && after <= '9') || after == '-' || after == '.';
        if (!inner_b && !inner_a)
            return p;
    }
    return NULL;
}

static bool in_any(const char *w, const char *const *fields, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fields[i] && strstr(fields[i], w))
            return true;
    return false;
}

/* The reason a profile's text may not be published, or NULL. */
static const char *private_text(const char *text, const struct ff_profile_info *in, char *why,
                                size_t n)
{
    static const char *const homes[] = {"/home/", "/Users/", "/root/"};
    for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
        if (strstr(text, homes[i])) {
            snprintf(why, n, "it holds a home-folder path (%s...)", homes[i]);
            return why;
        }
    const char *home = getenv("HOME");
    if (home && strlen(home) > 1 && strstr(text, home)) {
        snprintf(why, n, "it holds this user's home folder (%s)", home);
        return why;
    }
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1) != 0)
        host[0] = 0;
    /* a host named like the software ("debian") is no more private than the OS name */
    const char *facts[] = {in->host.os,           in->host.kernel,     in->host.cpu,
                           in->device.name,       in->device.platform, in->device.driver_version,
                           in->device.api_version};
    if (strlen(host) > 3 && strcmp(host, "localhost") != 0 &&
        !in_any(host, facts, sizeof(facts) / sizeof(facts[0])) && find_word(text, host)) {
        snprintf(why, n, "it holds this machine's host name (%s)", host);
        return why;
    }
    return NULL;
}

/* Every string of a JSON value (keys too), decoded, one per line into o. */
static void decoded_strings(struct json_object *v, struct ff_pub_sb *o)
{
    switch (json_object_get_type(v)) {
    case json_type_string: {
        /* a decoded "\u0000" splits the string: each piece is checked on its own line */
        const char *str = json_object_get_string(v);
        size_t len = (size_t)json_object_get_string_len(v);
        for (size_t at = 0; at <= len;) {
            size_t piece = strnlen(str + at, len - at);
            ff_pub_sb_printf(o, "%.*s\n", (int)piece, str + at);
            at += piece + 1;
        }
        break;
    }
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(v); i++)
            decoded_strings(json_object_array_get_idx(v, i), o);
        break;
    case json_type_object: {
        json_object_object_foreach(v, key, val)
        {
            ff_pub_sb_puts(o, key);
            ff_pub_sb_puts(o, "\n");
            decoded_strings(val, o);
        }
        break;
    }
    default: break;
    }
}

/* The private text check on the raw text, then on its decoded strings. */
static const char *private_any(const char *text, size_t len, const struct ff_profile_info *in,
                               char *why, size_t n)
{
    if (private_text(text, in, why, n))
        return why;
    struct json_tokener *tok = json_tokener_new();
    struct json_object *root = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    json_tokener_free(tok);
    if (!root) { /* the profile reader accepted it: only memory can fail here */
        snprintf(why, n, "its strings could not be decoded (out of memory)");
        return why;
    }
    struct ff_pub_sb dec;
    ff_pub_sb_init(&dec);
    decoded_strings(root, &dec);
    json_object_put(root);
    const char *r = NULL;
    if (ff_pub_sb_status(&dec) != FF_OK) {
        snprintf(why, n, "its strings could not be decoded (out of memory)");
        r = why;
    } else if (private_text(ff_pub_sb_str(&dec), in, why, n)) {
        size_t k = strlen(why);
        snprintf(why + k, n > k ? n - k : 0, " once its JSON escapes are decoded");
        r = why;
    }
    ff_pub_sb_finish(&dec);
    return r;
}

/* "test 12 (matmul matmul fp16 flopfit n=2048)" for messages. */
static void test_label(const struct ff_profile_test *t, size_t i, char *dst, size_t n)
{
    snprintf(dst, n, "test %zu (%s %s%s%s%s%s n=%llu)", i, t->family, t->name,
             t->precision ? " " : "", t->precision ? t->precision : "", t->impl ? " " : "",
             t->impl ? t->impl : "", (unsigned long long)t->n);
}

/* The reason a figure is above the device's physical limit, or NULL. */
static const char *implausible(const struct ff_profile_info *in, const struct ff_profile_test *t,
                               char *why, size_t n)
{
    char how[256];
    if (t->status != FF_PROFILE_TEST_OK || !t->has_value || !t->unit)
        return NULL;
    double lim = 0;
    bool rate = strcmp(t->unit, FF_PF_UNIT_FLOPS) == 0 || strcmp(t->unit, FF_PF_UNIT_OPS) == 0;
    if (rate && (t->prec == FF_PREC_FP32 || t->prec == FF_PREC_FP16 || t->prec == FF_PREC_INT8))
        lim = ff_bound_matmul_rate(in->device.type, in->device.compute_units, in->device.clock_mhz,
                                   in->host.cpus, (enum ff_precision)t->prec, how, sizeof(how));
    else if (strcmp(t->unit, FF_PF_UNIT_BYTES_PER_S) == 0 &&
             (strcmp(t->family, FF_PF_FAMILY_BANDWIDTH) == 0 ||
              strcmp(t->family, FF_PF_FAMILY_TRANSFER) == 0)) {
        lim = ff_bound_bandwidth(in->device.host_shared_memory, -1, how, sizeof(how));
        if (t->limit_bytes_per_s > 0 && t->limit_bytes_per_s < lim) {
            lim = t->limit_bytes_per_s;
            snprintf(how, sizeof(how), "the limit the bench checked it against (in the test)");
        }
    }
    if (lim <= 0 || t->value <= lim)
        return NULL;
    snprintf(why, n, "%.4g %s is above the device's physical limit of %.4g %s: %s", t->value,
             t->unit, lim, t->unit, how);
    return why;
}

static bool timed(const struct ff_profile_times *tm)
{
    return tm->present && tm->median_s > 0;
}

/* The fields a test called verified lacks, or NULL. */
static const char *unproven(const struct ff_profile_test *t, char *why, size_t n)
{
    if (!t->verified)
        return NULL;
    bool per_s = t->unit && strstr(t->unit, "/s") != NULL;
    if (strcmp(t->family, FF_PF_FAMILY_MATMUL) == 0 &&
        (!t->has_error || !(t->tolerance >= 0) || !(t->max_rel <= t->tolerance)))
        /* an exact kernel (int8) has tolerance 0 and error 0 */
        snprintf(why, n, "%s",
                 !t->has_error ? "no \"error\" object (max_abs, max_rel, tolerance against the "
                                 "CPU reference)"
                               : "its max_rel error is above its tolerance");
    else if ((per_s || (t->unit && strcmp(t->unit, FF_PF_UNIT_SECONDS) == 0)) &&
             (t->repetitions == 0 || (!timed(&t->device_time_s) && !timed(&t->wall_time_s))))
        snprintf(why, n, "%s",
                 t->repetitions == 0 ? "no \"repetitions\""
                                     : "no device_time_s or wall_time_s with a median above 0");
    else if (strcmp(t->family, FF_PF_FAMILY_MEMORY) == 0 && t->unit &&
             strcmp(t->unit, FF_PF_UNIT_BYTES) == 0 && !(t->chunk_bytes > 0))
        snprintf(why, n, "no \"chunk_bytes\" (the chunks written and read back)");
    else
        return NULL;
    return why;
}

static int check_profile(const char *path, const char *text, size_t len,
                         const struct ff_profile_doc *doc, char *err, size_t errlen)
{
    const struct ff_profile_info *in = ff_profile_info(doc);
    char why[512];
    if (!in->complete)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: the run was cut short (\"complete\": false); submit a complete run",
                       path);
    if (!in->device.name || !in->device.backend || !in->created)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: device.name, device.backend and created are needed to file it", path);
    bool verified = false;
    for (size_t i = 0; i < ff_profile_test_count(doc); i++) {
        const struct ff_profile_test *t = ff_profile_test_at(doc, i);
        char label[256];
        verified |= t->status == FF_PROFILE_TEST_OK && t->verified;
        const char *bad = implausible(in, t, why, sizeof(why));
        bool unproved = !bad && (bad = unproven(t, why, sizeof(why))) != NULL;
        if (bad) {
            test_label(t, i, label, sizeof(label));
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "%s: %s: %s%s; a profile is filed only with figures the device can "
                           "reach and verified tests that carry their proof",
                           path, label, unproved ? "\"verified\": true but " : "", bad);
        }
    }
    if (!verified)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: no verified test to publish", path);
    if (private_any(text, len, in, why, sizeof(why)))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: not published because %s; published profiles carry no host names "
                       "or user paths",
                       path, why);
    return FF_OK;
}

/* The profile against results/profile.schema.json. */
static int check_schema(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    json_object *schema = json_tokener_parse(ff_profile_schema_text(NULL));
    json_object *inst = NULL;
    int rc = ff_json_parse_object(text, len, path, "a flopfit profile", true, &inst, err, errlen);
    if (rc == FF_OK && !schema)
        rc = ff_errf(err, errlen, FF_ERR_NO_MEMORY, "the embedded profile schema did not parse");
    struct ff_jschema_error e;
    if (rc == FF_OK && (rc = ff_jschema_validate(schema, inst, &e)) != FF_OK)
        rc = ff_errf(err, errlen, rc == FF_ERR_INVALID ? FF_ERR_INVALID : FF_ERR_IO,
                     "%s: field %s %s (results/profile.schema.json); a profile is filed only as "
                     "`flopfit bench` writes it",
                     path, e.pointer[0] ? e.pointer : "/ (the top level)", e.what);
    json_object_put(inst);
    json_object_put(schema);
    return rc;
}

/* A standard or full run (schema 1.1 "run"."kind"). */
static int check_kind(const char *path, const struct ff_profile_info *in, char *err, size_t errlen)
{
    const char *k = in->run_kind;
    if (k && (!strcmp(k, FF_PF_RUN_KIND_STANDARD) || !strcmp(k, FF_PF_RUN_KIND_FULL)))
        return FF_OK;
    char what[160];
    if (k)
        snprintf(what, sizeof(what), "it is a %.32s run (\"run\": {\"kind\": \"%.32s\"})", k, k);
    else
        snprintf(what, sizeof(what), "it records no run kind (schema %.16s)", in->schema_version);
    return ff_errf(err, errlen, FF_ERR_INVALID,
                   "%s: not filed because %s; published results are standard (or full) runs, "
                   "which compare: rerun `flopfit bench --standard` and submit that profile",
                   path, what);
}

/* The recorded content hash is the one the device and tests give. */
static int check_hash(const char *path, const struct ff_profile_doc *doc, char *err, size_t errlen)
{
    const char *rec = ff_profile_info(doc)->content_hash;
    char now[FF_PROFILE_HASH_MAX];
    ff_profile_content_hash(doc, now);
    if (!rec)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: no \"content_hash\"; rerun `flopfit bench --standard`, which records "
                       "it",
                       path);
    if (strcmp(rec, now) != 0)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: field /content_hash is %.80s but its device and tests hash to %s: the "
                       "measured part was edited after the run; submit the profile as written",
                       path, rec, now);
    return FF_OK;
}

/* A profile under dir (depth-first, links not followed) whose content hash is `hash`: its path
 * into found, left "" when there is none. */
static void find_hash(const char *dir, const char *hash, int depth, char *found, size_t n)
{
    DIR *d = depth > 16 ? NULL : opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; !found[0] && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(e->d_name);
        char path[4352];
        if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
            continue;
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            find_hash(path, hash, depth + 1, found, n);
            continue;
        }
        if (!S_ISREG(st.st_mode) || len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0 ||
            (len > 12 && strcmp(e->d_name + len - 12, ".schema.json") == 0))
            continue;
        struct ff_profile_doc *doc = NULL;
        char h[FF_PROFILE_HASH_MAX], ignored[256];
        if (ff_profile_open(path, &doc, ignored, sizeof(ignored)) == FF_OK &&
            ff_profile_content_hash(doc, h) == FF_OK && strcmp(h, hash) == 0)
            snprintf(found, n, "%s", path);
        ff_profile_close(&doc);
    }
    closedir(d);
}

static int check_new(const char *path, const struct ff_profile_doc *doc, const char *results_dir,
                     char *err, size_t errlen)
{
    char hash[FF_PROFILE_HASH_MAX], found[4352] = "";
    ff_profile_content_hash(doc, hash);
    find_hash(results_dir, hash, 0, found, sizeof(found));
    if (found[0])
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: already filed as %s (the same content_hash, %.20s...): one run is "
                       "published once",
                       path, found, hash);
    return FF_OK;
}

/* results_dir/<vendor>/<device>/<backend>-<driver>-<date>.json, each part a slug, each folder
 * below results_dir opened without following a link. */
static int file_profile(const struct ff_profile_info *in, const char *results_dir, const char *text,
                        char *used, size_t usedlen, char *err, size_t errlen)
{
    char vendor[FF_PUB_SLUG_MAX + 1], device[FF_PUB_SLUG_MAX + 1], driver[FF_PUB_SLUG_MAX + 1];
    char backend[FF_PUB_SLUG_MAX + 1], date[16], name[4 * FF_PUB_SLUG_MAX], leaf[512];
    struct ff_pub_dir root, vdir, ddir;
    ff_pub_dir_init(&vdir);
    ff_pub_dir_init(&ddir);
    ff_pub_vendor_slug(in->device.vendor, vendor, sizeof(vendor));
    ff_pub_slug(in->device.name, device, sizeof(device));
    ff_pub_slug(in->device.driver_version ? in->device.driver_version : "driver", driver,
                sizeof(driver));
    ff_pub_slug(in->device.backend, backend, sizeof(backend));
    snprintf(date, sizeof(date), "%.10s", in->created);
    ff_pub_slug(date, date, sizeof(date));
    snprintf(name, sizeof(name), "%s-%s-%s.json", backend, driver, date);
    int rc = ff_pub_dir_open(&root, results_dir, true, err, errlen);
    if (!rc)
        rc = ff_pub_dir_sub(&vdir, &root, vendor, true, err, errlen);
    if (!rc)
        rc = ff_pub_dir_sub(&ddir, &vdir, device, true, err, errlen);
    if (!rc)
        rc = ff_clean_stale_temps_at(ddir.fd, ddir.path, NULL, err, errlen);
    if (!rc)
        rc = ff_write_unique_at(ddir.fd, name, text, leaf, sizeof(leaf), err, errlen);
    if (!rc && snprintf(used, usedlen, "%s/%s", ddir.path, leaf) >= (int)usedlen)
        rc = ff_errf(err, errlen, FF_ERR_IO, "%s/%s: path too long", ddir.path, leaf);
    ff_pub_dir_finish(&ddir);
    ff_pub_dir_finish(&vdir);
    ff_pub_dir_finish(&root);
    return rc;
}

int ff_pub_submit(const char *profile, const char *results_dir, char *used, size_t usedlen,
                  struct ff_pub_sb *row, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    struct ff_profile_doc *doc = NULL;
    struct ff_pub_set *set = NULL;
    int rc = ff_read_file_capped(profile, FF_PROFILE_MAX_BYTES, "flopfit profile", &text, &len, err,
                                 errlen);
    if (rc)
        return rc;
    rc = ff_profile_parse(text, len, profile, &doc, err, errlen);
    if (rc)
        goto error_text;
    rc = check_schema(profile, text, len, err, errlen);
    if (!rc)
        rc = check_kind(profile, ff_profile_info(doc), err, errlen);
    if (!rc)
        rc = check_profile(profile, text, len, doc, err, errlen);
    if (!rc)
        rc = check_hash(profile, doc, err, errlen);
    if (!rc)
        rc = check_new(profile, doc, results_dir, err, errlen);
    if (rc)
        goto error_doc;
    rc = file_profile(ff_profile_info(doc), results_dir, text, used, usedlen, err, errlen);
    if (rc)
        goto error_doc;
    /* the row as the published table will show it, read back from the filed copy */
    struct ff_pub_options o;
    ff_pub_options_init(&o);
    rc = ff_pub_set_create(&set);
    if (!rc)
        rc = ff_pub_set_add(set, used, err, errlen);
    if (!rc)
        rc = ff_pub_set_finish(set, &o, err, errlen);
    if (!rc)
        ff_pub_md_table(set, row);
    if (!rc)
        rc = ff_pub_sb_status(row);
    ff_pub_set_destroy(&set);
error_doc:
    ff_profile_close(&doc);
error_text:
    free(text);
    return rc;
}
