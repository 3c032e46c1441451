#!/usr/bin/env python3
"""tests/results/test_html.py — the results page in a real headless Chromium (Debian's).

usage: test_html.py FLOPFIT TESTS_RESULTS_DIR

Writes the page for data/ with `flopfit results --html`, then in Chromium: the page logs no
console error (a page with a deliberate error proves the detector sees one), the DOM holds one
table row and one roofline per device and the bar charts. No absolute path reaches the page:
--html over a folder named by its absolute path and --publish name the profiles relative to the
folder and link them relative to the page (each link resolves), and --publish --check passes
by another name for the folder; a page outside a home folder does not link down into it.

Then one Chromium driven over the DevTools protocol on --remote-debugging-pipe (stdlib only:
NUL-separated JSON on fds 3 and 4; every wait is for a state, with a generous limit, never a
time): no console message or exception; at 1400 px the default columns fit and the key columns
show; the op tests' <details> opens on a click on its summary and on the device's link, its
rows show, an unsupported op says so with the reason as its title; unticking a column group (a
real mouse click) hides its cells and ticking one shows them; each filter (vendor, backend, precision, run kind) shows exactly the rows that match; a header
click sorts A-Z with aria-sort and a ▲, a second click reverses with a ▼; the footer names the
schema version and the newest profile's date; screenshots at 1400 and 390 px, light and
prefers-color-scheme dark, are not blank (PNG decoded with zlib) and have the ground each
scheme asks for. A device name holding <script>, quotes and & shows as that text and runs
nothing. A page of profiles whose device fields hold markup (<script>, <img onerror>, attribute
and CDATA breakouts) runs none of it: the title stays, the console stays quiet, the markup shows
as text. The screenshots stay in results-screenshots/ of the build folder for a person to look
at. Chromium missing: skip (77), but with CI=true a failure.
"""
import base64
import html.parser
import json
import os
import select
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
        self.rows, self.svgs, self.in_tbody, self.in_results = [], [], False, False
        self.ops = []  # the ids of the op tests' <details>

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.in_results = a.get("id") == "results"
        elif tag == "details":
            self.ops.append(a.get("id"))
        elif tag == "tbody" and self.in_results:
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
    """(distinct colours, share of pixels off the most common colour, the ground), sampled."""
    w, h, bpp, rows = png_pixels(path)
    counts = {}
    for y in range(0, h, 3):
        r = rows[y]
        for x in range(0, w, 3):
            px = r[x * bpp:x * bpp + 3]
            counts[px] = counts.get(px, 0) + 1
    ground = max(counts, key=counts.get)
    return len(counts), 1 - counts[ground] / sum(counts.values())


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
devices = 4
check(len(parser.rows) == devices and all(parser.rows), f"table rows: {parser.rows}")
check(len(parser.ops) == 1 and parser.ops[0][len("ops-"):] in parser.rows,
      f"op tests: one <details> for the one device with op tests: {parser.ops}")
check(parser.svgs.count("roofline") == devices, f"rooflines: {parser.svgs}")
check(parser.svgs.count("bars") >= 3, f"bar charts: {parser.svgs}")
check(all(os.path.isfile(os.path.join(page, f"roofline-{s}.svg")) for s in parser.rows),
      "a roofline .svg is missing beside the page")

shots = os.path.join(os.getcwd(), "results-screenshots")
os.makedirs(shots, exist_ok=True)

# No absolute path on the page: --html over a folder named by its absolute path, and
# --publish; the profiles are named relative to the folder and linked relative to the page.
data_abs = os.path.join(tmp, "profiles")
shutil.copytree(os.path.join(HERE, "data"), data_abs)
out_abs = os.path.join(tmp, "out")


def links(path):
    class A(html.parser.HTMLParser):
        hrefs = []

        def handle_starttag(self, tag, attrs):
            if tag == "a" and not dict(attrs).get("href", "#").startswith("#"):
                self.hrefs.append(dict(attrs)["href"])
    a = A()
    with open(path) as f:
        a.feed(f.read())
    return [h for h in a.hrefs if not h.endswith(".svg")]


def no_absolute(folder, what, *secrets):
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            body = f.read()
        for s in secrets:
            check(s not in body, f"{what}: {name} holds {s}")


p = subprocess.run([FLOPFIT, "results", data_abs, "--html", out_abs], capture_output=True,
                   text=True, timeout=120)
