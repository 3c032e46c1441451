#!/usr/bin/env python3
"""tests/results/test_sqlite.py — `flopfit results --format sqlite --output FILE`, read back
with Python's sqlite3 module.

usage: test_sqlite.py FLOPFIT TESTS_RESULTS_DIR

One row of runs per profile with the grouping key, paths relative to the folder given, one
row of tests per test (NULL where a test has no figure), queries across both tables, the file
replaced whole (no temp file left, a reader's old handle still reads the old database), and
bad output paths refused.
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile

from results_harness import check, finish, runner

FLOPFIT, HERE = os.path.abspath(sys.argv[1]), sys.argv[2]
tmp = tempfile.mkdtemp()
run = runner(FLOPFIT, HERE)
db_path = os.path.join(tmp, "results.db")

rc, out, err = run("data", "--format", "sqlite", "--output", db_path, "--no-estimate")
check(rc == 1 and "v2.json" in err, f"sqlite: exit {rc} (two profiles skipped): {err}")
check(out == "", f"sqlite: wrote to stdout: {out[:200]!r}")
db = sqlite3.connect(db_path)
runs = db.execute("SELECT id, path, vendor, device, device_id, driver, backend, run_kind, "
                  "flopfit_minor, device_slug, schema_version FROM runs ORDER BY path").fetchall()
check(len(runs) == 5, f"sqlite: {len(runs)} runs, expected 5")
paths = [r[1] for r in runs]
check(paths == ["data/h200-a.json", "data/h200-b.json", "data/lavapipe.json", "data/pocl-ops.json",
                 "data/pocl.json"], f"sqlite: paths {paths}")
check(all((r[7], r[10]) == (("standard", "1.1") if r[1] == "data/pocl-ops.json" else
                            ("unrecorded", "1.0")) and r[8] == "0.1" for r in runs),
      f"sqlite: key columns {runs}")
n_tests = db.execute("SELECT count(*) FROM tests").fetchone()[0]
want = 0
for name in ("h200-a", "h200-b", "lavapipe", "pocl", "pocl-ops"):
    with open(os.path.join(HERE, "data", name + ".json")) as f:
        want += len(json.load(f)["tests"])
check(n_tests == want, f"sqlite: {n_tests} tests, expected {want}")
# every test of pocl.json is there, in its own run
with open(os.path.join(HERE, "data", "pocl.json")) as f:
    pocl = json.load(f)
got = db.execute("SELECT count(*) FROM tests JOIN runs ON runs.id = tests.run_id "
                 "WHERE runs.path = 'data/pocl.json'").fetchone()[0]
check(got == len(pocl["tests"]), f"sqlite: {got} tests of pocl.json, expected {len(pocl['tests'])}")
# a query a publisher would run: the best verified fp32 matmul per device
best = dict(db.execute(
    "SELECT runs.device, max(tests.value) FROM tests JOIN runs ON runs.id = tests.run_id "
    "WHERE family = 'matmul' AND precision = 'fp32' AND status = 'ok' AND verified = 1 "
    "GROUP BY runs.device_slug").fetchall())
check(abs(best.get("pthread-haswell-AMD EPYC", 0) - 1.183753e11) < 1e3, f"sqlite: best fp32 {best}")
# op tests: their group g and bytes, NULL where the profile has none
ops = db.execute("SELECT name, precision, m, n, k, g, bytes, status, value FROM tests "
                 "WHERE family = 'op' ORDER BY name, precision, n, k").fetchall()
check(len(ops) == 14, f"sqlite: {len(ops)} op tests, expected 14")
check({o[5] for o in ops if o[0] == "attn_decode"} == {4} and
      all(o[5] is None for o in ops if o[0] != "attn_decode"), f"sqlite: op groups {ops}")
check(all(o[6] and o[6] > 0 for o in ops), f"sqlite: op bytes {ops}")
check(db.execute("SELECT count(*) FROM tests WHERE family != 'op' AND g IS NOT NULL").fetchone()[0]
      == 0, "sqlite: a g on a test that is no op")
check(db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "1.1",
      "sqlite: schema_version")
# a test without a figure has NULL, never 0
nulls = db.execute("SELECT count(*) FROM tests WHERE status != 'ok' AND value IS NOT NULL"
                   ).fetchone()[0]
check(nulls == 0, f"sqlite: {nulls} not-ok tests carry a value")
unsup = db.execute("SELECT count(*) FROM tests WHERE status = 'unsupported' AND value IS NULL "
                   "AND reason IS NOT NULL").fetchone()[0]
check(unsup > 0, "sqlite: unsupported tests without their reason")
times = db.execute("SELECT median_s, min_s, max_s, repetitions FROM tests JOIN runs ON "
                   "runs.id = run_id WHERE runs.path = 'data/pocl.json' AND family = 'latency' "
                   "AND name = 'launch'").fetchone()
check(times == (1.262e-06, 5.3e-07, 2.3174e-05, 200), f"sqlite: launch times {times}")
# H200's two runs share a device_slug (one row of the table)
slugs = db.execute("SELECT count(DISTINCT device_slug) FROM runs WHERE device = 'NVIDIA H200'"
                   ).fetchone()[0]
check(slugs == 1, f"sqlite: the H200 runs are {slugs} rows")

# replaced whole: the old handle still reads the old database, no temp file is left
old = db.execute("SELECT count(*) FROM runs").fetchone()[0]
rc, out, err = run("data/pocl.json", "--format", "sqlite", "--output", db_path, "--no-estimate")
check(rc == 0, f"sqlite: rewrite: exit {rc}: {err}")
check(db.execute("SELECT count(*) FROM runs").fetchone()[0] == old,
      "sqlite: the file was written in place, not replaced")
db.close()
db = sqlite3.connect(db_path)
check(db.execute("SELECT count(*) FROM runs").fetchone()[0] == 1, "sqlite: rewrite content")
check(db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] ==
      "flopfit.results.sqlite", "sqlite: meta table")
db.close()
check(sorted(os.listdir(tmp)) == ["results.db"], f"sqlite: left behind: {os.listdir(tmp)}")

# bad output paths: a folder, a missing folder
for bad in (tmp, os.path.join(tmp, "no", "such", "x.db")):
    rc, out, err = run("data/pocl.json", "--format", "sqlite", "--output", bad, "--no-estimate")
    check(rc != 0 and bad.rstrip("/") in err, f"sqlite: {bad}: exit {rc}: {err}")
check(sorted(os.listdir(tmp)) == ["results.db"], f"sqlite: a failed write left {os.listdir(tmp)}")

shutil.rmtree(tmp)
finish()
