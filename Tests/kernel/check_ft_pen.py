#!/usr/bin/env python3
"""Host-side check of the ft-pen scenario.

usage: check_ft_pen.py RESULT_DIR

forcetrace calibrate ran on the player's uinput pen while the player did the
pen protocol three rounds (hover, stroke-light, stroke-normal, stroke-firm,
full-press), aiming through the scripted curve 40,10,80,60 over the raw
range 300..3700, with a hover that touches and a stroke too short. Every
label must be the script's class with its scripted peak; both flawed trials
discarded; the usable range must be the scripted one and the fitted curve
the scripted curve (the largest gap between their outputs is printed); every
format's output must hold that curve; gsettings (keyfile backend) must read
back what the script sets, and the quirk pass `libinput quirks validate`.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_expect import Checks, read_text  # noqa: E402

SCRIPTED = [40, 10, 80, 60]
RANGE = [300, 3700]


def output(curve, x):
    """xsetwacom's Bézier (0,0), (x1,y1), (x2,y2), (1,1): y at input x, by bisection."""
    def bez(t, a, b):
        return 3 * (1 - t) ** 2 * t * a + 3 * (1 - t) * t * t * b + t ** 3
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if bez(mid, curve[0] / 100, curve[2] / 100) < x else (lo, mid)
    return bez((lo + hi) / 2, curve[1] / 100, curve[3] / 100)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = os.path.join(argv[1], "ft-pen") if os.path.isdir(os.path.join(argv[1], "ft-pen")) else argv[1]
    c = Checks("check_ft_pen")
    print(f"checking {d}")
    c.check(read_text(os.path.join(d, "status")) == "0", "guest scenario exited 0", read_text(os.path.join(d, "failure"), ""))
    c.check(read_text(os.path.join(d, "calibrate.rc")) == "0", "calibrate exited 0 by itself", read_text(os.path.join(d, "calibrate.err")))
    trials = []
    if not c.check(os.path.exists(os.path.join(d, "expected.jsonl")), "the player wrote its script"):
        return c.finish()
    with open(os.path.join(d, "expected.jsonl")) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "trial":
                trials.append(record)
    kept = [t for t in trials if t["flaw"] is None]
    c.check(len(kept) == 15 and sorted(t["flaw"] for t in trials if t["flaw"]) == ["too-short", "touching-hover"],
            "the player did 15 trials and 2 flawed ones", trials)
    with h5py.File(os.path.join(d, "cal.h5"), "r") as f:
        group = f["recordings"][list(f["recordings"])[0]]
        table = group["labels"]
        classes = [x.decode() if isinstance(x, bytes) else x for x in table["class"][:]]
        peaks = table["peak"][:].tolist()
        protocol = table.attrs.get("protocol")
        stop = group.attrs.get("stop_reason")
    c.check((protocol.decode() if isinstance(protocol, bytes) else protocol) == "pen", "labels/protocol is pen")
    c.check((stop.decode() if isinstance(stop, bytes) else stop) == "session-complete", "stop_reason session-complete", stop)
    c.check(classes == [t["class"] for t in kept], "every label is the script's class, in order", (classes, [t["class"] for t in kept]))
    c.check(peaks == [t["peak"] for t in kept], "every label's peak is the scripted peak", (peaks, [t["peak"] for t in kept]))
    out = read_text(os.path.join(d, "calibrate.out"), "")
    c.check(out.count("discarded: the tip touched the surface") == 1 and out.count("discarded: too short") == 1,
            "both flawed trials were discarded with a word", out)

    suggestion = json.loads(read_text(os.path.join(d, "suggest.json"), "{}") or "{}")
    profile = (suggestion.get("pen") or {}).get("profile") or {}
    c.check(profile.get("usable_range") == RANGE, f"the usable range is the scripted {RANGE}", profile.get("usable_range"))
    fit = profile.get("range_fit") or {}
    curve = fit.get("curve")
    if c.check(curve is not None, "a curve was fitted", profile):
        gap = max(abs(output(curve, i / 200) - output(SCRIPTED, i / 200)) for i in range(201)) * 100
        errors = [p["error_points"] for p in fit["points"]]
        print(f"  fitted {curve} for the scripted {SCRIPTED}: curves at most {gap:.2f} points apart; "
              f"errors at the targets {', '.join(f'{e:.2f}' for e in errors)} points")
        c.check(gap <= 1.0, f"the fitted curve {curve} is the scripted {SCRIPTED} within 1 point", gap)
        c.check(max(errors) <= 0.5, "each target met within 0.5 points", errors)
    axis_curve = (profile.get("axis_fit") or {}).get("curve")
    kwin = read_text(os.path.join(d, "kwin.out"), "")
    def kwin_value(v):
        return "1" if v == 100 else "0" if v == 0 else f"{v / 100:.2f}"
    expected = f"{kwin_value(curve[0])},{kwin_value(curve[1])};{kwin_value(curve[2])},{kwin_value(curve[3])};" if curve else None
    c.check(expected is not None and f"pressureCurve={expected}\n" in kwin, "kwin.out holds the fitted curve", kwin)
    xsetwacom = read_text(os.path.join(d, "xsetwacom.out"), "")
    c.check(f"xsetwacom set 'forcetrace-test-pen stylus' PressureCurve {' '.join(map(str, axis_curve or []))}\n" in xsetwacom,
            "xsetwacom.out sets the whole-axis curve on the stylus", xsetwacom)
    libinput_range = read_text(os.path.join(d, "libinput-range.out"), "")
    c.check(libinput_range.endswith(f"minimum={300 / 4095:.4f}\nmaximum={3700 / 4095:.4f}"), "libinput-range.out is the scripted range", libinput_range)

    gsettings = shutil.which("gsettings")
    if c.check(gsettings is not None, "gsettings is installed on the host"):
        with tempfile.TemporaryDirectory() as home:
            env = dict(os.environ, GSETTINGS_BACKEND="keyfile", XDG_CONFIG_HOME=home)
            done = subprocess.run(["sh", os.path.join(d, "gsettings.out")], env=env, capture_output=True, text=True)
            got = subprocess.run([gsettings, "get", "org.gnome.desktop.peripherals.tablet.stylus:"
                                  "/org/gnome/desktop/peripherals/stylus/default-1d6b:7f04/", "pressure-curve"],
                                 env=env, capture_output=True, text=True)
            c.check(done.returncode == 0 and got.stdout.strip() == f"[{', '.join(map(str, axis_curve or []))}]",
                    "gsettings reads back the curve gsettings.out set", done.stderr + got.stdout + got.stderr)
    libinput = shutil.which("libinput")
    if c.check(libinput is not None, "libinput is installed on the host (libinput-tools)"):
        result = subprocess.run([libinput, "quirks", "validate", "--data-dir", os.path.join(d, "quirks")], capture_output=True, text=True)
        c.check(result.returncode == 0, "libinput quirks validate accepts the pen quirk", result.stdout + result.stderr)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
