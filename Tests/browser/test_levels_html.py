"""The levels panel of `report --html` in headless chromium: no console
messages (CSP, errors), and the panel's numbers in the DOM after scripts are
the ones `levels --show --json` gives."""
import json
import re

from test_html_report import chromium, check_report, forcetrace, run  # noqa: F401 - fixtures


def test_levels_panel(forcetrace, chromium, tmp_path):  # noqa: F811
    evemu, trace = tmp_path / "levels.evemu", tmp_path / "levels.h5"
    run(forcetrace, "simulate", "--protocol", "levels", "--levels", "2-5", "--trials", "10", "--capacity", "3",
        "--seed", "4", "-o", evemu)
    run(forcetrace, "levels", "--replay", evemu, "--levels", "2-5", "--trials", "10", "--seed", "4", "-o", trace, "--fast")
    shown = json.loads(run(forcetrace, "levels", "--show", trace, "--json"))
    _, dom = check_report(forcetrace, chromium, tmp_path, [trace])
    assert f'data-levels-capacity="{shown["capacity"]}"' in dom and shown["capacity"] == 3
    for stored in shown["sets"]:
        table = re.search(rf'<table class="confusion" data-chart="levels" data-count="{stored["count"]}">(.*?)</table>', dom, re.S)
        assert table, f"the {stored['count']}-level table"
        rows = re.findall(r"<tr><th>(\d+)</th>(.*?)</tr>", table.group(1), re.S)
        assert len(rows) == stored["count"]
        for (level, cells), row in zip(rows, stored["levels"]):
            numbers = [int(n) for n in re.findall(r"<td[^>]*>(\d+)</td>", cells)]
            assert int(level) == row["level"]
            assert numbers == [row["below"], *row["held_in"], row["above"]]
    for stage in shown["thresholds"]:
        assert f"<td>{stage['lower']}|{stage['lower'] + 1}</td><td>{stage['raw']}</td><td>{stage['normalized']:.3f}</td>" in dom
