#!/usr/bin/env python3
"""Host-side check of ft-whatif-versions-touchpad and ft-whatif-versions-pen:
the fixtures of Tests/fixtures/libinput-versions, each played once into
every libinput version (Debian's 1.22.1 and the releases of ../shared/libinput).

usage: check_ft_whatif_versions.py RESULT_DIR [touchpad|pen]

Two things are checked. First, from libinput's own logs, that the versions
differ where their sources say and agree elsewhere (the expectations below,
written per version range, so that any set of releases can be checked).
Second, as in ft-whatif, that `forcetrace whatif --libinput V` agrees with
each version decision by decision."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_expect import read_text  # noqa: E402
from whatif_versions import QUIRKS_FAILED, compare_step, compare_steps, versions_played  # noqa: E402

STEPS = {
    "ft-whatif-versions-touchpad": ["event-code-syntax", "pressure-pad-quirks", "pressurepad-property", "touchpad-pressure-0-99"],
    "ft-whatif-versions-pen": ["pen-offset-distance-20", "pen-offset-distance-50", "pen-offset-third-proximity", "pen-pressure-0-99"],
}
USING = re.compile(r"using pressure-based touch detection \((\d+):(\d+)\)")
OFFSET = re.compile(r"(Pressure offset (?:of \d+% )?detected|Ignoring pressure offset greater than \d+%) .*?on tool (\w+) ")
PROXIMITY_IN = re.compile(r"TABLET_TOOL_PROXIMITY.*?pressure: ([\d.]+)\*?\s+(\w+)\s.*proximity-in")


def ver(v):
    return tuple(int(x) for x in v.split("."))


class Step:
    """One step's logs: log(v, i), decisions(v, i)."""

    def __init__(self, c, d, step, decisions):
        self.c, self.step, self.dir = c, step, os.path.join(d, step)
        self.versions = versions_played(self.dir)
        self.dec = decisions

    def log(self, v, i=0):
        return read_text(os.path.join(self.dir, f"libinput-{v}-{i}.log"), "")

    def decisions(self, v, i=0):
        return self.dec.get(v, [[]] * (i + 1))[i]

    def check(self, ok, what, detail=""):
        return self.c.check(ok, f"{self.step}: {what}", detail)

    def pressure(self, v, i):
        """libinput's 'lo:hi' for touches, or None when it does not use pressure."""
        m = USING.search(self.log(v, i))
        return f"{m.group(1)}:{m.group(2)}" if m else None

    def quirks_loaded(self, v, i):
        return QUIRKS_FAILED not in self.log(v, i)

    def same(self, versions, i, what):
        """These versions decide alike in set i."""
        vs = [v for v in self.versions if v in versions]
        for v in vs[1:]:
            self.check(self.decisions(v, i) == self.decisions(vs[0], i), f"set {i}: {v} decides as {vs[0]} ({what})",
                       f"{v}: {self.decisions(v, i)}\n{vs[0]}: {self.decisions(vs[0], i)}")

    def differ(self, a, b, i, what):
        if a in self.versions and b in self.versions:
            self.check(self.decisions(a, i) != self.decisions(b, i), f"set {i}: {a} and {b} decide differently ({what})",
                       self.decisions(a, i))

    def proximities(self, v):
        """[(tool, pressure)] of each proximity-in, in order."""
        return [(m.group(2), m.group(1)) for m in map(PROXIMITY_IN.search, self.log(v).splitlines()) if m]

    def offsets(self, v):
        """[(tool, taken, proximity-ins before the line)] from the log."""
        out, prox = [], 0
        for line in self.log(v).splitlines():
            if "TABLET_TOOL_PROXIMITY" in line and "proximity-in" in line:
                prox += 1
            m = OFFSET.search(line)
            if m:
                out.append((m.group(2), not m.group(1).startswith("Ignoring"), prox))
        return out


def expect_pressure(s, i, rule, what):
    """rule(v) -> expected 'lo:hi', or None for no pressure decisions."""
    for v in s.versions:
        want = rule(ver(v))
        got = s.pressure(v, i)
        s.check(got == want, f"set {i}: libinput {v} {'uses pressure ' + want if want else 'does not use pressure'} ({what})", got)
        if want is None:
            s.check(not any(x.startswith("pressure:") for x in s.decisions(v, i)), f"set {i}: libinput {v} makes no pressure decisions", s.decisions(v, i))


