/*
 * bench/tune/tune_cache.c — the tuning cache: what `flopfit tune` found, per backend, device,
 * driver, kernel and kernel source, as one versioned JSON file written atomically:
 *
 *   {"schema": "flopfit.tuning", "schema_version": "1.0",
 *    "entries": [{"backend": "opencl", "device": "...", "driver_version": "...",
 *                 "kernel": "matmul", "precision": "fp32", "source_hash": "0123456789abcdef",
 *                 "point": "tm=6,tn=16,vw=8", "rate": 1.1e11, "default_rate": 1.0e11,
 *                 "unit": "FLOP/s", "size": 1024, "date": "2026-12-01T12:00:00Z",
 *                 "flopfit_version": "0.4.0"}]}
 * ("quick": true marks an entry a --quick bench's few-second tune left.)
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "config.h"
#include "ff_json.h"
#include "tune.h"

void ff_tune_key_make(struct ff_tune_key *k, const struct ff_device_info *info,
                      const struct ff_tune_target *t, const struct ff_tune_space *space)
{
    memset(k, 0, sizeof(*k));
    ff_strlcpy(k->backend, info->backend, sizeof(k->backend));
    ff_strlcpy(k->device, info->name, sizeof(k->device));
    ff_strlcpy(k->driver, info->driver_version, sizeof(k->driver));
    ff_strlcpy(k->kernel, ff_tune_kernel_name(t->id), sizeof(k->kernel));
    if (t->id == FF_KERNEL_MATMUL)
        ff_strlcpy(k->precision, ff_precision_name(t->prec), sizeof(k->precision));
    ff_strlcpy(k->source_hash, space->source_hash, sizeof(k->source_hash));
}

int ff_tune_cache_path(char *dst, size_t n, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int w;
    /* The XDG base-directory spec: a relative XDG_CACHE_HOME is invalid and ignored. */
    if (xdg && xdg[0] == '/')
        w = snprintf(dst, n, "%s/flopfit/tuning.json", xdg);
    else if (home && home[0])
        w = snprintf(dst, n, "%s/.cache/flopfit/tuning.json", home);
    else
        return ff_errf(err, errlen, FF_ERR_NOT_FOUND,
                       "no folder for the tuning cache: neither XDG_CACHE_HOME nor HOME is set");
    if (w < 0 || (size_t)w >= n)
        return ff_errf(err, errlen, FF_ERR_INVALID, "the tuning cache path is too long");
    return FF_OK;
}

void ff_tune_cache_free(struct ff_tune_cache *c)
{
    free(c->e);
    free(c->slot);
    free(c->changed);
    memset(c, 0, sizeof(*c));
}

static bool key_eq(const struct ff_tune_key *a, const struct ff_tune_key *b, bool with_hash)
{
    return strcmp(a->backend, b->backend) == 0 && strcmp(a->device, b->device) == 0 &&
           strcmp(a->driver, b->driver) == 0 && strcmp(a->kernel, b->kernel) == 0 &&
           strcmp(a->precision, b->precision) == 0 &&
           (!with_hash || strcmp(a->source_hash, b->source_hash) == 0);
}

/* The index's hash: every field key_eq compares without the source hash, each with its NUL. */
static uint64_t key_hash(const struct ff_tune_key *k)
{
    uint64_t h = FF_TUNE_HASH_INIT;
    h = ff_tune_hash(h, k->backend, strlen(k->backend) + 1);
    h = ff_tune_hash(h, k->device, strlen(k->device) + 1);
    h = ff_tune_hash(h, k->driver, strlen(k->driver) + 1);
    h = ff_tune_hash(h, k->kernel, strlen(k->kernel) + 1);
    return ff_tune_hash(h, k->precision, strlen(k->precision) + 1);
}

/* The slot holding k's entry, or the empty slot where it would go (n_slots > 0). */
static size_t slot_of(const struct ff_tune_cache *c, const struct ff_tune_key *k)
{
    const size_t mask = c->n_slots - 1;
    size_t i = (size_t)key_hash(k) & mask;
    while (c->slot[i] && !key_eq(&c->e[c->slot[i] - 1].key, k, false))
        i = (i + 1) & mask;
    return i;
}

