"""The HTML pen panel in Debian's chromium, headless and offline:
no console message (so no CSP violation), the panel in the DOM after
scripts, its SVG accepted by an XML parser, and the curve it draws the one
`suggest --format json` fitted."""
import json
import re
import xml.etree.ElementTree as ET

from test_html_report import ROOT, chromium, forcetrace, load, run  # noqa: F401 (fixtures)

SAMPLE = ROOT / "samples" / "calibration" / "pen.evemu"


def test_pen_panel(forcetrace, chromium, tmp_path):  # noqa: F811
    trace, page = tmp_path / "pen.h5", tmp_path / "pen.html"
    run(forcetrace, "calibrate", "--replay", SAMPLE, "--protocol", "pen", "-o", trace, "--fast", "--quiet")
    run(forcetrace, "report", trace, "--html", page)
    dom, console = load(chromium, page, tmp_path, "--dump-dom")
    assert console == [], "\n".join(console)
    figure = re.search(r'<figure class="card chart" data-figure="pen-curve">.*?</figure>', dom, re.S)
    assert figure, "the pen panel is in the page"
    svg = re.search(r"<svg .*?</svg>", figure.group(0), re.S).group(0)
    root = ET.fromstring(svg)
    paths = {p.get("data-series"): p.get("d") for p in root.iter("{http://www.w3.org/2000/svg}path")}
    assert {"linear", "fitted"} <= set(paths)
    fit = json.loads(run(forcetrace, "suggest", trace, "--format", "json"))["pen"]["profile"]["range_fit"]
    assert f"Curve {' '.join(map(str, fit['curve']))} (xsetwacom/GNOME form" in figure.group(0)
    # The fitted path, 101 points: each at the curve's output for its input, in the
    # chart's units (plot area x 62..582, y 272 at 0 up to 14 at 1).
    points = [tuple(map(float, p.split())) for p in re.findall(r"[ML]([\d.]+ [\d.]+)", paths["fitted"])]
    assert len(points) == 101
    for index in [0, 25, 50, 75, 100]:
        x, y = points[index]
        assert abs(x - (62 + index / 100 * 520)) <= 0.05
        assert abs(y - (272 - output(fit["curve"], index / 100) * 258)) <= 0.06, (index, y)


def output(curve, x):
    """xsetwacom's Bézier at input x, by bisection (written apart from forcetrace's)."""
    def bez(t, a, b):
        return 3 * (1 - t) ** 2 * t * a + 3 * (1 - t) * t * t * b + t ** 3
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if bez(mid, curve[0] / 100, curve[2] / 100) < x else (lo, mid)
    return bez((lo + hi) / 2, curve[1] / 100, curve[3] / 100)
