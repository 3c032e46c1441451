/*
 * tests/bench/run/write_shim.c — LD_PRELOAD into flopfit to land events inside the profile write
 * window (test_signals.py). FF_SHIM picks one:
 *   kill-at-fsync    SIGKILL when one of our temp files (".<name>.tmp.<pid>.<seq>") is fsynced
 *   kill-at-place    SIGKILL just before such a temp file is renamed or linked into place
 *                    (rename, link, and the folder-relative renameat, linkat)
 *   signal-in-write  SIGINT and SIGTERM to ourselves while the temp file is fsynced: the
 *                    second and third signal of a run, arriving in the middle of the write
 * Only our temp files trigger it: the drivers' own fsyncs (PoCL's kernel cache) pass through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fsync(int fd);
int rename(const char *from, const char *to);
int link(const char *from, const char *to);
int renameat(int fromfd, const char *from, int tofd, const char *to);
int linkat(int fromfd, const char *from, int tofd, const char *to, int flags);

static bool is_mode(const char *m)
{
    const char *s = getenv("FF_SHIM");
    return s && strcmp(s, m) == 0;
}

static bool ours(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return base[0] == '.' && strstr(base, ".tmp.") != NULL;
}

static bool fd_is_ours(int fd)
{
    char link_path[64], target[PATH_MAX];
    snprintf(link_path, sizeof(link_path), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link_path, target, sizeof(target) - 1);
    if (n <= 0)
        return false;
    target[n] = 0;
    return ours(target);
}

int fsync(int fd)
{
    static bool signalled;
    if (fd_is_ours(fd)) {
        if (is_mode("kill-at-fsync"))
            raise(SIGKILL);
        if (is_mode("signal-in-write") && !signalled) {
            signalled = true;
            kill(getpid(), SIGINT);
            kill(getpid(), SIGTERM);
            usleep(100 * 1000); /* let a thread that does not block them take them now */
        }
    }
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real(fd);
}

int rename(const char *from, const char *to)
{
    if (is_mode("kill-at-place") && ours(from))
        raise(SIGKILL);
    int (*real)(const char *, const char *) =
        (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    return real(from, to);
}

int link(const char *from, const char *to)
{
    if (is_mode("kill-at-place") && ours(from))
        raise(SIGKILL);
    int (*real)(const char *, const char *) =
        (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");
    return real(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
    if (is_mode("kill-at-place") && ours(from))
        raise(SIGKILL);
    int (*real)(int, const char *, int, const char *) =
        (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
    return real(fromfd, from, tofd, to);
}

int linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
    if (is_mode("kill-at-place") && ours(from))
        raise(SIGKILL);
    int (*real)(int, const char *, int, const char *, int) =
        (int (*)(int, const char *, int, const char *, int))dlsym(RTLD_NEXT, "linkat");
    return real(fromfd, from, tofd, to, flags);
}
