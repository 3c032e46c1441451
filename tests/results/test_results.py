#!/usr/bin/env python3
"""tests/results/test_results.py — `flopfit results` end to end on the profiles in data/.

usage: test_results.py FLOPFIT TESTS_RESULTS_DIR PROFILE_HASH   (FF_UPDATE_GOLDEN=1 rewrites golden/)

Golden md/csv/json tables (--no-estimate: the table's own logic; the estimator's column is
checked against `flopfit estimate` itself), the CSV through Python's csv module, the JSON
against results.schema.json, bad and empty inputs, option errors, --compare, submit and
--publish --check.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

from results_harness import check, finish, runner, write_profile

FLOPFIT, HERE = os.path.abspath(sys.argv[1]), sys.argv[2]
HASHER = os.path.abspath(sys.argv[3])
DATA = os.path.join(HERE, "data")
run = runner(FLOPFIT, HERE)


# ---- a tiny JSON Schema subset (type, enum, required, properties, items, bounds): the
# schema file uses nothing else, and Debian's python3-jsonschema is not a dependency.
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def type_ok(v, t):
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def validate(v, s, path="$"):
    errs = []
    t = s.get("type")
    if t and not any(type_ok(v, x) for x in (t if isinstance(t, list) else [t])):
        return [f"{path}: {v!r} is not {t}"]
    if "enum" in s and v not in s["enum"]:
        errs.append(f"{path}: {v!r} not in {s['enum']}")
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if "minimum" in s and v < s["minimum"]:
            errs.append(f"{path}: {v} < {s['minimum']}")
        if "exclusiveMinimum" in s and v <= s["exclusiveMinimum"]:
            errs.append(f"{path}: {v} <= {s['exclusiveMinimum']}")
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                errs.append(f"{path}: missing {k}")
        props = s.get("properties", {})
        for k, x in v.items():
            if k in props:
                errs += validate(x, props[k], f"{path}.{k}")
            elif isinstance(s.get("additionalProperties"), dict):
                errs += validate(x, s["additionalProperties"], f"{path}.{k}")
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            errs += validate(x, s["items"], f"{path}[{i}]")
    return errs


# The validator itself must reject what it should, or the schema check proves nothing.
assert validate({"a": 1}, {"type": "object", "required": ["b"]})
assert validate(0, {"type": "number", "exclusiveMinimum": 0})
assert validate("x", {"enum": ["y"]})
assert not validate({"b": [1.5]}, {"type": "object", "properties":
                                   {"b": {"type": "array", "items": {"type": "number"}}}})

# ---- golden tables
update = os.environ.get("FF_UPDATE_GOLDEN") == "1"
for fmt in ("md", "csv", "json"):
    rc, out, err = run("data", "--format", fmt, "--no-estimate")
    check(rc == 1, f"{fmt}: exit {rc}, expected 1 (two profiles skipped)")
    check("data/v2.json" in err and "2.0" in err, f"{fmt}: unknown major version not named: {err}")
    check("data/bad-truncated.json" in err and "not valid JSON" in err,
          f"{fmt}: malformed profile not named: {err}")
    golden = os.path.join(HERE, "golden", "table." + fmt)
    if update:
        with open(golden, "w") as f:
            f.write(out)
    with open(golden) as f:
        check(out == f.read(), f"{fmt}: output differs from {golden} (FF_UPDATE_GOLDEN=1 rewrites)")

# ---- CSV: loads in the csv module, one row per device, no figure written as 0
rc, out, err = run("data", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
check(len(rows) == 4, f"csv: {len(rows)} rows, expected 4 devices")
header = out.splitlines()[0].split(",")
check(all(len(r) == len(header) and None not in r for r in rows), "csv: ragged rows")
by = {r["device"]: r for r in rows}
pocl = by.get("pthread-haswell-AMD EPYC", {})
check(pocl.get("fp16_flop_per_s") == "" and pocl.get("fp16_status") == "unsupported",
      f"csv: PoCL fp16 is {pocl.get('fp16_flop_per_s')!r} ({pocl.get('fp16_status')})")
check(pocl.get("usable_memory_status") == "lower bound", "csv: PoCL's capped probe is not a lower bound")
check("cl_khr_fp16" in pocl.get("fp16_detail", ""), "csv: PoCL fp16 reason missing")
check(abs(float(pocl.get("fp32_flop_per_s", 0)) - 1.183753e11) < 1e6, "csv: PoCL fp32 figure")
h200 = by.get("NVIDIA H200", {})
check(h200.get("runs") == "2" and h200.get("datasheet") == "h200", f"csv: H200 grouping: {h200}")
# a numeric column holds a number or nothing, never a word or 0; its status says which
STATUS = {"ok", "lower bound", "unsupported", "failed", "not measured"}
for r in rows:
    for m in ("fp32", "fp16", "int8", "usable_memory", "read_bandwidth", "upload", "download",
              "launch_latency", "peak_fp32", "peak_fp16", "peak_int8"):
        st = r.get(m + "_status")
        check(st in STATUS, f"csv: {r['device']} {m}_status is {st!r}")
        vals = [v for k, v in r.items() if k.startswith(m + "_") and
                k.endswith(("_per_s", "_bytes", "_s", "_min", "_max")) and
                not k.startswith(m + "_status")]
        for v in vals:
            if st in ("ok", "lower bound"):
                check(v != "" and float(v) > 0, f"csv: {r['device']} {m}: {v!r} with {st}")
            else:
                check(v == "", f"csv: {r['device']} {m}: {v!r} with status {st}")
    for k in ("fp32_datasheet_percent", "serves_tokens_per_s", "runs"):
        v = r[k]
        check(v == "" or float(v) >= 0, f"csv: {r['device']} {k} is {v!r}")

# ---- JSON: validates; a figure that does not exist has no value
rc, out, err = run("data", "--format", "json")
doc = json.loads(out)
with open(os.path.join(HERE, "results.schema.json")) as f:
    schema = json.load(f)
errs = validate(doc, schema)
check(not errs, "json: schema: " + "; ".join(errs[:5]))
check(len(doc["devices"]) == 4 and len(doc["skipped"]) == 2, "json: devices/skipped counts")
for d in doc["devices"]:
    for k, m in d["metrics"].items():
        check((m["status"] == "ok") == ("value" in m), f"json: {d['device']} {k}: {m}")
        if m["status"] in ("unsupported", "failed"):
            check(m.get("reason"), f"json: {d['device']} {k} has no reason")
    check(len(d["roofline"]["decode_points"]) >= 2 or d["serves"]["model"] is None,
          f"json: {d['device']} has no roofline points")

# ---- op tests: one row per op, format and shape, in md, ops-csv and json
OPS_DEV = "pthread-icelake-server-Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"
with open(os.path.join(DATA, "pocl-ops.json")) as f:
    ops_prof = json.load(f)
READ = next(t["value"] for t in ops_prof["tests"] if t["family"] == "bandwidth" and t["name"] == "read")
op_tests = [t for t in ops_prof["tests"] if t["family"] == "op"]
for d in doc["devices"]:
    check(bool(d["ops"]) == (d["device"] == OPS_DEV), f"json: {d['device']} has {len(d['ops'])} op rows")
jops = next(d for d in doc["devices"] if d["device"] == OPS_DEV)["ops"]
check(len(jops) == len(op_tests), f"json: {len(jops)} op rows, the profile has {len(op_tests)} op tests")
for o in jops:
    check((o["status"] == "ok") == ("value" in o), f"json: op row {o}")
    if o["status"] != "ok":
        check(o.get("reason") and "value" not in o and "read_fraction" not in o, f"json: op row {o}")
    check(("read_fraction" in o) == (o["status"] == "ok" and o["op"] != "gemm"),
          f"json: read_fraction of {o}")
q4 = next(o for o in jops if o["op"] == "gemv" and o["precision"] == "q4_0" and
          o["shape"] == {"m": 1, "n": 4096, "k": 4096})
want = next(t for t in op_tests if t["name"] == "gemv" and t["precision"] == "q4_0" and
            t["shape"] == {"m": 1, "n": 4096, "k": 4096})
check(q4["value"] == want["value"] and q4["median_s"] == want["device_time_s"]["median"] and
      abs(q4["read_fraction"] - want["value"] / READ) < 1e-12, f"json: q4_0 gemv row {q4}")
check([o["shape"].get("g") for o in jops if o["op"] == "attn_decode"] == [4, 4],
      "json: attn_decode rows lost their group g")

rc, out, err = run("data", "--format", "ops-csv", "--no-estimate")
check(rc == 1, f"ops-csv: exit {rc}")
orows = list(csv.DictReader(io.StringIO(out)))
oheader = out.splitlines()[0].split(",")
check(len(orows) == len(op_tests) and all(len(r) == len(oheader) and None not in r for r in orows),
      f"ops-csv: {len(orows)} rows (expected {len(op_tests)}) or ragged")
check(all(r["device"] == OPS_DEV and r["run"] == "standard" for r in orows), "ops-csv: device columns")
for r in orows:
    if r["status"] == "ok":
        check(float(r["value"]) > 0 and float(r["median_s"]) > 0, f"ops-csv: ok row {r}")
        check((r["read_fraction"] != "") == (r["op"] != "gemm"), f"ops-csv: fraction of {r}")
    else:
        check(r["status"] == "unsupported" and r["value"] == r["median_s"] == r["read_fraction"] == ""
              and "cl_khr_fp16" in r["reason"], f"ops-csv: a row without a figure: {r}")
r = next(r for r in orows if r["op"] == "gemv" and r["precision"] == "q4_0" and r["n"] == "4096" and
         r["k"] == "4096")
check(abs(float(r["read_fraction"]) - want["value"] / READ) < 1e-6 and r["g"] == "" and
      r["bytes"] == str(want["bytes"]), f"ops-csv: q4_0 row {r}")
check({r["g"] for r in orows if r["op"] == "attn_decode"} == {"4"}, "ops-csv: attn_decode g")

rc, out, err = run("data", "--format", "md", "--no-estimate")
check("## Op tests" in out and out.count("## Op tests") == 1, "md: no op tests section")
check("| gemv | q4_0 | 1×4096×4096 | 501.06 us | 18.9 GB/s | 115% |" in out, "md: q4_0 gemv row")
check("| attn_decode | fp16 | 32×4096×128, g=4 |" in out, "md: attn_decode row with g")
check("| gemm | fp16 | 512×4096×4096 | unsupported: device lacks cl_khr_fp16" in out,
      "md: the unsupported op and its reason")
check("| rmsnorm | fp32 | 1×4096 |" in out, "md: rmsnorm row (m rows of n)")

# several runs of one device: each row the median over runs, and the fraction the median of
# each run's own rate over the same run's read bandwidth (never one run's over another's)
multi = tempfile.mkdtemp()
for i, (scale, read_scale) in enumerate(((1.0, 1.0), (0.9, 0.5), (1.2, 1.0))):
    p = json.loads(json.dumps(ops_prof))
    p["created"] = f"2026-12-0{i + 1}T10:00:00Z"
    for t in p["tests"]:
        if t["family"] == "bandwidth" and t["name"] == "read":
            t["value"] *= read_scale
            t["device_time_s"] = {k: v / read_scale for k, v in t["device_time_s"].items()}
        if t.get("family") == "op" and t["status"] == "ok":
            t["value"] *= scale
            t["device_time_s"] = {k: v / scale for k, v in t["device_time_s"].items()}
    write_profile(os.path.join(multi, f"run-{i}.json"), p, HASHER)
rc, out, err = run(multi, "--format", "json", "--no-estimate")
mdoc = json.loads(out) if rc == 0 else {"devices": []}
check(len(mdoc["devices"]) == 1, f"ops over runs: exit {rc}, {len(mdoc['devices'])} devices: {err}")
for o in (mdoc["devices"][0]["ops"] if mdoc["devices"] else []):
    if o["op"] == "gemv" and o["precision"] == "q4_0" and o["shape"] == {"m": 1, "n": 4096, "k": 4096}:
        v = want["value"]
        check(o["runs"] == 3 and abs(o["value"] - v) < 1e-3 * v and abs(o["min"] - 0.9 * v) < 1e-3 * v
              and abs(o["max"] - 1.2 * v) < 1e-3 * v, f"ops over runs: value {o}")
        # per run: 1.0 f, 1.8 f, 1.2 f; the median 1.2 f (the medians' ratio would be f)
        check(abs(o["read_fraction"] - 1.2 * v / READ) < 1e-6, f"ops over runs: fraction {o}")
        check(abs(o["median_s"] - want["device_time_s"]["median"]) < 1e-12,
              f"ops over runs: the median run's time {o}")
shutil.rmtree(multi)

# ---- the serves column is what `flopfit estimate --profile` says
dev = next(d for d in doc["devices"] if d["device"] == "pthread-haswell-AMD EPYC")
sv = dev["serves"]
check(sv["model"] is not None, f"serves: PoCL serves nothing: {sv}")
if sv["model"]:
    rc, out, err = run("estimate", "--model", sv["model"], "--serve", "--precision",
                       sv["precision"], "--prompt", "3840", "--generate", "256", "--gpus", "1",
                       "--profile", "data/pocl.json", "--json")
    # exit 0: fits; 1: not proven to fit (an unproven fit below)
    check(rc == (0 if sv.get("fit_proven", True) else 1), f"estimate: exit {rc}: {err}")
    est = json.loads(out) if rc in (0, 1) and out else {}
    if sv.get("fit_proven", True):
        check(est.get("fits") is True, "estimate: the served model does not fit per estimate")
    else:
        # the profile's memory probe stopped at its cap: the fit is neither proven nor refuted
        check(est.get("fit_unknown") is True and "unproven" in sv.get("note", ""),
              f"estimate: an unproven fit the estimator does not call unknown: {sv}, {est}")
    tps = est.get("serve", {}).get("tokens_per_second", 0)
    check(abs(tps - sv["tokens_per_s"]) <= 1e-9 * tps, f"estimate: {tps} tok/s, table {sv}")

# ---- usage errors: exit 2 with the option named and what is accepted
empty = tempfile.mkdtemp()
for args, words in [
    ([empty], ["no profile"]),
    (["data", "--format", "xml"], ["--format", "xml", "md", "csv", "json", "html"]),
    (["data", "--sort", "speed"], ["--sort", "speed", "fp32", "device"]),
    (["--compare", "data/pocl.json"], ["--compare", "A B"]),
    (["data", "--format", "sqlite"], ["sqlite", "--output"]),
    (["--compare", "data/pocl.json", "data/pocl.json", "--format", "sqlite"], ["sqlite", "--format"]),
    (["data", "--bogus"], ["--bogus"]),
    (["data", "--output"], ["--output", "needs a value"]),
    (["data", "--check"], ["--check", "--publish"]),
    (["--compare", "data/pocl.json", "data/pocl.json", "--format", "html"], ["html", "--format"]),
]:
    rc, out, err = run(*args)
    check(rc == 2, f"{args}: exit {rc}, expected 2")
    check(all(w in err for w in words), f"{args}: message {err!r} lacks {words}")
rc, out, err = run(os.path.join(DATA, "v2.json"))
check(rc == 1 and "v2.json" in err, f"only a bad profile: exit {rc}: {err}")

# ---- --sort: a column, the best first; --reverse
rc, out, err = run("data", "--format", "csv", "--sort", "launch_latency")
order = [r["device"] for r in csv.DictReader(io.StringIO(out))]
check(order[0] == "pthread-haswell-AMD EPYC", f"sort launch_latency: {order}")
rc, out, err = run("data", "--format", "csv", "--sort", "device", "--reverse")
order = [r["device"] for r in csv.DictReader(io.StringIO(out))]
check(order == sorted(order, reverse=True), f"sort device --reverse: {order}")

# ---- --compare
rc, out, err = run("--compare", "data/h200-a.json", "data/h200-b.json", "--format", "csv")
cmp = {r["test"]: r for r in csv.DictReader(io.StringIO(out))}
fp32 = cmp.get("matmul matmul fp32 flopfit n=4096", {})
check(fp32.get("verdict") == "slower" and abs(float(fp32.get("ratio", 0)) - 0.8) < 1e-3,
      f"compare: fp32 {fp32}")
check(float(fp32.get("ratio_low", 1)) < 0.8 < float(fp32.get("ratio_high", 0)) < 1,
      f"compare: fp32 interval {fp32}")
check(fp32.get("a_driver") == "550.54.15" and fp32.get("paired") == "key", f"compare: key {fp32}")
int8 = cmp.get("matmul matmul int8 coopmat n=8192", {})
check(int8.get("verdict") == "no longer ok", f"compare: int8 coopmat {int8}")
rc, out, err = run("--compare", "data/h200-a.json", "data/h200-b.json", "--fail-on-worse")
check(rc == 1 and "| slower |" in out, f"compare --fail-on-worse: exit {rc}")
rc, out, err = run("--compare", "data/pocl.json", "data/pocl.json", "--format", "json")
same = json.loads(out)
check(rc == 0 and all(t["verdict"] in ("no change", "unsupported in both")
                      for d in same["devices"] for t in d["tests"]),
      "compare: a profile against itself")

# op tests are told apart by their whole shape, the group g included: the same attention
# at g=1 beside g=4 is another test, not the g=4 one changed
gp = json.loads(json.dumps(ops_prof))
g4 = next(t for t in gp["tests"] if t["family"] == "op" and t["name"] == "attn_decode")
g1 = json.loads(json.dumps(g4))
g1["shape"]["g"] = 1
g1["value"] *= 2
gp["tests"].append(g1)
gdir = tempfile.mkdtemp()
write_profile(os.path.join(gdir, "g.json"), gp, HASHER)
rc, out, err = run("--compare", os.path.join(HERE, "data", "pocl-ops.json"),
                   os.path.join(gdir, "g.json"), "--format", "csv")
gcmp = {r["test"]: r["verdict"] for r in csv.DictReader(io.StringIO(out))}
label = "op attn_decode fp16 flopfit 32×%d×128" % g4["shape"]["n"]
check(rc == 0 and gcmp.get(label + ", g=4") == "no change" and
      gcmp.get(label + ", g=1") == "only in B", f"compare: op tests by g: {rc} {gcmp} {err}")

# ---- submit: the layout, byte for byte, never twice; private text, other run kinds, schema
# violations and edited figures refused (exit 2, the reason named)
tmp = tempfile.mkdtemp()
res = os.path.join(tmp, "results")
os.mkdir(res)
STD = os.path.join(HERE, "submit", "pocl-standard.json")
rc, out, err = run("results", "submit", STD, "--results", res)
want = os.path.join(res, "amd", "pthread-haswell-amd-epyc", "opencl-3.1-debian-2026-11-29.json")
check(rc == 0 and os.path.isfile(want), f"submit: exit {rc} {err}; {os.listdir(res)}")
if os.path.isfile(want):
    with open(want, "rb") as a, open(STD, "rb") as b:
        check(a.read() == b.read(), "submit: the filed copy differs from the profile")
check("| pthread-haswell-AMD EPYC |" in out and "--publish" in out, f"submit: row: {out}")
rc, out, err = run("results", "submit", STD, "--results", res)
check(rc == 2 and "already filed as" in err and want in err and
      not os.path.isfile(want[:-5] + "-2.json"), f"submit: the same run filed twice: {rc} {err}")
with open(STD) as f:
    std = json.load(f)


def submit_edit(name, edit, rehash=True):
    prof = json.loads(json.dumps(std))
    edit(prof)
    path = os.path.join(tmp, name)
    if rehash:
        write_profile(path, prof, HASHER)
    else:
        with open(path, "w") as f:
            json.dump(prof, f)
    return run("results", "submit", path, "--results", res)


# a copy with its figures untouched but its indentation changed is still the same run
rc, out, err = submit_edit("reindented.json", lambda p: None, rehash=False)
check(rc == 2 and "already filed as" in err, f"submit: a re-indented copy was filed: {rc} {err}")
rc, out, err = submit_edit("private.json", lambda p: p["tests"][0].update(
    variant="kernel cache in /home/alice/.cache/pocl"))
check(rc == 2 and "home-folder path" in err, f"submit: a home path was accepted: {err}")
rc, out, err = submit_edit("incomplete.json", lambda p: p.update(complete=False))
check(rc == 2 and "cut short" in err, f"submit: an incomplete run was accepted: {err}")
for kind in ("quick", "custom"):
    rc, out, err = submit_edit(kind + ".json", lambda p: p["run"].update(kind=kind))
    check(rc == 2 and f"a {kind} run" in err and "flopfit bench --standard" in err,
          f"submit: a {kind} run was accepted: {rc} {err}")
rc, out, err = run("results", "submit", "data/pocl.json", "--results", res)
check(rc == 2 and "records no run kind (schema 1.0)" in err and "--standard" in err,
      f"submit: a 1.0 profile was accepted: {rc} {err}")
rc, out, err = submit_edit("full.json", lambda p: (p["run"].update(kind="full"),
                                                  p["tests"][0].update(repetitions=6)))
check(rc == 0, f"submit: a full run was refused: {rc} {err}")
rc, out, err = submit_edit("badstatus.json", lambda p: p["tests"][3].update(status="fine"))
check(rc == 2 and "badstatus.json: field /tests/3/status" in err and "one of" in err and
      "profile.schema.json" in err, f"submit: a schema violation: {rc} {err}")
rc, out, err = submit_edit("extra.json", lambda p: p["device"].update(colour="blue"))
check(rc == 2 and "field /device/colour" in err, f"submit: an unknown field: {rc} {err}")
rc, out, err = submit_edit("edited.json", lambda p: p["tests"][1].update(value=p["tests"][1]["value"] * 2)
                           if "value" in p["tests"][1] else None, rehash=False)
check(rc == 2 and "field /content_hash" in err and "edited" in err,
      f"submit: an edited figure with the old hash: {rc} {err}")
rc, out, err = submit_edit("nohash.json", lambda p: p.pop("content_hash"), rehash=False)
check(rc == 2 and "no \"content_hash\"" in err, f"submit: no hash: {rc} {err}")
rc, out, err = run("results", "submit", "data/v2.json", "--results", res)
check(rc == 2 and "2.0" in err, f"submit: v2 accepted: {err}")

# ---- --publish and --check
shutil.copy(os.path.join(DATA, "lavapipe.json"), res)
rc, out, err = run("--publish", res)
check(rc == 0, f"publish: exit {rc}: {err}")
for f in ("README.md", "page/index.html"):
    check(os.path.isfile(os.path.join(res, f)), f"publish: {f} missing")
rc, out, err = run("--publish", res, "--check")
check(rc == 0, f"publish --check right after publishing: exit {rc}: {err}")
with open(os.path.join(res, "README.md"), "a") as f:
    f.write("edited by hand\n")
rc, out, err = run("--publish", res, "--check")
check(rc == 1 and "README.md" in err and "not current" in err, f"--check missed an edit: {err}")

shutil.rmtree(tmp)
shutil.rmtree(empty)
finish()
