/*
 * estimate/util/file.c — files written whole or not at all.
 *
 * Every write goes to a temp file in the target's folder, named `.<name>.tmp.<pid>.<seq>`,
 * created with O_EXCL and mode 0666 (so the umask decides: 0644 under the usual 022), written,
 * fsynced, then renamed (replace) or hard-linked (never replace) onto the target, and the
 * folder is fsynced so the new name survives a crash. A process killed inside that window
 * leaves a temp file whose name carries its pid: ff_clean_stale_temps() recognises it by the
 * pattern and a dead pid, and removes it on the next run. A writer of several files that must
 * appear together fills a temp folder of the same name pattern and renames the folder.
 *
 * The *_at forms work relative to an open folder: a writer that opened its destination with
 * O_NOFOLLOW never follows a link planted inside it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "ff_util.h"

#define TEMP_TAG ".tmp."

/* A new name for every temp file of this process, even from two threads at once. */
static atomic_uint temp_seq;

/* The folder of path ("." when it has none) and its last component. */
static int split_path(const char *path, char *dir, size_t dirlen, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        *base = path;
        return snprintf(dir, dirlen, ".") >= (int)dirlen ? -1 : 0;
    }
    *base = slash + 1;
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= dirlen)
        return -1;
    memcpy(dir, path, n);
    dir[n] = 0;
    return 0;
}

/* Creates the temp file for `name` in the folder dfd (AT_FDCWD: name is a path); returns its
 * fd (errno set on failure). tmp gets the temp file's name, relative to dfd like name. */
static int temp_create(int dfd, const char *name, char *tmp, size_t n)
{
    char dir[4096];
    const char *base;
    if (split_path(name, dir, sizeof(dir), &base) < 0 || !*base) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (int tries = 0; tries < 100; tries++) {
        char leaf[256];
        if (ff_temp_name(base, leaf, sizeof(leaf)) < 0 ||
            snprintf(tmp, n, "%s%s%s", base != name ? dir : "", base != name ? "/" : "", leaf) >=
                (int)n) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

int ff_temp_name(const char *base, char *dst, size_t n)
{
    unsigned seq = atomic_fetch_add(&temp_seq, 1u);
    /* The target name is only there for a reader of the folder: at most 200 bytes of it keep
     * the temp name under NAME_MAX. */
    return snprintf(dst, n, ".%.200s" TEMP_TAG "%ld.%u", base, (long)getpid(), seq) >= (int)n ? -1
                                                                                              : 0;
}

int ff_write_temp_at(int dfd, const char *name, const char *text, char *tmp, size_t tmplen,
                     char *err, size_t errlen)
{
    int fd = temp_create(dfd, name, tmp, tmplen);
    if (fd < 0)
        return ff_errf(err, errlen, FF_ERR_IO, "cannot create a file next to %s: %s", name,
                       strerror(errno));
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlinkat(dfd, tmp, 0);
            return ff_errf(err, errlen, FF_ERR_IO, "writing %s: %s", tmp, strerror(e));
        }
        done += (size_t)w;
    }
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        unlinkat(dfd, tmp, 0);
        return ff_errf(err, errlen, FF_ERR_IO, "writing %s: %s", tmp, strerror(e));
    }
    if (close(fd) != 0) {
        int e = errno;
        unlinkat(dfd, tmp, 0);
        return ff_errf(err, errlen, FF_ERR_IO, "writing %s: %s", tmp, strerror(e));
    }
    return FF_OK;
}

