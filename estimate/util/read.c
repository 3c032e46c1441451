/*
 * estimate/util/read.c — whole small files read safely: regular files only, a size cap.
 *
 * Every reader of an input file in flopfit (profiles, config.json) goes through here, so a
 * FIFO, /dev/zero, a directory or a runaway file cannot block or exhaust the process. The
 * file is opened with O_NONBLOCK (opening a FIFO for reading would otherwise wait for a
 * writer), checked with fstat on the open descriptor (no race with a rename between check
 * and read), and read with a bounded loop that stops one byte past the cap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ff_util.h"

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "not a regular file";
}

static int not_regular(const char *path, mode_t mode, const char *what, char *err, size_t errlen)
{
    return ff_errf(err, errlen, FF_ERR_IO, "%s: is %s, not a regular file (expected a %s)", path,
                   kind_of(mode), what);
}

/* strerror is not guaranteed reentrant; the XSI strerror_r is (_POSIX_C_SOURCE 200809L). */
static const char *why(int e, char *buf, size_t n)
{
    if (strerror_r(e, buf, n) != 0)
        ff_strlcpy(buf, "unknown error", n);
    return buf;
}

/* ff_open_regular relative to dfd, with extra open flags (O_NOFOLLOW for the _at readers). */
static int open_regular_at(int dfd, const char *path, int oflags, const char *what, bool missing_ok,
                           int *fd_out, int64_t *size, char *err, size_t errlen)
{
    char ebuf[128];
    if (!path || !fd_out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no file");
    if (!what)
        what = "input file";
    *fd_out = -1;
    int fd = openat(dfd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | oflags);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT && missing_ok)
            return FF_OK;
        /* A socket cannot be opened at all (ENXIO): say what it is, not only the errno. */
        struct stat st;
        if (fstatat(dfd, path, &st, (oflags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0) == 0 &&
            !S_ISREG(st.st_mode))
            return not_regular(path, st.st_mode, what, err, errlen);
        return ff_errf(err, errlen, FF_ERR_IO, "%s: cannot open: %s", path,
                       why(e, ebuf, sizeof(ebuf)));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return ff_errf(err, errlen, FF_ERR_IO, "%s: cannot stat: %s", path,
                       why(e, ebuf, sizeof(ebuf)));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return not_regular(path, st.st_mode, what, err, errlen);
    }
    /* The caller gets an ordinary descriptor (reads of a regular file never block anyway). */
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return ff_errf(err, errlen, FF_ERR_IO, "%s: cannot use: %s", path,
                       why(e, ebuf, sizeof(ebuf)));
    }
    if (size)
        *size = (int64_t)st.st_size;
    *fd_out = fd;
    return FF_OK;
}

int ff_open_regular(const char *path, const char *what, bool missing_ok, int *fd_out, int64_t *size,
                    char *err, size_t errlen)
{
    return open_regular_at(AT_FDCWD, path, 0, what, missing_ok, fd_out, size, err, errlen);
}

static int read_capped(int dfd, const char *path, int flags, size_t max_bytes, const char *what,
                       char **out, size_t *len, char *err, size_t errlen);

int ff_read_file_capped(const char *path, size_t max_bytes, const char *what, char **out,
                        size_t *len, char *err, size_t errlen)
{
    return read_capped(AT_FDCWD, path, 0, max_bytes, what, out, len, err, errlen);
}

int ff_read_file_capped_at(int dfd, const char *name, size_t max_bytes, const char *what,
                           char **out, size_t *len, char *err, size_t errlen)
{
    return read_capped(dfd, name, O_NOFOLLOW, max_bytes, what, out, len, err, errlen);
}

static int read_capped(int dfd, const char *path, int flags, size_t max_bytes, const char *what,
                       char **out, size_t *len, char *err, size_t errlen)
{
    char ebuf[128];
    if (!path || !out || !len)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no file");
    if (!what)
        what = "input file";
    *out = NULL;
    *len = 0;
    int fd = -1;
    int64_t size = 0;
    int rc = open_regular_at(dfd, path, flags, what, false, &fd, &size, err, errlen);
    if (rc != FF_OK)
        return rc;
    if (size < 0 || (uintmax_t)size > (uintmax_t)max_bytes) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID,
                     "%s: %jd bytes, larger than the %zu-byte limit for a %s", path, (intmax_t)size,
                     max_bytes, what);
        goto error_fd;
    }
    /* st_size is a hint: the file may grow or shrink while it is read. The buffer grows up
     * to max_bytes + 1, and one byte past the cap means "too large". */
    size_t cap = (size_t)size + 1, used = 0;
    if (cap < 4096)
        cap = 4096;
    if (cap > max_bytes + 1)
        cap = max_bytes + 1;
    char *buf = malloc(cap + 1);
    if (!buf) {
        rc = ff_errf(err, errlen, FF_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", path, cap);
        goto error_fd;
    }
    for (;;) {
        if (used == cap) {
            if (cap > max_bytes)
                break;
            size_t ncap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *nbuf = realloc(buf, ncap + 1);
            if (!nbuf) {
                rc = ff_errf(err, errlen, FF_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", path,
                             ncap);
                goto error_buf;
            }
            buf = nbuf;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0) {
            int e = errno;
            if (e == EINTR)
                continue;
            rc = ff_errf(err, errlen, FF_ERR_IO, "%s: read error: %s", path,
                         why(e, ebuf, sizeof(ebuf)));
            goto error_buf;
        }
        if (got == 0)
            break;
        used += (size_t)got;
    }
    if (used > max_bytes) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID,
                     "%s: larger than the %zu-byte limit for a %s (it grew while being read)", path,
                     max_bytes, what);
        goto error_buf;
    }
    buf[used] = '\0';
    *out = buf;
    *len = used;
    close(fd);
    return FF_OK;

error_buf:
    free(buf);
error_fd:
    close(fd);
    return rc;
}