check(p.returncode == 1, f"--html over an absolute folder: {p.returncode} {p.stderr}")
no_absolute(out_abs, "--html", tmp)
hrefs = links(os.path.join(out_abs, "index.html"))
check(len(hrefs) == 5 and all(os.path.isfile(os.path.normpath(os.path.join(out_abs, h)))
                              for h in hrefs), f"--html: profile links {hrefs}")
check(all(not h.startswith("/") for h in hrefs), f"--html: absolute links {hrefs}")

pub = os.path.join(tmp, "pub")
os.makedirs(os.path.join(pub, "amd", "epyc"))
shutil.copy(os.path.join(HERE, "data", "pocl.json"), os.path.join(pub, "amd", "epyc"))
shutil.copy(os.path.join(HERE, "data", "lavapipe.json"), pub)
p = subprocess.run([FLOPFIT, "results", "--publish", pub], capture_output=True, text=True,
                   timeout=120)
check(p.returncode == 0, f"--publish: {p.returncode} {p.stderr}")
no_absolute(os.path.join(pub, "page"), "--publish", tmp)
hrefs = links(os.path.join(pub, "page", "index.html"))
check(sorted(hrefs) == ["../amd/epyc/pocl.json", "../lavapipe.json"], f"--publish: links {hrefs}")
# byte for byte whatever the folder is called: --check by a relative name from elsewhere
p = subprocess.run([FLOPFIT, "results", "--publish", "pub", "--check"], cwd=tmp,
                   capture_output=True, text=True, timeout=120)
check(p.returncode == 0, f"--publish --check by another name: {p.returncode} {p.stderr}")

