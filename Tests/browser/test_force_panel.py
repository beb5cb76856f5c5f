"""The HTML force panel and a pressure pad's grams in Debian's chromium,
headless and offline: no console message (so no CSP violation), the SVG
accepted by an XML parser, the press curve drawn through the points
`suggest --format json` gives, and the gf column sorted as numbers."""
import json
import re
import xml.etree.ElementTree as ET

from test_html_report import chromium, check_report, forcetrace, run  # noqa: F401 (fixtures)

# The chart's plot area: x 62..582, y 272 at the axis minimum up to 14 at its maximum.
LEFT, WIDTH, BOTTOM, HEIGHT = 62, 520, 272, 258


def test_force_panel(forcetrace, chromium, tmp_path):  # noqa: F811
    trace = tmp_path / "force.h5"
    run(forcetrace, "simulate", "--protocol", "force", "-o", trace)
    _, dom = check_report(forcetrace, chromium, tmp_path, [trace])
    figure = re.search(r'<figure class="card chart" data-figure="force">.*?</figure>', dom, re.S)
    assert figure, "the force panel is in the page"
    root = ET.fromstring(re.search(r"<svg .*?</svg>", figure.group(0), re.S).group(0))
    paths = {p.get("data-series"): p.get("d") for p in root.iter("{http://www.w3.org/2000/svg}path")}
    assert {"readings", "press", "release", "tip-down"} <= set(paths)
    force = json.loads(run(forcetrace, "suggest", trace, "--format", "json"))["force"]
    # The x axis runs to 1.05 x the heaviest reading; the press path's inner points are the curve's.
    dots = [tuple(map(float, p.split())) for p in re.findall(r"M([\d.]+ [\d.]+)h0", paths["readings"])]
    assert len(dots) == force["readings"] - force["readings_without_weight"]
    press = [tuple(map(float, p.split())) for p in re.findall(r"[ML]([\d.]+ [\d.]+)", paths["press"])]
    assert len(press) == len(force["curve"]) + 2, "activation, the five points, saturation"
    top = max(x for x, _ in dots)  # the heaviest reading's x, in pixels
    for (x, y), point in zip(press[1:-1], force["curve"]):
        assert abs(y - (BOTTOM - point["pressure"] / 4095 * HEIGHT)) <= 0.06, point
        assert x <= top + 0.05


def test_a_pressure_pads_grams_sort_as_numbers(forcetrace, chromium, tmp_path):  # noqa: F811
    evemu, trace = tmp_path / "pad.evemu", tmp_path / "pad.h5"
    run(forcetrace, "simulate", "--protocol", "touchpad", "--device", "pressurepad", "--trials", "2", "-o", evemu)
    run(forcetrace, "calibrate", "--replay", evemu, "--protocol", "touchpad", "--trials", "2", "-o", trace, "--fast", "--quiet")
    _, dom = check_report(forcetrace, chromium, tmp_path, [trace])
    table = re.search(r'<table class="contacts sortable".*?</table>', dom, re.S).group(0)
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", table.split("</thead>")[0])
    column = heads.index("gf")
    rows = re.findall(r"<tr>(.*?)</tr>", re.search(r"<tbody>(.*?)</tbody>", table, re.S).group(1), re.S)
    assert rows
    for row in rows:
        cells = re.findall(r'<td(?: data-v="([^"]*)")?>([^<]*)</td>', row)
        sort, text = cells[column]
        assert float(sort) == float(text) == float(cells[heads.index("peak")][1]) / 2
