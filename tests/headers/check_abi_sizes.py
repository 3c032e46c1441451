#!/usr/bin/env python3
"""Every struct defined in libflopfit's public headers has a row in test_abi_sizes.c, and
every row names a struct that still exists.

usage: check_abi_sizes.py SOURCE_ROOT
"""
import glob
import os
import re
import sys

root = sys.argv[1]
defined = {}
for path in sorted(glob.glob(os.path.join(root, "estimate/include/flopfit/*.h*"))):
    with open(path, encoding="utf-8") as f:
        for name in re.findall(r"^struct (ff_\w+) \{", f.read(), re.M):
            defined[name] = os.path.relpath(path, root)
with open(os.path.join(root, "tests/headers/test_abi_sizes.c"), encoding="utf-8") as f:
    listed = set(re.findall(r"\bSIZE\((ff_\w+), \d+\)", f.read()))
bad = 0
for name, header in sorted(defined.items()):
    if name not in listed:
        print(f"abi-sizes: struct {name} ({header}) has no row in tests/headers/test_abi_sizes.c;"
              " add SIZE({name}, <sizeof on x86_64>)", file=sys.stderr)
        bad = 1
for name in sorted(listed - defined.keys()):
    print(f"abi-sizes: tests/headers/test_abi_sizes.c lists struct {name}, which no public "
          "header defines", file=sys.stderr)
    bad = 1
if not bad:
    print(f"{len(defined)} public structs, each with a recorded size")
sys.exit(bad)