/* The rename or link is only durable once the folder's own entry list is on disk. */
static int sync_dir_of(int dfd, const char *path, char *err, size_t errlen)
{
    char dir[4096];
    const char *base;
    if (split_path(path, dir, sizeof(dir), &base) < 0)
        return ff_errf(err, errlen, FF_ERR_IO, "path too long: %s", path);
    int fd = openat(dfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return ff_errf(err, errlen, FF_ERR_IO, "%s written, but its folder %s cannot be opened: %s",
                       path, dir, strerror(errno));
    int ret = fsync(fd);
    int e = errno;
    close(fd);
    /* Some file systems cannot sync a folder (EINVAL): nothing more can be done there. */
    if (ret != 0 && e != EINVAL && e != EROFS)
        return ff_errf(err, errlen, FF_ERR_IO, "%s written, but syncing its folder %s failed: %s",
                       path, dir, strerror(e));
    return FF_OK;
}

int ff_write_atomic_at(int dfd, const char *name, const char *text, char *err, size_t errlen)
{
    char tmp[4352];
    int ret = ff_write_temp_at(dfd, name, text, tmp, sizeof(tmp), err, errlen);
    if (ret < 0)
        return ret;
    if (renameat(dfd, tmp, dfd, name) != 0) {
        int e = errno;
        unlinkat(dfd, tmp, 0);
        return ff_errf(err, errlen, FF_ERR_IO, "renaming %s to %s: %s", tmp, name, strerror(e));
    }
    return sync_dir_of(dfd, name, err, errlen);
}

int ff_write_atomic(const char *path, const char *text, char *err, size_t errlen)
{
    return ff_write_atomic_at(AT_FDCWD, path, text, err, errlen);
}

/* path with "-<k>" before its extension: "a/p.json", 3 -> "a/p-3.json". */
static int numbered(const char *path, unsigned k, char *dst, size_t n)
{
    if (k == 1)
        return snprintf(dst, n, "%s", path) >= (int)n ? -1 : 0;
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
        dot = path + strlen(path);
    return snprintf(dst, n, "%.*s-%u%s", (int)(dot - path), path, k, dot) >= (int)n ? -1 : 0;
}

/* Puts tmp under the name `name` (both in dfd) unless that name exists: 0, EEXIST, or another
 * errno. */
static int place_new(int dfd, const char *tmp, const char *name)
{
    if (linkat(dfd, tmp, dfd, name, 0) == 0)
        return 0;
    int e = errno;
    if (e != EPERM && e != ENOTSUP && e != EOPNOTSUPP && e != ENOSYS && e != EMLINK)
        return e;
    /* No hard links here (FAT, some FUSE file systems): reserve the name, then replace our
     * own empty reservation. */
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0)
        return errno;
    close(fd);
    if (renameat(dfd, tmp, dfd, name) != 0) {
        e = errno;
        unlinkat(dfd, name, 0);
        return e;
    }
    return 0;
}

#define FF_UNIQUE_MAX 10000u

int ff_write_unique_at(int dfd, const char *path, const char *text, char *used, size_t usedlen,
                       char *err, size_t errlen)
{
    char tmp[4352], name[4352];
    int ret = ff_write_temp_at(dfd, path, text, tmp, sizeof(tmp), err, errlen);
    if (ret < 0)
        return ret;
    for (unsigned k = 1; k <= FF_UNIQUE_MAX; k++) {
        if (numbered(path, k, name, sizeof(name)) < 0) {
            unlinkat(dfd, tmp, 0);
            return ff_errf(err, errlen, FF_ERR_IO, "path too long: %s", path);
        }
        int e = place_new(dfd, tmp, name);
        if (e == EEXIST)
            continue;
        unlinkat(dfd, tmp, 0); /* after a link: the new name keeps the data */
        if (e != 0)
            return ff_errf(err, errlen, FF_ERR_IO, "creating %s: %s", name, strerror(e));
        if (used && usedlen)
            ff_strlcpy(used, name, usedlen);
        return sync_dir_of(dfd, name, err, errlen);
    }
    unlinkat(dfd, tmp, 0);
    return ff_errf(err, errlen, FF_ERR_IO, "%s and %u numbered names beside it all exist", path,
                   FF_UNIQUE_MAX - 1);
}

int ff_write_unique(const char *path, const char *text, char *used, size_t usedlen, char *err,
                    size_t errlen)
{
    return ff_write_unique_at(AT_FDCWD, path, text, used, usedlen, err, errlen);
}

