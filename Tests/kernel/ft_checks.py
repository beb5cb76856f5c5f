"""The checks shared by check_ft_record.py and check_ft_grab.py: a scripted
gesture recorded whole and stopped with SIGINT."""
import os

from ft_trace import (
    FLAG_PRESSURE, MARKER_INITIAL_STATE, check_attrs, check_frames, check_rows, live_frames, load_trace,
)
from kernel_expect import load_expect, read_text


def scenario_dir(root, name):
    return os.path.join(root, name) if os.path.isdir(os.path.join(root, name)) else root


def check_scenario_ran(c, d):
    c.check(read_text(os.path.join(d, "status")) == "0", "guest scenario exited 0", read_text(os.path.join(d, "failure"), ""))
    return c.check(os.path.isfile(os.path.join(d, "rec.h5")) and os.path.isfile(os.path.join(d, "expected.jsonl")),
                   "rec.h5 and expected.jsonl present")


def check_script_recording(c, d):
    """The whole scripted gesture, recorded and then stopped by SIGINT."""
    c.check(read_text(os.path.join(d, "recorder.rc")) == "0", "recorder exited 0")
    c.check(read_text(os.path.join(d, "recorder.stopped_by")) == "sigint", "recorder was stopped by SIGINT (device still present)")
    summary = read_text(os.path.join(d, "recorder.out"), "")
    c.check(summary.endswith("(stopped by SIGINT)") and " 94 frames, 2 contacts, 0 resyncs " in summary,
            "summary line: 94 frames, 2 contacts, 0 resyncs, stopped by SIGINT", summary)
    c.check(read_text(os.path.join(d, "recorder.err"), "") == "", "nothing on stderr (not a TTY, --quiet)",
            read_text(os.path.join(d, "recorder.err")))
    exp = load_expect(os.path.join(d, "expected.jsonl"))
    want = exp["frames"]
    t = load_trace(os.path.join(d, "rec.h5"))
    check_attrs(c, t, "signal")
    c.check(not [m for m in t.markers if m[1] != MARKER_INITIAL_STATE], "no syn_dropped or resync markers", t.markers)
    c.check(not t.markers, "no initial_state frame: the device was idle and fresh at start", t.markers)
    got, unknown = live_frames(t.events)
    c.check(not unknown, "no unexpected event codes", unknown[:5])
    c.check(len(got) == len(want) == 94, f"frame count {len(got)} == script's {len(want)}")
    check_frames(c, got, want)
    samples = check_rows(c, t, want, [g["t"] for g in got])

    # Properties of the gesture, independent of the expect file.
    ramp = [s for s in samples if s[1] == 0][1:41]
    c.check(len(ramp) == 40 and all(s[6] == FLAG_PRESSURE for s in ramp),
            "the 40 ramp rows are stationary pressure changes (flags 4 only)", [s[6] for s in ramp])
    c.check([s[5] for s in ramp] == list(range(16, 251, 6)) and {(s[3], s[4]) for s in ramp} == {(1000, 2000)},
            "ramp pressure 16, 22, ... 250 at x/y 1000/2000")
    stationary = sum(1 for s in t.samples if s[6] == FLAG_PRESSURE)
    c.check(stationary == 60, f"60 stationary pressure rows in all (40 ramp + 20 second finger): {stationary}")
    c.check([(r[2], r[1]) for r in t.contacts] == [(100, 0), (101, 1)], "contacts: tid 100 in slot 0, tid 101 in slot 1",
            t.contacts)
    c.check(all(r[5] > r[4] for r in t.contacts), "both contacts ended (t_up_ns > t_down_ns)")
    return t
