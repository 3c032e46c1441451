#!/usr/bin/env python3
"""tests/results/test_hostile_fs.py — the publisher's file system and submit under attack.

usage: test_hostile_fs.py FLOPFIT TESTS_RESULTS_DIR PROFILE_HASH

Each case is planted in a fresh folder inside a sandbox; after every run nothing may exist
outside the destination but what the case put there itself. Profile names holding ../, a
Windows device name or 10 kB become [a-z0-9._-] slugs; a symlinked results/<vendor>, device
folder or page/ is refused, not followed; submit refuses an implausible figure, a verified flag
without its proof and a home path hidden by JSON escapes (exit 2, the reason named);
--publish swaps page/ whole and removes what a dead writer left.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from results_harness import check, finish, runner, write_profile

FLOPFIT, HERE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
HASHER = os.path.abspath(sys.argv[3])
# a standard run (submit files no other kind); each edit below gets its content's hash
POCL = os.path.join(HERE, "submit", "pocl-standard.json")
SLUG = re.compile(r"^[a-z0-9._-]{1,64}$")  # one name from a profile: a folder
NAME = re.compile(r"^[a-z0-9._-]{1,255}$")  # a file name joined from slugs
run = runner(FLOPFIT, HERE)


def tree(root):
    """Every path under root (files, folders, links), relative, sorted."""
    out = []
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            out.append(os.path.relpath(os.path.join(d, n), root))
    return sorted(out)


def profile(**device):
    with open(POCL) as f:
        p = json.load(f)
    p["device"].update(device)
    return p


def write(path, prof):
    return write_profile(path, prof, HASHER)


class Sandbox:
    """sandbox/results (the destination) beside sandbox/outside (must stay as planted)."""

    def __init__(self):
        self.top = tempfile.mkdtemp()
        self.res = os.path.join(self.top, "results")
        self.outside = os.path.join(self.top, "outside")
        os.mkdir(self.res)
        os.mkdir(self.outside)
        with open(os.path.join(self.outside, "keep.txt"), "w") as f:
            f.write("mine\n")

    def untouched(self, what):
        check(tree(self.outside) == ["keep.txt"], f"{what}: written outside: {tree(self.outside)}")
        with open(os.path.join(self.outside, "keep.txt")) as f:
            check(f.read() == "mine\n", f"{what}: outside/keep.txt was changed")
        extra = [n for n in os.listdir(self.top) if n not in ("results", "outside", "in")]
        check(not extra, f"{what}: written beside the results folder: {extra}")

    def filed(self):
        return [p for p in tree(self.res) if p.endswith(".json")
                and os.path.isfile(os.path.join(self.res, p))]

    def done(self):
        shutil.rmtree(self.top)


def slugs_ok(rel, what):
    parts = rel.split(os.sep)
    for i, part in enumerate(parts):
        ok = (SLUG if i < len(parts) - 1 else NAME).match(part)
        check(ok and part not in (".", ".."), f"{what}: {part!r} is not a slug")
        stem = part.split(".")[0]
        check(stem not in ("con", "prn", "aux", "nul") and not re.match(r"^(com|lpt)[1-9]$", stem),
              f"{what}: {part!r} is a Windows device name")


# ---- names from the profile become slugs; nothing lands outside
cases = [
    ("backend ../", dict(backend="../../../outside/evil")),
    ("backend absolute", dict(backend="/tmp/../outside/evil")),
    ("device ../", dict(name="../../outside")),
    ("vendor ..", dict(vendor="..")),
    ("vendor .", dict(vendor=".", name=".")),
    ("driver ../", dict(driver_version="../../../outside/x")),
    ("windows names", dict(vendor="nul", name="con", backend="aux", driver_version="com1.txt")),
    ("windows names with extensions", dict(vendor="LPT9.json", name="Aux.x", backend="prn.")),
    ("10 kB names", dict(vendor="v" * 10000, name="d" * 10000, backend="b" * 10000,
                         driver_version="../" * 3000)),
    ("control and non-ASCII", dict(name="\x01\x1f\u00e9\u202e..\\..\\outside", backend="\n")),
]
for what, dev in cases:
    sb = Sandbox()
    prof = write(os.path.join(sb.top, "in"), profile(**dev))
    rc, out, err = run("submit", prof, "--results", sb.res)
    check(rc == 0, f"{what}: submit: exit {rc}: {err}")
    got = sb.filed()
    check(len(got) == 1, f"{what}: filed {got}")
    for rel in got:
        check(rel.count(os.sep) == 2, f"{what}: {rel} is not <vendor>/<device>/<file>")
        slugs_ok(rel, what)
        check(len(os.path.basename(rel)) <= 255, f"{what}: file name of {len(rel)} bytes")
    rc, out, err = run("--publish", sb.res)
    check(rc == 0, f"{what}: publish: exit {rc}: {err}")
    for rel in tree(os.path.join(sb.res, "page")):
        slugs_ok(rel, what + " (page)")
    rc, out, err = run(sb.res, "--html", os.path.join(sb.res, "html"))
    check(rc == 0, f"{what}: --html: exit {rc}: {err}")
    for rel in tree(os.path.join(sb.res, "html")):
        slugs_ok(rel, what + " (--html)")
    os.unlink(os.path.join(sb.top, "in"))
    sb.untouched(what)
    sb.done()

sb = Sandbox()
write(os.path.join(sb.top, "in"), profile(vendor="nul", name="con", backend="aux"))
rc, out, err = run("submit", os.path.join(sb.top, "in"), "--results", sb.res)
check(sb.filed() and sb.filed()[0].startswith(os.path.join("nul_", "con_", "aux_-")),
      f"Windows names not mangled with '_': {sb.filed()}")
sb.done()

# ---- planted links are refused, not followed
for what, plant in [("results/<vendor> link", "amd"),
                    ("results/<vendor>/<device> link", os.path.join("amd", "pthread-haswell-amd-epyc"))]:
    sb = Sandbox()
    if os.sep in plant:
        os.mkdir(os.path.join(sb.res, "amd"))
    os.symlink(sb.outside, os.path.join(sb.res, plant))
    rc, out, err = run("submit", POCL, "--results", sb.res)
    check(rc == 2 and "symbolic link" in err and plant in err,
          f"{what}: exit {rc}, expected 2 naming the link: {err}")
    sb.untouched(what)
    sb.done()

sb = Sandbox()
shutil.copy(POCL, sb.res)
os.symlink(sb.outside, os.path.join(sb.res, "page"))
rc, out, err = run("--publish", sb.res)
check(rc == 1 and "page is a symbolic link" in err, f"page/ link: exit {rc}: {err}")
check(not os.path.exists(os.path.join(sb.res, "README.md")), "page/ link: README.md written")
rc, out, err = run("--publish", sb.res, "--check")
check(rc == 1 and "symbolic link" in err, f"page/ link --check: exit {rc}: {err}")
sb.untouched("page/ link")
os.unlink(os.path.join(sb.res, "page"))
# a link planted where a file of the page goes is replaced, its target left alone
html = os.path.join(sb.res, "html")
os.mkdir(html)
os.symlink(os.path.join(sb.outside, "keep.txt"), os.path.join(html, "index.html"))
rc, out, err = run(POCL, "--html", html)
check(rc == 0 and not os.path.islink(os.path.join(html, "index.html")),
      f"--html over a planted link: exit {rc}: {err}")
sb.untouched("--html index.html link")
os.symlink(os.path.join(sb.outside, "keep.txt"), os.path.join(sb.res, "README.md"))
rc, out, err = run("--publish", sb.res, "--check")
check(rc == 1 and "README.md" in err, f"--check read README.md through a link: exit {rc}: {err}")
rc, out, err = run("--publish", sb.res)
check(rc == 0 and not os.path.islink(os.path.join(sb.res, "README.md")),
      f"--publish over a README.md link: exit {rc}: {err}")
sb.untouched("README.md link")
sb.done()

# ---- --publish: page/ swapped whole; a dead writer's temp files and folders removed
dead = subprocess.Popen(["true"])
dead.wait()
sb = Sandbox()
shutil.copy(POCL, sb.res)
rc, out, err = run("--publish", sb.res)
check(rc == 0, f"publish: exit {rc}: {err}")
first = sorted(os.listdir(os.path.join(sb.res, "page")))
with open(os.path.join(sb.res, "page", "left-by-hand.svg"), "w") as f:
    f.write("old\n")
stale_dir = os.path.join(sb.res, f".page.tmp.{dead.pid}.0")
os.mkdir(stale_dir)
with open(os.path.join(stale_dir, "index.html"), "w") as f:
    f.write("half\n")
os.symlink(os.path.join(sb.outside, "keep.txt"), os.path.join(stale_dir, "link.svg"))
stale_file = os.path.join(sb.res, f".README.md.tmp.{dead.pid}.1")
with open(stale_file, "w") as f:
    f.write("half\n")
live_dir = os.path.join(sb.res, f".page.tmp.{os.getppid()}.0")  # a writer that still runs
os.mkdir(live_dir)
rc, out, err = run("--publish", sb.res)
check(rc == 0, f"republish: exit {rc}: {err}")
check(not os.path.exists(stale_dir) and not os.path.exists(stale_file),
      f"a dead writer's temp folder or file is left: {os.listdir(sb.res)}")
check(os.path.isdir(live_dir), "a live writer's temp folder was removed")
os.rmdir(live_dir)
check(sorted(os.listdir(os.path.join(sb.res, "page"))) == first,
      f"page/ is not the new page alone: {os.listdir(os.path.join(sb.res, 'page'))}")
left = [n for n in os.listdir(sb.res) if ".tmp." in n]
check(not left, f"publish left temp entries: {left}")
rc, out, err = run("--publish", sb.res, "--check")
check(rc == 0, f"--check after republishing: exit {rc}: {err}")
sb.untouched("stale temps")
sb.done()

# ---- submit checks what it files
def refused(what, prof_or_text, *words):
    sb = Sandbox()
    path = os.path.join(sb.top, "in")
    if isinstance(prof_or_text, str):
        with open(path, "w") as f:
            f.write(prof_or_text)
    else:
        write(path, prof_or_text)
    rc, out, err = run("submit", path, "--results", sb.res)
    check(rc == 2, f"{what}: exit {rc}, expected 2: {err}")
    check(all(w in err for w in words), f"{what}: message {err!r} lacks {words}")
    check(not sb.filed(), f"{what}: filed anyway: {sb.filed()}")
    sb.done()


def with_test(edit, pick=lambda t: t["family"] == "matmul" and t.get("verified")):
    p = profile()
    t = next(t for t in p["tests"] if pick(t))
    edit(t)
    return p


def forged_rate(t):
    t["shape"] = {"m": 2048, "n": 2048, "k": 2048}
    t["value"] = 1e18


refused("1e18 FLOP/s at n=2048", with_test(forged_rate), "physical limit", "1e+18", "n=2048",
        "compute units")
refused("an H200-class rate on a 2-core CPU",
        with_test(lambda t: t.update(value=5e13)), "physical limit", "CPU")
refused("1 PB/s read bandwidth",
        with_test(lambda t: t.update(value=1e15), lambda t: t["family"] == "bandwidth"),
        "physical limit", "B/s")
refused("verified without an error object",
        with_test(lambda t: t.pop("error")), '"verified": true', '"error"')
refused("verified with an error above its tolerance",
        with_test(lambda t: t["error"].update(max_rel=0.5)), '"verified": true', "tolerance")
refused("verified without repetitions",
        with_test(lambda t: t.pop("repetitions")), '"verified": true', "repetitions")
refused("verified without times",
        with_test(lambda t: (t.pop("device_time_s"), t.pop("wall_time_s"))), '"verified": true',
        "device_time_s")
refused("verified usable memory without read-back chunks",
        with_test(lambda t: t.pop("chunk_bytes"), lambda t: t["family"] == "memory"),
        '"verified": true', "chunk_bytes")
with open(POCL) as f:
    text = f.read()
for what, hidden in [("\\/home\\/", "kernel cache in \\/home\\/alice\\/.cache"),
                     ("\\u002fhome", "kernel cache in \\u002fhome\\u002falice"),
                     ("\\u002F\\u0068ome", "kernel cache in \\u002F\\u0068ome/alice"),
                     ("\\/Users\\/", "\\/Users\\/bob\\/pocl")]:
    forged = text.replace('"variant": "', '"variant": "' + hidden + " ", 1)
    check(forged != text, f"{what}: could not plant it")
    refused(f"home path as {what}", forged, "home-folder path", "decoded")

# an honest profile still files (the bounds come from its own device facts)
sb = Sandbox()
rc, out, err = run("submit", POCL, "--results", sb.res)
check(rc == 0 and len(sb.filed()) == 1, f"honest profile: exit {rc}: {err}")
sb.done()

finish()
