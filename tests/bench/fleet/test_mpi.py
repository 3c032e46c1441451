#!/usr/bin/env python3
"""`mpirun -np N flopfit bench --mpi` end to end on one machine (issue 12).

Each case runs the real binary under Open MPI's mpirun with PoCL and lavapipe as the ranks'
devices, and checks what a user keeps: the exit status, the fleet file (schema, every rank,
the interconnect tests verified), each rank's profiles (read back by `flopfit results`), a
rank without a device, a rank whose devices fail, and a rank SIGKILLed mid-run (a clear
error, no fleet file, every profile on disk whole).

  FLOPFIT   the binary          MPIRUN   mpirun
  FF_NOCLOSE_SHIM   noclose_shim.so, LD_PRELOADed: Open MPI's components stay mapped
  FF_LSAN_SUPP_MPI  the LeakSanitizer rules for Open MPI's own allocations (added to the
                    tree's rules for the ranks)
  --no-mpi  instead: a build without MPI says how to get it and exits 2

Open MPI is pointed at shared memory only (btl self plus the shared-memory BTL, vader in Open
MPI 4 and sm in 5; no single-copy mechanism, which needs ptrace rights a container may not
have), so no network is needed. The runtime's settings are named for the installed version:
Open MPI 4's mpirun is ORTE (OMPI_MCA_*), 5's is PRRTE (PRTE_MCA_*, other names).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FF = os.environ["FLOPFIT"]
MPIRUN = os.environ.get("MPIRUN", "mpirun")
RUN = ["bench", "--mpi", "--quick", "--only", "latency"]
COLLECTIVES = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def ompi_major():
    """The major version of the Open MPI that MPIRUN belongs to (4 or 5), else None."""
    p = subprocess.run([MPIRUN, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=60)
    m = re.search(r"\(Open MPI\) (\d+)\.", p.stdout.decode(errors="replace"))
    return int(m.group(1)) if m else None


OMPI = None  # set in main()


def runtime_env(tmp):
    """Shared memory only, oversubscription allowed, never ssh, session files under tmp."""
    if OMPI == 4:
        return {
            "OMPI_MCA_btl": "self,vader",
            "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
            "OMPI_MCA_rmaps_base_oversubscribe": "1",
            "OMPI_MCA_plm_rsh_agent": "false",
            "OMPI_MCA_orte_tmpdir_base": tmp,
        }
    return {
        "OMPI_MCA_btl": "self,sm",
        "OMPI_MCA_btl_sm_single_copy_mechanism": "none",
        "PRTE_MCA_rmaps_default_mapping_policy": ":oversubscribe",
        "PRTE_MCA_plm_ssh_agent": "false",
        "PRTE_MCA_prte_tmpdir_base": tmp,
    }


def oversubscribe():
    return ["--oversubscribe"] if OMPI == 4 else ["--map-by", ":OVERSUBSCRIBE"]


def mpi_env(tmp):
    env = dict(os.environ)
    env.update(runtime_env(tmp))
    env.update({
        "HOME": tmp,
        "XDG_DATA_HOME": os.path.join(tmp, "data"),
    })
    supp = os.environ.get("FF_LSAN_SUPP_MPI")
    if supp:
        # One suppressions file per process: the tree's rules and Open MPI's, together.
        merged = os.path.join(tmp, "lsan.supp")
        with open(merged, "w") as out:
            for rules in [os.environ.get("FF_LSAN_SUPP_TREE"), supp]:
                if rules and os.path.exists(rules):
                    with open(rules) as f:
                        out.write(f.read() + "\n")
        env["LSAN_OPTIONS"] = f"suppressions={merged}:print_suppressions=0"
    shim = os.environ.get("FF_NOCLOSE_SHIM")
    if shim:
        # Open MPI's components stay mapped, so their leaks are named (noclose_shim.c).
        env["LD_PRELOAD"] = shim
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
    if OMPI == 5:
        # Open MPI 5 formats strings through glibc's vasprintf, and neither keeps frame
        # pointers there: the fast unwinder ends such a stack in an unnamed libc frame, with no
        # Open MPI library in it for lsan-mpi.supp to match. The DWARF unwinder reaches it.
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":fast_unwind_on_malloc=0"
    return env


def mpirun(n, extra=()):
    cmd = [MPIRUN, "-np", str(n)] + list(extra)
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def load(path):
    with open(path) as f:
        return json.load(f)


def json_files(d):
    return sorted(e for e in os.listdir(d) if e.endswith(".json"))


def check_interconnect(tests, n_local, label):
    intra = [t for t in tests if t.get("scope") == "intra_node"]
    inter = [t for t in tests if t.get("scope") == "inter_node"]
    check({t["name"] for t in intra} == COLLECTIVES, f"{label}: intra-node collectives {intra}")
    for t in intra:
        check(t["family"] == "interconnect" and t["ranks"] == n_local,
              f"{label}: intra-node test {t}")
        if t["status"] == "ok":
            check(t["verified"] is True and t["unit"] == "B/s" and t["value"] > 0 and
                  t["algbw_bytes_per_s"] > 0 and t["latency_s"] > 0 and t["bytes"] >= 8,
                  f"{label}: an ok interconnect test without its figures: {t}")
        else:
            check("value" not in t, f"{label}: a failed test with a value: {t}")
    check(sum(t["status"] == "ok" for t in intra) >= len(intra) - 2,
          f"{label}: intra-node tests not measured: {[t.get('reason') for t in intra]}")
    check({t["name"] for t in inter} == COLLECTIVES and
          all(t["status"] == "unsupported" and t["reason"] == "one host" for t in inter),
          f"{label}: inter-node tests on one host: {inter}")


def check_profile_reads(path, label):
    p = subprocess.run([FF, "results", path, "--format", "json"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    err = p.stderr.decode(errors="replace")
    check(p.returncode == 0 and "skipped" not in err,
          f"{label}: flopfit results does not read {path}: {p.returncode} {err[-300:]}")


def validate_fleet(fleet_path, n, label, want_status):
    if not check(os.path.exists(fleet_path), f"{label}: no fleet file at {fleet_path}"):
        return None
    fleet = load(fleet_path)
    check(fleet["schema"] == "flopfit.fleet" and fleet["schema_version"] == "1.0",
          f"{label}: schema {fleet.get('schema')} {fleet.get('schema_version')}")
    ranks = fleet["ranks"]
    check([r["rank"] for r in ranks] == list(range(n)), f"{label}: ranks {ranks}")
    check(len(fleet["hosts"]) == 1 and sorted(fleet["hosts"][0]["ranks"]) == list(range(n)),
          f"{label}: hosts {fleet['hosts']}")
    for r in ranks:
        want = want_status(r["rank"])
        check(r["status"] == want, f"{label}: rank {r['rank']} is {r['status']}, want {want}: "
              f"{r.get('error')}")
        for dev in r["devices"]:
            if dev["status"] == "failed":
                check(dev.get("error"), f"{label}: rank {r['rank']}: a failed device says "
                      f"nothing: {dev}")
                continue
            prof, path = dev.get("profile"), dev.get("path")
            if not check(prof and path, f"{label}: rank {r['rank']}: {dev['device']} has no "
                         "profile or path"):
                continue
            check(prof["schema"] == "flopfit.profile", f"{label}: rank {r['rank']} profile")
            check(prof["device"]["backend"] == dev["device"].split(":")[0],
                  f"{label}: {dev['device']} holds a {prof['device']['backend']} profile")
            check(load(path) == prof, f"{label}: {path} differs from the fleet file's copy")
            check_interconnect([t for t in prof["tests"] if t["family"] == "interconnect"], n,
                               f"{label} rank {r['rank']} profile")
            check_profile_reads(path, label)
    failed = [r["rank"] for r in ranks if r["status"] == "failed"]
    check(sorted(f["rank"] for f in fleet["failed_ranks"]) == failed and
          all(f["error"] for f in fleet["failed_ranks"]),
          f"{label}: failed_ranks {fleet['failed_ranks']}")
    check_interconnect(fleet["interconnect"], n, f"{label} fleet")
    return fleet


def mpmd_env(tmp):
    """mpi_env for a job of two or more programs (`mpirun A : B`)."""
    env = mpi_env(tmp)
    if OMPI == 5:
        # Open MPI 5.0.7 with PMIx 5.0.7, as Debian 13 packages them, crashes in mpirun on any
        # job of two or more programs (`mpirun -n 1 date : -n 1 date`), in the environment that
        # PMIx's Open MPI personality (pmdl ompi) prepares for each program
        # (https://github.com/open-mpi/ompi/issues/13303). Without it the ranks start as they
        # should: every rank is local and inherits mpirun's environment, and flopfit asks MPI
        # itself for its ranks.
        env["PMIX_MCA_pmdl"] = "^ompi"
    return env


def case_np(n, tmp, extra=()):
    label = f"-np {n}"
    out_dir = os.path.join(tmp, f"np{n}")
    fleet_path = os.path.join(tmp, f"fleet{n}.json")
    t0 = time.monotonic()
    p = subprocess.run(mpirun(n, extra) + [FF] + RUN + ["--output-dir", out_dir,
                                                        "--output", fleet_path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=mpi_env(tmp),
                       timeout=300)
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    print(f"{label}: exit {p.returncode} in {time.monotonic() - t0:.1f} s", flush=True)
    check(p.returncode == 0, f"{label}: exit {p.returncode}: {err[-1500:]}")
    # two devices on this machine (PoCL, lavapipe): ranks 0 and 1 take one each
    fleet = validate_fleet(fleet_path, n, label, lambda r: "ok" if r < 2 else "no_device")
    check("fleet:" in out and "interconnect" in out and "all_reduce" in out,
          f"{label}: the table: {out[:500]!r}")
    if n > 2:
        check("no device for this rank" in err, f"{label}: a rank without a device is silent")
    if fleet:
        names = json_files(out_dir)
        check(len(names) == 2, f"{label}: profiles written {names}")


def case_failed_rank(tmp):
    """Rank 1 sees no driver (its ICD lists point nowhere): it is reported, rank 0's results
    are still written, the exit status is 1."""
    label = "failed rank"
    out_dir = os.path.join(tmp, "failed")
    fleet_path = os.path.join(tmp, "fleet-failed.json")
    args = RUN + ["--output-dir", out_dir, "--output", fleet_path]
    cmd = mpirun(1) + [FF] + args + [":", "-np", "1", "env", "OCL_ICD_VENDORS=/nonexistent",
                                     "OCL_ICD_FILENAMES=/nonexistent",
                                     "VK_ICD_FILENAMES=/nonexistent", "VK_DRIVER_FILES=/nonexistent",
                                     FF] + args
    env = mpmd_env(tmp)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       timeout=300)
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    check(p.returncode == 1, f"{label}: exit {p.returncode}, want 1: {err[-1500:]}")
    fleet = validate_fleet(fleet_path, 2, label, lambda r: "ok" if r == 0 else "failed")
    if fleet:
        check("no device" in fleet["failed_ranks"][0]["error"],
              f"{label}: the error {fleet['failed_ranks']}")
    check("failed" in out, f"{label}: the table does not show the failed rank: {out[:600]!r}")


def case_killed_rank(tmp):
    """Rank 1 is SIGKILLed while the job runs: mpirun names it, no fleet file is written, and
    every profile on disk is whole."""
    label = "killed rank"
    out_dir = os.path.join(tmp, "killed")
    fleet_path = os.path.join(tmp, "fleet-killed.json")
    # a longer run: the full network sweep and the latency tests at their default budget
    cmd = mpirun(2) + [FF, "bench", "--mpi", "--only", "latency", "--output-dir", out_dir,
                       "--output", fleet_path]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=mpi_env(tmp),
                         start_new_session=True)
    err_lines = []
    pid = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = p.stderr.readline().decode(errors="replace")
        if not line:
            break
        err_lines.append(line)
        if "rank 1 of 2" in line and "pid " in line:
            pid = int(line.rsplit("pid ", 1)[1].rstrip(")\n"))
            break
    if not check(pid, f"{label}: rank 1 never said its pid: {''.join(err_lines)}"):
        p.kill()
        return
    time.sleep(1.0)  # inside the network sweep
    os.kill(pid, signal.SIGKILL)
    out, err = p.communicate(timeout=180)
    err = "".join(err_lines) + err.decode(errors="replace")
    check(p.returncode != 0, f"{label}: exit {p.returncode}")
    check("rank 1" in err and ("signal 9" in err or "Killed" in err),
          f"{label}: no clear error naming the killed rank: {err[-1500:]}")
    check(not os.path.exists(fleet_path), f"{label}: a fleet file was written")
    for name in json_files(out_dir) if os.path.isdir(out_dir) else []:
        try:
            prof = load(os.path.join(out_dir, name))
            check(prof.get("schema") == "flopfit.profile", f"{label}: {name} is not a profile")
        except ValueError as e:
            check(False, f"{label}: {name} is cut: {e}")


def case_mismatched_options(tmp):
    """Rank 0 runs --quick, rank 1 does not (MPMD form): both ranks name the first option that
    differs and stop before any collective, promptly, with exit status 2 and no fleet file."""
    label = "mismatched options"
    out_dir = os.path.join(tmp, "mismatch")
    fleet_path = os.path.join(tmp, "fleet-mismatch.json")
    tail = ["--only", "latency", "--output-dir", out_dir]
    cmd = (mpirun(1) + [FF, "bench", "--mpi", "--quick"] + tail + ["--output", fleet_path] +
           [":", "-np", "1", FF, "bench", "--mpi"] + tail)
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=mpmd_env(tmp), timeout=120)
    except subprocess.TimeoutExpired:
        check(False, f"{label}: the ranks still ran after 120 s")
        return
    took = time.monotonic() - t0
    err = p.stderr.decode(errors="replace")
    print(f"{label}: exit {p.returncode} in {took:.1f} s", flush=True)
    check(p.returncode == 2, f"{label}: exit {p.returncode}, want 2: {err[-1500:]}")
    check(took < 60, f"{label}: {took:.1f} s to stop")
    for rank in (0, 1):
        check(f"rank {rank}: the ranks were started with different options: rank 1 differs "
              f"from rank 0 in --quick" in err, f"{label}: rank {rank} does not say it: {err}")
    check("interconnect" not in p.stdout.decode(errors="replace"),
          f"{label}: the run went on")
    check(not os.path.exists(fleet_path), f"{label}: a fleet file was written")
    check(not os.path.isdir(out_dir) or not json_files(out_dir),
          f"{label}: profiles were written")


def case_no_mpi():
    p = subprocess.run([FF, "bench", "--mpi"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    err = p.stderr.decode(errors="replace")
    check(p.returncode == 2, f"--mpi without MPI: exit {p.returncode}, want 2")
    check("built without MPI" in err and "openmpi-bin libopenmpi-dev" in err and
          "reconfigure" in err, f"--mpi without MPI: the message {err!r}")


def main():
    if "--no-mpi" in sys.argv:
        case_no_mpi()
    else:
        if not shutil.which(MPIRUN):
            print(f"{MPIRUN} not found", file=sys.stderr)
            return 77
        global OMPI
        OMPI = ompi_major()
        if OMPI not in (4, 5):
            print(f"{MPIRUN} is not Open MPI 4 or 5 (its --version: major {OMPI})",
                  file=sys.stderr)
            return 1
        print(f"Open MPI {OMPI}", flush=True)
        tmp = tempfile.mkdtemp(prefix="ff-mpi-")
        try:
            cases = sys.argv[1:] or ["np2", "np4", "failed", "killed", "options"]
            if "np2" in cases:
                case_np(2, tmp)
            if "np4" in cases:
                case_np(4, tmp, oversubscribe())
            if "failed" in cases:
                case_failed_rank(tmp)
            if "killed" in cases:
                case_killed_rank(tmp)
            if "options" in cases:
                case_mismatched_options(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
