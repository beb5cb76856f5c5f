"""`forcetrace report --html` loaded in Debian's chromium, headless, without a network.

Checks: no console messages at all (the page logs nothing, so any message is an
error, a blocked fetch or a CSP violation), a screenshot that is not blank, a
DOM after scripts (--dump-dom) that matches the report's own JSON, and SVG that
an XML parser accepts. `make test-browser` installs chromium and runs this.
"""
import html.parser
import json
import os
import pathlib
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "recordings"
SAMPLES = sorted((ROOT / "samples").glob("*.evemu"))
CONTACT_ROWS = 7


@pytest.fixture(scope="session")
def forcetrace():
    path = pathlib.Path(os.environ.get("FORCETRACE", ROOT / ".build" / "debug" / "forcetrace"))
    if not path.exists():
        pytest.fail(f"{path} does not exist: run 'make test-browser' (it builds first)")
    return str(path)


@pytest.fixture(scope="session")
def chromium():
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("FORCETRACE_REQUIRE_BROWSER"):
            pytest.fail("chromium is not installed; make test-browser installs it with apt")
        pytest.skip("chromium is not installed (make test-browser installs it)")
    return path


def run(forcetrace, *args):
    result = subprocess.run([forcetrace, *map(str, args)], capture_output=True, text=True)
    assert result.returncode == 0, f"forcetrace {' '.join(map(str, args))}: {result.stderr}"
    return result.stdout


