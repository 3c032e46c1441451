#!/usr/bin/env python3
"""Render `flopfit --help` and each command's --help into a man page (roff), at build time.

usage: gen-man.py FLOPFIT OUTPUT

The help texts are the documentation; this only wraps them, so the page always matches the
binary it was built with. Each command's text goes in a literal (no-fill) block.
"""
import subprocess
import sys

COMMANDS = ["devices", "bench", "tune", "estimate", "results"]


def run(exe, *args):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=60)
    return p.stdout if p.stdout.strip() else p.stderr


def roff_literal(text):
    out = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def main():
    if len(sys.argv) != 3:
        print("usage: gen-man.py FLOPFIT OUTPUT", file=sys.stderr)
        return 2
    exe, output = sys.argv[1], sys.argv[2]
    version = run(exe, "--version").strip().split("\n")[0]
    page = [
        '.TH FLOPFIT 1 "" "%s" "User Commands"' % version.replace('"', ""),
        ".SH NAME",
        "flopfit \\- measure what a GPU delivers and whether a model trains or serves on it",
        ".SH SYNOPSIS",
        ".B flopfit",
        ".I command",
        "[options]",
        ".SH DESCRIPTION",
        ".nf",
        roff_literal(run(exe, "--help")),
        ".fi",
    ]
    for cmd in COMMANDS:
        text = run(exe, cmd, "--help")
        if not text.strip():
            continue
        page += [".SH COMMAND: %s" % cmd.upper(), ".nf", roff_literal(text), ".fi"]
    page += [
        ".SH FILES",
        "Profiles written by \\fBflopfit bench\\fR and tuning results live in per-user folders "
        "(see \\fBflopfit bench --help\\fR).",
        ".SH SEE ALSO",
        "The README.md of the flopfit sources.",
    ]
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(page) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
