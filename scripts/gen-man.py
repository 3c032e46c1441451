#!/usr/bin/env python3
"""Render flopfit(1) from the built binary, at build time.

usage: gen-man.py FLOPFIT OUTPUT [COMPLETION_PATH]

The help texts are the documentation: `flopfit --help` is the DESCRIPTION and each command's
--help its part of COMMANDS, in literal (no-fill) blocks, so the page always matches the
binary it was built with. ENVIRONMENT lists the variables flopfit reads: the fixed ones below
and the tuning variables of the device-option table (`flopfit complete-words --environment`).
COMPLETION_PATH is where the bash completion is installed (FILES).
"""
import subprocess
import sys

# Variables read outside the device-option table, each with what it does.
ENVIRONMENT = [
    ("XDG_DATA_HOME", "Profiles go to and are read from $XDG_DATA_HOME/flopfit/profiles (an "
     "absolute path; otherwise ~/.local/share/flopfit/profiles)."),
    ("XDG_CACHE_HOME", "The tuning cache is $XDG_CACHE_HOME/flopfit/tuning.json (an absolute "
     "path; otherwise ~/.cache/flopfit/tuning.json)."),
    ("HOME", "The fallback of both folders above; \\fBresults submit\\fR refuses a profile that "
     "contains it."),
    ("FF_NO_TUNE", "Set and not 0: \\fBbench --no-tune\\fR for every run (built-in kernel "
     "parameters, no tuning cache)."),
    ("FF_VK_VALIDATION", "Set and not 0: enable the Vulkan validation layers and report their "
     "messages."),
    ("FF_VK_LOADER", "The Vulkan loader library to open before libvulkan.so.1 (tests point it at "
     "a missing one)."),
    ("FF_VK_FAULT", "Comma-separated Vulkan calls to fail on purpose: fault injection for the "
     "tests."),
]

EXAMPLES = [
    ("List the devices of every backend:", "flopfit devices"),
    ("A short benchmark of the first OpenCL device, table on stdout, profile saved:",
     "flopfit bench --backend opencl --device 0 --quick"),
    ("Only fp32 and fp16 matrix multiplication:",
     "flopfit bench --only matmul --precision fp32,fp16"),
    ("Tune the kernels of one device for five minutes:",
     "flopfit tune --device vulkan:0 --budget 300"),
    ("Will Llama 3 8B fine-tune with QLoRA on one RTX 4090?",
     "flopfit estimate --model llama-3-8b --finetune qlora --device rtx-4090"),
    ("Rank every catalog device for serving Llama 2 70B:",
     "flopfit estimate --model llama-2-70b --serve --device all"),
    ("Plan with a measured profile instead of a datasheet:",
     "flopfit estimate --model mistral-7b --profile my-gpu.json"),
    ("Compare two runs:", "flopfit results --compare old.json new.json"),
    ("Enable completion in the current shell without installing:",
     "source build/scripts/flopfit"),
]


def run(exe, *args):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=60)
    return p.stdout if p.stdout.strip() else p.stderr


def roff_text(text):
    """A line of running text; the texts above carry their own \\f font escapes."""
    return "\\&" + text if text.startswith((".", "'")) else text


def roff_literal(text):
    out = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def tagged(term, text):
    return [".TP", ".B %s" % term, roff_text(text)]


def main():
    if len(sys.argv) not in (3, 4):
        print("usage: gen-man.py FLOPFIT OUTPUT [COMPLETION_PATH]", file=sys.stderr)
        return 2
    exe, output = sys.argv[1], sys.argv[2]
    completion = sys.argv[3] if len(sys.argv) == 4 else None
    version = run(exe, "--version").strip().split("\n")[0]
    commands = [w for w in run(exe, "complete-words").split() if not w.startswith("-")]
    page = [
        '.TH FLOPFIT 1 "" "%s" "User Commands"' % version.replace('"', ""),
        ".SH NAME",
        "flopfit \\- measure what a GPU delivers and whether a model trains or serves on it",
        ".SH SYNOPSIS",
    ]
    for cmd in commands:
        page += [".B flopfit %s" % cmd, "[\\fIoptions\\fR]", ".br"]
    page += [".B flopfit", "\\fB\\-V\\fR | \\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR",
             ".SH DESCRIPTION", ".nf", roff_literal(run(exe, "--help")), ".fi",
             ".SH COMMANDS"]
    for cmd in commands:
        text = run(exe, cmd, "--help")
        if text.strip():
            page += [".SS %s" % cmd, ".nf", roff_literal(text), ".fi"]
    page += [".SH OPTIONS",
             "Each command's options are listed under COMMANDS. An option may be shortened to a "
             "unique prefix, and \\fB\\-\\-name=value\\fR is \\fB\\-\\-name value\\fR. An unknown "
             "option or command is named with the closest known one (\\fIdid you mean\\fR) and "
             "exits 2."]
    page += tagged("\\-V, \\-\\-version", "Print the version and git revision, and exit.")
    page += tagged("\\-h, \\-\\-help", "Print the commands (or, after a command, its options) "
                   "to stdout, and exit 0.")
    page += [".SH EXIT STATUS"]
    page += tagged("0", "Success (\\fBbench\\fR: every test ok or unsupported).")
    page += tagged("1", "The work failed: a test failed or no device was found (bench, "
                   "devices), a profile was skipped or is not current (results), the model does "
                   "not fit where that is asked (estimate); each command's section says which.")
    page += tagged("2", "Bad usage: an unknown command or option, a missing or invalid value, "
                   "options that contradict. The message names the input and what is accepted.")
    page += tagged("130, 143", "\\fBbench\\fR stopped by SIGINT or SIGTERM; what was measured is "
                   "written.")
    page += [".SH ENVIRONMENT"]
    for name, text in ENVIRONMENT:
        page += tagged(name, text)
    for line in run(exe, "complete-words", "--environment").split("\n"):
        if not line.strip():
            continue
        env, opt, backend, values = line.split("\t")
        page += tagged(env, "The %s tuning option \\fB%s\\fR of every device opened (%s), "
                       "as \\fB\\-\\-override %s=\\fR\\fIVALUE\\fR; the option wins over the "
                       "variable." % (backend, opt, values.replace("\\", "\\e"), opt))
    page += [".SH FILES"]
    page += tagged("$XDG_DATA_HOME/flopfit/profiles/",
                   "Device profiles written by \\fBflopfit bench\\fR and read by \\fBflopfit "
                   "results\\fR (default ~/.local/share/flopfit/profiles).")
    page += tagged("$XDG_CACHE_HOME/flopfit/tuning.json",
                   "The tuning cache of \\fBflopfit tune\\fR: the best kernel parameters per "
                   "device, driver and kernel source (default ~/.cache/flopfit/tuning.json).")
    if completion:
        page += tagged(completion.replace("-", "\\-"),
                       "The bash completion: commands, options and the values their tables "
                       "list (backends, formats, precisions, families, presets, devices).")
    page += [".SH EXAMPLES"]
    for what, cmd in EXAMPLES:
        page += [".PP", roff_text(what), ".RS", ".B %s" % cmd.replace("-", "\\-"), ".RE"]
    page += [".SH SEE ALSO", "The README.md of the flopfit sources; doc/ for the methods."]
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(page) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
