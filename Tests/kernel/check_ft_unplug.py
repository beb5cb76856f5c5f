#!/usr/bin/env python3
"""Host-side check of the ft-unplug scenario.

usage: check_ft_unplug.py RESULT_DIR

The uinput device was destroyed 500 ms into a contact. forcetrace record must
notice (ENODEV), close the file cleanly (complete, stop_reason
device-removed), say so, and exit with status 3. Every frame it kept equals
what the player sent, and the contact is still down at the end (t_up_ns -1):
the kernel sends no ABS_MT_TRACKING_ID -1 on unplug.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ft_checks import check_scenario_ran, scenario_dir  # noqa: E402
from ft_trace import EXIT_DEVICE_REMOVED, check_attrs, check_frames, check_rows, live_frames, load_trace  # noqa: E402
from kernel_expect import BTN_TOUCH, EV_KEY, EV_SYN, SYN_REPORT, Checks, load_expect, read_text  # noqa: E402

BTN_TOOL_FINGER = 0x145


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = scenario_dir(argv[1], "ft-unplug")
    c = Checks("check_ft_unplug")
    print(f"checking {d}")
    if not check_scenario_ran(c, d):
        return c.finish()
    c.check(read_text(os.path.join(d, "recorder.rc")) == str(EXIT_DEVICE_REMOVED),
            f"recorder exited by itself with status {EXIT_DEVICE_REMOVED} (device removed)", read_text(os.path.join(d, "recorder.rc")))
    c.check("the device was removed (ENODEV)" in read_text(os.path.join(d, "recorder.err"), ""), "recorder said the device was removed",
            read_text(os.path.join(d, "recorder.err")))
    c.check(read_text(os.path.join(d, "recorder.out"), "").endswith("(device removed)"), "summary ends with (device removed)")
    exp = load_expect(os.path.join(d, "expected.jsonl"))
    want = exp["frames"]
    c.check(exp["end"] is not None and exp["end"]["unplugged"], "player unplugged mid-contact")
    t = load_trace(os.path.join(d, "rec.h5"))  # a plain open: the file was closed cleanly
    check_attrs(c, t, "device-removed")
    got, unknown = live_frames(t.events)
    c.check(not unknown, "no unexpected event codes", unknown[:5])
    # The kernel's own frame on unregister: keys released, SYN_REPORT value 1.
    release = [[EV_KEY, BTN_TOOL_FINGER, 0], [EV_KEY, BTN_TOUCH, 0], [EV_SYN, SYN_REPORT, 1]]
    script = [g for g in got if g["events"] != release]
    c.check(len(got) - len(script) <= 1 and all(g["events"] == release for g in got[len(script):]),
            "at most one extra frame, the kernel's key release on unregister, and only at the end")
    # Events still queued when the device vanished are gone (read() gives
    # ENODEV at once), so the last frame or two may be missing; none other.
    c.check(len(want) - 2 <= len(script) <= len(want), f"{len(script)} of the {len(want)} frames sent were recorded")
    check_frames(c, script, want[:len(script)])
    check_rows(c, t, want[:len(script)], [g["t"] for g in script])
    c.check(len(t.contacts) == 1 and t.contacts[0][2] == 300 and t.contacts[0][5] == -1,
            "one contact (tid 300), still down at the end (t_up_ns -1)", t.contacts)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