def offline(command):
    """Runs `command` in a new network namespace (no interfaces) where it can; the flags block fetches too."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n", *command]
    return command


def load(chromium, page, tmp_path, *extra):
    """Loads `page` headless and offline; returns (stdout, console lines)."""
    command = offline([
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
        "--enable-logging=stderr", "--v=0", "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9", f"--user-data-dir={tmp_path / 'profile'}", *extra, page.as_uri(),
    ])
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    # Chromium's own pages (chrome://) log too; only the page's messages count.
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line and "source: chrome://" not in line]
    return result.stdout, console


class Elements(html.parser.HTMLParser):
    """Every element of a DOM dump with its attributes and its enclosing section, svg and table."""

    VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "source", "wbr"}

    def __init__(self):
        super().__init__()
        self.stack = []
        self.elements = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        context = {key: value for frame in self.stack for key, value in frame[1].items()}
        if tag == "section":
            context = {**context, "section": attributes.get("data-section"), "name": attributes.get("data-name")}
        if tag == "svg" and "data-chart" in attributes:
            context = {**context, "chart": attributes["data-chart"]}
        if tag == "table":
            context = {**context, "table": attributes.get("class", "")}
        if tag == "tbody":
            context = {**context, "tbody": True}
        self.elements.append((tag, attributes, context))
        if tag not in self.VOID:
            self.stack.append((tag, context))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                return


def sections(dom):
    parser = Elements()
    parser.feed(dom)
    by_section = {}
    for tag, attributes, context in parser.elements:
        key = (context.get("section"), context.get("name"))
        by_section.setdefault(key, []).append((tag, attributes, context))
    return by_section


def check_section(elements, summary, contacts):
    bars = [a for t, a, c in elements if t == "rect" and "bar" in a.get("class", "").split() and c.get("chart") == "peak-histogram"]
    counts = summary["histograms"]["peak_norm"]["counts"]
    assert len(bars) == sum(1 for count in counts if count > 0), "one bar per non-empty bin"
    assert sorted(int(a["data-count"]) for a in bars) == sorted(count for count in counts if count > 0)
    present = {name for name, count in summary["classes"].items() if count > 0}
    for chart in ("curves", "aligned-curves"):
        means = [a["data-class"] for t, a, c in elements if t == "path" and "mean" in a.get("class", "").split() and c.get("chart") == chart]
        assert sorted(means) == sorted(present), f"{chart}: one mean path per class present"
    if contacts is not None:
        rows = [a for t, a, c in elements if t == "tr" and c.get("tbody") and "contacts" in c.get("table", "")]
        assert len(rows) == min(CONTACT_ROWS, len(contacts))
    quality = [a for t, a, c in elements if a.get("data-panel") == "data-quality"]
    assert len(quality) == 1


def outer_svgs(text):
    """Each outermost <svg>...</svg> of the page (an svg may hold svgs)."""
    svgs, depth, start = [], 0, 0
    for tag in re.finditer(r"<svg\b|</svg>", text):
        if tag.group() == "<svg":
            depth, start = depth + 1, start if depth else tag.start()
        else:
            depth -= 1
            if depth == 0:
                svgs.append(text[start:tag.end()])
    assert depth == 0, "unbalanced svg tags"
    return svgs


def check_svg_parses(page):
    svgs = outer_svgs(page.read_text())
    assert svgs
    for svg in svgs:
        ET.fromstring(svg)   # raises on anything an XML parser refuses


def check_screenshot(path):
    import matplotlib.image
    pixels = matplotlib.image.imread(str(path))[..., :3]
    assert pixels.shape[0] > 500 and pixels.shape[1] > 500
    background = pixels[0, 0]
    differs = np.abs(pixels - background).sum(axis=2) > 0.1
    assert differs.mean() > 0.02, "the screenshot is (nearly) blank"
    assert len(np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0)) > 50, "too few colours: nothing drawn"


def check_report(forcetrace, chromium, tmp_path, inputs):
    page = tmp_path / "report.html"
    run(forcetrace, "report", *inputs, "--html", page, "--contacts", CONTACT_ROWS, "--force")
    report = json.loads(run(forcetrace, "report", *inputs, "--json"))
    shot = tmp_path / "shot.png"
    # One load gives both the DOM after scripts and the screenshot.
    dom, console = load(chromium, page, tmp_path, "--dump-dom", f"--screenshot={shot}", "--window-size=1280,2400")
    assert console == [], "console messages:\n" + "\n".join(console)
    by_section = sections(dom)
    for recording in report["recordings"]:
        check_section(by_section[("recording", recording["name"])], recording["summary"], recording["contacts"])
    if len(report["recordings"]) > 1:
        check_section(by_section[("total", None)], report["total"], None)
    else:
        assert ("total", None) not in by_section
    check_svg_parses(page)
    check_screenshot(shot)
    return report, dom


def test_console_messages_are_seen(chromium, tmp_path):
    """The negative control: an error, a blocked fetch and an exception all reach the scan."""
    page = tmp_path / "bad.html"
    page.write_text('<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src \'none\'; script-src \'unsafe-inline\'">'
                    '<img src="http://example.com/x.png"><script>console.error("deliberate"); missingFunction();</script>')
    _, console = load(chromium, page, tmp_path, "--dump-dom")
    text = "\n".join(console)
    assert "deliberate" in text and "missingFunction" in text and "example.com" in text


def test_samples_in_one_file(forcetrace, chromium, tmp_path):
    trace = tmp_path / "samples.h5"
    run(forcetrace, "import", *SAMPLES, "-o", trace)
    report, dom = check_report(forcetrace, chromium, tmp_path, [trace])
    assert len(report["recordings"]) == 2
    assert "confusion" in dom, "the samples have labels: the confusion heat table is drawn"


def test_several_files(forcetrace, chromium, tmp_path):
    traces = []
    for sample in SAMPLES:
        traces.append(tmp_path / (sample.stem + ".h5"))
        run(forcetrace, "import", sample, "-o", traces[-1])
    report, _ = check_report(forcetrace, chromium, tmp_path, traces)
    assert len(report["files"]) == len(SAMPLES)


def shared_recordings():
    return sorted(path for path in SHARED.iterdir() if not path.name.startswith("LICENSE")) if SHARED.exists() else []


@pytest.mark.parametrize("recording", shared_recordings() or [None], ids=lambda path: path.name if path else "absent")
def test_shared_recording(forcetrace, chromium, tmp_path, recording):
    if recording is None:
        pytest.skip(f"{SHARED} is absent")
    trace = tmp_path / "shared.h5"
    run(forcetrace, "import", recording, "-o", trace)
    report, dom = check_report(forcetrace, chromium, tmp_path, [trace])
    if any(r["summary"]["data_quality"]["shared_pressure"] for r in report["recordings"]):
        assert "SHARED PRESSURE" in dom


# Hostile text through every string of the input that reaches the page.
# Each payload would change document.title (or add an element) if it ran.
PAYLOADS = [
    '<script>document.title="p1"</script>',
    '"><img src=x onerror=document.title="p2">',
    "'><svg onload=document.title='p3'>",
    '</script><script>document.title="p4"</script>',
    '<style>body{display:none}</style>',
    'javascript:document.title="p5"',
    '&amp;&lt;&#39;&quot;&#x3c;',
    ']]><![CDATA[<x>',
    '`${document.title="p6"}`',
    '\u2028\u2029\u202e',
    ''.join(map(chr, range(1, 32))) + '\x7f\x85',
]
HOSTILE = ' '.join(PAYLOADS)
# A file name holds no '/'; one component at most 255 bytes.
HOSTILE_NAME = ''.join(PAYLOADS[:3] + PAYLOADS[5:]).replace('/', '')
TITLE = "forcetrace report"


def in_dom(text):
    """`text` as the DOM holds it: HTML's input stream turns CR and CR LF into LF (and no NUL reaches it)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def yaml_quoted(text):
    """A YAML double-quoted scalar holding `text` exactly."""
    out = []
    for character in text:
        if character in '"\\':
            out.append("\\" + character)
        elif ord(character) < 0x20 or 0x7f <= ord(character) <= 0x9f or character in "\u2028\u2029\u202e":
            out.append(f"\\u{ord(character):04x}")
        else:
            out.append(character)
    return '"' + "".join(out) + '"'


