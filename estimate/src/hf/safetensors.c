/*
 * estimate/src/hf/safetensors.c — how many bytes a checkpoint's weights take on disk:
 * model.safetensors.index.json's metadata.total_size for a sharded checkpoint (or, without it,
 * the tensor bytes of every shard its weight_map names, when all are in the folder), else the
 * tensor bytes of one model.safetensors (its size less the 8-byte header length and the header).
 *
 * Every file is opened through ff_open_regular: a FIFO, device, directory or socket under one
 * of these names is refused by name and never blocks. Shard names are file names in the
 * folder (no '/', never "." or ".."); a shard not downloaded is fine while total_size is given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"

#define INDEX_MAX_BYTES ((size_t)64 * 1024 * 1024)
#define STORED_MAX      ((int64_t)1 << 50) /* 1 PiB: larger is not a checkpoint */
#define SHARDS_MAX      100000             /* distinct shard files one index may name */
#define SHARD_NAME_MAX  255                /* NAME_MAX */

/* Tensor bytes of one safetensors file: its size less the 8-byte length and the header.
 * With missing_ok an absent file is FF_OK and *present false. */
static int safetensors_bytes(const char *path, bool missing_ok, bool *present, double *out,
                             char *err, size_t errlen)
{
    int fd = -1;
    int64_t size = 0;
    *present = false;
    int rc = ff_open_regular(path, "safetensors file", missing_ok, &fd, &size, err, errlen);
    if (rc != FF_OK || fd < 0)
        return rc;
    *present = true;
    unsigned char b[8];
    ssize_t got;
    do
        got = pread(fd, b, sizeof(b), 0);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        rc = ff_errf(err, errlen, FF_ERR_IO, "%s: read error: %s", path, strerror(errno));
    } else if (got != 8 || size < 8) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID, "%s: not a safetensors file (too short)", path);
    } else {
        uint64_t hlen = 0;
        for (int i = 7; i >= 0; i--)
            hlen = hlen << 8 | b[i];
        if (hlen > (uint64_t)size - 8)
            rc = ff_errf(err, errlen, FF_ERR_INVALID,
                         "%s: header length %llu is larger than the file; not a safetensors "
                         "file",
                         path, (unsigned long long)hlen);
        else
            *out = (double)((uint64_t)size - 8 - hlen);
    }
    close(fd);
    return rc;
}

/*
 * The shard files weight_map names, each checked (a regular file when present), their tensor
 * bytes summed into *sum; *all_present says whether every one is in the folder, *count how
 * many distinct files there are.
 */
static int index_shards(const char *dir, const struct ff_json_ctx *c, json_object *root,
                        double *sum, bool *all_present, int *count)
{
    *sum = 0.0;
    *all_present = true;
    *count = 0;
    json_object *map = NULL;
    TRY(ff_json_get_object(c, root, "weight_map", false, &map));
    if (!map)
        return FF_OK;
    json_object *seen = json_object_new_object();
    if (!seen)
        return ff_errf(c->err, c->errlen, FF_ERR_NO_MEMORY, "%s: out of memory", c->label);
    int rc = FF_OK;
    json_object_object_foreach(map, tensor, v)
    {
        const char *name =
            json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
        if (!name || !name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
            strlen(name) > SHARD_NAME_MAX) {
            rc = ff_json_bad_field(c->err, c->errlen, c->label, "weight_map.", tensor, v,
                                   "the name of a file in the model folder");
            break;
        }
        if (json_object_object_get_ex(seen, name, NULL))
            continue;
        if (*count >= SHARDS_MAX) {
            rc = ff_errf(c->err, c->errlen, FF_ERR_INVALID,
                         "%s: weight_map names more than %d shard files", c->label, SHARDS_MAX);
            break;
        }
        if (json_object_object_add(seen, name, NULL) != 0) {
            rc = ff_errf(c->err, c->errlen, FF_ERR_NO_MEMORY, "%s: out of memory", c->label);
            break;
        }
        (*count)++;
        char path[4352];
        if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
            rc = ff_errf(c->err, c->errlen, FF_ERR_INVALID, "%s: path too long", dir);
            break;
        }
        bool present = false;
        double bytes = 0.0;
        rc = safetensors_bytes(path, true, &present, &bytes, c->err, c->errlen);
        if (rc != FF_OK)
            break;
        if (present)
            *sum += bytes;
        else
            *all_present = false;
    }
    json_object_put(seen);
    return rc;
}

/* metadata.total_size of a model.safetensors.index.json, or the summed tensor bytes of its
 * shards when it gives none and every shard is in the folder. */
static int index_stored(const char *dir, const char *path, double *out, char *source, size_t srclen,
                        char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    int rc = ff_read_file_capped(path, INDEX_MAX_BYTES, "model.safetensors.index.json", &text, &len,
                                 err, errlen);
    if (rc != FF_OK)
        return rc;
    json_object *root = NULL;
    rc = ff_json_parse_object(text, len, path, "a model.safetensors.index.json", false, &root, err,
                              errlen);
    free(text);
    if (rc != FF_OK)
        return rc;
    struct ff_json_ctx c = {path, "", err, errlen, NULL};
    json_object *meta = NULL;
    double sum = 0.0;
    bool all_present = true;
    int shards = 0;
    rc = index_shards(dir, &c, root, &sum, &all_present, &shards);
    if (rc == FF_OK)
        rc = ff_json_get_object(&c, root, "metadata", false, &meta);
    if (rc == FF_OK && !ff_json_member(meta, "total_size") && shards > 0 && all_present) {
        *out = sum;
        snprintf(source, srclen, "%s: the tensor bytes of its %d shard file(s)", path, shards);
        goto done;
    }
    if (rc == FF_OK && !meta)
        rc = ff_json_fault(&c, FF_JSON_MISSING, "metadata", NULL, "an object with total_size");
    if (rc == FF_OK) {
        struct ff_json_ctx s = c;
        s.prefix = "metadata.";
        /* ff_hf_get_int bounds to 2^40; a checkpoint can be larger, so read it here. */
        int64_t total = 0;
        if (!ff_json_member(meta, "total_size"))
            rc = ff_json_fault(&s, FF_JSON_MISSING, "total_size", NULL, "a byte count");
        else
            rc = ff_json_get_int(&s, meta, "total_size", true, 0, 1.0, (double)STORED_MAX,
                                 "a byte count from 1 to 2^50", &total);
        if (rc == FF_OK) {
            *out = (double)total;
            snprintf(source, srclen, "%s: metadata.total_size", path);
        }
    }
done:
    json_object_put(root);
    return rc;
}

int ff_hf_stored_bytes(const char *dir, double *out, char *source, size_t srclen, char *err,
                       size_t errlen)
{
    char path[4096];
    double stored = 0.0;
    int fd = -1;
    source[0] = '\0';
    if (snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir) >= (int)sizeof(path))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: path too long", dir);
    int rc = ff_open_regular(path, "model.safetensors.index.json", true, &fd, NULL, err, errlen);
    if (rc != FF_OK)
        return rc;
    if (fd >= 0) {
        close(fd);
        rc = index_stored(dir, path, &stored, source, srclen, err, errlen);
    } else {
        snprintf(path, sizeof(path), "%s/model.safetensors", dir);
        bool present = false;
        rc = safetensors_bytes(path, true, &present, &stored, err, errlen);
        if (rc == FF_OK && present)
            snprintf(source, srclen, "%s: its tensor bytes", path);
    }
    if (rc == FF_OK)
        *out = stored;
    return rc;
}
