#!/usr/bin/env python3
"""The generated bash completion (scripts/gen-completion.py) offers every option each command's
--help documents, and the values of the tables the binary lists (--list-formats,
--list-families, --list-columns, --list-models), when bash runs it.

usage: test_completion.py FLOPFIT COMPLETION_FILE
"""
import os
import re
import subprocess
import sys

exe, path = sys.argv[1], os.path.abspath(sys.argv[2])
# Options a --help names that belong elsewhere: results' `submit PROFILE --results DIR`.
ELSEWHERE = {"results": {"--results"}}
failures = []


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=60).stdout


def complete(*words):
    """COMPREPLY of _flopfit for the command line `words` (the last one being completed)."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); '
              '_flopfit; printf "%s\\n" "${COMPREPLY[@]}"')
    p = subprocess.run(["bash", "-c", script, "bash", path, "flopfit", *words],
                       capture_output=True, text=True, timeout=60, cwd="/")
    if p.returncode != 0:
        failures.append("bash failed on %s: %s" % (" ".join(words), p.stderr))
    return [w for w in p.stdout.split("\n") if w]


def expect(cond, what):
    if not cond:
        failures.append(what)


with open(path, encoding="utf-8") as f:
    text = f.read()
syntax = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
expect(syntax.returncode == 0, "bash -n: %s" % syntax.stderr)

commands = [w for w in run("complete-words").split() if not w.startswith("-")]
expect(commands == ["devices", "bench", "tune", "estimate", "results"], "commands %s" % commands)
for cmd in commands:
    m = re.search(r"^    %s\) local opts='([^']*)' ;;$" % cmd, text, re.M)
    expect(m, "no option list for %s" % cmd)
    offered = set(m.group(1).split()) if m else set()
    documented = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", run(cmd, "--help")))
    missing = documented - offered - ELSEWHERE.get(cmd, set())
    expect(not missing, "%s --help documents %s, the completion lacks them" %
           (cmd, sorted(missing)))
    expect(set(complete(cmd, "--")) == offered, "%s --<TAB> is not its option list" % cmd)

expect(complete("be") == ["bench"], "flopfit be<TAB>: %s" % complete("be"))
expect("-V" in complete("-"), "flopfit -<TAB> lacks -V")
formats = [line.split()[0] for line in run("bench", "--list-formats").splitlines() if line.strip()]
expect(complete("bench", "--format", "") == formats, "bench --format: %s, the writers %s" %
       (complete("bench", "--format", ""), formats))
families = [line.split()[0] for line in run("bench", "--list-families").splitlines()
            if line.strip() and not line.startswith(" ")]
expect(complete("bench", "--only", "") == families + ["all"], "bench --only: %s, families %s" %
       (complete("bench", "--only", ""), families))
expect(complete("bench", "--only", "=", "mat") == ["matmul"], "--only=mat<TAB>")
expect(complete("estimate", "--recompute", "") == ["none", "selective", "full", "ops", "layers:2"],
       "estimate --recompute: %s" % complete("estimate", "--recompute", ""))
presets = [line.split()[0] for line in run("estimate", "--list-models").splitlines()[1:]]
got = complete("estimate", "--model", "llama-2-")
expect(got and set(got) == {p for p in presets if p.startswith("llama-2-")},
       "estimate --model llama-2-<TAB>: %s" % got)
expect("h100-sxm" in complete("estimate", "--device", "h1"), "estimate --device h1<TAB>")
expect("bf16" in complete("estimate", "--precision", "b") and
       "nf4" not in complete("estimate", "--precision", "n"),
       "estimate --precision: the formats --precision accepts")
expect(complete("tune", "--precision", "") == ["fp32", "fp16", "int8", "all"],
       "tune --precision: %s" % complete("tune", "--precision", ""))
expect(complete("tune", "--kernel", "") == ["matmul", "bandwidth", "all"],
       "tune --kernel: %s" % complete("tune", "--kernel", ""))
expect(complete("bench", "--override", "vk_t") == ["vk_tiles"],
       "bench --override vk_t: %s" % complete("bench", "--override", "vk_t"))

for f in failures:
    print("completion: " + f, file=sys.stderr)
print("completion: %d commands checked, %d failures" % (len(commands), len(failures)))
sys.exit(1 if failures else 0)
