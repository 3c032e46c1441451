#!/usr/bin/env python3
"""tests/results/test_hostile.py — hostile profile text through every writer of `flopfit results`.

usage: test_hostile.py FLOPFIT TESTS_RESULTS_DIR

The strings of hostile.py in the device, vendor, driver, backend, platform, impl, reason,
family, name and unit of profiles; then each output must stay well-formed in its own format:
  md       every table row has the header's column count; no raw '<' anywhere, no backtick
           or '|' from data unescaped, no line opened by data with # - +
  csv      Python's csv module reads every row with the header's column count; no cell starts
           with = + - @ tab or CR unless it is a number; no control character but tab/CR/LF
  json     strict UTF-8, parses, and carries the strings back exactly (invalid UTF-8 as U+FFFD)
  html     strict UTF-8; html.parser sees exactly the page's own one <script>, no <img>, no
           on* attribute, no element from data; the data reads back as text
  svg      every chart the page holds (the text --html writes as .svg files) parses with
           xml.etree as a document of its own (well-formed XML 1.0)
  compare  md and csv of --compare with the hostile unit/family/name keep their columns
"""
import csv
import html.parser
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402

FLOPFIT, HERE = os.path.abspath(sys.argv[1]), sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([FLOPFIT, *args], capture_output=True, timeout=300)
    check(p.returncode == 0, f"flopfit {' '.join(args)}: exit {p.returncode}: "
          f"{p.stderr.decode(errors='replace')[-2000:]}")
    return p.stdout


def utf8(data, what):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, f"{what}: not valid UTF-8: {e}")
        return data.decode("utf-8", errors="replace")


CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def unescaped(line, ch):
    """Positions of ch in a Markdown line not escaped by a backslash."""
    out, i = [], 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] == ch:
            out.append(i)
        i += 1
    return out


def check_md(text, what):
    check("<" not in text, f"{what}: a raw '<' in Markdown")
    check(not CONTROLS.search(text), f"{what}: a control or bidi character in Markdown")
    rows = [line for line in text.splitlines() if line.startswith("|")]
    check(len(rows) >= 3, f"{what}: no table")
    cols = len(unescaped(rows[0], "|")) if rows else 0
    for r in rows:
        check(len(unescaped(r, "|")) == cols,
              f"{what}: a table row with {len(unescaped(r, '|'))} pipes, the header {cols}: {r[:200]}")
        check(not unescaped(r, "`"), f"{what}: an unescaped backtick in a table row: {r[:200]}")
    for line in text.splitlines():
        # data begins no line: rows, list items and footnotes begin with our own text
        check(not re.match(r"\s*[-+#=]\S", line) and not re.match(r"\s*\\?[0-9]+\. ", line)
              or line.startswith("# ") or line.startswith("|---"),
              f"{what}: a line a Markdown block could open: {line[:200]}")


