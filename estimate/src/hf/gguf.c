/*
 * estimate/src/hf/gguf.c — the header of a GGUF file (flopfit/gguf.h), read from a bounded
 * buffer: every length and count is checked against the bytes left before it is used, so a
 * hostile file can neither read past the buffer nor make the reader allocate (nothing is
 * allocated but the header buffer of ff_gguf_read).
 *
 * Block sizes per ggml type (ggml/src/ggml.c type_traits: blck_size, type_size): F32 1/4,
 * F16 1/2, Q4_0 32/18, Q4_1 32/20, Q5_0 32/22, Q5_1 32/24, Q8_0 32/34, Q8_1 32/36, Q2_K
 * 256/84, Q3_K 256/110, Q4_K 256/144, Q5_K 256/176, Q6_K 256/210, Q8_K 256/292, BF16 1/2.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flopfit/gguf.h"
#include "flopfit/status.h"
#include "reader.h"

struct cur {
    const unsigned char *p;
    size_t left;
    const char *label;
    char *err;
    size_t errlen;
};

static int trunc_at(struct cur *c, const char *what)
{
    return ff_errf(c->err, c->errlen, FF_ERR_INVALID,
                   "%s: GGUF header truncated or malformed at %s (a length or count past the "
                   "%s read)",
                   c->label, what, "bytes");
}

static int take(struct cur *c, size_t n, const unsigned char **out, const char *what)
{
    *out = NULL; /* set on every path: callers read it only on FF_OK */
    if (n > c->left)
        return trunc_at(c, what);
    *out = c->p;
    c->p += n;
    c->left -= n;
    return FF_OK;
}

static int u32(struct cur *c, uint32_t *v, const char *what)
{
    const unsigned char *b;
    int rc = take(c, 4, &b, what);
    if (rc == FF_OK)
        *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return rc;
}

static int u64(struct cur *c, uint64_t *v, const char *what)
{
    const unsigned char *b;
    int rc = take(c, 8, &b, what);
    if (rc == FF_OK) {
        *v = 0;
        for (int i = 7; i >= 0; i--)
            *v = *v << 8 | b[i];
    }
    return rc;
}

/* A gguf_string: uint64 length + bytes (not NUL-terminated). */
static int str(struct cur *c, const unsigned char **s, size_t *n, const char *what)
{
    uint64_t len;
    int rc = u64(c, &len, what);
    if (rc != FF_OK)
        return rc;
    if (len > c->left)
        return trunc_at(c, what);
    *n = (size_t)len;
    return take(c, *n, s, what);
}

static bool str_is(const unsigned char *s, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(s, want, n) == 0;
}

