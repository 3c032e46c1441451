/* Profile files: unique names, the umask's mode, stale temp files recognised and removed. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "ff_util.h"
#include "run/paths.h"

static void make_dir(char *dir)
{
    cr_assert(mkdtemp(dir));
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void remove_dir(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

static void read_back(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = 0;
    fclose(f);
}

/* Two runs in the same second pick the same name: both files exist afterwards. */
Test(files, unique_writes_never_replace)
{
    char dir[] = "/tmp/ff-uniq-XXXXXX", path[256], used[3][300], err[256], buf[64];
    make_dir(dir);
    snprintf(path, sizeof(path), "%s/p.json", dir);
    for (int i = 0; i < 3; i++) {
        char text[16];
        snprintf(text, sizeof(text), "{\"run\":%d}", i);
        cr_assert_eq(ff_write_unique(path, text, used[i], sizeof(used[i]), err, sizeof(err)), FF_OK,
                     "%s", err);
    }
    cr_assert_str_eq(used[0], path);
    char want[300];
    snprintf(want, sizeof(want), "%s/p-2.json", dir);
    cr_assert_str_eq(used[1], want);
    snprintf(want, sizeof(want), "%s/p-3.json", dir);
    cr_assert_str_eq(used[2], want);
    for (int i = 0; i < 3; i++) {
        char expect[16];
        snprintf(expect, sizeof(expect), "{\"run\":%d}", i);
        read_back(used[i], buf, sizeof(buf));
        cr_assert_str_eq(buf, expect);
    }
    cr_assert_eq(count_entries(dir), 3, "a temp file was left behind");
    remove_dir(dir);
}

/* Many processes at once on one name: every one gets its own file. */
Test(files, unique_writes_from_concurrent_processes)
{
    char dir[] = "/tmp/ff-race-XXXXXX", path[256];
    make_dir(dir);
    snprintf(path, sizeof(path), "%s/p.json", dir);
    enum { N = 8 };
    pid_t kids[N];
    for (int i = 0; i < N; i++) {
        kids[i] = fork();
        cr_assert_geq(kids[i], 0);
        if (kids[i] == 0) {
            char err[256];
            _exit(ff_write_unique(path, "{}", NULL, 0, err, sizeof(err)) == FF_OK ? 0 : 1);
        }
    }
    for (int i = 0; i < N; i++) {
        int st;
        cr_assert_eq(waitpid(kids[i], &st, 0), kids[i]);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    cr_assert_eq(count_entries(dir), N);
    remove_dir(dir);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "%s", path);
    return st.st_mode & 0777;
}

