/*
 * results/src/out_sqlite.c — `flopfit results --format sqlite --output results.db`: every
 * profile read into an SQLite database (libsqlite3) for collections too large for a table.
 *
 *   runs   one row per profile: its path (relative to the folder given), the grouping key
 *          (vendor, device, device_id, driver, backend, run_kind, flopfit_minor), the table row
 *          it belongs to (device_slug), created, content_hash, flopfit version and commit,
 *          schema version, complete.
 *   tests  one row per test of a profile: run_id (runs.id), family, name, impl, precision,
 *          m, n, k, status, value (NULL when the test has no figure), unit, verified,
 *          repetitions, device and wall median/min/max seconds (NULL when absent), reason,
 *          g (an op test's group, "shape"."g") and bytes (the traffic of one run), NULL when
 *          absent.
 *
 * The file is built under a temp name beside the output (ff_temp_name, so a dead writer's is
 * recognised), fsynced, and renamed over the output: a reader sees the old database or the
 * new one, never half of one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include <flopfit/status.h>

#include "results_impl.h"

static const char schema_sql[] =
    "PRAGMA journal_mode = OFF;"
    "PRAGMA synchronous = OFF;"
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE runs ("
    " id INTEGER PRIMARY KEY, path TEXT NOT NULL, vendor TEXT, device TEXT, device_id TEXT,"
    " driver TEXT, backend TEXT, run_kind TEXT NOT NULL, flopfit_minor TEXT,"
    " device_slug TEXT NOT NULL, platform TEXT, type TEXT, created TEXT, content_hash TEXT,"
    " flopfit_version TEXT, flopfit_git TEXT, schema_version TEXT NOT NULL,"
    " complete INTEGER NOT NULL);"
    "CREATE TABLE tests ("
    " run_id INTEGER NOT NULL REFERENCES runs(id), family TEXT NOT NULL, name TEXT NOT NULL,"
    " impl TEXT, precision TEXT, m INTEGER, n INTEGER, k INTEGER, status TEXT NOT NULL,"
    " value REAL, unit TEXT, verified INTEGER NOT NULL, repetitions INTEGER,"
    " median_s REAL, min_s REAL, max_s REAL, wall_median_s REAL, wall_min_s REAL,"
    " wall_max_s REAL, reason TEXT, g INTEGER, bytes INTEGER);";

static const char index_sql[] =
    "CREATE INDEX runs_key ON runs (vendor, device, device_id, driver, backend, run_kind,"
    " flopfit_minor);"
    "CREATE INDEX tests_run ON tests (run_id);"
    "CREATE INDEX tests_test ON tests (family, name, precision);";

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v, bool have)
{
    if (have)
        sqlite3_bind_int64(st, i, (sqlite3_int64)v);
    else
        sqlite3_bind_null(st, i);
}

static void bind_times(sqlite3_stmt *st, int i, const struct ff_profile_times *t)
{
    for (int k = 0; k < 3; k++) {
        double v = k == 0 ? t->median_s : k == 1 ? t->min_s : t->max_s;
        if (t->present)
            sqlite3_bind_double(st, i + k, v);
        else
            sqlite3_bind_null(st, i + k);
    }
}

static int fill(sqlite3 *db, const struct ff_pub_set *set, char *err, size_t errlen)
{
    sqlite3_stmt *run = NULL, *test = NULL, *meta = NULL;
    int rc = sqlite3_exec(db, schema_sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "INSERT INTO runs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                                "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
                                -1, &run, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "INSERT INTO tests VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                                "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
                                -1, &test, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO meta VALUES (?1, ?2)", -1, &meta, NULL);
    if (rc == SQLITE_OK) {
        static const char *const rows[][2] = {
            {"schema", "flopfit.results.sqlite"},
            {"schema_version", "1.1"}, /* 1.1: tests.g and tests.bytes */
            {"profile_schema", "flopfit.profile 1.x"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && rc == SQLITE_OK; i++) {
            bind_text(meta, 1, rows[i][0]);
            bind_text(meta, 2, rows[i][1]);
            rc = sqlite3_step(meta) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
            sqlite3_reset(meta);
        }
    }
    sqlite3_int64 id = 0;
    for (size_t di = 0; di < set->n_devices && rc == SQLITE_OK; di++) {
        const struct ff_pub_device *d = &set->devices[di];
        for (size_t ri = 0; ri < d->n_runs && rc == SQLITE_OK; ri++) {
            const struct ff_pub_run *r = d->runs[ri];
            const struct ff_profile_info *in = r->info;
            const struct ff_profile_device *pd = &in->device;
            id++;
            sqlite3_bind_int64(run, 1, id);
            bind_text(run, 2, ff_pub_run_path(set, r));
            bind_text(run, 3, pd->vendor);
            bind_text(run, 4, pd->name);
            bind_text(run, 5, in->device_id);
            bind_text(run, 6, pd->driver_version);
            bind_text(run, 7, pd->backend);
            bind_text(run, 8, r->kind);
            bind_text(run, 9, r->tool_minor[0] ? r->tool_minor : NULL);
            bind_text(run, 10, d->slug);
            bind_text(run, 11, pd->platform);
            bind_text(run, 12, pd->type);
            bind_text(run, 13, in->created);
            bind_text(run, 14, in->content_hash);
            bind_text(run, 15, in->tool_version);
            bind_text(run, 16, in->tool_git);
            bind_text(run, 17, in->schema_version);
            sqlite3_bind_int(run, 18, in->complete);
            rc = sqlite3_step(run) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
            sqlite3_reset(run);
            for (size_t ti = 0; ti < ff_profile_test_count(r->doc) && rc == SQLITE_OK; ti++) {
                const struct ff_profile_test *t = ff_profile_test_at(r->doc, ti);
                bool shape = t->m || t->n || t->k;
                sqlite3_bind_int64(test, 1, id);
                bind_text(test, 2, t->family);
                bind_text(test, 3, t->name);
                bind_text(test, 4, t->impl);
                bind_text(test, 5, t->precision);
                bind_u64(test, 6, t->m, shape);
                bind_u64(test, 7, t->n, shape);
                bind_u64(test, 8, t->k, shape);
                bind_text(test, 9, t->status_text);
                if (t->has_value)
                    sqlite3_bind_double(test, 10, t->value);
                else
                    sqlite3_bind_null(test, 10);
                bind_text(test, 11, t->unit);
                sqlite3_bind_int(test, 12, t->verified);
                bind_u64(test, 13, t->repetitions, t->repetitions > 0);
                bind_times(test, 14, &t->device_time_s);
                bind_times(test, 17, &t->wall_time_s);
                bind_text(test, 20, t->reason);
                bind_u64(test, 21, t->g, t->g != 0);
                bind_u64(test, 22, t->bytes, t->bytes > 0);
                rc = sqlite3_step(test) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
                sqlite3_reset(test);
            }
        }
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, index_sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    int out = rc == SQLITE_OK ? FF_OK
                              : ff_errf(err, errlen, FF_ERR_IO, "cannot write the database: %s",
                                        sqlite3_errmsg(db));
    sqlite3_finalize(run);
    sqlite3_finalize(test);
    sqlite3_finalize(meta);
    return out;
}

