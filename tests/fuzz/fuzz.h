/*
 * tests/fuzz/fuzz.h — what every fuzz target shares: the libFuzzer entry point, an argv
 * built from the input (arguments separated by newlines or NUL bytes), and the input as a
 * file for the readers that take a path.
 *
 * With -Dfuzz=enabled (clang) the targets link -fsanitize=fuzzer; in every other build they
 * link regress_main.c, which runs the checked-in corpus once as a regression test.
 */
#ifndef FF_FUZZ_H
#define FF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FF_FUZZ_MAX_ARGS 48

struct ff_fuzz_argv {
    char *text;                       /* owned copy of the input */
    char *argv[FF_FUZZ_MAX_ARGS + 2]; /* argv[0] = program name, NULL-terminated */
    int argc;
};

/* Splits data into arguments after `prog`; 0 or -1 when out of memory. */
static inline int ff_fuzz_argv_init(struct ff_fuzz_argv *a, const char *prog, const uint8_t *data,
                                    size_t size)
{
    a->text = malloc(size + 1);
    if (!a->text)
        return -1;
    memcpy(a->text, data, size);
    a->text[size] = '\0';
    a->argc = 0;
    a->argv[a->argc++] = (char *)prog;
    char *p = a->text, *end = a->text + size;
    while (p < end && a->argc <= FF_FUZZ_MAX_ARGS) {
        a->argv[a->argc++] = p;
        while (p < end && *p != '\n' && *p != '\0')
            p++;
        *p++ = '\0';
    }
    a->argv[a->argc] = NULL;
    return 0;
}

static inline void ff_fuzz_argv_finish(struct ff_fuzz_argv *a)
{
    free(a->text);
    a->text = NULL;
}

/* Writes the input to /tmp/ff-fuzz-<tag>-<pid>.json (path: 64 bytes) for a reader of files;
 * -1 when it cannot. The caller unlinks it. */
static inline int ff_fuzz_write_file(const char *tag, const uint8_t *data, size_t size,
                                     char path[64])
{
    snprintf(path, 64, "/tmp/ff-fuzz-%s-%ld.json", tag, (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = fwrite(data, 1, size, f);
    if (fclose(f) == 0 && n == size)
        return 0;
    unlink(path);
    return -1;
}

#endif
