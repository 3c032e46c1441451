/*
 * tests/estimate/test_model_folder.c — a Hugging Face model folder read through
 * ff_model_from_hf_dir under attack: every file it names (config.json, the safetensors index,
 * model.safetensors, the index's shards) as a FIFO, a device, a directory or a socket is
 * refused by name without blocking; a stored size that cannot hold the parameters is an
 * error naming the file and both numbers; the index's shards are checked and summed.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../common.h"

/* 64 wide, 2 layers, 4 heads, FFN 128, vocab 100: a few hundred thousand parameters. */
static const char config_json[] =
    "{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
    "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100, "
    "\"torch_dtype\": \"bfloat16\"}";

struct folder {
    char dir[64];
    char path[8][320];
    int n;
};

static const char *at(struct folder *f, const char *name)
{
    cr_assert_lt(f->n, 8);
    char buf[sizeof(f->path[0])];
    snprintf(buf, sizeof(buf), "%s/%s", f->dir, name);
    char *p = f->path[f->n++];
    memcpy(p, buf, sizeof(buf));
    return p;
}

static void put(struct folder *f, const char *name, const void *data, size_t len)
{
    const char *p = at(f, name);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    cr_assert_geq(fd, 0, "%s", p);
    cr_assert_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void put_text(struct folder *f, const char *name, const char *text)
{
    put(f, name, text, strlen(text));
}

/* A safetensors file: an 8-byte little-endian header length, a small header, then `tensor`
 * bytes of zeros (a sparse file: ftruncate). */
static void put_safetensors(struct folder *f, const char *name, uint64_t tensor)
{
    static const char header[] = "{\"__metadata__\":{}}";
    const char *p = at(f, name);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    cr_assert_geq(fd, 0, "%s", p);
    unsigned char len[8];
    uint64_t h = sizeof(header) - 1;
    for (int i = 0; i < 8; i++)
        len[i] = (unsigned char)(h >> (8 * i));
    cr_assert_eq(write(fd, len, 8), 8);
    cr_assert_eq(write(fd, header, h), (ssize_t)h);
    cr_assert_eq(ftruncate(fd, (off_t)(8 + h + tensor)), 0);
    close(fd);
}

static void make(struct folder *f)
{
    static const char tmpl[] = "/tmp/ff-model-folder-XXXXXX";
    _Static_assert(sizeof(tmpl) <= sizeof(f->dir), "the template fits");
    memset(f, 0, sizeof(*f));
    memcpy(f->dir, tmpl, sizeof(tmpl));
    cr_assert(mkdtemp(f->dir));
}

static void cleanup(struct folder *f)
{
    for (int i = 0; i < f->n; i++)
        if (unlink(f->path[i]) != 0)
            rmdir(f->path[i]);
    rmdir(f->dir);
}

static uint64_t params_of_config(void)
{
    struct ff_model m;
    ff_model_init(&m);
    char err[512] = "";
    cr_assert_eq(ff_model_from_hf_json(config_json, "c.json", &m, err, sizeof(err)), FF_OK, "%s",
                 err);
    struct ff_param_count pc;
    cr_assert_eq(ff_model_params(&m, &pc), FF_OK);
    return pc.total;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

enum kind { FIFO, DIRECTORY, DEVICE, SOCKET };

/* A non-regular file of this kind at name. */
static void plant(struct folder *f, const char *name, enum kind k)
{
    const char *p = at(f, name);
    switch (k) {
    case FIFO: cr_assert_eq(mkfifo(p, 0600), 0, "%s", p); break;
    case DIRECTORY: cr_assert_eq(mkdir(p, 0700), 0, "%s", p); break;
    case DEVICE: cr_assert_eq(symlink("/dev/zero", p), 0, "%s", p); break;
    case SOCKET: {
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        cr_assert_geq(s, 0);
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        cr_assert_lt(strlen(p), sizeof(a.sun_path));
        strcpy(a.sun_path, p);
        cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0, "%s", p);
        close(s); /* the socket file stays */
        break;
    }
    }
}

static const char *kind_word(enum kind k)
{
    return k == FIFO ? "FIFO" : k == DIRECTORY ? "directory" : k == DEVICE ? "device" : "socket";
}

Test(model_folder, every_file_it_names_must_be_a_regular_file, .timeout = 30)
{
    static const char *const names[] = {"config.json", "model.safetensors.index.json",
                                        "model.safetensors", "model-00001-of-00002.safetensors"};
    char index[512];
    snprintf(index, sizeof(index),
             "{\"metadata\": {\"total_size\": %llu}, \"weight_map\": {"
             "\"a\": \"model-00001-of-00002.safetensors\", "
             "\"b\": \"model-00002-of-00002.safetensors\"}}",
             (unsigned long long)(2 * params_of_config()));
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        for (enum kind k = FIFO; k <= SOCKET; k++) {
            struct folder f;
            make(&f);
            if (i != 0)
                put_text(&f, "config.json", config_json);
            if (i == 3) { /* the index, one shard downloaded, the other planted */
                put_text(&f, "model.safetensors.index.json", index);
                put_safetensors(&f, "model-00002-of-00002.safetensors", 1000);
            }
            plant(&f, names[i], k);
            struct ff_model m;
            ff_model_init(&m);
            char err[1024] = "";
            double t0 = now_s();
            int rc = ff_model_from_hf_dir(f.dir, &m, err, sizeof(err));
            double took = now_s() - t0;
            cr_expect_eq(rc, FF_ERR_IO, "%s as a %s: rc %d (%s)", names[i], kind_word(k), rc, err);
            cr_expect(strstr(err, names[i]) && strstr(err, kind_word(k)) &&
                          strstr(err, "not a regular file"),
                      "%s as a %s: %s", names[i], kind_word(k), err);
            cr_expect_lt(took, 2.0, "%s as a %s: %.1f s", names[i], kind_word(k), took);
            cleanup(&f);
        }
    }
}

