/*
 * tests/estimate/cli_child.h — run `flopfit estimate ARGS...` in a child process and keep its
 * exit code, stdout and stderr (the CLI tests: test_cli.c, test_comm.c, test_search.c).
 */
#ifndef FF_TEST_CLI_CHILD_H
#define FF_TEST_CLI_CHILD_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "estimate_cli.h"

#define FF_CLI_OUT_CAP 400000

struct out {
    int code;
    char out[FF_CLI_OUT_CAP], err[8192];
};

static inline void slurp(FILE *f, char *buf, size_t n)
{
    rewind(f);
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
}

/* Runs `flopfit estimate ARGS...` (NULL-terminated) in a child process; the result is static
 * (the next call overwrites it). */
static inline struct out *cli(const char *first, ...)
{
    const char *argv[64] = {"estimate"};
    int argc = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    static struct out o;
    memset(&o, 0, sizeof(o));
    FILE *fo = tmpfile(), *fe = tmpfile();
    cr_assert(fo && fe);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(fileno(fo), 1);
        dup2(fileno(fe), 2);
        int rc = ff_cmd_estimate(argc, (char **)argv);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st), "child crashed");
    o.code = WEXITSTATUS(st);
    slurp(fo, o.out, sizeof(o.out));
    slurp(fe, o.err, sizeof(o.err));
    fclose(fo);
    fclose(fe);
    return &o;
}

#endif
