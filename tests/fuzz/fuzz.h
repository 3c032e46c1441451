/*
 * tests/fuzz/fuzz.h — what every fuzz target shares: the libFuzzer entry point and an argv
 * built from the input (arguments separated by newlines or NUL bytes).
 *
 * With -Dfuzz=enabled (clang) the targets link -fsanitize=fuzzer; in every other build they
 * link regress_main.c, which runs the checked-in corpus once as a regression test.
 */
#ifndef FF_FUZZ_H
#define FF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

#endif