int ff_pub_write_sqlite(const struct ff_pub_set *set, const char *path, char *err, size_t errlen)
{
    char dir[4096], tmp[4096 + 300], name[256];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || strlen(path) >= sizeof(dir))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "invalid value '%s' for --output: expected a file path for the database",
                       path);
    if (slash)
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path + 1), path);
    else
        dir[0] = 0;
    if (ff_temp_name(base, name, sizeof(name)) != 0)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: the file name is too long", path);
    snprintf(tmp, sizeof(tmp), "%s%s", dir, name);
    /* the temp file is ours alone: created here, never through a link */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return ff_errf(err, errlen, FF_ERR_IO, "%s: cannot create a file in its folder: %s", path,
                       strerror(errno));
    close(fd);
    sqlite3 *db = NULL;
    int rc = FF_OK;
    if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
        rc = ff_errf(err, errlen, FF_ERR_IO, "%s: cannot open the database: %s", path,
                     db ? sqlite3_errmsg(db) : "out of memory");
    if (!rc)
        rc = fill(db, set, err, errlen);
    if (sqlite3_close(db) != SQLITE_OK && !rc)
        rc = ff_errf(err, errlen, FF_ERR_IO, "%s: cannot close the database", path);
    if (!rc) {
        fd = open(tmp, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) != 0)
            rc = ff_errf(err, errlen, FF_ERR_IO, "%s: cannot sync the database: %s", path,
                         strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    if (!rc && rename(tmp, path) != 0)
        rc = ff_errf(err, errlen, FF_ERR_IO, "%s: cannot put the database in place: %s", path,
                     strerror(errno));
    if (rc) {
        unlink(tmp);
        return rc;
    }
    fd = open(dir[0] ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    return FF_OK;
}
