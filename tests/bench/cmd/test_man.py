#!/usr/bin/env python3
"""The generated man page (scripts/gen-man.py) has its sections, one part per command, renders
without a groff warning, and its ENVIRONMENT names every variable the sources read: each
getenv("NAME") of the tree and each variable of the device-option table.

usage: test_man.py MANPAGE SOURCE_ROOT
"""
import glob
import os
import re
import shutil
import subprocess
import sys

page_path, root = sys.argv[1], sys.argv[2]
with open(page_path, encoding="utf-8") as f:
    page = f.read()
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


sections = re.findall(r"^\.SH (.+)$", page, re.M)
for want in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS",
             "ENVIRONMENT", "FILES", "EXAMPLES"]:
    expect(want in sections, "no %s section (sections: %s)" % (want, sections))
for cmd in ["devices", "bench", "tune", "estimate", "results"]:
    expect(re.search(r"^\.SS %s$" % cmd, page, re.M), "no COMMANDS part for %s" % cmd)
    expect(re.search(r"^\.B flopfit %s$" % cmd, page, re.M), "%s not in SYNOPSIS" % cmd)


def section(name):
    m = re.search(r"^\.SH %s$(.*?)(?=^\.SH |\Z)" % re.escape(name), page, re.M | re.S)
    return m.group(1) if m else ""


env = set(re.findall(r"^\.B (\w+)$", section("ENVIRONMENT"), re.M))
read = set()
for top in ("backends", "bench", "estimate", "results"):
    for src in glob.glob(os.path.join(root, top, "**", "*.c"), recursive=True):
        with open(src, encoding="utf-8") as f:
            text = f.read()
        read |= set(re.findall(r'getenv\("(\w+)"\)', text))
        if src.endswith("device_options.c"):
            read |= set(re.findall(r'\{\{"\w+", "(FF_\w+)"', text))
expect(len(read) >= 10, "found only %s read by the sources" % sorted(read))
expect(not read - env, "ENVIRONMENT lacks %s" % sorted(read - env))
files = section("FILES")
for want in ["flopfit/profiles", "flopfit/tuning.json", "bash\\-completion/completions/flopfit"]:
    expect(want in files, "FILES lacks %s" % want)
exit_status = section("EXIT STATUS")
for code in ["0", "1", "2"]:
    expect(re.search(r"^\.B %s$" % code, exit_status, re.M), "EXIT STATUS lacks %s" % code)
expect(section("EXAMPLES").count(".B flopfit") >= 5, "fewer than 5 EXAMPLES")

if shutil.which("groff"):
    p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page_path],
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0 and not p.stderr.strip(), "groff: %s" % p.stderr)
if shutil.which("man"):
    p = subprocess.run(["man", "-l", page_path], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="100"))
    expect(p.returncode == 0 and "EXIT STATUS" in p.stdout, "man -l: %s" % p.stderr)

for f in failures:
    print("man page: " + f, file=sys.stderr)
print("man page: %d sections, %d variables, %d failures" % (len(sections), len(read),
                                                            len(failures)))
sys.exit(1 if failures else 0)