Test(model_folder, a_stored_size_must_hold_the_parameters)
{
    uint64_t params = params_of_config();
    static const struct {
        double bits; /* per parameter */
        bool ok;
    } cases[] = {{0.5, false}, {1.01, true},  {16.0, true},
                 {63.9, true}, {65.0, false}, {1000.0, false}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t bytes = (uint64_t)(cases[i].bits * (double)params / 8.0 + 0.5);
        for (int sharded = 0; sharded < 2; sharded++) {
            struct folder f;
            make(&f);
            put_text(&f, "config.json", config_json);
            const char *file = sharded ? "model.safetensors.index.json" : "model.safetensors";
            if (sharded) {
                char index[256];
                snprintf(index, sizeof(index), "{\"metadata\": {\"total_size\": %llu}}",
                         (unsigned long long)bytes);
                put_text(&f, file, index);
            } else {
                put_safetensors(&f, file, bytes);
            }
            struct ff_model m;
            ff_model_init(&m);
            char err[1024] = "";
            int rc = ff_model_from_hf_dir(f.dir, &m, err, sizeof(err));
            if (cases[i].ok) {
                cr_expect_eq(rc, FF_OK, "%g bits in %s: %s", cases[i].bits, file, err);
                cr_expect_eq(m.stored_bytes, (double)bytes);
            } else {
                char nb[32], np[32];
                snprintf(nb, sizeof(nb), "%llu bytes", (unsigned long long)bytes);
                snprintf(np, sizeof(np), "%llu parameters", (unsigned long long)params);
                cr_expect_eq(rc, FF_ERR_INVALID, "%g bits in %s: rc %d", cases[i].bits, file, rc);
                cr_expect(strstr(err, file) && strstr(err, nb) && strstr(err, np) &&
                              strstr(err, "from 1 to 64 bits per parameter"),
                          "%g bits in %s: %s", cases[i].bits, file, err);
            }
            cleanup(&f);
        }
    }
}

Test(model_folder, the_shards_are_summed_without_total_size)
{
    uint64_t params = params_of_config();
    struct folder f;
    make(&f);
    put_text(&f, "config.json", config_json);
    put_text(&f, "model.safetensors.index.json",
             "{\"metadata\": {}, \"weight_map\": {\"a\": \"s1.safetensors\", "
             "\"b\": \"s2.safetensors\", \"c\": \"s1.safetensors\"}}");
    put_safetensors(&f, "s1.safetensors", params);
    struct ff_model m;
    ff_model_init(&m);
    char err[1024] = "";
    /* One shard not downloaded and no total_size: nothing says the size. */
    cr_expect_eq(ff_model_from_hf_dir(f.dir, &m, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "metadata.total_size") && strstr(err, "index.json"), "%s", err);
    put_safetensors(&f, "s2.safetensors", params);
    cr_assert_eq(ff_model_from_hf_dir(f.dir, &m, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(m.stored_bytes, 2.0 * (double)params);
    cleanup(&f);
}

Test(model_folder, a_shard_name_is_a_file_in_the_folder)
{
    static const char *const bad[] = {"../model.safetensors", "/etc/passwd", "..", ".", "",
                                      "a/b.safetensors"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct folder f;
        make(&f);
        put_text(&f, "config.json", config_json);
        char index[256];
        snprintf(index, sizeof(index),
                 "{\"metadata\": {\"total_size\": 1000000}, \"weight_map\": "
                 "{\"lm_head.weight\": \"%s\"}}",
                 bad[i]);
        put_text(&f, "model.safetensors.index.json", index);
        struct ff_model m;
        ff_model_init(&m);
        char err[1024] = "";
        cr_expect_eq(ff_model_from_hf_dir(f.dir, &m, err, sizeof(err)), FF_ERR_INVALID, "\"%s\"",
                     bad[i]);
        cr_expect(strstr(err, "weight_map.lm_head.weight") &&
                      strstr(err, "the name of a file in the model folder"),
                  "\"%s\": %s", bad[i], err);
        cleanup(&f);
    }
}
