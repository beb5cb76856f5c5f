#!/usr/bin/env python3
"""Host-side check of the ft-whatif scenario (issue 21, item 3): libinput
1.22 is the oracle for `forcetrace whatif`.

usage: check_ft_whatif.py RESULT_DIR

Each step played one recording through uinput into one `libinput
debug-events --verbose` per quirk set (the shipped quirks, then each
candidate on top). Here the host's forcetrace imports the same played file
and runs `whatif --json` with the same quirks; the decisions must agree
exactly, in order: libinput's debug lines "pressure: begin/end touch N",
"palm: touch N (...), palm detected (pressure)", "thumb: touch N,
THUMB_STATE_FINGER → THUMB_STATE_JAILED" (and back), and for tablets the
TABLET_TOOL_TIP events' down/up. Prints per step and in total: contacts
(touch sequences), decisions, differences (which must be 0).
The host's forcetrace: $FORCETRACE, else the repository's debug build."""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kernel_expect import Checks, read_text  # noqa: E402

FORCETRACE = os.environ.get("FORCETRACE") or os.path.join(HERE, "..", "..", ".build", "debug", "forcetrace")
SHIPPED = "/usr/share/libinput"  # the initramfs carries the host's copy
LINE = re.compile(r"(pressure: (?:begin|end) touch \d+"
                  r"|palm: touch (\d+) \([^)]*\), palm detected \(pressure\)"
                  r"|thumb: touch \d+, THUMB_STATE_(?:FINGER → THUMB_STATE_JAILED|JAILED → THUMB_STATE_FINGER))")
TIP = re.compile(r"^\s*\S+\s+TABLET_TOOL_TIP\s.*\s(down|up)\s*$")


def libinput_decisions(log):
    """libinput's decisions in forcetrace's words (the palm line without the touch state)."""
    out = []
    for line in log.splitlines():
        tip = TIP.match(line)
        if tip:
            out.append("tip " + tip.group(1))
            continue
        m = LINE.search(line)
        if m:
            text = m.group(1)
            if m.group(2) is not None:
                text = f"palm: touch {m.group(2)}, palm detected (pressure)"
            out.append(text)
    return out


def forcetrace(*args):
    return subprocess.run([FORCETRACE, *map(str, args)], capture_output=True, text=True, timeout=300)


def check_step(c, d, step, totals):
    s = os.path.join(d, step)
    sets = int(read_text(os.path.join(s, "sets"), "0") or 0)
    if not c.check(sets > 0, f"{step}: played", read_text(os.path.join(d, "log"), "")):
        return
    udev = read_text(os.path.join(s, "udev.txt"), "")
    c.check("ID_INPUT_TOUCHPAD=1" in udev or "ID_INPUT_TABLET=1" in udev, f"{step}: udevd typed the device a touchpad or tablet", udev)
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "played.h5")
        r = forcetrace("import", os.path.join(s, "played.evemu"), "-o", trace)
        if not c.check(r.returncode == 0, f"{step}: the played file imports on the host", r.stderr):
            return
        candidates = [os.path.join(s, f"candidate-{i}.quirks") for i in range(1, sets)]
        args = ["whatif", trace, "--json", "--quirks-dir", SHIPPED]
        for q in candidates:
            args += ["--quirks", q]
        r = forcetrace(*args)
        if not c.check(r.returncode == 0, f"{step}: whatif ran", r.stderr):
            return
        out = json.loads(r.stdout)
    for i, result in enumerate(out["quirk_sets"]):
        ours = [line for _, line in result["decisions"]]
        log = read_text(os.path.join(s, f"libinput-{i}.log"), "")
        theirs = libinput_decisions(log)
        differences = sum(1 for a, b in zip(ours, theirs) if a != b) + abs(len(ours) - len(theirs))
        contacts = result["totals"]["sequences"] if out["kind"] == "touchpad" else sum(1 for x in ours if x == "tip down")
        totals["contacts"] += contacts
        totals["decisions"] += len(theirs)
        totals["differences"] += differences
        first = next((k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        print(f"  {step} [{result['name']}]: contacts {contacts}, decisions {len(theirs)}, differences {differences}")
        c.check(differences == 0, f"{step} [{result['name']}]: forcetrace and libinput agree decision by decision",
                f"first difference at {first}: forcetrace {ours[first:first + 3]}, libinput {theirs[first:first + 3]}")


# Each scenario's steps (guest-ft-whatif.sh).
STEPS = {
    "ft-whatif": ["calibration-sample", "pen-boundaries", "touchpad-boundaries"],
    "ft-whatif-sim": ["simulated-pen", "simulated-touchpad", "simulated-touchpad-127"],
    "ft-whatif-shared": ["shared-bcm5974", "shared-cypress", "shared-dell-pen", "shared-synaptics"],
}


def main(argv, scenario="ft-whatif"):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = os.path.join(argv[1], scenario)
    c = Checks(scenario)
    steps = sorted(e for e in os.listdir(d) if os.path.isdir(os.path.join(d, e))) if os.path.isdir(d) else []
    c.check(steps == STEPS[scenario], f"every step was played: {', '.join(STEPS[scenario])}", steps)
    totals = {"contacts": 0, "decisions": 0, "differences": 0}
    for step in steps:
        check_step(c, d, step, totals)
    print(f"{scenario} agreement: contacts {totals['contacts']}, decisions {totals['decisions']}, differences {totals['differences']}")
    c.check(totals["decisions"] > 0, "libinput made decisions to compare")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