class Page(html.parser.HTMLParser):
    """The parts of a DOM dump that carry input text, and what scripts left behind."""

    def __init__(self):
        super().__init__()
        self.title, self.meta, self.sections, self.tags = "", "", [], []
        self.headers = []   # attributes of the sortable tables' header cells
        self.capture, self.text = None, []
        self.last_dt, self.in_sortable_head = None, False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "section":
            self.sections.append({"section": attributes.get("data-section"), "name": attributes.get("data-name"),
                                  "h2": None, "device": None, "warnings": []})
        if tag == "table" and "sortable" in attributes.get("class", "").split():
            self.in_sortable_head = True
        if tag == "th" and self.in_sortable_head:
            self.headers.append(attributes)
        if tag in ("title", "h2", "dt", "dd") or (tag == "p" and attributes.get("class") in ("meta", "warning")):
            self.capture, self.text = (tag, attributes.get("class")), []

    def handle_endtag(self, tag):
        if tag == "thead":
            self.in_sortable_head = False
        if self.capture is None or self.capture[0] != tag:
            return
        text = "".join(self.text)
        kind = self.capture
        self.capture = None
        if kind[0] == "title":
            self.title = text
        elif kind == ("p", "meta"):
            self.meta = text
        elif kind == ("p", "warning"):
            self.sections[-1]["warnings"].append(text)
        elif kind[0] == "h2":
            self.sections[-1]["h2"] = text
        elif kind[0] == "dt":
            self.last_dt = text
        elif kind[0] == "dd" and self.last_dt == "Device":
            self.sections[-1]["device"] = text

    def handle_data(self, data):
        if self.capture is not None:
            self.text.append(data)


def check_hostile_page(chromium, tmp_path, page, report):
    """Nothing ran or was logged, every input string shows as it is, and the page's own script ran."""
    dom, console = load(chromium, page, tmp_path, "--dump-dom")
    assert console == [], "console messages:\n" + "\n".join(console)
    parsed = Page()
    parsed.feed(dom)
    assert parsed.title == TITLE, "a payload ran"
    tags = [tag for tag, _ in parsed.tags]
    assert tags.count("script") == 1 and tags.count("style") == 1 and "img" not in tags
    for tag, attributes in parsed.tags:
        assert not any(name.startswith("on") or name in ("href", "src", "style") for name in attributes), (tag, attributes)
    # The script's only work is the contact table (a merged report has none).
    assert bool(parsed.headers) == any(recording["contacts"] for recording in report["recordings"])
    assert all(h.get("tabindex") == "0" and h.get("aria-sort") == "none" for h in parsed.headers), "the page's own script did not run"
    assert parsed.meta == in_dom(f"{report['tool_version']}; inputs: " + ", ".join(f["file"] for f in report["files"]))
    shown = [s for s in parsed.sections if s["section"] == "recording"]
    assert len(shown) == len(report["recordings"])
    for section, recording in zip(shown, report["recordings"]):
        assert section["name"] == in_dom(recording["name"])
        assert section["h2"] == in_dom(f"{recording['file']}: /recordings/{recording['name']}")
        assert section["device"] == in_dom(recording["device"])
        assert section["warnings"] == [in_dom(f"warning: {w}") for w in recording.get("warnings", [])]
    return parsed


def hostile_traces(forcetrace, tmp_path):
    """Two trace files in a folder, every name hostile: a libinput record file of two devices (device names,
    node names, kernel, DMI, label kinds) and an evemu file (device name, label kind)."""
    folder = tmp_path / HOSTILE_NAME[:120]
    folder.mkdir()
    base = tmp_path / "samples.h5"
    run(forcetrace, "import", *SAMPLES, "-o", base)
    exported = tmp_path / "samples.yml"
    run(forcetrace, "export", base, "--format", "libinput", "-o", exported)
    text = exported.read_text()
    device = re.compile(r"(?m)^  - evdev:$")
    assert len(device.findall(text)) == 2 and text.count('kernel: "unknown"') == 1
    for index in range(2):
        node = yaml_quoted(f"/dev/input/{HOSTILE_NAME[:60]}{index}")
        text = device.sub(lambda _: f"  - node: {node}\n    evdev:", text, count=1)
    text = text.replace('kernel: "unknown"', f"kernel: {yaml_quoted(HOSTILE)}\n  dmi: {yaml_quoted(HOSTILE)}")
    text = re.sub(r'(\n      name: )"[^"\n]*"', lambda m: m.group(1) + yaml_quoted(HOSTILE), text)
    text = text.replace("kind=tap ", "kind=" + yaml_quoted(PAYLOADS[0].replace(" ", ""))[1:-1] + " ")
    libinput = tmp_path / (HOSTILE_NAME[:100] + ".yml")
    libinput.write_text(text)
    # evemu is line-based: its name line holds no line break.
    evemu_name = HOSTILE.replace("\n", "").replace("\r", "")
    evemu_text = (ROOT / "samples" / "touchscreen-mixed.evemu").read_text()
    evemu_text = re.sub(r"(?m)^N: .*$", lambda _: "N: " + evemu_name, evemu_text, count=1)
    evemu_text = evemu_text.replace("kind=tap ", "kind=" + PAYLOADS[3].replace(" ", "") + " ")
    evemu = tmp_path / (HOSTILE_NAME[100:] + ".evemu")
    evemu.write_text(evemu_text)
    traces = [folder / (HOSTILE_NAME[:80] + "-a.h5"), folder / (HOSTILE_NAME[80:] + "-b.h5")]
    run(forcetrace, "import", libinput, "-o", traces[0])
    run(forcetrace, "import", evemu, "--format", "evemu", "-o", traces[1])   # control bytes look binary to detection
    return folder, traces, evemu_name


