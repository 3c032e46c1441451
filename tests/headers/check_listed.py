#!/usr/bin/env python3
"""Every header of the tree (outside tests/) is included by test_all_headers.c.

usage: check_listed.py SOURCE_ROOT
"""
import os
import sys

root = sys.argv[1]
with open(os.path.join(root, "tests/headers/test_all_headers.c"), encoding="utf-8") as f:
    listed = f.read()
missing = []
for top in ("backends", "bench", "estimate", "results"):
    for d, _, files in os.walk(os.path.join(root, top)):
        for name in files:
            if not name.endswith(".h"):
                continue
            rel = os.path.relpath(os.path.join(d, name), root)
            inc = rel[len("estimate/include/"):] if rel.startswith("estimate/include/") else rel
            if inc not in listed:
                missing.append(rel)
for m in missing:
    print(f"all-headers: {m} is not included by tests/headers/test_all_headers.c", file=sys.stderr)
sys.exit(1 if missing else 0)
