#!/usr/bin/env python3
"""`flopfit bench --concurrent` end to end: every device alone, then all at once.

Runs the real binary on every device this machine has (PoCL and lavapipe on CI) and checks the
exit status, the comparison table, and that each profile keeps its solo figures and carries,
per test, how many devices ran at once and the figure measured then.

  FLOPFIT  the binary
Exit 77 (skip) with fewer than two devices, unless CI=true.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

FF = os.environ["FLOPFIT"]


def main():
    tmp = tempfile.mkdtemp(prefix="ff-conc-")
    fails = []
    try:
        env = dict(os.environ, HOME=tmp, XDG_DATA_HOME=os.path.join(tmp, "data"))
        p = subprocess.run([FF, "bench", "--concurrent", "--quick", "--only", "latency,peak",
                            "--precision", "fp32", "--output-dir", tmp],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=280)
        out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
        names = sorted(n for n in os.listdir(tmp) if n.endswith(".json"))
        if len(names) < 2 and "nothing to run beside" in err:
            print("fewer than two devices", file=sys.stderr)
            return 1 if os.environ.get("CI") == "true" else 77
        if p.returncode != 0:
            fails.append(f"exit {p.returncode}: {err[-1000:]}")
        if "concurrent: " not in out or "ratio" not in out:
            fails.append(f"no comparison table: {out[-800:]!r}")
        for name in names:
            prof = json.load(open(os.path.join(tmp, name)))
            for t in prof["tests"]:
                if t.get("concurrent_devices") != len(names):
                    fails.append(f"{name}: {t['family']}/{t['name']}: concurrent_devices "
                                 f"{t.get('concurrent_devices')}, want {len(names)}")
                if t["status"] == "ok" and not t.get("concurrent_value", 0) > 0:
                    fails.append(f"{name}: {t['family']}/{t['name']}: no concurrent_value")
                if t["status"] != "ok" and "concurrent_value" in t:
                    fails.append(f"{name}: a concurrent figure on a {t['status']} test")
            r = subprocess.run([FF, "results", os.path.join(tmp, name), "--format", "json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            if r.returncode != 0 or b"skipped" in r.stderr:
                fails.append(f"{name}: flopfit results does not read it: {r.stderr[-300:]!r}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
