#!/usr/bin/env python3
"""Host-side check of the ft-initial scenario.

usage: check_ft_initial.py RESULT_DIR

forcetrace record started while a finger was already down (slot 0, tid 200
at 3000/1500, pressure 200). The recording must begin with an initial_state
marker and a synthetic frame at t = 0 that makes that touch a contact from
t = 0 with the held values; then the player's lift, exactly as sent, ends it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ft_checks import check_scenario_ran, scenario_dir  # noqa: E402
from ft_trace import (  # noqa: E402
    BTN_TOOL_FINGER, EXIT_DEVICE_REMOVED, FLAG_DOWN, MARKER_INITIAL_STATE, check_attrs, check_frames, live_frames, load_trace,
)
from kernel_expect import Checks, load_expect, read_text, snapshot_key  # noqa: E402


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = scenario_dir(argv[1], "ft-initial")
    c = Checks("check_ft_initial")
    print(f"checking {d}")
    if not check_scenario_ran(c, d):
        return c.finish()
    rc = read_text(os.path.join(d, "recorder.rc"))
    c.check(rc in ("0", str(EXIT_DEVICE_REMOVED)), "recorder exited 0 (SIGINT) or 3 (device removed after the lift)", rc)
    exp = load_expect(os.path.join(d, "expected.jsonl"))
    hold = exp["hold"]["final"]
    lift = [f for f in exp["frames"] if f["phase"] == "lift"]
    t = load_trace(os.path.join(d, "rec.h5"))
    check_attrs(c, t, "signal" if rc == "0" else "device-removed")
    c.check(t.markers == [(0, MARKER_INITIAL_STATE, 0)], "one initial_state marker at t 0, event 0", t.markers)
    got, unknown = live_frames(t.events, t.axis_values)
    c.check(not unknown, "no unexpected event codes", unknown[:5])
    if not c.check(len(got) == 2, f"two frames: the initial state and the lift ({len(got)})"):
        return c.finish()
    c.check(got[0]["t"] == 0 and all(e[0] == 0 for e in t.events[:len(got[0]["events"])]),
            "the initial-state frame is at t_ns 0")
    c.check(snapshot_key(got[0]) == snapshot_key(hold), "its state equals the touch held at start",
            f"got {snapshot_key(got[0])} want {snapshot_key(hold)}")
    check_frames(c, got[1:], lift, "frame after the start")
    c.check(t.samples == [(0, 0, 0, 3000, 1500, 200, FLAG_DOWN)], "one sample row: contact 0 down at t 0 at 3000/1500/200",
            t.samples)
    c.check(t.contacts == [(0, 0, 200, BTN_TOOL_FINGER, 0, got[1]["t"], 0, 0, 1)],
            "one contact: tid 200, down at t 0, up at the lift", t.contacts)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
