"""tests/results/results_harness.py — what the results test drivers share: failures collected
by check(), `flopfit results` run and captured, and the summary that sets the exit status."""
import json
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def runner(flopfit, default_cwd):
    """run(*ARGS): flopfit results ARGS (flopfit ARGS when the first is a command)."""
    def run(*args, cwd=default_cwd):
        if args[0] not in ("results", "estimate"):
            args = ("results",) + args
        p = subprocess.run([flopfit, *args], cwd=cwd, capture_output=True, text=True,
                           timeout=120)
        return p.returncode, p.stdout, p.stderr
    return run


def finish():
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok")


def write_profile(path, prof, hasher, indent=None):
    """Write prof to path as a standard-run 1.1 profile whose content_hash is its content's
    (hasher: the profile_hash test program): an edited profile a publisher could have
    measured."""
    prof.pop("content_hash", None)
    with open(path, "w") as f:
        json.dump(prof, f, indent=indent)
    out = subprocess.run([hasher, path], capture_output=True, text=True, timeout=60)
    if out.returncode == 0:
        prof["content_hash"] = out.stdout.strip()
        with open(path, "w") as f:
            json.dump(prof, f, indent=indent)
    return path
