#!/usr/bin/env python3
"""Host-side check of the ft-calibrate scenario.

usage: check_ft_calibrate.py RESULT_DIR

forcetrace calibrate ran on the player's devices while the player did the
app protocol (touchscreen) and the touchpad protocol (touchpad, thumbs and
palms pressing harder), three rounds each, with a two-finger and a too-short
trial in each session. Every label in the file must be the script's class
for that trial, with the scripted peak; both flawed trials must have been
discarded; the suggested thresholds must lie in the gaps between the
scripted classes' peaks; the quirks file must pass `libinput quirks
validate` on the host.
"""
import json
import os
import shutil
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_expect import Checks, read_text  # noqa: E402


def script(path):
    """The player's trials: (index, class, peak, flaw)."""
    trials = []
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "trial":
                trials.append((record["index"], record["class"], record["peak"], record["flaw"]))
    return trials


def labels(path):
    with h5py.File(path, "r") as f:
        group = f["recordings"][list(f["recordings"])[0]]
        table = group["labels"]
        classes = [c.decode() if isinstance(c, bytes) else c for c in table["class"][:]]
        return {
            "protocol": table.attrs.get("protocol"),
            "class": classes,
            "peak": table["peak"][:].tolist(),
            "contact": table["contact"][:].tolist(),
            "contacts": group["contacts"]["id"].shape[0],
            "stop_reason": group.attrs.get("stop_reason"),
        }


def decoded(value):
    return value.decode() if isinstance(value, bytes) else value


def check_session(c, d, step, protocol):
    s = os.path.join(d, step)
    c.check(read_text(os.path.join(s, "calibrate.rc")) == "0", f"{step}: calibrate exited 0 by itself", read_text(os.path.join(s, "calibrate.err")))
    trials = script(os.path.join(s, "expected.jsonl"))
    kept = [t for t in trials if t[3] is None]
    flawed = [t for t in trials if t[3] is not None]
    c.check(len(kept) == (9 if protocol == "app" else 12) and sorted(t[3] for t in flawed) == ["too-short", "two-fingers"],
            f"{step}: the player did {len(kept)} trials and 2 flawed ones", trials)
    got = labels(os.path.join(s, "cal.h5"))
    c.check(decoded(got["protocol"]) == protocol, f"{step}: labels/protocol is {protocol}")
    c.check(decoded(got["stop_reason"]) == "session-complete", f"{step}: stop_reason session-complete", got["stop_reason"])
    c.check(got["class"] == [t[1] for t in kept], f"{step}: every label is the script's class, in order", (got["class"], [t[1] for t in kept]))
    c.check(got["peak"] == [t[2] for t in kept], f"{step}: every label's peak is the scripted peak", (got["peak"], [t[2] for t in kept]))
    c.check(all(x >= 0 for x in got["contact"]) and len(set(got["contact"])) == len(kept),
            f"{step}: each label is matched to its own contact", got["contact"])
    out = read_text(os.path.join(s, "calibrate.out"), "")
    c.check(out.count("discarded: 2 fingers at once; use one; again") == 1 and out.count("discarded: too short") == 1,
            f"{step}: both flawed trials were discarded with a word", out)
    c.check(f"saved {len(kept)} labelled trials (2 discarded)" in out, f"{step}: calibrate says where it saved what")
    suggestion = json.loads(read_text(os.path.join(s, "suggest.json"), "{}") or "{}")

    def peaks(*classes):
        return [t[2] for t in kept if t[1] in classes]

    if protocol == "app":
        app = suggestion.get("app", {})
        c.check(max(peaks("tap")) < app.get("peek_raw", -1) <= min(peaks("peek-press")),
                f"{step}: peek {app.get('peek_raw')} between taps (<= {max(peaks('tap'))}) and peek-presses (>= {min(peaks('peek-press'))})")
        c.check(max(peaks("peek-press")) < app.get("pop_raw", -1) <= min(peaks("pop-press")),
                f"{step}: pop {app.get('pop_raw')} between peek-presses and pop-presses")
        c.check(app.get("balanced_accuracy") == 1.0 and app.get("confusion") == [3, 0, 0, 0, 3, 0, 0, 0, 3],
                f"{step}: balanced accuracy 1 and a diagonal confusion matrix", app)
        c.check([b["timeout_ms"] for b in app.get("before_long_press", [])] == [400, 500], f"{step}: pop before 400 and 500 ms long presses")
    else:
        pad = suggestion.get("touchpad", {})
        n = pad.get("pressure_range_begin", {}).get("value")
        m = pad.get("pressure_range_end", {}).get("value")
        p = pad.get("thumb_pressure_threshold", {}).get("value")
        o = pad.get("palm_pressure_threshold", {}).get("value")
        c.check(None not in (n, m, p, o), f"{step}: N, M, P, O all suggested", pad)
        if None not in (n, m, p, o):
            c.check(0 < n < min(peaks("light")), f"{step}: N={n} below every light touch ({min(peaks('light'))})")
            c.check(n - m == 5, f"{step}: M={m} is N minus 2 % of 0..255")
            c.check(max(peaks("light", "normal")) <= p < min(peaks("thumb")), f"{step}: P={p} between touches and thumbs")
            c.check(max(peaks("thumb")) <= o < min(peaks("palm")), f"{step}: O={o} between thumbs and palms")
            c.check(o > p > n > m, f"{step}: O > P > N > M")
        quirks = read_text(os.path.join(s, "quirks", "forcetrace.quirks"), "")
        c.check("MatchName=forcetrace-test-touchpad\n" in quirks and "MatchVendor=0x1D6B\nMatchProduct=0x7F01\nMatchUdevType=touchpad\n" in quirks
                and f"AttrPressureRange={n}:{m}\n" in quirks, f"{step}: the quirks section matches the device and holds the range", quirks)
        c.check("# MatchBus left out: bus 0x0006 has no libinput name" in quirks, f"{step}: BUS_VIRTUAL is left out with a comment")
        libinput = shutil.which("libinput")
        if c.check(libinput is not None, "libinput is installed on the host (libinput-tools)"):
            result = subprocess.run([libinput, "quirks", "validate", "--data-dir", os.path.join(s, "quirks")],
                                    capture_output=True, text=True)
            c.check(result.returncode == 0, f"{step}: libinput quirks validate accepts it", result.stdout + result.stderr)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = os.path.join(argv[1], "ft-calibrate") if os.path.isdir(os.path.join(argv[1], "ft-calibrate")) else argv[1]
    c = Checks("check_ft_calibrate")
    print(f"checking {d}")
    c.check(read_text(os.path.join(d, "status")) == "0", "guest scenario exited 0", read_text(os.path.join(d, "failure"), ""))
    check_session(c, d, "app", "app")
    check_session(c, d, "touchpad", "touchpad")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