/* Is name one of our temp files ".<name>.tmp.<pid>.<seq>"? Sets *pid. */
static bool temp_name_pid(const char *name, long *pid)
{
    if (name[0] != '.')
        return false;
    size_t len = strlen(name), i = len;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i == len || i == 0 || name[i - 1] != '.') /* seq */
        return false;
    size_t seq_dot = --i;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i == seq_dot || seq_dot - i > 9) /* pid */
        return false;
    size_t tag = strlen(TEMP_TAG);
    if (i < tag + 2 || strncmp(name + i - tag, TEMP_TAG, tag) != 0) /* ".x" before the tag */
        return false;
    *pid = strtol(name + i, NULL, 10);
    return *pid > 0;
}

/* A temp folder's entries (none of them folders: a temp folder holds files only), then the
 * folder; symbolic links inside are removed, never followed. false when it is not empty after. */
static bool remove_temp_dir(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return false;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
            unlinkat(fd, e->d_name, 0);
    }
    closedir(d);
    return unlinkat(dfd, name, AT_REMOVEDIR) == 0;
}

int ff_remove_temp_dir_at(int dfd, const char *name)
{
    return remove_temp_dir(dfd, name) ? FF_OK : FF_ERR_IO;
}

int ff_clean_stale_temps_at(int dfd, const char *label, unsigned *removed, char *err, size_t errlen)
{
    if (removed)
        *removed = 0;
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return ff_errf(err, errlen, FF_ERR_IO, "cannot read folder %s: %s", label, strerror(e));
    }
    long self = (long)getpid();
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        if (!temp_name_pid(e->d_name, &pid) || pid == self)
            continue;
        /* Only a writer that is gone; EPERM means it lives under another user. */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        struct stat st;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid())
            continue;
        bool gone = false;
        if (S_ISREG(st.st_mode))
            gone = unlinkat(fd, e->d_name, 0) == 0;
        else if (S_ISDIR(st.st_mode))
            gone = remove_temp_dir(fd, e->d_name);
        if (gone && removed)
            (*removed)++;
    }
    closedir(d);
    return FF_OK;
}

int ff_clean_stale_temps(const char *dir, unsigned *removed, char *err, size_t errlen)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        if (removed)
            *removed = 0;
        return ff_errf(err, errlen, FF_ERR_IO, "cannot read folder %s: %s", dir, strerror(errno));
    }
    int rc = ff_clean_stale_temps_at(dfd, dir, removed, err, errlen);
    close(dfd);
    return rc;
}

int ff_check_writable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return ff_errf(err, errlen, FF_ERR_INVALID, "%s is a folder, not a file", path);
        if (!S_ISREG(st.st_mode))
            return ff_errf(err, errlen, FF_ERR_INVALID, "%s exists and is not a regular file",
                           path);
    }
    char tmp[4352];
    int fd = temp_create(AT_FDCWD, path, tmp, sizeof(tmp));
    if (fd < 0)
        return ff_errf(err, errlen, FF_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    close(fd);
    unlink(tmp);
    return FF_OK;
}

int ff_check_dir_writable(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return ff_errf(err, errlen, FF_ERR_IO, "cannot use folder %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s is not a folder", dir);
    char probe[4352];
    if (snprintf(probe, sizeof(probe), "%s/.flopfit-write-test", dir) >= (int)sizeof(probe))
        return ff_errf(err, errlen, FF_ERR_IO, "path too long: %s", dir);
    char tmp[4352];
    int fd = temp_create(AT_FDCWD, probe, tmp, sizeof(tmp));
    if (fd < 0)
        return ff_errf(err, errlen, FF_ERR_IO, "cannot write in %s: %s", dir, strerror(errno));
    close(fd);
    unlink(tmp);
    return FF_OK;
}

int ff_mkdir_p(const char *dir, char *err, size_t errlen)
{
    char buf[4096];
    if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
        return ff_errf(err, errlen, FF_ERR_INVALID, "folder path is too long: %.64s...", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return ff_errf(err, errlen, FF_ERR_IO, "cannot create folder %s: %s", buf,
                           strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return ff_errf(err, errlen, FF_ERR_IO, "cannot create folder %s: %s", buf, strerror(errno));
    return FF_OK;
}