def expect_quirks(s, i, rule, what):
    """rule(v) -> True when the version loads the quirks (a key it does not know drops every quirk)."""
    for v in s.versions:
        want = rule(ver(v))
        s.check(s.quirks_loaded(v, i) == want, f"set {i}: libinput {v} {'loads' if want else 'drops'} every quirk ({what})",
                "\n".join(x for x in s.log(v, i).splitlines() if "quirk" in x.lower()))


def touchpad_steps(s):
    late = [v for v in s.versions if ver(v) >= (1, 25)]
    if s.step == "touchpad-pressure-0-99":
        expect_pressure(s, 0, lambda v: "9:11" if v < (1, 23) else "10:12", "defaults on max - min + 1 from 1.25")
        for v in late:
            s.differ("1.22.1", v, 0, "11:9 against 12:10")
        s.same(late, 0, "12:10")
        for v in s.versions:
            palms = [x for x in s.decisions(v, 1) if x.startswith("palm")]
            if ver(v) < (1, 25):
                s.check(len(palms) >= 5, f"set 1: libinput {v} makes every touch pressed above 0 a palm", palms)
                s.check("palm: pressure threshold is 0" in s.log(v, 1), f"set 1: libinput {v} logs the palm threshold 0")
            else:
                s.check(palms == [], f"set 1: libinput {v} has pressure palms off at threshold 0", palms)
                s.check(s.decisions(v, 1) == s.decisions(v, 0), f"set 1: libinput {v} decides as without the quirk")
        # Threshold 1: palms in every version (1.25+ more: their extra begins are new touches).
        counts = {v: sum(1 for x in s.decisions(v, 2) if x.startswith("palm")) for v in s.versions}
        s.check(min(counts.values()) > 0, "set 2: every version finds palms at threshold 1", counts)
        s.same(late, 2, "palms above 1")
    elif s.step == "pressure-pad-quirks":
        expect_pressure(s, 0, lambda v: "25:30", "the shipped quirks alone")
        s.same(s.versions, 0, "30:25 everywhere")
        expect_quirks(s, 1, lambda v: (1, 23) <= v < (1, 31), "ModelPressurePad, 1.23 to 1.30")
        expect_pressure(s, 1, lambda v: None if (1, 23) <= v < (1, 31) else "25:30", "ModelPressurePad")
        expect_quirks(s, 2, lambda v: v >= (1, 23), "AttrInputProp, 1.23+")
        expect_pressure(s, 2, lambda v: None if v >= (1, 30, 1) else "25:30", "+0x07: a pressure pad from 1.30.1")
        expect_quirks(s, 3, lambda v: v >= (1, 31), "the name INPUT_PROP_PRESSUREPAD, 1.31+")
        expect_pressure(s, 3, lambda v: None if v >= (1, 31) else "25:30", "+INPUT_PROP_PRESSUREPAD")
    elif s.step == "event-code-syntax":
        expect_quirks(s, 1, lambda v: v >= (1, 23), "AttrEventCode")
        expect_pressure(s, 1, lambda v: "35:40" if v >= (1, 23) else "25:30", "the range beside AttrEventCode")
        expect_quirks(s, 2, lambda v: v < (1, 23), "AttrEventCodeDisable")
        expect_pressure(s, 2, lambda v: "35:40" if v < (1, 23) else "25:30", "the range beside AttrEventCodeDisable")
        for v in s.versions:
            s.check(s.decisions(v, 1) != s.decisions(v, 2), f"libinput {v}: the two syntaxes decide differently")
    elif s.step == "pressurepad-property":
        expect_pressure(s, 0, lambda v: None if v >= (1, 30, 1) else "25:30", "INPUT_PROP_PRESSUREPAD from the kernel, 1.30.1+")


