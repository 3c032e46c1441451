/* estimate/util/file.c — files written atomically (temp + fsync + rename). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ff_util.h"

static int temp_for(const char *path, char *tmp, size_t n)
{
    if (snprintf(tmp, n, "%s.tmp.XXXXXX", path) >= (int)n)
        return -1;
    return mkstemp(tmp);
}

int ff_write_atomic(const char *path, const char *text, char *err, size_t errlen)
{
    char tmp[4096];
    int fd = temp_for(path, tmp, sizeof(tmp));
    if (fd < 0)
        return ff_errf(err, errlen, FF_ERR_IO, "cannot create a file next to %s: %s", path,
                       strerror(errno));
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            return ff_errf(err, errlen, FF_ERR_IO, "writing %s: %s", tmp, strerror(e));
        }
        done += (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return ff_errf(err, errlen, FF_ERR_IO, "writing %s: %s", tmp, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return ff_errf(err, errlen, FF_ERR_IO, "renaming %s to %s: %s", tmp, path, strerror(e));
    }
    return FF_OK;
}

int ff_check_writable(const char *path, char *err, size_t errlen)
{
    char tmp[4096];
    int fd = temp_for(path, tmp, sizeof(tmp));
    if (fd < 0)
        return ff_errf(err, errlen, FF_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    close(fd);
    unlink(tmp);
    return FF_OK;
}