def check_csv(text, what):
    check(not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f]", text),
          f"{what}: a control character in CSV")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    check(len(rows) >= 2, f"{what}: no rows")
    for r in rows:
        check(len(r) == len(rows[0]), f"{what}: {len(r)} cells, the header {len(rows[0])}: {r[:6]}")
        for cell in r:
            if cell and cell[0] in "=+-@\t\r":
                try:
                    float(cell)
                except ValueError:
                    check(False, f"{what}: a cell a spreadsheet reads as a formula: {cell[:80]!r}")
    return rows


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self.handlers, self.text = [], 0, [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.scripts += tag == "script"
        self.handlers += [(tag, k) for k, _ in attrs if k.startswith("on")]

    def handle_data(self, data):
        self.text.append(data)


def expect(s):
    """What a text format shows of hostile string s (invalid bytes: U+FFFD)."""
    return s.replace(hostile.BAD_UTF8, "")


tmp = tempfile.mkdtemp(prefix="ff-hostile-")

# Raw non-ASCII bytes inside a JSON string: json-c 0.16 (Debian 12) passes them to the writers,
# 0.18 in strict mode (Debian 13) refuses the file, valid UTF-8 or not. A refusal must name the
# file; where there is one, the corpus is written as ASCII with \u escapes so that every
# writer still gets every string.
probe = os.path.join(tmp, "probe")
bad_index = next(i for i, s in enumerate(hostile.STRINGS) if hostile.BAD_UTF8 in s)
probe_path = hostile.write_profiles(probe, os.path.join(HERE, "data", "pocl.json"))[bad_index]
for other in os.listdir(probe):
    if os.path.join(probe, other) != probe_path:
        os.remove(os.path.join(probe, other))
pp = subprocess.run([FLOPFIT, "results", probe, "--format", "json"], capture_output=True,
                    timeout=300)
if b"not valid JSON" in pp.stderr:
    check(os.path.basename(probe_path).encode() in pp.stderr,
          f"a refused profile is named: {pp.stderr[-500:]!r}")
    print("this json-c refuses raw non-ASCII bytes in a string: the corpus is written in"
          " ASCII, every other character (and U+FFFD for the invalid bytes) as a \\u escape")
    hostile.BAD_BYTES = b"\\ufffd"
    hostile.ENSURE_ASCII = True

prof = os.path.join(tmp, "profiles")
paths = hostile.write_profiles(prof, os.path.join(HERE, "data", "pocl.json"))

# ---- md, csv, json ----
md = utf8(run("results", prof, "--format", "md"), "md")
check_md(md, "results --format md")
for s in ("alert(1)", "SUM(A1:A2)", "N" * 500):
    check(s in md, f"md: {s[:20]!r} missing")

rows = check_csv(utf8(run("results", prof, "--format", "csv"), "csv"), "results --format csv")
names = {r[0] for r in rows[1:]}
check("'=1+2 #8" in names, f"csv: '=1+2' not neutralised as '=1+2: {sorted(names)[:5]}")
check(any(r[rows[0].index("driver")] == "-12.5" for r in rows[1:]),
      "csv: a plain negative number in a text field was changed")

js = utf8(run("results", prof, "--format", "json"), "json")
doc = json.loads(js)
got = {d["device"] for d in doc["devices"]}
for i, s in enumerate(hostile.STRINGS):
    want = s + f" #{i}"
    if hostile.BAD_UTF8 in s:
        check(any(g.startswith("bad ") and "\ufffd" in g for g in got),
              "json: invalid UTF-8 not replaced by U+FFFD")
    else:
        check(want in got, f"json: device {want[:40]!r} not carried back exactly")

# ---- html, and the charts it holds inline (the same text as the .svg files of --html) ----
text = utf8(run("results", prof, "--format", "html"), "html")
p = Page()
p.feed(text)
p.close()
check(p.scripts == 1, f"html: {p.scripts} <script> elements, the page has one")
check("img" not in p.tags, "html: an <img> element from data")
check(not p.handlers, f"html: event-handler attributes {p.handlers[:5]}")
check(not CONTROLS.search(text), "html: a control or bidi character")
body = "".join(p.text)
for s in ("<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "]]> CDATA end",
          "quote \" and ' apostrophe", "&amp; &lt; &#60; entity"):
    check(s in body, f"html: {s!r} not shown as text")
charts = re.findall(r"<svg .*?</svg>", text, re.S)
check(len(charts) == len(paths) + 4, f"html: {len(charts)} charts for {len(paths)} devices")
for i, chart in enumerate(charts):
    try:
        root = ET.fromstring(chart.encode("utf-8"))
        check(not any(e.tag.endswith("script") for e in root.iter()), f"chart {i}: a script")
    except ET.ParseError as e:
        check(False, f"chart {i}: not well-formed XML: {e}")

# ---- --compare: the hostile unit, family and name ----
base = os.path.join(tmp, "base")
os.makedirs(base)
for i in (0, 1):
    with open(os.path.join(base, f"b{i}.json"), "wb") as f:
        f.write(open(paths[i], "rb").read())
for fmt in ("md", "csv", "json"):
    out = utf8(run("results", "--compare", base, prof, "--format", fmt), f"compare {fmt}")
    if fmt == "md":
        check_md(out, "compare md")
    elif fmt == "csv":
        rows = check_csv(out, "compare csv")
        units = {r[rows[0].index("unit")] for r in rows[1:] if len(r) == len(rows[0])}
        # only the devices on both sides (b0, b1) have test rows; their hostile units are the
        # formula-led ones, which CSV writes behind a leading apostrophe
        check(any(u.startswith("'") for u in units), f"compare csv: the hostile units missing: {units}")
    else:
        json.loads(out)

if failures:
    print(f"{len(failures)} failure(s); files in {tmp}")
    sys.exit(1)
subprocess.run(["rm", "-rf", tmp])
print(f"ok: {len(hostile.STRINGS)} hostile strings through md, csv, json, html, "
      f"{len(charts)} SVGs and --compare md/csv/json")