def pen_steps(s):
    def offsets_are(rule, what):
        for v in s.versions:
            got = {tool: taken for tool, taken, _ in s.offsets(v)}
            s.check(got == rule(ver(v)), f"libinput {v}: offsets {rule(ver(v))} ({what})", s.offsets(v))
    modern = [v for v in s.versions if ver(v) >= (1, 28)]
    if s.step == "pen-pressure-0-99":
        plain = [v for v in s.versions if ver(v)[:2] != (1, 25)]
        s.same(plain, 0, "tip 4:0 on max - min")
        for v in plain:
            s.differ("1.25.0", v, 0, "1.25's tip 5:1 on max - min + 1")
        straight = [v for v in s.versions if not (1, 26) <= ver(v) < (1, 30, 2)]
        s.same(straight, 1, "AttrPressureRange=30:10 as written")
        for v in s.versions:
            if (1, 26) <= ver(v) < (1, 30, 2):
                for w in straight:
                    s.differ(v, w, 1, "the swapped range")
                downs = s.decisions(v, 1).count("tip down")
                s.check(downs > s.decisions(straight[0], 1).count("tip down"), f"set 1: libinput {v} flips the tip (swapped range)", downs)
    elif s.step == "pen-offset-distance-20":
        offsets_are(lambda v: {"pen": True, "eraser": True, "brush": v >= (1, 24), "pencil": v >= (1, 24)}, "20 % limit before 1.24, 50 % after")
        s.same(s.versions[1:], 0, "offsets within 50 %")
        for v in s.versions[1:]:
            s.differ("1.22.1", v, 0, "the 20 % limit")
    elif s.step == "pen-offset-distance-50":
        offsets_are(lambda v: {"pen": v >= (1, 24), "eraser": v >= (1, 24), "brush": v[:2] == (1, 25), "pencil": False},
                    "49 on max - min, 50 in 1.25")
        s.same(modern, 0, "one tablet: 1.28's per-tablet thresholds change nothing")
    elif s.step == "pen-offset-third-proximity":
        modern = [v for v in s.versions if ver(v) >= (1, 30)]
        def rule(v):
            # 1.27 to 1.29: debug-events sets the pressure range (0 to 1) at every
            # proximity, which counts as configured there and stops the offset
            # heuristics from the second proximity on, before the third decides.
            if v < (1, 24) or (1, 27) <= v < (1, 30):
                return {}
            return {"pen": True, "eraser": v[:2] == (1, 25), "brush": False}
        offsets_are(rule, "without ABS_DISTANCE, from 1.24")
        # libinput logs its decision while it reads the events, and prints the
        # events after: a slow guest reads several proximities at once, and the
        # message then comes before earlier proximities' lines, never after the
        # third's. Where the offset is taken, the proximities' pressures say
        # exactly where: 1.22 takes none, and a version that takes one reports
        # the same pressures up to the third proximity (1.25 normalizes on
        # max - min + 1, 0.01 lower) and a far lower one from it.
        raw = "1.22.1" if "1.22.1" in s.versions else None
        for v in s.versions:
            for tool, taken, prox in s.offsets(v):
                k = ["pen", "eraser", "brush"].index(tool) if tool in ("pen", "eraser", "brush") else -1
                s.check(prox <= 4 * k + 2, f"libinput {v}: {tool}'s offset is decided by its third proximity", prox)
                if taken and raw:
                    mine, theirs = ([p for t, p in s.proximities(w) if t == tool] for w in (v, raw))
                    first = next((n for n, (a, b) in enumerate(zip(mine, theirs)) if float(a) < float(b) - 0.05), None)
                    s.check(first == 2, f"libinput {v}: {tool}'s offset applies from its third proximity", (mine, theirs))
        s.same(modern, 0, "1.30+ decide alike")


def main(argv, scenario):
    if len(argv) != 2:
        print(__doc__)
        return 2
    rows = touchpad_steps if scenario.endswith("touchpad") else pen_steps

    def each_step(c, d, step, totals):
        rows(Step(c, d, step, compare_step(c, d, step, totals, quirks_must_load=False)))
    c, _ = compare_steps(argv[1], scenario, STEPS[scenario], each_step)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[:2], "ft-whatif-versions-" + (sys.argv[2] if len(sys.argv) > 2 else "touchpad")))
