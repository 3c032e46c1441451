#!/usr/bin/env python3
"""tests/results/test_grouping.py — the grouping key of `flopfit results` and `--compare A B`
on profiles generated here from data/pocl.json (schema 1.1 fields as the writer puts them).

usage: test_grouping.py FLOPFIT TESTS_RESULTS_DIR

Grouping: a quick and a full run of one device, or two flopfit minor versions, or a 1.0 and
a 1.1 profile, or two device ids, are separate rows; a capped usable-memory probe reads as a
lower bound; % of measured peak is one run's matmul over the same run's peak.
Compare: a 100x latency difference with 100 % noise reads "slower", two devices are never
pooled, a device on one side only is listed, the header names devices, drivers and versions,
and the output is the same from one run to the next (fixed seed).
"""
import copy
import csv
import io
import json
import os
import shutil
import sys
import tempfile

from results_harness import check, finish, runner

FLOPFIT, HERE = os.path.abspath(sys.argv[1]), sys.argv[2]
with open(os.path.join(HERE, "data", "pocl.json")) as f:
    BASE = json.load(f)
tmp = tempfile.mkdtemp()
run = runner(FLOPFIT, tmp)


def profile(kind="standard", version="0.1.0", name=None, device_id=None, created=None,
            schema="1.1", driver=None):
    p = copy.deepcopy(BASE)
    p["schema_version"] = schema
    p["tool"]["version"] = version
    if schema != "1.0":
        p["run"] = {"kind": kind, "argv": ["flopfit", "bench", "--" + kind]}
    if name:
        p["device"]["name"] = name
    if device_id:
        p["device"]["device_id"] = device_id
    if driver:
        p["device"]["driver_version"] = driver
    if created:
        p["created"] = created
    return p


def test(p, family, name, **match):
    for t in p["tests"]:
        if t["family"] == family and t["name"] == name and all(
                t.get(k) == v for k, v in match.items()):
            yield t


def write(folder, fname, p):
    os.makedirs(os.path.join(tmp, folder), exist_ok=True)
    with open(os.path.join(tmp, folder, fname), "w") as f:
        json.dump(p, f)


def table(*args):
    rc, out, err = run(*args, "--format", "csv", "--no-estimate")
    check(rc == 0, f"results {args}: exit {rc}: {err}")
    return list(csv.DictReader(io.StringIO(out)))


# ---- grouping: quick vs full, two flopfit minors, 1.0 vs 1.1, two device ids
quick = profile("quick", "0.1.0", created="2026-12-01T10:00:00Z")
for t in test(quick, "memory", "usable"):
    t["value"], t["capped"], t["cap_bytes"] = 512 * 2**20, True, 512 * 2**20
full = profile("full", "0.2.1", created="2026-12-02T10:00:00Z")
for t in test(full, "memory", "usable"):
    t["value"], t["capped"], t["time_limited"] = 6 * 2**30, False, False
write("g", "quick.json", quick)
write("g", "full.json", full)
write("g", "old.json", profile(schema="1.0"))
write("g", "id-a.json", profile("full", "0.2.0", device_id="0x10de:0x2335"))
write("g", "id-b.json", profile("full", "0.2.0", device_id="0x10de:0x2336"))
rows = table("g")
check(len(rows) == 5, f"grouping: {len(rows)} rows, expected 5 (no two keys merged)")
kinds = sorted(r["run"] for r in rows)
check(kinds == ["full", "full", "full", "quick", "unrecorded"], f"grouping: run kinds {kinds}")
check(all(r["runs"] == "1" for r in rows), f"grouping: a row merged runs: {[r['runs'] for r in rows]}")
q = next((r for r in rows if r["run"] == "quick"), {})
check(q.get("flopfit_minor") == "0.1" and q.get("usable_memory_status") == "lower bound",
      f"grouping: the quick run's capped probe is not a lower bound: {q.get('usable_memory_status')}")
ids = sorted(r["device_id"] for r in rows if r["device_id"])
check(ids == ["0x10de:0x2335", "0x10de:0x2336"], f"grouping: device ids {ids}")
rc, md, err = run("g", "--no-estimate")
check("≥ 512.0 MiB" in md and "| 512.0 MiB" not in md,
      "md: the 512 MiB cap is not shown as a lower bound")
check("unrecorded" in md and "inferred" not in md, "md: run kind of a 1.0 profile")

# usable memory: capped and finished runs of one key: only the finished ones count
os.makedirs(os.path.join(tmp, "m"))
a = profile("full", created="2026-12-01T10:00:00Z")
b = profile("full", created="2026-12-02T10:00:00Z")
for t in test(a, "memory", "usable"):
    t["value"], t["capped"] = 512 * 2**20, True
for t in test(b, "memory", "usable"):
    t["value"], t["capped"], t["time_limited"] = 6 * 2**30, False, False
write("m", "a.json", a)
write("m", "b.json", b)
rows = table("m")
check(len(rows) == 1 and rows[0]["usable_memory_status"] == "ok" and
      abs(float(rows[0]["usable_memory_bytes"]) / 6 / 2**30 - 1) < 1e-6,
      f"memory: a capped run pulled the figure: {rows[0] if rows else rows}")

