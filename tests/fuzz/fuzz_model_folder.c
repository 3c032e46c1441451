/*
 * tests/fuzz/fuzz_model_folder.c — a Hugging Face model folder read through
 * ff_model_from_hf_dir: config.json, model.safetensors.index.json, model.safetensors and one
 * shard written from the input into a temp folder, then every figure the estimator derives
 * from an accepted model.
 *
 * Input: one flags byte, then up to four sections separated by "\n%%\n": config.json, the
 * index, model.safetensors, model-00001-of-00002.safetensors. Flag bit k+1 (k = 0, 1, 2)
 * writes section k+1 (absent otherwise, even when given); config.json is always written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <flopfit/flopfit.h>

#include "fuzz.h"

#define SECTIONS 4
static const char *const names[SECTIONS] = {"config.json", "model.safetensors.index.json",
                                            "model.safetensors",
                                            "model-00001-of-00002.safetensors"};
static const char sep[] = "\n%%\n";

static char dir[4096];

static void remove_files(void)
{
    char path[4352];
    for (int k = 0; k < SECTIONS; k++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[k]);
        unlink(path);
    }
}

static void remove_dir(void)
{
    remove_files();
    rmdir(dir);
}

/* The temp folder, made once per process and removed at exit. */
static int folder(void)
{
    if (dir[0])
        return 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/ff-fuzz-model-folder-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        dir[0] = '\0';
        return -1;
    }
    atexit(remove_dir);
    return 0;
}

static int put(const char *name, const uint8_t *data, size_t len)
{
    char path[4352];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = len ? fwrite(data, 1, len, f) : 0;
    return fclose(f) == 0 && w == len ? 0 : -1;
}

/* The next section of data[*at, size): its start and length; *at moves past its separator. */
static const uint8_t *section(const uint8_t *data, size_t size, size_t *at, size_t *len)
{
    const uint8_t *s = data + *at;
    size_t left = size - *at, n = 0, k = sizeof(sep) - 1;
    while (n + k <= left && memcmp(s + n, sep, k) != 0)
        n++;
    if (n + k > left) {
        *len = left;
        *at = size;
    } else {
        *len = n;
        *at += n + k;
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || folder() != 0)
        return 0;
    unsigned flags = data[0];
    size_t at = 1;
    remove_files();
    for (int k = 0; k < SECTIONS; k++) {
        size_t len = 0;
        const uint8_t *s = section(data, size, &at, &len);
        bool present = k == 0 || (flags >> k & 1u);
        if (present && put(names[k], s, len) != 0)
            return 0;
    }
    struct ff_model m;
    ff_model_init(&m);
    char err[1024];
    if (ff_model_from_hf_dir(dir, &m, err, sizeof(err)) == FF_OK) {
        struct ff_param_count pc;
        /* A stored size outside 1..64 bits per parameter must have been refused. */
        if (ff_model_check(&m, err, sizeof(err)) == FF_OK && ff_model_params(&m, &pc) == FF_OK &&
            pc.total > 0 && m.stored_bytes > 0) {
            double bits = m.stored_bytes * 8.0 / (double)pc.total;
            if (!(bits >= 1.0 && bits <= 64.0))
                abort();
        }
        (void)ff_model_kv_bytes(&m, 4096, 8, 2.0);
    }
    return 0;
}
