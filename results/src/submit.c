/*
 * results/src/submit.c — `flopfit results submit PROFILE`: check a profile and file it into
 * the curated layout results/<vendor>/<device>/<backend>-<driver>-<date>.json, ready for a
 * pull request, with its Markdown row (and the row's footnotes).
 *
 * The file is copied byte for byte (a reviewer sees what the bench wrote) after the public
 * reader accepted it. A result is refused when the run was cut short, holds no verified test,
 * or carries this machine's host name or a home-folder path anywhere in its text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <flopfit/status.h>

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

static int check_profile(const char *path, const char *text, const struct ff_profile_doc *doc,
                         char *err, size_t errlen)
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
    for (size_t i = 0; i < ff_profile_test_count(doc) && !verified; i++) {
        const struct ff_profile_test *t = ff_profile_test_at(doc, i);
        verified = t->status == FF_PROFILE_TEST_OK && t->verified;
    }
    if (!verified)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: no verified test to publish", path);
    if (private_text(text, in, why, sizeof(why)))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: not published because %s; published profiles carry no host names "
                       "or user paths",
                       path, why);
    return FF_OK;
}

int ff_pub_submit(const char *profile, const char *results_dir, char *used, size_t usedlen,
                  struct ff_pub_sb *row, char *err, size_t errlen)
{
    char *text = NULL, dir[4096], file[4400];
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
    rc = check_profile(profile, text, doc, err, errlen);
    if (rc)
        goto error_doc;
    const struct ff_profile_info *in = ff_profile_info(doc);
    char vendor[64], device[128], driver[128];
    ff_pub_vendor_slug(in->device.vendor, vendor, sizeof(vendor));
    ff_pub_slug(in->device.name, device, sizeof(device));
    ff_pub_slug(in->device.driver_version ? in->device.driver_version : "driver", driver,
                sizeof(driver));
    snprintf(dir, sizeof(dir), "%s/%s/%s", results_dir, vendor, device);
    rc = ff_pub_mkdirs(dir, err, errlen);
    if (rc)
        goto error_doc;
    snprintf(file, sizeof(file), "%s/%s-%s-%.10s.json", dir, in->device.backend, driver,
             in->created);
    rc = ff_write_unique(file, text, used, usedlen, err, errlen);
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
