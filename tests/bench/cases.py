"""The frame of the end-to-end Python tests of tests/bench/: failed checks are collected, each
case runs in a fresh temporary folder, and main() returns the exit code meson reads (0 pass,
1 fail, 77 skip without an OpenCL device unless CI=true)."""
import os
import shutil
import subprocess
import tempfile
import time

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def have_opencl(ff):
    p = subprocess.run([ff, "devices", "--backend", "opencl"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode == 0 and b"opencl:0" in p.stdout


def main(ff, cases, only, prefix, setup=None):
    """Runs the cases (those named in only, when it is not empty), each given its own folder,
    after setup() (optional) once the device is known to be there."""
    if not have_opencl(ff):
        if os.environ.get("CI") in ("true", "1"):
            print("CI=true but no OpenCL device")
            return 1
        print("no OpenCL device here: skipped")
        return 77
    if setup:
        setup()
    for case in cases:
        if only and case.__name__ not in only:
            continue
        tmp = tempfile.mkdtemp(prefix=prefix)
        t0 = time.monotonic()
        try:
            case(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print(f"{case.__name__}: {time.monotonic() - t0:.1f} s", flush=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    return 0