/* Metadata value types (gguf.md): sizes of the fixed-size ones, 0 for string/array. */
enum { T_STRING = 8, T_ARRAY = 9, T_COUNT = 13 };
static const size_t fixed_size[T_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* Skip (or read into *ival when integral and ival is not NULL) one value of type t. Arrays
 * nest one level: an array of arrays is refused (no GGUF writer produces one). */
static int value(struct cur *c, uint32_t t, bool nested, int64_t *ival, bool *has_ival)
{
    if (t >= T_COUNT)
        return ff_errf(c->err, c->errlen, FF_ERR_INVALID,
                       "%s: metadata value type %u unknown (expected 0-12)", c->label, t);
    if (t == T_STRING) {
        const unsigned char *s;
        size_t n;
        return str(c, &s, &n, "a metadata string");
    }
    if (t == T_ARRAY) {
        uint32_t et;
        uint64_t count;
        int rc = u32(c, &et, "an array's type");
        if (rc == FF_OK)
            rc = u64(c, &count, "an array's length");
        if (rc != FF_OK)
            return rc;
        if (nested || et == T_ARRAY || et >= T_COUNT)
            return ff_errf(c->err, c->errlen, FF_ERR_INVALID,
                           "%s: metadata array of type %u refused (expected an array of "
                           "numbers or strings)",
                           c->label, et);
        if (et != T_STRING) {
            if (count > c->left / fixed_size[et])
                return trunc_at(c, "an array's elements");
            const unsigned char *b;
            return take(c, (size_t)count * fixed_size[et], &b, "an array's elements");
        }
        if (count > c->left / 8) /* each string takes at least its 8-byte length */
            return trunc_at(c, "an array's strings");
        for (uint64_t i = 0; i < count; i++)
            if ((rc = value(c, T_STRING, true, NULL, NULL)) != FF_OK)
                return rc;
        return FF_OK;
    }
    const unsigned char *b;
    int rc = take(c, fixed_size[t], &b, "a metadata value");
    if (rc == FF_OK && ival && t != 6 && t != 12 && t != 7) {
        uint64_t v = 0;
        for (size_t i = fixed_size[t]; i-- > 0;)
            v = v << 8 | b[i];
        *ival = (int64_t)v;
        *has_ival = true;
    }
    return rc;
}

struct ggml_type {
    uint32_t id;
    const char *name;
    uint32_t block, bytes;
};
static const struct ggml_type types[] = {
    {0, "f32", 1, 4},       {1, "f16", 1, 2},       {2, "q4_0", 32, 18},    {3, "q4_1", 32, 20},
    {6, "q5_0", 32, 22},    {7, "q5_1", 32, 24},    {8, "q8_0", 32, 34},    {9, "q8_1", 32, 36},
    {10, "q2_K", 256, 84},  {11, "q3_K", 256, 110}, {12, "q4_K", 256, 144}, {13, "q5_K", 256, 176},
    {14, "q6_K", 256, 210}, {15, "q8_K", 256, 292}, {30, "bf16", 1, 2},
};

/* llama_ftype values (llama.h) flopfit has a format for. */
static const char *ftype_format(int64_t ft)
{
    switch (ft) {
    case 0: return "fp32";
    case 1: return "fp16";
    case 2: return "q4_0";
    case 7: return "q8_0";
    case 15: return "q4_k_m";
    case 32: return "bf16";
    default: return "";
    }
}

int ff_gguf_parse(const void *data, size_t len, const char *label, struct ff_gguf_info *out,
                  char *err, size_t errlen)
{
    if (!out || (!data && len))
        return ff_errf(err, errlen, FF_ERR_INVALID, "no GGUF data");
    struct cur c = {data, len, label ? label : "gguf", err, errlen};
    struct ff_gguf_info g;
    memset(&g, 0, sizeof(g));
    g.file_type = -1;
    const unsigned char *magic;
    if (take(&c, 4, &magic, "the magic") != FF_OK || memcmp(magic, "GGUF", 4) != 0)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: not a GGUF file (expected the magic \"GGUF\")", c.label);
    uint64_t n_kv;
    int rc = u32(&c, &g.version, "the version");
    if (rc != FF_OK)
        return rc;
    if (g.version != 2 && g.version != 3)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "%s: GGUF version %u is not supported (expected 2 or 3)", c.label,
                       g.version);
    if ((rc = u64(&c, &g.tensors, "the tensor count")) != FF_OK ||
        (rc = u64(&c, &n_kv, "the metadata count")) != FF_OK)
        return rc;
    if (g.tensors > FF_GGUF_MAX_TENSORS)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: %llu tensors (expected at most %u)",
                       c.label, (unsigned long long)g.tensors, FF_GGUF_MAX_TENSORS);
    if (n_kv > c.left / 12) /* a key/value takes at least 12 bytes */
        return trunc_at(&c, "the metadata count");
    for (uint64_t i = 0; i < n_kv; i++) {
        const unsigned char *key;
        size_t kn;
        uint32_t t;
        if ((rc = str(&c, &key, &kn, "a metadata key")) != FF_OK ||
            (rc = u32(&c, &t, "a metadata type")) != FF_OK)
            return rc;
        if (str_is(key, kn, "general.architecture") && t == T_STRING) {
            const unsigned char *s;
            size_t n;
            if ((rc = str(&c, &s, &n, "general.architecture")) != FF_OK)
                return rc;
            size_t k = n < sizeof(g.architecture) - 1 ? n : sizeof(g.architecture) - 1;
            for (size_t j = 0; j < k; j++) /* printable ASCII only, for messages */
                g.architecture[j] = s[j] >= 0x20 && s[j] < 0x7f ? (char)s[j] : '?';
            continue;
        }
        int64_t iv = 0;
        bool has = false;
        bool ft = str_is(key, kn, "general.file_type");
        if ((rc = value(&c, t, false, ft ? &iv : NULL, &has)) != FF_OK)
            return rc;
        if (ft && has && iv >= 0 && iv < 1024) {
            g.file_type = (int32_t)iv;
            snprintf(g.format, sizeof(g.format), "%s", ftype_format(iv));
        }
    }
    double params = 0.0;
    for (uint64_t i = 0; i < g.tensors; i++) {
        const unsigned char *name;
        size_t nn;
        uint32_t dims, type;
        if ((rc = str(&c, &name, &nn, "a tensor name")) != FF_OK ||
            (rc = u32(&c, &dims, "a tensor's dimension count")) != FF_OK)
            return rc;
        if (dims < 1 || dims > 4) /* GGML_MAX_DIMS */
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "%s: tensor %llu has %u dimensions (expected 1-4)", c.label,
                           (unsigned long long)i, dims);
        double elems = 1.0;
        for (uint32_t d = 0; d < dims; d++) {
            uint64_t n;
            if ((rc = u64(&c, &n, "a tensor dimension")) != FF_OK)
                return rc;
            elems *= (double)n;
        }
        uint64_t offset;
        if ((rc = u32(&c, &type, "a tensor type")) != FF_OK ||
            (rc = u64(&c, &offset, "a tensor offset")) != FF_OK)
            return rc;
        const struct ggml_type *ty = NULL;
        for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
            if (types[k].id == type)
                ty = &types[k];
        if (!ty)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "%s: tensor %llu has ggml type %u, whose size this reader does not "
                           "know (known: f32 f16 bf16 q4_0 q4_1 q5_0 q5_1 q8_0 q8_1 q2_K-q8_K)",
                           c.label, (unsigned long long)i, type);
        if (elems > 1.152921504606847e18) /* 2^60 elements */
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "%s: tensor %llu has %.3g elements (expected at most 2^60)", c.label,
                           (unsigned long long)i, elems);
        double bytes = elems / (double)ty->block * (double)ty->bytes;
        params += elems;
        g.tensor_bytes += bytes;
        if (str_is(name, nn, "output.weight")) {
            snprintf(g.head_type, sizeof(g.head_type), "%s", ty->name);
            g.head_bytes = bytes;
        } else if (str_is(name, nn, "token_embd.weight")) {
            snprintf(g.embed_type, sizeof(g.embed_type), "%s", ty->name);
            g.embed_bytes = bytes;
        }
    }
    g.params = (uint64_t)params;
    *out = g;
    return FF_OK;
}

int ff_gguf_read(const char *path, struct ff_gguf_info *out, char *err, size_t errlen)
{
    if (!path || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no GGUF path");
    int fd = -1;
    int64_t size = 0;
    int rc = ff_open_regular(path, "GGUF file", false, &fd, &size, err, errlen);
    if (rc != FF_OK)
        return rc;
    size_t want = size > (int64_t)FF_GGUF_MAX_HEADER ? FF_GGUF_MAX_HEADER : (size_t)size;
    unsigned char *buf = malloc(want ? want : 1);
    if (!buf) {
        close(fd);
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "%s: out of memory", path);
    }
    size_t got = 0;
    while (got < want) {
        ssize_t r = pread(fd, buf + got, want - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got < want) {
        free(buf);
        return ff_errf(err, errlen, FF_ERR_IO, "%s: read error", path);
    }
    rc = ff_gguf_parse(buf, got, path, out, err, errlen);
    free(buf);
    if (rc == FF_OK && out->tensor_bytes > (double)size)
        rc = ff_errf(err, errlen, FF_ERR_INVALID,
                     "%s: its tensors take %.0f bytes, more than the file's %lld", path,
                     out->tensor_bytes, (long long)size);
    return rc;
}
