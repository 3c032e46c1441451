#!/usr/bin/env python3
"""`flopfit --version` names the commit the binary was built from (meson.build's vcs_tag, asked
of git at every build): the source tree's HEAD where it is a git checkout, "unknown" where it
is not. A revision fixed at configure time would name an older commit after a pull and a
rebuild, and so would every profile written (its tool.git).

usage: test_version.py FLOPFIT SOURCE_ROOT
"""
import subprocess
import sys

flopfit, root = sys.argv[1], sys.argv[2]
out = subprocess.run([flopfit, "--version"], stdout=subprocess.PIPE, text=True, check=True).stdout
try:
    head = subprocess.run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    want = head.stdout.strip() if head.returncode == 0 else "unknown"
except OSError:  # no git
    want = "unknown"
if f"({want})" not in out:
    sys.exit(f"flopfit --version says {out.strip()!r}; the source tree's HEAD is {want}")
print(f"ok: {out.strip()}")