/* Keeps the index at most half full: a power of two slots, rebuilt from e. */
static int index_reserve(struct ff_tune_cache *c, size_t n)
{
    if (c->n_slots && 2 * n <= c->n_slots)
        return FF_OK;
    size_t ns = c->n_slots ? c->n_slots : 16;
    while (2 * n > ns)
        ns *= 2;
    size_t *slot = calloc(ns, sizeof(*slot));
    if (!slot)
        return FF_ERR_NO_MEMORY;
    free(c->slot);
    c->slot = slot;
    c->n_slots = ns;
    for (size_t i = 0; i < c->n; i++)
        c->slot[slot_of(c, &c->e[i].key)] = i + 1;
    return FF_OK;
}

const struct ff_tune_entry *ff_tune_cache_find(const struct ff_tune_cache *c,
                                               const struct ff_tune_key *k)
{
    if (!c || !c->n_slots)
        return NULL;
    size_t s = c->slot[slot_of(c, k)];
    return s && key_eq(&c->e[s - 1].key, k, true) ? &c->e[s - 1] : NULL;
}

int ff_tune_cache_put(struct ff_tune_cache *c, const struct ff_tune_entry *e)
{
    if (index_reserve(c, c->n + 1) < 0)
        return FF_ERR_NO_MEMORY;
    const size_t s = slot_of(c, &e->key);
    if (c->slot[s]) {
        c->e[c->slot[s] - 1] = *e;
        c->changed[c->slot[s] - 1] = 1;
        return FF_OK;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        struct ff_tune_entry *ne = realloc(c->e, cap * sizeof(*ne));
        if (!ne)
            return FF_ERR_NO_MEMORY;
        c->e = ne;
        unsigned char *nc = realloc(c->changed, cap);
        if (!nc)
            return FF_ERR_NO_MEMORY;
        c->changed = nc;
        c->cap = cap;
    }
    c->e[c->n] = *e;
    c->changed[c->n] = 1;
    c->slot[s] = ++c->n;
    return FF_OK;
}

/* ---- reading ---- */

/* The wording of an entry's field messages: "entries[3].rate is not a number". */
static int entry_fault(const struct ff_json_ctx *c, enum ff_json_fault fault, const char *key,
                       struct json_object *v, const char *expected)
{
    const char *kind = "a number";
    switch (fault) {
    case FF_JSON_MISSING:
        return ff_errf(c->err, c->errlen, FF_ERR_INVALID, "%s%s is missing", c->prefix, key);
    case FF_JSON_RANGE:
        return ff_errf(c->err, c->errlen, FF_ERR_INVALID, "%s%s = %g (expected %s)", c->prefix, key,
                       json_object_get_double(v), expected);
    case FF_JSON_NOT_STRING: kind = "a string"; break;
    case FF_JSON_NOT_BOOL: kind = "a boolean"; break;
    case FF_JSON_NOT_OBJECT: kind = "an object"; break;
    case FF_JSON_NOT_ARRAY: kind = "an array"; break;
    case FF_JSON_NOT_NUMBER: break;
    }
    return ff_errf(c->err, c->errlen, FF_ERR_INVALID, "%s%s is not %s", c->prefix, key, kind);
}

/* A string field into dst: required ones must be present, strings, and fit. */
static int get_str(const struct ff_json_ctx *c, struct json_object *o, const char *key,
                   bool required, char *dst, size_t n)
{
    const char *s = "";
    dst[0] = 0;
    FF_TRY(ff_json_get_string(c, o, key, required, "", &s));
    if (strlen(s) >= n)
        return ff_errf(c->err, c->errlen, FF_ERR_INVALID, "%s%s is longer than %zu bytes",
                       c->prefix, key, n - 1);
    memcpy(dst, s, strlen(s) + 1);
    return FF_OK;
}

static int get_num(const struct ff_json_ctx *c, struct json_object *o, const char *key,
                   bool required, double *dst)
{
    return ff_json_get_double(c, o, key, required, 0.0, 0.0, 1e21, "a finite number 0..1e21", dst);
}

static bool is_hex16(const char *s)
{
    if (strlen(s) != 16)
        return false;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return false;
    return true;
}