Test(files, mode_is_0666_less_the_umask)
{
    char dir[] = "/tmp/ff-mode-XXXXXX", path[256], err[256];
    make_dir(dir);
    snprintf(path, sizeof(path), "%s/p.json", dir);
    mode_t old = umask(022);
    cr_assert_eq(ff_write_atomic(path, "{}", err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(mode_of(path), 0644, "mode %o", mode_of(path));
    umask(077);
    cr_assert_eq(ff_write_atomic(path, "{}", err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(mode_of(path), 0600, "mode %o", mode_of(path));
    umask(027);
    char used[300];
    cr_assert_eq(ff_write_unique(path, "{}", used, sizeof(used), err, sizeof(err)), FF_OK);
    cr_assert_eq(mode_of(used), 0640, "mode %o", mode_of(used));
    umask(old);
    remove_dir(dir);
}

static pid_t dead_pid(void)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(0);
    cr_assert_eq(waitpid(pid, NULL, 0), pid);
    return pid;
}

static void touch(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    cr_assert_geq(fd, 0, "%s", path);
    close(fd);
}

static bool exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* What a kill inside the write window leaves is recognised by name and a dead pid. */
Test(files, stale_temps_of_dead_writers_are_removed)
{
    char dir[] = "/tmp/ff-stale-XXXXXX", err[256];
    make_dir(dir);
    char dead[128], live[128], other[][64] = {"p.json",       ".p.json.tmp.x.1", "p.json.tmp.123.4",
                                              ".p.json.tmp.", "..tmp.5.6",       "notes.txt"};
    snprintf(dead, sizeof(dead), ".X.json.tmp.%ld.0", (long)dead_pid());
    snprintf(live, sizeof(live), ".X.json.tmp.%ld.3", (long)getpid());
    touch(dir, dead);
    touch(dir, live);
    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
        touch(dir, other[i]);
    unsigned removed = 99;
    cr_assert_eq(ff_clean_stale_temps(dir, &removed, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(removed, 1);
    cr_assert_not(exists(dir, dead));
    cr_assert(exists(dir, live), "a live writer's temp file was removed");
    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
        cr_assert(exists(dir, other[i]), "%s is not ours and was removed", other[i]);
    cr_assert_eq(ff_clean_stale_temps("/nonexistent-ff", NULL, err, sizeof(err)), FF_ERR_IO);
    remove_dir(dir);
}

/* A writer of a whole folder that died leaves a temp folder: it goes with its files, and a link
 * inside it is removed without touching what it points to. */
Test(files, stale_temp_folders_are_removed_without_following_links)
{
    char dir[] = "/tmp/ff-stale-XXXXXX", err[256], sub[600], link_path[700];
    make_dir(dir);
    char dead[128], live[128];
    snprintf(dead, sizeof(dead), ".page.tmp.%ld.0", (long)dead_pid());
    snprintf(live, sizeof(live), ".page.tmp.%ld.1", (long)getpid());
    snprintf(sub, sizeof(sub), "%s/%s", dir, dead);
    cr_assert_eq(mkdir(sub, 0777), 0);
    touch(sub, "index.html");
    touch(dir, "target.txt");
    snprintf(link_path, sizeof(link_path), "%s/chart.svg", sub);
    char target[600];
    snprintf(target, sizeof(target), "%s/target.txt", dir);
    cr_assert_eq(symlink(target, link_path), 0);
    snprintf(sub, sizeof(sub), "%s/%s", dir, live);
    cr_assert_eq(mkdir(sub, 0777), 0);
    unsigned removed = 0;
    cr_assert_eq(ff_clean_stale_temps(dir, &removed, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(removed, 1);
    cr_assert_not(exists(dir, dead));
    cr_assert(exists(dir, live), "a live writer's temp folder was removed");
    cr_assert(exists(dir, "target.txt"), "the link's target was removed");
    remove_dir(dir);
}

/* The *_at writers stay in their folder: a link planted under the target's name is replaced,
 * not written through. */
Test(files, writes_at_a_folder_replace_links_instead_of_following_them)
{
    char dir[] = "/tmp/ff-at-XXXXXX", err[256], buf[64], target[600], name[600];
    make_dir(dir);
    touch(dir, "target.txt");
    snprintf(target, sizeof(target), "%s/target.txt", dir);
    snprintf(name, sizeof(name), "%s/p.json", dir);
    cr_assert_eq(symlink(target, name), 0);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(dfd, 0);
    char *text = NULL;
    size_t len = 0;
    cr_assert_eq(
        ff_read_file_capped_at(dfd, "p.json", 100, "profile", &text, &len, err, sizeof(err)),
        FF_ERR_IO, "a link was read through");
    cr_assert_eq(ff_write_atomic_at(dfd, "p.json", "{}", err, sizeof(err)), FF_OK, "%s", err);
    struct stat st;
    cr_assert_eq(lstat(name, &st), 0);
    cr_assert(S_ISREG(st.st_mode), "the link is still there");
    read_back(target, buf, sizeof(buf));
    cr_assert_str_empty(buf, "written through the link");
    char used[64];
    cr_assert_eq(ff_write_unique_at(dfd, "p.json", "{}", used, sizeof(used), err, sizeof(err)),
                 FF_OK, "%s", err);
    cr_assert_str_eq(used, "p-2.json");
    cr_assert_eq(
        ff_read_file_capped_at(dfd, "p-2.json", 100, "profile", &text, &len, err, sizeof(err)),
        FF_OK, "%s", err);
    cr_assert_str_eq(text, "{}");
    free(text);
    close(dfd);
    remove_dir(dir);
}

Test(files, writability_checks_refuse_folders_and_devices)
{
    char dir[] = "/tmp/ff-chk-XXXXXX", path[256], err[256];
    make_dir(dir);
    cr_assert_eq(ff_check_writable(dir, err, sizeof(err)), FF_ERR_INVALID);
    cr_assert(strstr(err, "is a folder"), "%s", err);
    cr_assert_eq(ff_check_writable("/dev/null", err, sizeof(err)), FF_ERR_INVALID);
    snprintf(path, sizeof(path), "%s/new.json", dir);
    cr_assert_eq(ff_check_writable(path, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_check_dir_writable(dir, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_check_dir_writable("/dev/null", err, sizeof(err)), FF_ERR_INVALID);
    cr_assert_eq(count_entries(dir), 0, "a check left a file");
    remove_dir(dir);
}

Test(paths, profile_names_are_short_and_tell_devices_apart)
{
    struct ff_device_info a = {0}, b = {0};
    snprintf(a.backend, sizeof(a.backend), "opencl");
    snprintf(a.name, sizeof(a.name), "%s",
             "A Very Long Accelerator Name With Many Words That Share A Prefix, revision 1");
    b = a;
    snprintf(b.name, sizeof(b.name), "%s",
             "A Very Long Accelerator Name With Many Words That Share A Prefix, revision 2");
    char na[128], nb[128], ia[8], ib[8];
    ff_bench_profile_name(&a, "20261201-101010", na, sizeof(na));
    ff_bench_profile_name(&b, "20261201-101010", nb, sizeof(nb));
    cr_assert_str_neq(na, nb, "two devices, one name: %s", na);
    /* The stem, with room for a "-<k>" suffix, stays within 62 bytes. */
    cr_assert_leq(strlen(na) - strlen(".json"), 58, "%s", na);
    cr_assert(strncmp(na, "opencl-a-very-long", 18) == 0, "%s", na);
    cr_assert(strstr(na, "-20261201-101010.json"), "%s", na);
    ff_bench_device_id(&a, ia, sizeof(ia));
    ff_bench_device_id(&b, ib, sizeof(ib));
    cr_assert_eq(strlen(ia), 6);
    cr_assert_str_neq(ia, ib);
    cr_assert(strstr(na, ia), "%s lacks the id %s", na, ia);
    ff_bench_device_id(&a, ib, sizeof(ib));
    cr_assert_str_eq(ia, ib, "the id is not stable");
}
