"""tests/results/hostile.py — hostile strings in profiles, for the tests of every writer.

STRINGS: markup, quotes, entities, CDATA ends, Markdown and CSV specials, spreadsheet
formulas, every control character, a long name, invalid UTF-8 (raw bytes and an escaped lone
surrogate), a right-to-left override. write_profiles() puts them into the device, vendor,
driver, backend and platform of copies of data/pocl.json (each field sees every string),
into the impl of its matmul tests, the reason of an unsupported test, and the family, name and
unit of an extra test (which the publisher ignores and --compare reports).
"""
import json
import os

# In the JSON text this marker becomes invalid UTF-8: a lone continuation byte, a truncated
# sequence, an overlong '<', an encoded surrogate, a byte never valid; and a lone surrogate
# written as an escape.
BAD_UTF8 = "@BADUTF8@"
BAD_BYTES = b"\x80 \xc3( \xc0\xbc \xed\xa0\x80 \xff \\ud800"
# True: every non-ASCII character written as a \u escape, for a reader that refuses raw
# non-ASCII bytes in a string (json-c 0.18 in strict mode, Debian 13).
ENSURE_ASCII = False

STRINGS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "quote \" and ' apostrophe",
    "&amp; &lt; &#60; entity",
    "]]> CDATA end <![CDATA[ x",
    "pipe | in | cell",
    "back`tick`` and ```fence",
    "back\\slash \\| escaped pipe \\",
    "=1+2",
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A2)",
    "\t=tab formula",
    "\r=cr formula",
    "-12.5",
    "# heading - list + plus",
    "[link](javascript:alert(3)) *em* _em_ ~~s~~",
    "ctl " + "".join(chr(c) for c in range(1, 32)) + " \x7f\x85\x9b end",
    "\x01=hidden formula",
    "line one\nline two\r\nthree",
    "N" * 500,
    "bad " + BAD_UTF8 + " utf8",
    "rtl \u202eevil\u202c \u2066iso\u2069 done",
    "comma, and \"quoted\", field",
    "--> <!-- comment",
    "</svg></text><text>x</text>",
]


def _rot(i, k):
    return STRINGS[(i + k) % len(STRINGS)]


def profile_bytes(base, i, fields=None):
    """The profile for hostile string i: base (a parsed profile) with its text fields
    replaced, as JSON bytes with BAD_UTF8 turned into invalid UTF-8."""
    p = json.loads(json.dumps(base))
    d = p["device"]
    if fields is None:
        fields = {"name": _rot(i, 0) + f" #{i}", "vendor": _rot(i, 1),
                  "driver_version": _rot(i, 2), "backend": _rot(i, 3), "platform": _rot(i, 4)}
    d.update(fields)
    extra = None
    for t in p["tests"]:
        if t.get("family") == "matmul":
            t["impl"] = _rot(i, 5)
        if t.get("status") == "unsupported":
            t["reason"] = _rot(i, 6)
        if extra is None and t.get("status") == "ok" and t.get("unit") == "B/s":
            extra = dict(t)
    if extra is not None:
        extra.update({"family": _rot(i, 7), "name": _rot(i, 8), "unit": _rot(i, 9)})
        p["tests"].append(extra)
    text = json.dumps(p, ensure_ascii=ENSURE_ASCII, indent=1).encode("utf-8")
    return text.replace(BAD_UTF8.encode(), BAD_BYTES)


def write_profiles(folder, base_path, count=None):
    """Writes hostile-<i>.json into folder, one per string (or `count`); returns the paths."""
    with open(base_path, encoding="utf-8") as f:
        base = json.load(f)
    os.makedirs(folder, exist_ok=True)
    paths = []
    for i in range(count or len(STRINGS)):
        path = os.path.join(folder, f"hostile-{i:02d}.json")
        with open(path, "wb") as f:
            f.write(profile_bytes(base, i))
        paths.append(path)
    return paths


def write_named(folder, base_path, name, fields):
    """One profile with exactly these device fields (the Chromium test's script names)."""
    with open(base_path, encoding="utf-8") as f:
        base = json.load(f)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(profile_bytes(base, 0, fields))
    return path