# a home folder the page lies outside of: the profiles are named, not linked through it
home = os.path.join(tmp, "ff-user-3141")
shutil.copytree(os.path.join(HERE, "data"), os.path.join(home, "runs"))
p = subprocess.run([FLOPFIT, "results", os.path.join(home, "runs"), "--html", out_abs],
                   capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": home})
no_absolute(out_abs, "--html from a home folder", "ff-user-3141")
check(links(os.path.join(out_abs, "index.html")) == [], "a link down into the home folder")

# a device name with <script>, quotes and &, for the DevTools checks below
QUOTED = "<script>document.title='pwned'</script> \"A&B\" 'c' &amp; x"
QUOTED_VENDOR = "Q&\"<V>"
quoted_dir = os.path.join(tmp, "quoted")
# Hostile profile text: markup in every device field must reach the page as text. A script
# from data would retitle the page; an <img> from data would log its failed load.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402

PWN = ["<img src=x onerror=document.title='pwned'>",
       "<script>document.title='pwned'</script>",
       "\"><svg onload=document.title='pwned'>",
       "</title><script>document.title='pwned'</script>",
       "]]><script>document.title='pwned'</script>"]
hostile.write_named(quoted_dir, os.path.join(HERE, "data", "pocl.json"), "quoted.json",
                    {"name": QUOTED, "vendor": QUOTED_VENDOR})
p = subprocess.run([FLOPFIT, "results", quoted_dir, "--html", os.path.join(tmp, "quoted-page")],
                   capture_output=True, text=True, timeout=120)
check(p.returncode == 0, f"--html (quoted): {p.returncode} {p.stderr}")
quoted_page = os.path.join(tmp, "quoted-page", "index.html")
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


# ---- the page driven over the DevTools protocol (--remote-debugging-pipe, stdlib only) ----
#
# One browser, commands as NUL-terminated JSON on its fd 3, answers and events on its fd 4:
# no port, no websocket, no third-party module. Every wait is for a state (an answer, the
# document loaded), with a generous limit; nothing is timed.

class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp()
        cmd_r, self.cmd_w = os.pipe()
        self.ev_r, ev_w = os.pipe()

        def fds():  # in the child: the pipes on fds 3 and 4, inheritable
            a, b = os.dup(cmd_r), os.dup(ev_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.p = subprocess.Popen([browser, *FLAGS, f"--user-data-dir={self.profile}",
                                   "--remote-debugging-pipe", "about:blank"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env=BROWSER_ENV, close_fds=False,
                                  preexec_fn=fds)
        os.close(cmd_r)
        os.close(ev_w)
        self.buf, self.next_id, self.events, self.session = b"", 0, [], None
        targets = self.call("Target.getTargets")["targetInfos"]
        page_target = next(t["targetId"] for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page_target,
                                 flatten=True, browser_level=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")

    def _read(self, limit):
        while b"\0" not in self.buf:
            ready, _, _ = select.select([self.ev_r], [], [], limit)
            if not ready:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.ev_r, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, limit=120, browser_level=False, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if self.session and not browser_level:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read(limit)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def js(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr[:60]}...: {r['exceptionDetails']}")
        return r["result"].get("value")

    def open(self, url, width, height, dark=False):
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        self.call("Emulation.setEmulatedMedia", features=[
            {"name": "prefers-color-scheme", "value": "dark" if dark else "light"}])
        self.events.clear()
        self.call("Page.navigate", url=url)
        for _ in range(600):  # the document loaded: a state, not a time
            if self.js("document.readyState === 'complete' && location.href") == url:
                return
            select.select([], [], [], 0.2)
        raise TimeoutError(f"{url} did not load")

    def console(self):
        """Console messages, exceptions and log errors since the last open()."""
        self.js("0")  # every event the page raised so far has arrived before this answer
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled":
                out.append(f"console.{p.get('type')}: " +
                           " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
            elif e["method"] == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + str(d.get("exception", {}).get("description", d.get("text"))))
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(f"log {p['entry'].get('source')}: {p['entry'].get('text')}")
        return out

    def click(self, selector):
        """A real mouse click at the middle of the element (scrolled into view)."""
        box = self.js(f"(function () {{ var e = document.querySelector({json.dumps(selector)});"
                      "e.scrollIntoView({block: 'center', inline: 'center'});"
                      "var r = e.getBoundingClientRect();"
                      "return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left",
                      clickCount=1)

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close", limit=30, browser_level=True)
        except (TimeoutError, EOFError, RuntimeError, OSError):
            pass
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        os.close(self.cmd_w)
        os.close(self.ev_r)
        shutil.rmtree(self.profile, ignore_errors=True)


def visible_rows(b):
    return b.js("Array.prototype.filter.call(document.querySelectorAll('#results tbody tr'),"
                "function (r) { return r.offsetParent !== null; })"
                ".map(function (r) { return r.getAttribute('data-device'); })")


def column_shown(b, col):
    return b.js(f"getComputedStyle(document.querySelector('#results th[data-col={col}]'))"
                ".display !== 'none'")


def first_cells(b, col):
    return b.js(f"(function () {{ var i = Array.prototype.indexOf.call("
                f"document.querySelector('#results thead tr').cells,"
                f"document.querySelector('#results th[data-col={col}]'));"
                "return Array.prototype.map.call(document.querySelectorAll('#results tbody tr'),"
                "function (r) { return r.cells[i].textContent; }); })()")


def shot_check(b, name, dark):
    shot = os.path.join(shots, name + ".png")
    if os.path.exists(shot):
        os.remove(shot)
    b.screenshot(shot)
    n_colours, ink = not_blank(shot)
    w, h, bpp, rows = png_pixels(shot)
    ground = rows[2][6:9]  # the page's ground, top left, inside the margin
    if name.startswith("roofline"):
        dark = False  # a chart keeps its white ground
    check(n_colours >= 8 and ink > 0.02,
          f"screenshot {name} looks blank: {n_colours} colours, {ink:.1%} off the ground")
    check((sum(ground) < 3 * 80) == dark, f"screenshot {name}: ground {tuple(ground)}, dark={dark}")
    print(f"{shot}: {w}x{h}, {n_colours} colours, {ink:.1%} off the ground")


b = Browser()
try:
    # the detector sees an error when there is one
    b.open("file://" + probe, 800, 600)
    seen = b.console()
    check(any("probe-error" in s for s in seen) and any("notDefined" in s for s in seen),
          f"DevTools console detector missed a deliberate error or exception: {seen}")

    url = "file://" + index
    b.open(url, 1400, 1000)
    check(not b.console(), f"console (DevTools): {b.console()}")
    check(b.js("!document.getElementById('controls').hidden"), "the controls stay hidden")
    rows = visible_rows(b)
    check(sorted(rows) == sorted(parser.rows), f"rows shown at first: {rows}")
    check(b.js("document.getElementById('shown').textContent") == f"{devices} of {devices} rows shown",
          "the count of rows shown")
    # 1400 px: the default columns fit, the key columns show
    fit = b.js("(function () { var s = document.querySelector('.scroll');"
               "return [s.scrollWidth, s.clientWidth, document.documentElement.scrollWidth]; })()")
    check(fit[0] <= fit[1] and fit[2] <= 1400, f"the table does not fit 1400 px: {fit}")
    for col in ("device", "vendor", "backend", "driver", "run", "flopfit"):
        check(column_shown(b, col), f"key column {col} hidden")
    shot_check(b, "page-1400", False)

    # a column group off and another on, by mouse
    check(column_shown(b, "fp16") and not column_shown(b, "upload"), "default column groups")
    b.click("input[data-group=fp16]")
    b.click("input[data-group=transfer]")
    check(not column_shown(b, "fp16"), "unticking fp16 matmul left its column")
    check(column_shown(b, "upload") and column_shown(b, "download"),
          "ticking transfer did not show its columns")
    check(b.js("document.querySelectorAll('#results td.g-fp16').length > 0 && "
               "Array.prototype.every.call(document.querySelectorAll('#results td.g-fp16'),"
               "function (c) { return c.offsetParent === null; })"), "fp16 cells still shown")

    # filters: backend, vendor, precision, run kind
    def choose(key, value):
        b.js(f"(function () {{ var s = document.querySelector('select[data-filter={key}]');"
             f"s.value = {json.dumps(value)};"
             "s.dispatchEvent(new Event('change', {bubbles: true})); })()")

    def options(key):
        return b.js(f"Array.prototype.map.call(document.querySelectorAll("
                    f"'select[data-filter={key}] option'), function (o) {{ return o.value; }})")

    slugs = b.js("Array.prototype.map.call(document.querySelectorAll('#results tbody tr'),"
                 "function (r) { return r.getAttribute('data-device'); })")
    narrowed = False
    for key in ("vendor", "backend"):  # each value shows exactly the rows whose cell reads it
        texts = first_cells(b, key)
        values = options(key)
        check(values[0] == "" and sorted(set(texts)) == values[1:],
              f"{key} filter options {values} for cells {texts}")
        for v in values[1:]:
            choose(key, v)
            rows = visible_rows(b)
            want = [s for s, x in zip(slugs, texts) if x == v]
            check(rows == want, f"{key} {v!r} shows {rows}, expected {want}")
            check(b.js("document.getElementById('shown').textContent") ==
                  f"{len(want)} of {devices} rows shown", f"the count with {key} {v!r}")
            narrowed = narrowed or 0 < len(rows) < devices
        choose(key, "")
    check(narrowed, "no filter value narrowed the rows")
    kinds = options("kind")
    check(kinds[0] == "" and len(kinds) >= 2, f"run kind options {kinds}")
    choose("kind", kinds[1])
    rows = visible_rows(b)
    want = b.js(f"Array.prototype.filter.call(document.querySelectorAll('#results tbody tr'),"
                f"function (r) {{ return r.getAttribute('data-kind') === {json.dumps(kinds[1])}; }})"
                ".length")
    check(len(rows) == want and want >= 1, f"run kind {kinds[1]} shows {rows}")
    choose("kind", "")
    choose("prec", "int8")
    rows = visible_rows(b)
    want = b.js("Array.prototype.filter.call(document.querySelectorAll('#results tbody tr'),"
                "function (r) { return r.getAttribute('data-prec').split(' ').indexOf('int8') >= 0; })"
                ".length")
    check(len(rows) == want, f"precision int8 shows {rows}, {want} measured it")
    choose("prec", "")
    check(len(visible_rows(b)) == devices, "every row back with every filter at 'all'")

    # sorting by a header click: aria-sort, a visible marker, the rows in order
    b.click("#results th[data-col=device] button")
    names = first_cells(b, "device")
    check(names == sorted(names, key=str.casefold),
          f"device A-Z after one click: {names}")
    check(b.js("document.querySelector('#results th[data-col=device]').getAttribute('aria-sort')")
          == "ascending", "aria-sort after one click")
    check(b.js("document.querySelector('#results th[data-col=device] .mark').textContent") == "\u25b2",
          "no ▲ on the sorted header")
    b.click("#results th[data-col=device] button")
    check(first_cells(b, "device") == names[::-1], "a second click did not reverse")
    check(b.js("document.querySelector('#results th[data-col=device] .mark').textContent") == "\u25bc",
          "no ▼ after the second click")
    check(b.js("document.querySelectorAll('#results th[aria-sort]').length") == 1,
          "more than one header marked sorted")
    check(not b.console(), f"console after the interactions: {b.console()}")
    b.js("window.scrollTo(0, 0)")
    shot_check(b, "page-1400-sorted", False)

    # op tests: a closed <details> under the table; a click on its summary opens it and shows
    # one row per op test, an unsupported one says so with its reason as the title, never 0;
    # the device cell's link opens it too
    with open(os.path.join(HERE, "data", "pocl-ops.json")) as f:
        n_ops = sum(t["family"] == "op" for t in json.load(f)["tests"])
    # an attribute selector: a slug may hold '.', which "#id" would read as a class
    ops = f'details[id="{parser.ops[0] if parser.ops else "none"}"]'

    def ops_state():
        return b.js(f"(function () {{ var d = document.querySelector({json.dumps(ops)});"
                    "var rows = d.querySelectorAll('tbody tr');"
                    "return [d.open, Array.prototype.filter.call(rows, function (r) {"
                    # a closed <details> hides its content by content-visibility, which
                    # offsetParent does not see
                    "return r.checkVisibility() && r.getClientRects().length > 0; }).length,"
                    "rows.length]; })()")

    def wait_for(cond, what, tries=400):
        for _ in range(tries):  # a state, polled; the limit only bounds a failure
            if cond():
                return True
            b.js("new Promise(function (r) { requestAnimationFrame(function () { r(0); }); })")
        check(False, what)
        return False

    check(ops_state() == [False, 0, n_ops], f"op tests: not closed at first: {ops_state()}")
    b.click(ops + " summary")
    wait_for(lambda: ops_state() == [True, n_ops, n_ops],
             f"op tests: a click on the summary did not show the rows: {ops_state()}")
    cells = b.js(f"Array.prototype.map.call(document.querySelectorAll({json.dumps(ops + ' td')}),"
                 "function (c) { return [c.textContent, c.getAttribute('title') || '']; })")
    texts = [c[0] for c in cells]
    check("1×4096×4096" in texts and "115%" in texts and "32×4096×128, g=4" in texts,
          f"op tests: the q4_0 gemv and attn_decode rows: {texts}")
    unsup = [c for c in cells if c[0] == "unsupported"]
    check(len(unsup) == 1 and "cl_khr_fp16" in unsup[0][1], f"op tests: unsupported cell {unsup}")
    check(not any(t.strip() in ("0", "0%", "0 B/s") for t in texts), "op tests: a 0 shown")
    shot_check(b, "page-1400-ops", False)
    b.click(ops + " summary")
    wait_for(lambda: ops_state()[0] is False, "op tests: a second click did not close them")
    b.click("#results a.oplink")
    wait_for(lambda: ops_state()[:2] == [True, n_ops],
             f"op tests: the device cell's link did not open them: {ops_state()}")
    check(not b.console(), f"console after the op tests: {b.console()}")

    # the footer: schema version and the newest profile's date
    # the footer: the schema versions and the newest "created" of the profiles read
    read = []
    for f in sorted(os.listdir(os.path.join(HERE, "data"))):
        try:
            with open(os.path.join(HERE, "data", f)) as fh:
                doc = json.load(fh)
        except ValueError:
            continue
        if str(doc.get("schema_version", "")).startswith("1."):
            read.append(doc)
    foot = b.js("document.querySelector('footer').textContent")
    newest = max(d["created"] for d in read)
    check(all(d["schema_version"] in foot for d in read) and newest in foot,
          f"footer: {foot!r}, newest {newest}")

    b.open(url, 390, 900)
    check(not b.console(), f"console at 390 px: {b.console()}")
    check(b.js("document.documentElement.scrollWidth") <= 390 + 1,
          "at 390 px the page itself scrolls sideways (the table should, inside its frame)")
    shot_check(b, "page-390", False)
    b.open(url, 1400, 1000, dark=True)
    check(b.js("getComputedStyle(document.body).backgroundColor") != "rgb(255, 255, 255)",
          "prefers-color-scheme: dark left the page white")
    shot_check(b, "page-1400-dark", True)
    b.open(url, 390, 900, dark=True)
    shot_check(b, "page-390-dark", True)

    b.open("file://" + os.path.join(page, "roofline-vulkan-nvidia-h200.svg"), 840, 470)
    check(not b.console(), f"console (roofline .svg): {b.console()}")
    shot_check(b, "roofline-h200", False)

    # a device name with <script>, quotes and &: text on the page, no script run
    b.open("file://" + quoted_page, 1400, 1000)
    check(not b.console(), f"quoted page: console {b.console()}")
    check(b.js("document.title") == "flopfit results" and b.js("document.scripts.length") == 1,
          "quoted page: a script from data ran or was added")
    cell = b.js("(function () { var c = document.querySelector('#results tbody td');"
                "return [c.textContent, c.offsetWidth > 0 && c.offsetHeight > 0]; })()")
    check(cell[0].startswith(QUOTED) and cell[1], f"quoted page: the device cell shows {cell}")
    check(b.js(f"document.querySelector('select[data-filter=vendor]').textContent.indexOf("
               f"{json.dumps(QUOTED_VENDOR)}) >= 0"), "quoted page: the vendor filter lost its text")
finally:
    b.close()

shutil.rmtree(tmp)
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
