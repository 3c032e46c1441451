#!/usr/bin/env python3
"""flopfit tune end to end under signals, stops and kills, and two tuners at once.

Each case runs the real binary on the first OpenCL device (PoCL on CI), tuning matmul fp32,
and checks what a user keeps: how fast the tuner ends, that its worker is gone (no orphan),
what it says on stderr, and what is in the tuning cache.

  FLOPFIT   the binary

Exit 77 (skip) without an OpenCL device, unless CI=true.
"""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from cases import check, main  # noqa: E402  (tests/bench/cases.py)

FF = os.environ["FLOPFIT"]
GRACE_S = 2.0  # FF_TUNE_GRACE_S
MATMUL = ["tune", "--backend", "opencl", "--device", "0", "--kernel", "matmul",
          "--precision", "fp32", "--verbose"]
# A --verbose line of one measured candidate: "matmul fp32: size 128: tm=...: 1.2e+10/s (0.1 s)"
MEASURED = re.compile(r"size \d+: .*/s \(")


class Tuner:
    """A running `flopfit tune` whose stderr is collected line by line."""

    def __init__(self, args, cache):
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        self.p = subprocess.Popen([FF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=env, start_new_session=True)
        self.lines = []
        self.err_thread = threading.Thread(target=self._read, daemon=True)
        self.err_thread.start()

    def _read(self):
        for raw in self.p.stderr:
            self.lines.append(raw.decode(errors="replace"))

    def stderr(self):
        return "".join(self.lines)

    def wait_for(self, pattern, timeout=240):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(pattern.search(line) for line in self.lines):
                return True
            if self.p.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def worker(self):
        """The pid of the tuner's `tune --worker` child, or None."""
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat") as f:
                    stat = f.read()
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            if ppid == self.p.pid and b"--worker" in cmd:
                return int(d)
        return None

    def finish(self, timeout=240):
        # stdout only: stderr is the reader thread's (communicate() would take lines from it)
        out = []
        reader = threading.Thread(target=lambda: out.append(self.p.stdout.read()), daemon=True)
        reader.start()
        self.p.wait(timeout=timeout)
        reader.join(timeout=5)
        self.err_thread.join(timeout=5)
        return (self.p.returncode, b"".join(out).decode(errors="replace"), self.stderr())


def gone(pid):
    """True when pid no longer runs (a zombie counts as gone: it is nobody's worker)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def cache_entries(cache):
    path = os.path.join(cache, "flopfit", "tuning.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)["entries"]


def start_measuring(tmp, budget):
    t = Tuner(MATMUL + ["--budget", str(budget)], tmp)
    ok = check(t.wait_for(MEASURED), "no candidate was measured:\n" + t.stderr())
    w = t.worker() if ok else None
    check(not ok or w, "no worker process found")
    return t, w


# A budget the search is far from spending when the first candidate is measured (a candidate
# on PoCL under ASan takes seconds, mostly its build): the worker is then inside the next one.
LONG_BUDGET = 600


def case_sigterm_is_passed_on(tmp):
    t, w = start_measuring(tmp, LONG_BUDGET)
    if not w:
        t.p.kill()
        return
    t0 = time.monotonic()
    t.p.send_signal(signal.SIGTERM)
    try:
        rc, out, err = t.finish(timeout=GRACE_S + 30)
    except subprocess.TimeoutExpired:
        t.p.kill()
        check(False, "SIGTERM: tune did not end")
        return
    dt = time.monotonic() - t0
    print(f"  SIGTERM to exit: {dt:.2f} s", flush=True)
    check(dt <= GRACE_S + 1.0, f"SIGTERM: tune took {dt:.1f} s to end (grace {GRACE_S} s + 1)")
    check(rc == 143, f"SIGTERM: exit {rc}\n{err}")
    check(gone(w), f"SIGTERM: the worker {w} still runs")
    check("interrupted" in err, "SIGTERM: no word of the interruption:\n" + err)
    # what was measured before the signal is kept
    check(any(e["kernel"] == "matmul" for e in cache_entries(tmp)),
          "SIGTERM: nothing kept in the cache:\n" + out + err)


def case_stopped_worker_is_killed_by_the_watchdog(tmp):
    budget = 6
    t, w = start_measuring(tmp, budget)
    if not w:
        t.p.kill()
        return
    os.kill(w, signal.SIGSTOP)
    t0 = time.monotonic()
    limit = budget + 10.0 + 0.25 * budget + 15  # FF_TUNE_WATCHDOG_MARGIN, and slack
    try:
        rc, out, err = t.finish(timeout=limit)
    except subprocess.TimeoutExpired:
        t.p.kill()
        os.kill(w, signal.SIGKILL)
        check(False, f"SIGSTOP: tune still waits {limit:.0f} s later")
        return
    print(f"  SIGSTOP to exit: {time.monotonic() - t0:.1f} s", flush=True)
    check(gone(w), f"SIGSTOP: the worker {w} still runs")
    check("stopped (SIGSTOP)" in err and "watchdog" in err,
          "SIGSTOP: not reported as a stopped worker:\n" + err)
    check("default point" not in err, "SIGSTOP: blamed on the default point:\n" + err)
    check(rc == 0, f"SIGSTOP: exit {rc} (what was measured should be kept)\n{err}")
    check(re.search(r"matmul fp32: \S+=", out), "SIGSTOP: no result line:\n" + out)
    check(any(e["kernel"] == "matmul" for e in cache_entries(tmp)),
          "SIGSTOP: nothing kept in the cache")


def case_outside_kill_is_reported_as_such(tmp):
    t, w = start_measuring(tmp, LONG_BUDGET)
    if not w:
        t.p.kill()
        return
    os.kill(w, signal.SIGKILL)
    try:
        rc, out, err = t.finish(timeout=60)
    except subprocess.TimeoutExpired:
        t.p.kill()
        check(False, "outside SIGKILL: tune did not end")
        return
    check("killed by signal 9" in err and "from outside" in err,
          "outside SIGKILL: not reported as such:\n" + err)
    check("default point" not in err and "crashed" not in err,
          "outside SIGKILL: blamed on a candidate:\n" + err)
    check(rc == 0, f"outside SIGKILL: exit {rc} (the points measured should be kept)\n{err}")
    check(re.search(r"matmul fp32: \S+=", out), "outside SIGKILL: no result line:\n" + out)
    check(any(e["kernel"] == "matmul" for e in cache_entries(tmp)),
          "outside SIGKILL: nothing kept in the cache")


def case_two_tuners_keep_both(tmp):
    # Both read the (empty) cache at their start and write it at their end: without a merge
    # under a lock the second writer's file holds only its own entries.
    a = Tuner(MATMUL + ["--budget", "4"], tmp)
    b = Tuner(["tune", "--backend", "opencl", "--device", "0", "--kernel", "bandwidth",
               "--budget", "4"], tmp)
    ra, oa, ea = a.finish()
    rb, ob, eb = b.finish()
    check(ra == 0 and rb == 0, f"two tuners: exits {ra}, {rb}\n{ea}\n{eb}")
    kernels = sorted(e["kernel"] for e in cache_entries(tmp))
    tuned = ["matmul"] + [k for k in ("read", "write", "copy", "triad")
                          if re.search(rf"bandwidth {k}: \S+=", ob)]
    check(len(tuned) > 1, "two tuners: the bandwidth run tuned nothing:\n" + ob + eb)
    check(all(k in kernels for k in tuned),
          f"two tuners: the cache holds {kernels}; both runs' entries ({tuned}) expected\n"
          + oa + ob)
    check(not os.path.exists(os.path.join(tmp, "flopfit", "tuning.json.malformed")),
          "two tuners: a malformed cache was set aside")


if __name__ == "__main__":
    sys.exit(main(FF, [case_sigterm_is_passed_on, case_stopped_worker_is_killed_by_the_watchdog,
                       case_outside_kill_is_reported_as_such, case_two_tuners_keep_both],
                  sys.argv[1:], "ff-tune-sig-"))
