/*
 * results/src/dest.c — the folders the publisher writes into. A destination the user named
 * (--results, --html, --publish) is opened by its path; every folder and file under it whose
 * name comes from a profile is a slug (ff_pub_slug), reached with openat() on the parent's
 * descriptor and O_NOFOLLOW, so a symbolic link planted inside the destination is refused
 * instead of followed out of it. Files are written atomically inside their folder.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <flopfit/status.h>

#include "results_impl.h"

void ff_pub_dir_init(struct ff_pub_dir *d)
{
    d->fd = -1;
    d->path[0] = 0;
}

void ff_pub_dir_finish(struct ff_pub_dir *d)
{
    if (d->fd >= 0)
        close(d->fd);
    ff_pub_dir_init(d);
}

int ff_pub_dir_open(struct ff_pub_dir *d, const char *path, bool create, char *err, size_t errlen)
{
    ff_pub_dir_init(d);
    if (strlen(path) >= sizeof(d->path))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%.64s...: folder path too long", path);
    if (create)
        FF_TRY(ff_mkdir_p(path, err, errlen));
    d->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d->fd < 0)
        return ff_errf(err, errlen, FF_ERR_IO, "%s: cannot open the folder: %s", path,
                       strerror(errno));
    ff_strlcpy(d->path, path, sizeof(d->path));
    return FF_OK;
}

int ff_pub_check_name(const char *name, char *err, size_t errlen)
{
    size_t n = strlen(name);
    if (n == 0 || n > 255 || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "'%.64s%s' is not a file name (expected 1 to 255 bytes, no '/', not . "
                       "or ..)",
                       name, n > 64 ? "..." : "");
    return FF_OK;
}

/* Why the entry `name` of d cannot be used as a folder, from the errno of openat. */
static int not_a_folder(const struct ff_pub_dir *d, const char *name, int e, char *err,
                        size_t errlen)
{
    struct stat st;
    if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s/%s is a symbolic link: refused, nothing is written through a link "
                       "inside %s (make it a real folder or remove it)",
                       d->path, name, d->path);
    if (e == ENOTDIR)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s/%s exists and is not a folder", d->path,
                       name);
    return ff_errf(err, errlen, e == ENOENT ? FF_ERR_NOT_FOUND : FF_ERR_IO,
                   "%s/%s: cannot open the folder: %s", d->path, name, strerror(e));
}

int ff_pub_dir_sub(struct ff_pub_dir *out, const struct ff_pub_dir *parent, const char *name,
                   bool create, char *err, size_t errlen)
{
    ff_pub_dir_init(out);
    FF_TRY(ff_pub_check_name(name, err, errlen));
    if (create && mkdirat(parent->fd, name, 0777) != 0 && errno != EEXIST)
        return ff_errf(err, errlen, FF_ERR_IO, "%s/%s: cannot create the folder: %s", parent->path,
                       name, strerror(errno));
    out->fd = openat(parent->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (out->fd < 0)
        return not_a_folder(parent, name, errno, err, errlen);
    if (snprintf(out->path, sizeof(out->path), "%s/%s", parent->path, name) >=
        (int)sizeof(out->path)) {
        ff_pub_dir_finish(out);
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s/%.64s...: path too long", parent->path,
                       name);
    }
    return FF_OK;
}

int ff_pub_dir_put(const struct ff_pub_dir *d, const char *name, const char *text, bool check,
                   char *err, size_t errlen)
{
    FF_TRY(ff_pub_check_name(name, err, errlen));
    if (!check) {
        char why[512];
        int rc = ff_write_atomic_at(d->fd, name, text, why, sizeof(why));
        return rc ? ff_errf(err, errlen, rc, "in %s: %s", d->path, why) : FF_OK;
    }
    char *have = NULL;
    size_t len = 0;
    int rc = ff_read_file_capped_at(d->fd, name, 64u << 20, "generated file", &have, &len, NULL, 0);
    bool same = rc == FF_OK && len == strlen(text) && memcmp(have, text, len) == 0;
    free(have);
    return same ? FF_OK
                : ff_errf(err, errlen, FF_ERR_VERIFY, "%s/%s is %s", d->path, name,
                          rc == FF_OK ? "not current" : "missing");
}
