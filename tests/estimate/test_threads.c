/*
 * tests/estimate/test_threads.c — the readers are reentrant as their headers say.
 *
 * Four threads read config.json files and profiles (good ones, and bad ones whose error text
 * must be exactly the single-threaded text: no message from another thread's failure, as
 * json-c's process-global last error once gave), open and iterate profiles, share one open
 * document, and run estimates. Every result is compared with a baseline computed first on
 * one thread. Built twice: against libflopfit, and (where the compiler has it) with the
 * library's sources under -fsanitize=thread, which turns any data race into a failure.
 * Plain C, no test framework: Criterion's runner forks and would hide races from TSan.
 *
 * Usage: test-estimate-threads DATA_DIR [iterations]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flopfit/flopfit.h"
#include "flopfit/profile.h"

#define THREADS 4

static const char *const configs[] = {"llama-2-7b.json", "mixtral-8x7b.json",
                                      "deepseek-v2-lite.json", "mpt-7b.json",
                                      "hf-mpt-attn-type-null.json"};
static const char *const profiles[] = {"profile-full.json", "profile-cpu.json",
                                       "profile-capped.json", "profile-unverified.json"};
/* Each fails differently: truncated JSON, a directory, no file, Infinity, a bad field. */
static const char *const bad_files[] = {"bad-truncated.json", ".",
                                        "no-such-file.json",  "profile-infinity.json",
                                        "profile-v2.json",    "hf-heads-not-dividing.json"};
#define N_CONFIGS  (sizeof(configs) / sizeof(configs[0]))
#define N_PROFILES (sizeof(profiles) / sizeof(profiles[0]))
#define N_BAD      (sizeof(bad_files) / sizeof(bad_files[0]))

static const char *data_dir;
static int iterations = 50;

struct baseline {
    double seconds[N_CONFIGS][N_PROFILES], mem[N_CONFIGS][N_PROFILES];
    char prof_err[N_BAD][512], model_err[N_BAD][512];
    size_t tests[N_PROFILES];
};
static struct baseline base; /* written before the threads start, then only read */
static struct ff_profile_doc *shared_doc;

static void path_of(const char *file, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", data_dir, file);
}

static int estimate(size_t c, size_t p, double *seconds, double *mem)
{
    char path[512], err[512];
    struct ff_model m;
    ff_model_init(&m);
    struct ff_spec d;
    ff_spec_init(&d);
    path_of(configs[c], path, sizeof(path));
    if (ff_model_from_hf_config(path, &m, err, sizeof(err)) != FF_OK)
        return -1;
    path_of(profiles[p], path, sizeof(path));
    if (ff_spec_from_profile(path, &d, err, sizeof(err)) != FF_OK)
        return -2;
    struct ff_plan plan;
    ff_plan_init(&plan);
    plan.precision = FF_PREC_FP32; /* every test profile has an fp32 rate */
    struct ff_estimate *e = malloc(sizeof(*e));
    if (!e)
        return -3;
    ff_estimate_init(e);
    int rc = ff_est_run(&m, &d, &plan, e, err, sizeof(err));
    *seconds = rc == FF_OK ? e->seconds : -1.0;
    *mem = rc == FF_OK ? e->mem.total : -1.0;
    free(e);
    return 0;
}

static size_t count_tests(const char *file)
{
    char path[512], err[512];
    path_of(file, path, sizeof(path));
    struct ff_profile_doc *doc = NULL;
    if (ff_profile_open(path, &doc, err, sizeof(err)) != FF_OK)
        return (size_t)-1;
    size_t ok = 0;
    for (size_t i = 0; i < ff_profile_test_count(doc); i++)
        ok += ff_profile_test_at(doc, i)->status == FF_PROFILE_TEST_OK;
    ff_profile_close(&doc);
    return ok;
}

static void bad_errors(size_t b, char *prof_err, char *model_err)
{
    char path[512];
    struct ff_spec d;
    ff_spec_init(&d);
    struct ff_model m;
    ff_model_init(&m);
    path_of(bad_files[b], path, sizeof(path));
    prof_err[0] = model_err[0] = '\0';
    ff_spec_from_profile(path, &d, prof_err, 512);
    ff_model_from_hf_config(path, &m, model_err, 512);
}

static long failures;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(long id, const char *what, const char *got, const char *want)
{
    pthread_mutex_lock(&report_lock);
    if (++failures <= 5)
        fprintf(stderr, "thread %ld: %s\n   got  %s\n   want %s\n", id, what, got, want);
    pthread_mutex_unlock(&report_lock);
}

static void *worker(void *arg)
{
    long id = (long)(size_t)arg;
    for (int i = 0; i < iterations; i++) {
        size_t c = (size_t)(i + id) % N_CONFIGS, p = (size_t)(i / 3 + id) % N_PROFILES;
        double s = 0, mem = 0;
        if (estimate(c, p, &s, &mem) != 0 || s != base.seconds[c][p] || mem != base.mem[c][p])
            fail(id, "estimate differs from the single-threaded one", configs[c], profiles[p]);
        size_t b = (size_t)(i + 2 * id) % N_BAD;
        char pe[512], me[512];
        bad_errors(b, pe, me);
        if (strcmp(pe, base.prof_err[b]) != 0)
            fail(id, "profile error text", pe, base.prof_err[b]);
        if (strcmp(me, base.model_err[b]) != 0)
            fail(id, "config error text", me, base.model_err[b]);
        if (count_tests(profiles[p]) != base.tests[p])
            fail(id, "test count", profiles[p], "baseline");
        /* One document read by every thread at once. */
        const struct ff_profile_info *info = ff_profile_info(shared_doc);
        if (!info->device.name || strcmp(info->device.name, "Test GPU") != 0)
            fail(id, "shared document", info->device.name ? info->device.name : "(null)",
                 "Test GPU");
        double v = 0;
        if (ff_profile_test_number(shared_doc, 1, "value", &v) != FF_OK || v != 2.5e13)
            fail(id, "shared document test 1", "value", "2.5e13");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DATA_DIR [iterations]\n", argv[0]);
        return 2;
    }
    data_dir = argv[1];
    if (argc > 2)
        iterations = atoi(argv[2]);
    for (size_t c = 0; c < N_CONFIGS; c++)
        for (size_t p = 0; p < N_PROFILES; p++)
            if (estimate(c, p, &base.seconds[c][p], &base.mem[c][p]) != 0) {
                fprintf(stderr, "baseline: %s on %s does not read\n", configs[c], profiles[p]);
                return 1;
            }
    for (size_t b = 0; b < N_BAD; b++) {
        bad_errors(b, base.prof_err[b], base.model_err[b]);
        if (!base.prof_err[b][0] || !base.model_err[b][0]) {
            fprintf(stderr, "baseline: %s should fail both readers\n", bad_files[b]);
            return 1;
        }
    }
    for (size_t p = 0; p < N_PROFILES; p++)
        base.tests[p] = count_tests(profiles[p]);
    char path[512], err[512];
    path_of("profile-full.json", path, sizeof(path));
    if (ff_profile_open(path, &shared_doc, err, sizeof(err)) != FF_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }

    pthread_t th[THREADS];
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)(size_t)i) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    ff_profile_close(&shared_doc);
    printf("%d iterations x %d threads: %ld failures\n", iterations, THREADS, failures);
    return failures ? 1 : 0;
}