static int read_entry(struct json_object *o, size_t i, struct ff_tune_entry *e, char *err,
                      size_t errlen)
{
    memset(e, 0, sizeof(*e));
    if (!json_object_is_type(o, json_type_object))
        return ff_errf(err, errlen, FF_ERR_INVALID, "entries[%zu] is not an object", i);
    char where[40];
    snprintf(where, sizeof(where), "entries[%zu].", i);
    const struct ff_json_ctx c = {NULL, where, err, errlen, entry_fault};
    double size = 0;
    int ret;
    if ((ret = get_str(&c, o, "backend", true, e->key.backend, sizeof(e->key.backend))) < 0 ||
        (ret = get_str(&c, o, "device", true, e->key.device, sizeof(e->key.device))) < 0 ||
        (ret = get_str(&c, o, "driver_version", true, e->key.driver, sizeof(e->key.driver))) < 0 ||
        (ret = get_str(&c, o, "kernel", true, e->key.kernel, sizeof(e->key.kernel))) < 0 ||
        (ret = get_str(&c, o, "precision", false, e->key.precision, sizeof(e->key.precision))) <
            0 ||
        (ret = get_str(&c, o, "source_hash", true, e->key.source_hash,
                       sizeof(e->key.source_hash))) < 0 ||
        (ret = get_str(&c, o, "point", true, e->point, sizeof(e->point))) < 0 ||
        (ret = get_num(&c, o, "rate", true, &e->rate)) < 0 ||
        (ret = get_num(&c, o, "default_rate", false, &e->default_rate)) < 0 ||
        (ret = get_str(&c, o, "unit", false, e->unit, sizeof(e->unit))) < 0 ||
        (ret = get_num(&c, o, "size", false, &size)) < 0 ||
        (ret = get_str(&c, o, "date", false, e->date, sizeof(e->date))) < 0 ||
        (ret = get_str(&c, o, "flopfit_version", false, e->version, sizeof(e->version))) < 0 ||
        (ret = ff_json_get_bool(&c, o, "quick", false, &e->quick)) < 0)
        return ret;
    if (!is_hex16(e->key.source_hash))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "entries[%zu].source_hash \"%s\" is not 16 lower-case hex digits", i,
                       e->key.source_hash);
    if (!(e->rate > 0))
        return ff_errf(err, errlen, FF_ERR_INVALID, "entries[%zu].rate is not positive", i);
    if (size > UINT32_MAX || size != floor(size))
        return ff_errf(err, errlen, FF_ERR_INVALID, "entries[%zu].size is not a whole number", i);
    e->size = (uint32_t)size;
    return FF_OK;
}

int ff_tune_cache_load(struct ff_tune_cache *c, const char *path, char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return FF_OK; /* no cache yet */
    char *text = NULL;
    size_t len = 0;
    char e[512] = "";
    int ret = ff_read_file_capped(path, FF_TUNE_CACHE_MAX_BYTES, "flopfit tuning cache", &text,
                                  &len, e, sizeof(e));
    if (ret < 0)
        return ff_errf(err, errlen, ret, "%s", e);
    struct json_tokener *tok = json_tokener_new();
    if (!tok) {
        free(text);
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of memory");
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    struct json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    ret = FF_OK;
    if (!root || jerr != json_tokener_success || used != len) {
        ret = ff_errf(err, errlen, FF_ERR_INVALID, "%s: not JSON (%s)", path,
                      jerr != json_tokener_success ? json_tokener_error_desc(jerr)
                                                   : "text after the document");
        goto done;
    }
    struct json_object *v;
    if (!json_object_is_type(root, json_type_object) ||
        !json_object_object_get_ex(root, "schema", &v) ||
        !json_object_is_type(v, json_type_string) ||
        strcmp(json_object_get_string(v), FF_TUNE_CACHE_SCHEMA) != 0) {
        ret = ff_errf(err, errlen, FF_ERR_INVALID,
                      "%s: not a tuning cache (\"schema\" is not "
                      "\"" FF_TUNE_CACHE_SCHEMA "\")",
                      path);
        goto done;
    }
    if (!json_object_object_get_ex(root, "schema_version", &v) ||
        !json_object_is_type(v, json_type_string) ||
        strncmp(json_object_get_string(v), "1.", 2) != 0) {
        ret = ff_errf(err, errlen, FF_ERR_INVALID,
                      "%s: tuning cache schema_version %s (this flopfit reads 1.x)", path,
                      v && json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                                    : "missing");
        goto done;
    }
    struct json_object *arr;
    if (!json_object_object_get_ex(root, "entries", &arr) ||
        !json_object_is_type(arr, json_type_array)) {
        ret = ff_errf(err, errlen, FF_ERR_INVALID, "%s: \"entries\" is not an array", path);
        goto done;
    }
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        struct ff_tune_entry ent;
        if ((ret = read_entry(json_object_array_get_idx(arr, i), i, &ent, e, sizeof(e))) < 0) {
            ff_errf(err, errlen, ret, "%s: %s", path, e);
            goto done;
        }
        if ((ret = ff_tune_cache_put(c, &ent)) < 0) {
            ff_errf(err, errlen, ret, "out of memory");
            goto done;
        }
    }
done:
    json_object_put(root);
    free(text);
    if (ret < 0)
        ff_tune_cache_free(c);
    else if (c->n)
        memset(c->changed, 0, c->n); /* as on disk */
    return ret;
}

