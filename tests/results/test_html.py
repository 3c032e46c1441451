#!/usr/bin/env python3
"""tests/results/test_html.py — the results page in a real headless Chromium (Debian's).

usage: test_html.py FLOPFIT TESTS_RESULTS_DIR

Writes the page for data/ with `flopfit results --html`, then in Chromium: the page logs no
console error (a page with a deliberate error proves the detector sees one), the DOM holds one
table row and one roofline per device and the bar charts, and a screenshot is not blank. A page
of profiles whose device fields hold markup (<script>, <img onerror>, attribute and CDATA
breakouts) runs none of it: the title stays, the console stays quiet, the markup shows as text. The
screenshots stay in results-screenshots/ of the build folder for a person to look at.
Chromium missing: skip (77), but with CI=true a failure.
"""
import html.parser
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

FLOPFIT, HERE = os.path.abspath(sys.argv[1]), sys.argv[2]
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


browser = next((shutil.which(b) for b in ("chromium", "chromium-browser") if shutil.which(b)),
               None)
if not browser:
    print("chromium not found (Debian: apt-get install chromium)")
    sys.exit(1 if CI else 77)

# Headless flags: no sandbox (containers, root), no GPU process, no first-run or network noise.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--disable-extensions", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


# The browser runs without the test harness's preloaded library (tests/noclose_shim.c is for
# flopfit's own processes; Chromium aborts with it).
BROWSER_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def chromium(*args, timeout=120):
    profile = tempfile.mkdtemp()
    try:
        p = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args],
                           capture_output=True, text=True, timeout=timeout, env=BROWSER_ENV)
        return p.returncode, p.stdout, p.stderr
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(url):
    """Every console message (the page logs none) and uncaught exception, from Chromium's log.
    Headless Chromium logs them all as "INFO:CONSOLE(...)" with --v=1, whatever their level,
    so any console line counts."""
    rc, out, err = chromium("--enable-logging=stderr", "--v=1", "--virtual-time-budget=3000",
                            "--dump-dom", url)
    bad = [line for line in err.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
    return rc, out, bad


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.svgs, self.in_tbody = [], [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tbody":
            self.in_tbody = True
        elif tag == "tr" and self.in_tbody:
            self.rows.append(a.get("data-device"))
        elif tag == "svg":
            self.svgs.append(a.get("class"))

    def handle_endtag(self, tag):
        if tag == "tbody":
            self.in_tbody = False


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), f"PNG depth {depth} type {ctype}"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def not_blank(path):
    w, h, bpp, rows = png_pixels(path)
    colours, ink = set(), 0
    for y in range(0, h, 3):
        r = rows[y]
        for x in range(0, w, 3):
            px = r[x * bpp:x * bpp + 3]
            colours.add(px)
            ink += px != b"\xff\xff\xff"
    samples = ((h + 2) // 3) * ((w + 2) // 3)
    return len(colours), ink / samples


tmp = tempfile.mkdtemp()
page = os.path.join(tmp, "page")
p = subprocess.run([FLOPFIT, "results", "data", "--html", page], cwd=HERE, capture_output=True,
                   text=True, timeout=120)
check(p.returncode == 1 and "v2.json" in p.stderr, f"flopfit results --html: {p.returncode} {p.stderr}")
index = os.path.join(page, "index.html")
with open(index) as f:
    text = f.read()
check("http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text,
      "the page refers to the network")
check("<script src" not in text and "<link rel=\"stylesheet\"" not in text and "@font-face" not in text,
      "the page loads an external script, style or font")

# The detector must see a console error when there is one.
probe = os.path.join(tmp, "probe.html")
with open(probe, "w") as f:
    f.write("<!DOCTYPE html><html><head><link rel=\"icon\" href=\"data:,\"></head><body>"
            "<script>console.error('probe-error'); notDefined();</script></body></html>")
rc, out, bad = console_errors("file://" + probe)
check(any("probe-error" in b for b in bad) and any("notDefined" in b for b in bad),
      f"console detector missed a deliberate error or exception: {bad}")

rc, dom, bad = console_errors("file://" + index)
check(rc == 0, f"chromium --dump-dom exit {rc}")
check(not bad, "console errors: " + " | ".join(bad))
parser = Dom()
parser.feed(dom)
devices = 3
check(len(parser.rows) == devices and all(parser.rows), f"table rows: {parser.rows}")
check(parser.svgs.count("roofline") == devices, f"rooflines: {parser.svgs}")
check(parser.svgs.count("bars") >= 3, f"bar charts: {parser.svgs}")
check(all(os.path.isfile(os.path.join(page, f"roofline-{s}.svg")) for s in parser.rows),
      "a roofline .svg is missing beside the page")

shots = os.path.join(os.getcwd(), "results-screenshots")
os.makedirs(shots, exist_ok=True)
for name, url, size in [("page-top", "file://" + index, "1400,1500"),
                        ("page-full", "file://" + index, "1400,5200"),
                        ("roofline-h200", "file://" + os.path.join(page, "roofline-vulkan-nvidia-h200.svg"),
                         "840,470")]:
    shot = os.path.join(shots, name + ".png")
    if os.path.exists(shot):
        os.remove(shot)
    rc, out, err = chromium(f"--screenshot={shot}", f"--window-size={size}", url)
    check(rc == 0 and os.path.isfile(shot), f"screenshot {name}: exit {rc}")
    if os.path.isfile(shot):
        n_colours, ink = not_blank(shot)
        check(n_colours >= 8 and ink > 0.02, f"screenshot {name} looks blank: {n_colours} colours, "
              f"{ink:.1%} non-white")
        print(f"{shot}: {n_colours} colours, {ink:.1%} non-white")

# Hostile profile text: markup in every device field must reach the page as text. A script
# from data would retitle the page; an <img> from data would log its failed load.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402

PWN = ["<img src=x onerror=document.title='pwned'>",
       "<script>document.title='pwned'</script>",
       "\"><svg onload=document.title='pwned'>",
       "</title><script>document.title='pwned'</script>",
       "]]><script>document.title='pwned'</script>"]
hostile_dir = os.path.join(tmp, "hostile")
for i, s in enumerate(PWN):
    hostile.write_named(hostile_dir, os.path.join(HERE, "data", "pocl.json"), f"pwn-{i}.json",
                        {"name": f"{s} #{i}", "vendor": PWN[(i + 1) % len(PWN)],
                         "driver_version": PWN[(i + 2) % len(PWN)],
                         "backend": PWN[(i + 3) % len(PWN)], "platform": PWN[(i + 4) % len(PWN)]})
p = subprocess.run([FLOPFIT, "results", hostile_dir, "--format", "html"], capture_output=True,
                   timeout=120)
check(p.returncode == 0, f"flopfit results --format html (hostile): {p.returncode} {p.stderr}")
hostile_page = os.path.join(tmp, "hostile.html")
with open(hostile_page, "wb") as f:
    f.write(p.stdout)


class Shown(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.titles, self.text, self.tags, self.in_title = [], [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.in_title = tag == "title"
        if self.in_title:
            self.titles.append("")

    def handle_endtag(self, tag):
        self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.titles[-1] += data
        self.text.append(data)


rc, dom, bad = console_errors("file://" + hostile_page)
check(rc == 0, f"chromium --dump-dom (hostile) exit {rc}")
check(not bad, "hostile page: console messages (a script or a load from data?): " + " | ".join(bad))
shown = Shown()
shown.feed(dom)
check(shown.titles[:1] == ["flopfit results"], f"hostile page: document title {shown.titles[:1]}")
check("img" not in shown.tags and shown.tags.count("script") == 1,
      f"hostile page: elements from data: {shown.tags.count('img')} img, "
      f"{shown.tags.count('script')} script")
body = "".join(shown.text)
for i, s in enumerate(PWN):
    check(f"{s} #{i}" in body, f"hostile page: device {s!r} not rendered as text")

shutil.rmtree(tmp)
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
