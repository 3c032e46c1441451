/*
 * tests/estimate/test_gguf.c — the GGUF header reader (flopfit/gguf.h) on tiny files written
 * here: a Q4_0 file whose output.weight is Q6_K, as llama.cpp's quantize writes it, and the
 * malformed and hostile headers it must refuse without reading past them.
 */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common.h"

struct buf {
    unsigned char b[4096];
    size_t n;
};

static void put(struct buf *w, const void *p, size_t n)
{
    cr_assert_leq(w->n + n, sizeof(w->b));
    memcpy(w->b + w->n, p, n);
    w->n += n;
}
static void put_u32(struct buf *w, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(w, b, 4);
}
static void put_u64(struct buf *w, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put(w, b, 8);
}
static void put_str(struct buf *w, const char *s)
{
    put_u64(w, strlen(s));
    put(w, s, strlen(s));
}
static void put_tensor(struct buf *w, const char *name, uint64_t d0, uint64_t d1, uint32_t type)
{
    put_str(w, name);
    put_u32(w, 2);
    put_u64(w, d0);
    put_u64(w, d1);
    put_u32(w, type);
    put_u64(w, 0);
}

/* A two-tensor-plus-block Q4_0 file: token_embd 256 x 64 Q4_0, output 256 x 64 Q6_K, one
 * block weight 256 x 256 Q4_0; general.architecture "llama", general.file_type 2 (Q4_0),
 * an array of strings (the tokenizer's kind) to skip. */
static struct buf tiny(void)
{
    struct buf w = {.n = 0};
    put(&w, "GGUF", 4);
    put_u32(&w, 3);
    put_u64(&w, 3); /* tensors */
    put_u64(&w, 3); /* metadata */
    put_str(&w, "general.architecture");
    put_u32(&w, 8);
    put_str(&w, "llama");
    put_str(&w, "general.file_type");
    put_u32(&w, 4);
    put_u32(&w, 2);
    put_str(&w, "tokenizer.ggml.tokens");
    put_u32(&w, 9);
    put_u32(&w, 8);
    put_u64(&w, 2);
    put_str(&w, "<s>");
    put_str(&w, "</s>");
    put_tensor(&w, "token_embd.weight", 256, 64, 2);
    put_tensor(&w, "output.weight", 256, 64, 14);
    put_tensor(&w, "blk.0.ffn_up.weight", 256, 256, 2);
    return w;
}

Test(gguf, tiny_q4_0_file_with_a_q6_k_head)
{
    struct buf w = tiny();
    /* Written to a file, padded so that the data fits: 16384 x 18/32 + 16384 x 210/256 +
     * 65536 x 18/32 = 9,216 + 13,440 + 36,864 = 59,520 bytes. */
    char path[] = "/tmp/ff-gguf-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, w.b, w.n), (ssize_t)w.n);
    cr_assert_eq(ftruncate(fd, 65536), 0);
    close(fd);
    struct ff_gguf_info g;
    char err[512] = "";
    int rc = ff_gguf_read(path, &g, err, sizeof(err));
    cr_assert_eq(rc, FF_OK, "%s", err);
    cr_expect_eq(g.version, 3);
    cr_expect_str_eq(g.architecture, "llama");
    cr_expect_eq(g.file_type, 2);
    cr_expect_str_eq(g.format, "q4_0");
    cr_expect_eq(g.tensors, 3);
    cr_expect_eq(g.params, 16384 + 16384 + 65536);
    cr_expect_float_eq(g.tensor_bytes, 59520.0, 1e-9);
    cr_expect_str_eq(g.head_type, "q6_K");
    cr_expect_str_eq(g.embed_type, "q4_0");
    cr_expect_float_eq(g.head_bytes, 13440.0, 1e-9);
    /* Too small a file for its tensors: refused. */
    cr_assert_eq(truncate(path, 4096), 0);
    cr_expect_eq(ff_gguf_read(path, &g, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "more than the file"), "%s", err);
    unlink(path);
}

Test(gguf, refuses_fifos_and_hostile_headers)
{
    char err[512] = "";
    struct ff_gguf_info g;
    char path[] = "/tmp/ff-gguf-fifo-XXXXXX";
    cr_assert_neq(mkdtemp(path), NULL);
    char fifo[600];
    snprintf(fifo, sizeof(fifo), "%s/f.gguf", path);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_expect_eq(ff_gguf_read(fifo, &g, err, sizeof(err)), FF_ERR_IO, "never waits on a FIFO");
    unlink(fifo);
    rmdir(path);

    struct buf w = tiny();
    cr_expect_eq(ff_gguf_parse(w.b, w.n, "t", &g, err, sizeof(err)), FF_OK, "%s", err);
    /* Every truncation is refused, never read past. */
    for (size_t n = 0; n < w.n; n++)
        cr_expect_neq(ff_gguf_parse(w.b, n, "t", &g, err, sizeof(err)), FF_OK, "cut at %zu", n);
    /* A string length of 2^63 and a tensor count of 2^40. */
    struct buf h = {.n = 0};
    put(&h, "GGUF", 4);
    put_u32(&h, 3);
    put_u64(&h, 0);
    put_u64(&h, 1);
    put_u64(&h, (uint64_t)1 << 63);
    cr_expect_eq(ff_gguf_parse(h.b, h.n, "t", &g, err, sizeof(err)), FF_ERR_INVALID);
    h.n = 8;
    put_u64(&h, (uint64_t)1 << 40);
    put_u64(&h, 0);
    cr_expect_eq(ff_gguf_parse(h.b, h.n, "t", &g, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "tensors"), "%s", err);
    /* Version 4, a bad magic, an unknown tensor type. */
    h.n = 0;
    put(&h, "GGUF", 4);
    put_u32(&h, 4);
    cr_expect_eq(ff_gguf_parse(h.b, h.n, "t", &g, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect_eq(ff_gguf_parse("GGML", 4, "t", &g, err, sizeof(err)), FF_ERR_INVALID);
    h.n = 0;
    put(&h, "GGUF", 4);
    put_u32(&h, 3);
    put_u64(&h, 1);
    put_u64(&h, 0);
    put_tensor(&h, "x", 32, 1, 99);
    cr_expect_eq(ff_gguf_parse(h.b, h.n, "t", &g, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "type 99"), "%s", err);
}