/* ---- writing ---- */

static void add_str(struct json_object *o, const char *k, const char *v)
{
    json_object_object_add(o, k, json_object_new_string(v));
}

static void add_num(struct json_object *o, const char *k, double v)
{
    if (v == floor(v) && fabs(v) < 9e15) {
        json_object_object_add(o, k, json_object_new_int64((int64_t)v));
        return;
    }
    char text[32];
    snprintf(text, sizeof(text), "%.7g", v);
    json_object_object_add(o, k, json_object_new_double_s(v, text));
}

/* mkdir -p of path's folder. */
static int make_parent(const char *path, char *err, size_t errlen)
{
    char buf[4096];
    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
        return ff_errf(err, errlen, FF_ERR_INVALID, "path too long: %s", path);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return FF_OK;
    *slash = 0;
    return ff_mkdir_p(buf, err, errlen);
}

int ff_tune_cache_save(const struct ff_tune_cache *c, const char *path, char *err, size_t errlen)
{
    int ret = make_parent(path, err, errlen);
    if (ret < 0)
        return ret;
    struct json_object *root = json_object_new_object();
    add_str(root, "schema", FF_TUNE_CACHE_SCHEMA);
    add_str(root, "schema_version", FF_TUNE_CACHE_VERSION);
    struct json_object *arr = json_object_new_array();
    for (size_t i = 0; i < c->n; i++) {
        const struct ff_tune_entry *e = &c->e[i];
        struct json_object *o = json_object_new_object();
        add_str(o, "backend", e->key.backend);
        add_str(o, "device", e->key.device);
        add_str(o, "driver_version", e->key.driver);
        add_str(o, "kernel", e->key.kernel);
        if (e->key.precision[0])
            add_str(o, "precision", e->key.precision);
        add_str(o, "source_hash", e->key.source_hash);
        add_str(o, "point", e->point);
        add_num(o, "rate", e->rate);
        if (e->default_rate > 0)
            add_num(o, "default_rate", e->default_rate);
        if (e->unit[0])
            add_str(o, "unit", e->unit);
        if (e->size)
            add_num(o, "size", e->size);
        if (e->date[0])
            add_str(o, "date", e->date);
        if (e->version[0])
            add_str(o, "flopfit_version", e->version);
        if (e->quick)
            json_object_object_add(o, "quick", json_object_new_boolean(1));
        json_object_array_add(arr, o);
    }
    json_object_object_add(root, "entries", arr);
    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t tl = strlen(text);
    char *withnl = malloc(tl + 2);
    if (!withnl) {
        json_object_put(root);
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of memory");
    }
    memcpy(withnl, text, tl);
    withnl[tl] = '\n';
    withnl[tl + 1] = 0;
    ret = ff_write_atomic(path, withnl, err, errlen);
    free(withnl);
    json_object_put(root);
    return ret;
}

/* ---- the per-user cache, as the commands use it ---- */

