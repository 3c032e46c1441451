/*
 * estimate/src/hf/safetensors.c — how many bytes a checkpoint's weights take on disk:
 * model.safetensors.index.json's metadata.total_size for a sharded checkpoint, else the tensor
 * bytes of one model.safetensors (its size less the 8-byte header length and the header).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

#define INDEX_MAX_BYTES ((size_t)64 * 1024 * 1024)
#define STORED_MAX      ((int64_t)1 << 50) /* 1 PiB: larger is not a checkpoint */

/* metadata.total_size of a model.safetensors.index.json. */
static int index_total_size(const char *path, double *out, char *err, size_t errlen)
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
    rc = ff_json_get_object(&c, root, "metadata", false, &meta);
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
        if (rc == FF_OK)
            *out = (double)total;
    }
    json_object_put(root);
    return rc;
}

/* Tensor bytes of one safetensors file: its size less the 8-byte length and the header. */
static int safetensors_bytes(const char *path, double *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ff_errf(err, errlen, FF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    unsigned char b[8];
    int rc = FF_OK;
    long long size = -1;
    if (fread(b, 1, 8, f) != 8 || fseeko(f, 0, SEEK_END) != 0 || (size = ftello(f)) < 8) {
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
    fclose(f);
    return rc;
}

int ff_hf_stored_bytes(const char *dir, double *out, char *err, size_t errlen)
{
    char path[4096];
    int rc = FF_OK;
    double stored = 0.0;
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    FILE *probe = fopen(path, "rb");
    if (probe) {
        fclose(probe);
        rc = index_total_size(path, &stored, err, errlen);
    } else {
        snprintf(path, sizeof(path), "%s/model.safetensors", dir);
        if ((probe = fopen(path, "rb")) != NULL) {
            fclose(probe);
            rc = safetensors_bytes(path, &stored, err, errlen);
        }
    }
    if (rc == FF_OK)
        *out = stored;
    return rc;
}