# % of measured peak within one run: run 1 has a fast matmul and a fast peak, run 2 slow and
# slow; both 50 %. Dividing one run's matmul by the other's peak would give 25 % or 100 %.
os.makedirs(os.path.join(tmp, "p"))
for i, scale in enumerate((2.0, 1.0)):
    p = profile("full", created=f"2026-12-0{i + 1}T10:00:00Z")
    p["tests"] = [t for t in p["tests"] if t["family"] not in ("matmul", "peak")]
    p["tests"].append({"family": "matmul", "name": "matmul", "impl": "flopfit",
                       "precision": "fp32", "shape": {"m": 512, "n": 512, "k": 512},
                       "status": "ok", "verified": True, "value": 50e9 * scale,
                       "unit": "FLOP/s"})
    p["tests"].append({"family": "peak", "name": "peak", "impl": "flopfit",
                       "precision": "fp32", "status": "ok", "verified": True,
                       "value": 100e9 * scale, "unit": "FLOP/s"})
    write("p", f"run{i}.json", p)
rc, md, err = run("p", "--no-estimate")
check(rc == 0 and "fp32 50%" in md, f"peak: not computed within each run: {err}")

# ---- compare
def latency(p, value, noise):
    """launch latency `value` s, its repetitions spread `noise` of the median"""
    for t in test(p, "latency", "launch"):
        t["value"] = value
        t["device_time_s"] = {"median": value, "min": value * (1 - noise / 2),
                              "max": value * (1 + noise / 2)}


a = profile("standard", driver="3.1+debian")
b = profile("standard", driver="3.1+debian")
latency(a, 1e-6, 1.0)
latency(b, 1e-4, 1.0)
write("ca", "x.json", a)
write("cb", "x.json", b)
rc, out, err = run("--compare", "ca", "cb", "--format", "json")
check(rc == 0, f"compare: exit {rc}: {err}")
doc = json.loads(out) if rc == 0 else {"devices": []}
tests = {t["test"]: t for d in doc["devices"] for t in d["tests"]}
lat = tests.get("latency launch flopfit", {})
check(lat.get("verdict") == "slower" and abs(lat.get("ratio", 0) - 100) < 1e-6,
      f"compare: 100x latency with 100% noise: {lat}")
check(lat.get("ratio_low", 0) > 1, f"compare: the interval does not exclude 1: {lat}")
rc, out2, err = run("--compare", "ca", "cb", "--format", "json")
check(out == out2, "compare: two runs of the same comparison differ (the seed is not fixed)")
rc, out, err = run("--compare", "ca", "cb", "--fail-on-worse")
check(rc == 1 and "| slower |" in out, f"compare --fail-on-worse: exit {rc}")

# two devices in A, one of them in B: never pooled, the other listed as only in A
fast = profile("standard", name="Device Fast")
slow = profile("standard", name="Device Slow")
latency(fast, 1e-6, 0.1)
latency(slow, 1e-3, 0.1)
write("pa", "fast.json", fast)
write("pa", "slow.json", slow)
again = profile("standard", name="Device Slow", version="0.2.0", driver="3.2")
latency(again, 1e-3, 0.1)
write("pb", "slow.json", again)
write("pb", "new.json", profile("standard", name="Device New"))
rc, out, err = run("--compare", "pa", "pb", "--format", "json")
doc = json.loads(out) if rc == 0 else {"devices": []}
by = {}
for d in doc["devices"]:
    side = d["a"] or d["b"]
    by[side["device"]] = d
s = by.get("Device Slow", {})
lat = next((t for t in s.get("tests", []) if t["test"] == "latency launch flopfit"), {})
check(lat.get("verdict") == "no change" and abs(lat.get("a", {}).get("value", 0) - 1e-3) < 1e-12,
      f"compare: Device Slow pooled with Device Fast: {lat}")
check(s.get("paired") == "device" and s["a"]["driver"] == "3.1+debian" and
      s["b"]["driver"] == "3.2", f"compare: driver upgrade not paired by device: {s.get('paired')}")
check(by.get("Device Fast", {}).get("paired") == "only in A", "compare: one-sided device (A)")
check(by.get("Device New", {}).get("paired") == "only in B", "compare: one-sided device (B)")
rc, md, err = run("--compare", "pa", "pb")
for words in ("Device Fast", "Only in A", "Only in B", "driver 3.2", "flopfit 0.2.0",
              "driver 3.1+debian", "flopfit 0.1.0"):
    check(words in md, f"compare md: {words!r} missing from the header or sections")
# a quick run never pairs with a standard one
write("qa", "x.json", profile("quick"))
write("qb", "x.json", profile("standard"))
rc, out, err = run("--compare", "qa", "qb", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
check(sorted(r["verdict"] for r in rows) == ["only in A", "only in B"],
      f"compare: a quick run was compared with a standard one: {[r['verdict'] for r in rows]}")

shutil.rmtree(tmp)
finish()
