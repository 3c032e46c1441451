/*
 * tests/estimate/test_model_hardening.c — config.json inputs that crashed, hung or fooled the
 * reader and their neighbours: each is refused with a message naming the file and
 * the field, or read correctly; none crashes, blocks or yields a silently different model.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common.h"

#ifndef FF_TEST_DATA
#error "FF_TEST_DATA must point at tests/estimate/data"
#endif

static int load(const char *file, struct ff_model *m, char *err, size_t n)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", FF_TEST_DATA, file);
    return ff_model_from_hf_config(path, m, err, n);
}

static int text(const char *json, struct ff_model *m, char *err, size_t n)
{
    return ff_model_from_hf_text(json, strlen(json), "inline.json", m, err, n);
}

#define MPT                                                                                        \
    "{\"model_type\": \"mpt\", \"d_model\": 64, \"n_layers\": 2, \"n_heads\": 4, "                 \
    "\"vocab_size\": 100, "

Test(model_hardening, mpt_attn_type_null_is_the_default_not_a_crash)
{
    struct ff_model m;
    ff_model_init(&m);
    char err[512] = "";
    cr_assert_eq(load("hf-mpt-attn-type-null.json", &m, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(m.kv_heads, 4, "null attn_type: MPT's default multi-head attention");
    cr_expect_eq(m.head_dim, 16);
    cr_expect_eq(m.ffn, 4 * 64, "default expansion_ratio 4");
    cr_expect_eq(text(MPT "\"attn_config\": null}", &m, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(m.kv_heads, 4);
    cr_expect_eq(text(MPT "\"attn_config\": {\"attn_type\": \"multiquery_attention\"}}", &m, err,
                      sizeof(err)),
                 FF_OK, "%s", err);
    cr_expect_eq(m.kv_heads, 1);
    cr_expect_eq(text(MPT "\"attn_config\": {\"attn_type\": \"grouped_query_attention\", "
                          "\"kv_n_heads\": 2}}",
                      &m, err, sizeof(err)),
                 FF_OK, "%s", err);
    cr_expect_eq(m.kv_heads, 2);
}

Test(model_hardening, mpt_attn_config_of_the_wrong_type_names_the_field)
{
    static const struct {
        const char *json, *field;
    } bad[] = {
        {MPT "\"attn_config\": {\"attn_type\": 7}}", "attn_config.attn_type"},
        {MPT "\"attn_config\": {\"attn_type\": [\"multiquery_attention\"]}}",
         "attn_config.attn_type"},
        {MPT "\"attn_config\": {\"attn_type\": \"flash\"}}", "attn_config.attn_type"},
        {MPT "\"attn_config\": {\"kv_n_heads\": \"2\"}}", "attn_config.kv_n_heads"},
        {MPT "\"attn_config\": \"multiquery_attention\"}", "attn_config"},
        {MPT "\"attn_config\": [1]}", "attn_config"},
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        struct ff_model m;
        ff_model_init(&m);
        char err[512] = "";
        cr_expect_eq(text(bad[k].json, &m, err, sizeof(err)), FF_ERR_INVALID, "%s", bad[k].json);
        cr_expect(strstr(err, "inline.json") && strstr(err, bad[k].field) &&
                      strstr(err, "expected"),
                  "%s: %s", bad[k].field, err);
    }
}

Test(model_hardening, mpt_expansion_ratio_product_is_checked_before_it_overflows)
{
    struct ff_model m;
    memset(&m, 0x5a, sizeof(m));
    m.struct_size = sizeof(m);
    struct ff_model before = m;
    char err[512] = "";
    /* 16777217 x 1099511562241 wraps int64 to a small positive width: it must not be used. */
    cr_expect_eq(load("hf-mpt-expansion-overflow.json", &m, err, sizeof(err)), FF_ERR_RANGE);
    cr_expect(strstr(err, "hf-mpt-expansion-overflow.json") && strstr(err, "expansion_ratio") &&
                  strstr(err, "2^40"),
              "%s", err);
    cr_expect(memcmp(&m, &before, sizeof(m)) == 0, "*out untouched on failure");
    /* Both factors at the 2^40 field limit, and a product just over it. */
    cr_expect_eq(text(MPT "\"expansion_ratio\": 1099511627776}", &m, err, sizeof(err)),
                 FF_ERR_RANGE, "%s", err);
    cr_expect_eq(text("{\"model_type\": \"mpt\", \"d_model\": 1099511627776, \"n_layers\": 1, "
                      "\"n_heads\": 1, \"vocab_size\": 1, \"expansion_ratio\": 2}",
                      &m, err, sizeof(err)),
                 FF_ERR_RANGE, "%s", err);
    cr_expect_eq(text(MPT "\"expansion_ratio\": 17179869185}", &m, err, sizeof(err)), FF_ERR_RANGE,
                 "64 x (2^34 + 1) = 2^40 + 64: %s", err);
    cr_expect_eq(text(MPT "\"expansion_ratio\": 17179869184}", &m, err, sizeof(err)), FF_OK,
                 "64 x 2^34 = 2^40 exactly is the limit: %s", err);
    cr_expect_eq(m.ffn, (int64_t)1 << 40);
    cr_expect_eq(text(MPT "\"expansion_ratio\": 8}", &m, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(m.ffn, 512);
}

Test(model_hardening, heads_must_divide_hidden_where_head_dim_is_derived)
{
    struct ff_model m;
    ff_model_init(&m);
    char err[512] = "";
    cr_expect_eq(load("hf-heads-not-dividing.json", &m, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "hf-heads-not-dividing.json") && strstr(err, "num_attention_heads") &&
                  strstr(err, "hidden_size") && strstr(err, "4096") && strstr(err, "head_dim"),
              "%s", err);
    /* An explicit head_dim needs no divisibility (Gemma-7B: 3072 hidden, 16 heads of 256). */
    cr_expect_eq(text("{\"model_type\": \"gemma\", \"hidden_size\": 3072, "
                      "\"num_hidden_layers\": 28, \"num_attention_heads\": 16, \"head_dim\": 256, "
                      "\"intermediate_size\": 24576, \"vocab_size\": 256000}",
                      &m, err, sizeof(err)),
                 FF_OK, "%s", err);
    cr_expect_eq(m.head_dim, 256);
    static const struct {
        const char *json, *field;
    } bad[] = {
        {"{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 12, \"n_head\": 7, "
         "\"vocab_size\": 50257}",
         "n_head"},
        {"{\"model_type\": \"opt\", \"hidden_size\": 100, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 3, \"ffn_dim\": 400, \"vocab_size\": 10}",
         "num_attention_heads"},
        {"{\"model_type\": \"gpt_neox\", \"hidden_size\": 100, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 200, \"intermediate_size\": 400, \"vocab_size\": 10}",
         "num_attention_heads"},
        {"{\"model_type\": \"falcon\", \"n_embed\": 100, \"n_layer\": 2, \"n_head\": 3, "
         "\"vocab_size\": 10}",
         "n_head"},
        {"{\"model_type\": \"bloom\", \"n_embed\": 100, \"n_layer\": 2, \"n_head\": 3, "
         "\"vocab_size\": 10}",
         "n_head"},
        {"{\"model_type\": \"mpt\", \"d_model\": 100, \"n_layers\": 2, \"n_heads\": 3, "
         "\"vocab_size\": 10}",
         "n_heads"},
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        cr_expect_eq(text(bad[k].json, &m, err, sizeof(err)), FF_ERR_INVALID, "%s", bad[k].json);
        cr_expect(strstr(err, bad[k].field) && strstr(err, "does not divide"), "%s: %s",
                  bad[k].field, err);
    }
}

Test(model_hardening, numbers_are_typed_and_finite)
{
    struct ff_model m;
    ff_model_init(&m);
    char err[512] = "";
    static const struct {
        const char *json, *field;
    } bad[] = {
        {"{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 10, "
         "\"attention_dropout\": Infinity}",
         "attention_dropout"},
        {"{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 10, "
         "\"attention_dropout\": \"0.1\"}",
         "attention_dropout"},
        {"{\"model_type\": \"gpt2\", \"n_embd\": 64, \"n_layer\": 2, \"n_head\": 4, "
         "\"vocab_size\": 10, \"resid_pdrop\": NaN}",
         "resid_pdrop"},
        {"{\"model_type\": \"llama\", \"hidden_size\": Infinity, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 10}",
         "hidden_size"},
        {"{\"model_type\": \"llama\", \"hidden_size\": 1e999, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 10}",
         "hidden_size"},
        {"{\"model_type\": \"llama\", \"hidden_size\": 100000000000000000000000, "
         "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"intermediate_size\": 128, "
         "\"vocab_size\": 10}",
         "hidden_size"},
        {"{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 10, "
         "\"tie_word_embeddings\": \"yes\"}",
         "tie_word_embeddings"},
        {"{\"model_type\": null}", "model_type"},
        {"{\"model_type\": 5}", "model_type"},
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        cr_expect_eq(text(bad[k].json, &m, err, sizeof(err)), FF_ERR_INVALID, "%s", bad[k].json);
        cr_expect(strstr(err, "inline.json") && strstr(err, bad[k].field), "%s: %s", bad[k].field,
                  err);
    }
}

Test(model_hardening, text_entry_point_bounds_and_terminators)
{
    struct ff_model m;
    ff_model_init(&m);
    char err[512] = "";
    const char *good = "{\"model_type\": \"gpt2\", \"n_embd\": 64, \"n_layer\": 2, \"n_head\": "
                       "4, \"vocab_size\": 10}";
    size_t len = strlen(good);
    char *copy = malloc(len);
    memcpy(copy, good, len); /* no terminator */
    cr_expect_eq(ff_model_from_hf_text(copy, len, NULL, &m, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_str_eq(m.name, "config.json", "default label");
    free(copy);
    char nul[256];
    snprintf(nul, sizeof(nul), "%s", good);
    nul[len] = '\0';
    cr_expect_eq(ff_model_from_hf_text(nul, len + 1, "n.json", &m, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect(strstr(err, "NUL"), "%s", err);
    static const char *const bad[] = {"", "null", "[]", "{} x", "{\"model_type\": \"gpt2\""};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        cr_expect_eq(text(bad[k], &m, err, sizeof(err)), FF_ERR_INVALID, "'%s'", bad[k]);
        cr_expect(strstr(err, "inline.json"), "%s", err);
    }
    size_t big = (size_t)16 * 1024 * 1024 + 1;
    char *huge = malloc(big + 1);
    memset(huge, ' ', big);
    huge[big] = '\0';
    cr_expect_eq(ff_model_from_hf_text(huge, big, "huge.json", &m, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect(strstr(err, "limit"), "%s", err);
    cr_expect_eq(ff_model_from_hf_json(huge, "huge.json", &m, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "limit"), "%s", err);
    free(huge);
    cr_expect_eq(ff_model_from_hf_text(NULL, 0, "x", &m, err, sizeof(err)), FF_ERR_INVALID);
}

Test(model_hardening, only_regular_files_are_read, .timeout = 20)
{
    struct ff_model m;
    ff_model_init(&m);
    char err[512] = "";
    cr_expect_eq(ff_model_from_hf_config("/dev/zero", &m, err, sizeof(err)), FF_ERR_IO);
    cr_expect(strstr(err, "/dev/zero") && strstr(err, "not a regular file"), "%s", err);
    cr_expect_eq(ff_model_from_hf_config(FF_TEST_DATA, &m, err, sizeof(err)), FF_ERR_IO);
    cr_expect(strstr(err, "directory"), "%s", err);
    char dir[] = "/tmp/ff-model-hardening-XXXXXX";
    cr_assert(mkdtemp(dir));
    char fifo[300], big[300];
    snprintf(fifo, sizeof(fifo), "%s/config.json", dir);
    snprintf(big, sizeof(big), "%s/big.json", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_expect_eq(ff_model_from_hf_config(fifo, &m, err, sizeof(err)), FF_ERR_IO);
    cr_expect(strstr(err, "FIFO"), "%s", err);
    int fd = open(big, O_CREAT | O_WRONLY, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)64 * 1024 * 1024), 0);
    close(fd);
    cr_expect_eq(ff_model_from_hf_config(big, &m, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "big.json") && strstr(err, "limit"), "%s", err);
    unlink(fifo);
    unlink(big);
    rmdir(dir);
}

Test(model_hardening, a_layer_count_past_any_model_is_an_error_not_a_hang)
{
    /* Fuzzing found configs with 26e9 layers that spun the per-layer loops (jamba, qwen2_moe). */
    static const char *const types[] = {"llama", "qwen2_moe", "jamba", "mistral"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        char json[512], err[512] = "";
        snprintf(json, sizeof(json),
                 "{\"model_type\": \"%s\", \"hidden_size\": 4096, \"intermediate_size\": 11008, "
                 "\"num_hidden_layers\": 26299999999, \"num_attention_heads\": 32, "
                 "\"num_key_value_heads\": 8, \"vocab_size\": 32000, \"num_experts\": 60, "
                 "\"num_experts_per_tok\": 4, \"moe_intermediate_size\": 1408}",
                 types[i]);
        struct ff_model m;
        ff_model_init(&m);
        cr_expect_eq(text(json, &m, err, sizeof(err)), FF_ERR_INVALID, "%s: %s", types[i], err);
        cr_expect(strstr(err, "num_hidden_layers") && strstr(err, "1048576"), "%s: %s", types[i],
                  err);
    }
}