int ff_tune_cache_open(struct ff_tune_cache *c, char *path, size_t n, bool *malformed,
                       const char *cmd)
{
    char err[1024] = "";
    *malformed = false;
    memset(c, 0, sizeof(*c));
    int ret = ff_tune_cache_path(path, n, err, sizeof(err));
    if (ret < 0) {
        fprintf(stderr, "%s: %s\n", cmd, err);
        return ret;
    }
    ret = ff_tune_cache_load(c, path, err, sizeof(err));
    if (ret == FF_ERR_INVALID) {
        *malformed = true;
        fprintf(stderr,
                "%s: %s; the tuning cache is treated as empty (the file is kept until this "
                "run writes a fresh one, then as %s.malformed)\n",
                cmd, err, path);
        return FF_OK;
    }
    if (ret < 0)
        fprintf(stderr, "%s: tuning cache: %s\n", cmd, err);
    return ret;
}

/* flock(LOCK_EX) on lock_path, retried for FF_TUNE_CACHE_LOCK_S: the open descriptor. */
static int lock_take(const char *lock_path, int *fd_out, char *err, size_t errlen)
{
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return ff_errf(err, errlen, FF_ERR_IO, "cannot open the tuning cache lock %s: %s",
                       lock_path, strerror(errno));
    const uint64_t until = ff_now_ns() + (uint64_t)FF_TUNE_CACHE_LOCK_S * 1000000000ull;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || ff_now_ns() > until) {
            int e = errno;
            close(fd);
            return ff_errf(err, errlen, FF_ERR_IO, "cannot lock the tuning cache (%s): %s",
                           lock_path,
                           e == EWOULDBLOCK ? "another flopfit held it for "
                                              "too long"
                                            : strerror(e));
        }
        const struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    *fd_out = fd;
    return FF_OK;
}

int ff_tune_cache_commit(struct ff_tune_cache *c, const char *path, bool *malformed, char *err,
                         size_t errlen)
{
    char lock_path[4200], aside[4200];
    snprintf(lock_path, sizeof(lock_path), "%s.lock", path);
    snprintf(aside, sizeof(aside), "%s.malformed", path);
    int ret = make_parent(path, err, errlen);
    if (ret < 0)
        return ret;
    int fd = -1;
    if ((ret = lock_take(lock_path, &fd, err, errlen)) < 0)
        return ret;
    /* The file as it is now: another tuner may have written it since c was loaded. */
    struct ff_tune_cache d;
    char e[1024] = "";
    ret = ff_tune_cache_load(&d, path, e, sizeof(e));
    if (ret == FF_ERR_INVALID) {
        if (rename(path, aside) != 0 && errno != ENOENT) {
            ret = ff_errf(err, errlen, FF_ERR_IO, "cannot keep the malformed %s as %s: %s", path,
                          aside, strerror(errno));
            goto error_lock;
        }
        ret = FF_OK;
    } else if (ret < 0) {
        ff_errf(err, errlen, ret, "%s", e);
        goto error_lock;
    }
    *malformed = false;
    for (size_t i = 0; i < c->n; i++)
        if (c->changed[i] && (ret = ff_tune_cache_put(&d, &c->e[i])) < 0) {
            ff_errf(err, errlen, ret, "out of memory");
            goto error_merged;
        }
    if ((ret = ff_tune_cache_save(&d, path, err, errlen)) < 0)
        goto error_merged;
    if (d.n)
        memset(d.changed, 0, d.n);
    ff_tune_cache_free(c);
    *c = d;
    close(fd); /* unlocks */
    return FF_OK;
error_merged:
    ff_tune_cache_free(&d);
error_lock:
    close(fd);
    return ret;
}

void ff_tune_entry_make(struct ff_tune_entry *e, const struct ff_device_info *info,
                        const struct ff_tune_target *t, const struct ff_tune_result *r)
{
    memset(e, 0, sizeof(*e));
    ff_tune_key_make(&e->key, info, t, &r->space);
    ff_strlcpy(e->point, r->point, sizeof(e->point));
    e->rate = r->outcome.best_rate;
    e->default_rate = r->outcome.default_rate;
    ff_strlcpy(e->unit, r->unit, sizeof(e->unit));
    e->size = r->outcome.size;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(e->date, sizeof(e->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    ff_strlcpy(e->version, FF_VERSION, sizeof(e->version));
}