def test_hostile_text_in_every_field(forcetrace, chromium, tmp_path):
    folder, traces, evemu_name = hostile_traces(forcetrace, tmp_path)
    for inputs in ([folder], traces):
        page = tmp_path / "hostile.html"
        run(forcetrace, "report", *inputs, "--html", page, "--contacts", 3, "--force")
        report = json.loads(run(forcetrace, "report", *inputs, "--json"))
        # The hostile strings reached the report: the page is tested on them.
        assert sorted(f["file"] for f in report["files"]) == sorted(map(str, traces))
        names = sorted(r["name"] for r in report["recordings"])
        assert names == sorted([f"{HOSTILE_NAME[:100]}-{HOSTILE_NAME[:60]}{i}" for i in range(2)] + [HOSTILE_NAME[100:]])
        assert sorted(r["device"] for r in report["recordings"]) == sorted([HOSTILE, HOSTILE, evemu_name])
        check_hostile_page(chromium, tmp_path, page, report)
        check_svg_parses(page)


def test_hostile_text_in_merged_parts(forcetrace, chromium, tmp_path):
    """A --save part is a file too: its file, recording and device names and warnings may hold anything, '/' included."""
    import h5py
    trace = tmp_path / "samples.h5"
    run(forcetrace, "import", *SAMPLES, "-o", trace)
    part = tmp_path / "part.h5"
    run(forcetrace, "report", trace, "--save", part)
    with h5py.File(part, "r+") as file:
        for index, name in enumerate(file["recordings"]):
            group = file["recordings"][name]
            for key in ("file", "name", "device_name"):
                group.attrs[key] = f"{HOSTILE} {key}{index}"
            group.attrs["warnings"] = [HOSTILE, PAYLOADS[3]]
        file.attrs["inputs"] = [f"{HOSTILE} file{index}" for index in range(len(file["recordings"]))]
    page = tmp_path / "merged.html"
    run(forcetrace, "report", "--merge", part, "--html", page)
    report = json.loads(run(forcetrace, "report", "--merge", part, "--json"))
    assert sorted(r["name"] for r in report["recordings"]) == [f"{HOSTILE} name{i}" for i in range(2)]
    assert sorted(f["file"] for f in report["files"]) == [f"{HOSTILE} file{i}" for i in range(2)]
    assert all(r["warnings"] == [HOSTILE, PAYLOADS[3]] for r in report["recordings"])
    check_hostile_page(chromium, tmp_path, page, report)


def test_policy_stops_an_escaping_slip(forcetrace, chromium, tmp_path):
    """Markup planted in a real page, as an escaping bug would leave it: the policy refuses to run or apply it,
    says so on the console, and the page's own script still runs."""
    trace = tmp_path / "samples.h5"
    run(forcetrace, "import", *SAMPLES, "-o", trace)
    page = tmp_path / "report.html"
    run(forcetrace, "report", trace, "--html", page)
    text = page.read_text()
    planted = ('<script>document.title="slip"</script><img src="data:," onerror="document.title=\'slip\'">'
               '<a id="slip" href="javascript:document.title=\'slip\'">x</a><style>body{display:none}</style>'
               '<p id="styled" style="display:none">x</p>')
    page.write_text(text.replace("</header>", planted + "</header>", 1))
    dom, console = load(chromium, page, tmp_path, "--dump-dom")
    parsed = Page()
    parsed.feed(dom)
    assert parsed.title == TITLE, "the planted script ran"
    assert parsed.headers and all(h.get("tabindex") == "0" for h in parsed.headers), "the page's own script did not run"
    refusals = "\n".join(console)
    assert refusals.count("Content Security Policy") >= 3, refusals
