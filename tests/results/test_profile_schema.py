#!/usr/bin/env python3
"""tests/results/test_profile_schema.py — results/profile.schema.json against python3-jsonschema.

usage: test_profile_schema.py JSCHEMA_CHECK FLOPFIT SOURCE_ROOT

The schema is a valid draft 2020-12 schema; every profile in results/ and tests/results/data
passes it; and for each of those and a set of mutations, each breaking one rule, the C validator
of `flopfit results submit` (through jschema_check) and python3-jsonschema agree: both valid,
or both invalid at the same JSON pointer. Skipped (77) without python3-jsonschema.
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (Debian: python3-jsonschema): skipped")
    sys.exit(77)

CHECK, FLOPFIT, ROOT = sys.argv[1:4]
SCHEMA = os.path.join(ROOT, "results", "profile.schema.json")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


with open(SCHEMA) as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)


def pointer(path):
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


good = sorted(p for p in glob.glob(os.path.join(ROOT, "results", "**", "*.json"), recursive=True)
              if not p.endswith(".schema.json"))
good += [os.path.join(ROOT, "tests", "results", "data", n)
         for n in ("pocl.json", "lavapipe.json", "h200-a.json", "h200-b.json")]
check(len(good) >= 6, f"too few profiles found: {good}")

with open(os.path.join(ROOT, "tests", "results", "data", "pocl.json")) as f:
    base = json.load(f)
base11 = copy.deepcopy(base)
base11["schema_version"] = "1.1"
base11["run"] = {"kind": "standard", "argv": ["flopfit", "bench", "--standard"]}
base11["device"]["device_id"] = "0x10005:0x0000"
base11["content_hash"] = "sha256:" + "0123456789abcdef" * 4


def mutate(edit):
    p = copy.deepcopy(base11)
    edit(p)
    return p


def first_matmul(p):
    return next(t for t in p["tests"] if t["family"] == "matmul" and t["status"] == "ok")


mutations = {
    "1.1 as written": mutate(lambda p: None),
    "a 1.0 profile": copy.deepcopy(base),
    "schema": mutate(lambda p: p.update(schema="flopfit.fleet")),
    "schema_version": mutate(lambda p: p.update(schema_version="2.0")),
    "no device": mutate(lambda p: p.pop("device")),
    "unknown top-level field": mutate(lambda p: p.update(extra=1)),
    "run kind": mutate(lambda p: p["run"].update(kind="fast")),
    "run argv empty": mutate(lambda p: p["run"].update(argv=[])),
    "run argv number": mutate(lambda p: p["run"]["argv"].append(3)),
    "run without kind": mutate(lambda p: p["run"].pop("kind")),
    "content hash upper case": mutate(lambda p: p.update(content_hash=p["content_hash"].upper())),
    "content hash short": mutate(lambda p: p.update(content_hash="sha256:00")),
    "device_id": mutate(lambda p: p["device"].update(device_id="10de-2335")),
    "compute units fraction": mutate(lambda p: p["device"].update(compute_units=2.5)),
    "compute units 1.0": mutate(lambda p: p["device"].update(compute_units=2.0)),
    "memory negative": mutate(lambda p: p["device"].update(global_mem_bytes=-1)),
    "feature as text": mutate(lambda p: p["device"]["features"].update(fp16="yes")),
    "override as number": mutate(lambda p: p["device"].setdefault("overrides", {}).update(vk_tiles=4)),
    "override a/b~c": mutate(lambda p: p["device"].setdefault("overrides", {}).update({"a/b~c": 4})),
    "status": mutate(lambda p: first_matmul(p).update(status="fine")),
    "unit": mutate(lambda p: first_matmul(p).update(unit="GFLOP/s")),
    "value above 1e21": mutate(lambda p: first_matmul(p).update(value=2e21)),
    "value null": mutate(lambda p: first_matmul(p).update(value=None)),
    "time as text": mutate(lambda p: first_matmul(p)["device_time_s"].update(median="1 s")),
    "shape field": mutate(lambda p: first_matmul(p)["shape"].update(q=1)),
    "test without name": mutate(lambda p: first_matmul(p).pop("name")),
    "test unknown field": mutate(lambda p: first_matmul(p).update(speed=1)),
    "tests not an array": mutate(lambda p: p.update(tests={})),
    "test not an object": mutate(lambda p: p["tests"].append([])),
    "created": mutate(lambda p: p.update(created="yesterday")),
    "host cpus": mutate(lambda p: p["host"].update(cpus="2")),
    "tuning source": mutate(lambda p: first_matmul(p).update(tuning={"point": "x", "source": "y"})),
}

tmp = tempfile.mkdtemp()
cases = [(os.path.relpath(p, ROOT), p, None) for p in good]
for name, prof in mutations.items():
    path = os.path.join(tmp, name.replace(" ", "_").replace("/", "_") + ".json")
    with open(path, "w") as f:
        json.dump(prof, f)
    cases.append((name, path, prof))

out = subprocess.run([CHECK, SCHEMA] + [c[1] for c in cases], capture_output=True, text=True)
lines = out.stdout.splitlines()
check(out.returncode == 0 and len(lines) == len(cases), f"jschema_check: {out.returncode} "
      f"{out.stderr} {len(lines)} lines for {len(cases)} files")
invalid = 0
for (name, path, prof), line in zip(cases, lines):
    if prof is None:
        with open(path) as f:
            prof = json.load(f)
    errors = list(validator.iter_errors(prof))
    c_valid = line == "valid"
    check(not line.startswith("error"), f"{name}: the C validator refused the schema: {line}")
    check(c_valid == (not errors),
          f"{name}: C says {line!r}, jsonschema says {[e.message for e in errors] or 'valid'}")
    if errors and not c_valid:
        invalid += 1
        py = {pointer(e.absolute_path) for e in errors}
        # an unknown field: jsonschema names the object, the C validator the field itself
        py |= {pointer(list(e.absolute_path) + [k]) for e in errors
               if e.validator == "additionalProperties" for k in e.instance
               if k not in e.schema.get("properties", {})}
        got = line.split(" ")[1]
        check(got in py, f"{name}: C points at {got}, jsonschema at {sorted(py)}")
for p in good:
    check(lines[[c[1] for c in cases].index(p)] == "valid", f"{p}: a profile in the tree fails")
check(invalid >= 25, f"only {invalid} mutations were refused by both")

if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print(f"ok: {len(cases)} profiles, {invalid} refused by both at the same pointer")
