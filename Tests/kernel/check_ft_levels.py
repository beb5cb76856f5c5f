#!/usr/bin/env python3
"""Host-side check of the ft-levels scenario.

usage: check_ft_levels.py RESULT_DIR

forcetrace levels ran on the player's touchscreen while the player did the
levels protocol in the order its own copy of the seeded shuffle gives, as a
person who holds 3 levels (at 3 levels one level 9 in 10 inside, on the
rule; at 4 every level 8 in 10). Every kept trial must be the player's, in
order, with the held pressure it played; both flawed trials asked again;
the capacity 3, from the CLI and from the Python package; the stage
thresholds between the held values; the HTML panel present.
"""
import json
import os
import pathlib
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_expect import Checks, read_text  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def script(path):
    with open(path) as f:
        return [r for r in map(json.loads, f) if r.get("type") == "trial"]


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = os.path.join(argv[1], "ft-levels") if os.path.isdir(os.path.join(argv[1], "ft-levels")) else argv[1]
    c = Checks("check_ft_levels")
    print(f"checking {d}")
    c.check(read_text(os.path.join(d, "status")) == "0", "guest scenario exited 0", read_text(os.path.join(d, "failure"), ""))
    c.check(read_text(os.path.join(d, "levels.rc")) == "0", "levels exited 0 by itself", read_text(os.path.join(d, "levels.err"), ""))
    trials = script(os.path.join(d, "expected.jsonl"))
    kept = [t for t in trials if t["flaw"] is None]
    c.check(len(kept) == 90 and sorted(t["flaw"] for t in trials if t["flaw"]) == ["too-short", "two-fingers"],
            f"the player did {len(kept)} trials and 2 flawed ones")
    path = os.path.join(d, "levels.h5")
    with h5py.File(path, "r") as f:
        name = list(f["recordings"])[0]
        group = f["recordings"][name]
        table = group["labels"]
        c.check(table.attrs.get("protocol") == "levels", "labels/protocol is levels")
        c.check(int(table.attrs.get("seed", -1)) == 20261202, "the seed is recorded")
        c.check(group.attrs.get("stop_reason") == "session-complete", "stop_reason session-complete", group.attrs.get("stop_reason"))
        got = list(zip(table["level_count"][:].tolist(), table["level"][:].tolist(), table["held"][:].tolist()))
        contacts = table["contact"][:].tolist()
    want = [(t["count"], t["level"], t["held"]) for t in kept]
    c.check(got == want, "every kept trial is the player's, in the seeded order, with the pressure it held",
            next(((i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w), (len(got), len(want))))
    c.check(all(x >= 0 for x in contacts) and len(set(contacts)) == len(kept), "each trial is matched to its own contact")
    out = read_text(os.path.join(d, "levels.out"), "")
    c.check(out.count("discarded: 2 contacts at once; use one; again") == 1 and out.count("discarded: lifted after") == 1,
            "both flawed trials were asked again with a word", out[-2000:])
    c.check("saved 90 level trials (2 discarded)" in out, "levels says what it saved")
    shown = json.loads(read_text(os.path.join(d, "show.json"), "{}") or "{}")
    c.check(shown.get("capacity") == 3, "the scripted capacity, 3, is recovered", shown.get("capacity"))
    sets = {s["count"]: s for s in shown.get("sets", [])}
    c.check([sets[n]["reliable"] for n in (2, 3, 4)] == [True, True, False], "2 and 3 levels reliable, 4 not")
    three = {row["level"]: row for row in sets[3]["levels"]}
    c.check(three[2]["inside"] == 9 and three[2]["reliable"], "level 2 of 3: 9 of 10 inside, on the rule, reliable", three[2])
    c.check(all(row["inside"] == 8 and not row["reliable"] for row in sets[4]["levels"]), "every level of 4: 8 of 10, not reliable")
    held = {lv: [t["held"] for t in kept if t["count"] == 3 and t["level"] == lv] for lv in (1, 2, 3)}
    stages = shown.get("thresholds", [])
    c.check(len(stages) == 2, "two stage thresholds for 3 levels", stages)
    for stage in stages:
        lower, upper = held[stage["lower"]], held[stage["lower"] + 1]
        inside = [h for h in lower if h < min(upper)]
        # Level 2's one miss held level 3's pressure: 2|3 lies between level 2's other holds and level 3's.
        c.check(max(inside) < stage["raw"] < min(upper) if stage["lower"] == 2 else max(lower) <= stage["raw"] < min(upper),
                f"stage {stage['lower']}|{stage['lower'] + 1} = {stage['raw']} between the levels' holds")
        c.check(abs(stage["force"] - stage["normalized"] * 6.667) < 1e-9, "UIKit force = normalized x 6.667")
    sys.path.insert(0, str(ROOT / "python"))
    import forcetrace
    from forcetrace import levels
    with forcetrace.open(path) as trace:
        c.check(levels.capacity(trace[name]) == 3, "the Python package finds capacity 3 too")
    html = read_text(os.path.join(d, "report.html"), "")
    c.check('data-levels-capacity="3"' in html, "report --html has the levels panel with capacity 3")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
