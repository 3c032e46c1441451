#!/usr/bin/env python3
"""tests/results/bench_scale.py — how long `flopfit results` takes over a large collection
(a Meson benchmark, never a test: the figures depend on the machine and its load).

usage: bench_scale.py FLOPFIT TESTS_RESULTS_DIR [PROFILES [DEVICES]]

Writes PROFILES (default 10000) profiles of DEVICES (default 2500) devices, made from
data/pocl.json with each device's name, driver and figures changed, into a temp folder, then
times `flopfit results` over it in md, csv, json and sqlite, with and without the estimator,
and `--compare` of the folder's two halves. Prints one line per command with its wall and CPU
time. FF_BENCH_KEEP=DIR writes the profiles to DIR and leaves them there.
"""
import copy
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

FLOPFIT, HERE = os.path.abspath(sys.argv[1]), sys.argv[2]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
DEVICES = int(sys.argv[4]) if len(sys.argv) > 4 else 2500
with open(os.path.join(HERE, "data", "pocl.json")) as f:
    base = json.load(f)

tmp = tempfile.mkdtemp()
root = os.environ.get("FF_BENCH_KEEP") or os.path.join(tmp, "profiles")
kinds = ("quick", "standard", "full")
t0 = time.monotonic()
for i in range(N):
    dev = i % DEVICES
    p = copy.deepcopy(base)
    p["schema_version"] = "1.1"
    p["run"] = {"kind": kinds[dev % 3], "argv": ["flopfit", "bench", "--" + kinds[dev % 3]]}
    p["device"]["name"] = f"Device {dev:05d}"
    p["device"]["driver_version"] = f"{1 + dev % 7}.{dev % 5}"
    p["created"] = f"2026-12-{1 + (i // DEVICES) % 28:02d}T10:00:00Z"
    scale = 1.0 + (i % 17) / 100.0
    for t in p["tests"]:
        if "value" in t and t.get("unit") != "B":
            t["value"] *= scale
        if t["status"] != "ok" and t.get("reason"):
            t["reason"] += f" (driver {dev % 40})"  # distinct footnotes, as real fleets have
    half = "a" if i < N // 2 else "b"
    folder = os.path.join(root, half, f"d{dev // 100:03d}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"p{i:05d}.json"), "w") as f:
        json.dump(p, f)
print(f"generated {N} profiles of {DEVICES} devices in {time.monotonic() - t0:.1f} s")


def timed(label, *args):
    """wall time, and the CPU time (user + system) the command used: on a loaded machine the
    second is the one to compare"""
    t, r = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([FLOPFIT, "results", *args], capture_output=True, text=True)
    dt, r2 = time.monotonic() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r2.ru_utime - r.ru_utime) + (r2.ru_stime - r.ru_stime)
    print(f"{dt:7.2f} s wall {cpu:7.2f} s cpu  exit {p.returncode}  flopfit results {label}",
          flush=True)
    if p.returncode != 0:
        print(p.stderr[-2000:])
    return p.returncode


out = os.path.join(tmp, "out")
rc = 0
rc |= timed("DIR --format md --no-estimate", root, "--format", "md", "--no-estimate",
            "--output", out + ".md")
rc |= timed("DIR --format csv --no-estimate", root, "--format", "csv", "--no-estimate",
            "--output", out + ".csv")
rc |= timed("DIR --format json --no-estimate", root, "--format", "json", "--no-estimate",
            "--output", out + ".json")
rc |= timed("DIR --format sqlite --no-estimate", root, "--format", "sqlite", "--no-estimate",
            "--output", out + ".db")
rc |= timed("DIR --format md (with the estimator)", root, "--format", "md", "--output",
            out + "-est.md")
rc |= timed("--compare DIR/a DIR/b --format csv", "--compare", os.path.join(root, "a"),
            os.path.join(root, "b"), "--format", "csv", "--output", out + "-cmp.csv")
shutil.rmtree(tmp)
sys.exit(1 if rc else 0)
