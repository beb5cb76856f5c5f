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
