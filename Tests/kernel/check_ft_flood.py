#!/usr/bin/env python3
"""Host-side check of the ft-flood scenario.

usage: check_ft_flood.py RESULT_DIR

The recorder was SIGSTOPped while `player flood 3000` overflowed the kernel's
buffer for it, and SIGCONTed while the player held its final state (slot 0,
tid 200 at 3000/1500, pressure 200); then the player lifted. The trace must
hold the SYN_DROPPED with a syn_dropped marker, a resync marker right after
it, then libevdev's resync delta, whose frame brings the contact state to the
held state exactly; then the lift, as sent. Samples and contacts follow.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ft_checks import check_scenario_ran, scenario_dir  # noqa: E402
from ft_trace import (  # noqa: E402
    EXIT_DEVICE_REMOVED, FLAG_AFTER_DROP, MARKER_RESYNC, MARKER_SYN_DROPPED, check_attrs, check_frames, contact_rows,
    expected_rows, first_difference, live_frames, load_trace,
)
from kernel_expect import EV_SYN, SYN_DROPPED, Checks, load_expect, read_text, snapshot_key  # noqa: E402


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = scenario_dir(argv[1], "ft-flood")
    c = Checks("check_ft_flood")
    print(f"checking {d}")
    if not check_scenario_ran(c, d):
        return c.finish()
    rc = read_text(os.path.join(d, "recorder.rc"))
    # The player destroys the device 100 ms after the lift: the recorder
    # either got SIGINT first (0) or saw the device go (3).
    c.check(rc in ("0", str(EXIT_DEVICE_REMOVED)), "recorder exited 0 (SIGINT) or 3 (device removed after the lift)", rc)
    exp = load_expect(os.path.join(d, "expected.jsonl"))
    hold = exp["hold"]
    want = exp["frames"]
    final = next(i for i, f in enumerate(want) if f["phase"] == "final")
    t = load_trace(os.path.join(d, "rec.h5"))
    check_attrs(c, t, "signal" if rc == "0" else "device-removed")

    drops = [i for i, e in enumerate(t.events) if e[1] == EV_SYN and e[2] == SYN_DROPPED]
    c.check(len(drops) == 1, f"the kernel really dropped events: one SYN_DROPPED in the stream ({len(drops)})")
    if not drops:
        return c.finish()
    drop = drops[0]
    time_of_drop = t.events[drop][0]
    c.check(t.markers == [(time_of_drop, MARKER_SYN_DROPPED, drop), (time_of_drop, MARKER_RESYNC, drop + 1)],
            "markers: syn_dropped at the SYN_DROPPED event, then resync at the next event", t.markers)

    got, unknown = live_frames(t.events)
    c.check(not unknown, "no unexpected event codes", unknown[:5])
    resynced = [i for i, g in enumerate(got) if g["dropped"]]
    if not c.check(len(resynced) == 1, "one frame ends the resync delta"):
        return c.finish()
    r = resynced[0]
    before, resync, after = got[:r], got[r], got[r + 1:]
    check_frames(c, before, want[:len(before)], "frame before the drop")
    c.check(snapshot_key(resync) == snapshot_key(hold["final"]), "the state after the resync equals the held state",
            f"got {snapshot_key(resync)} want {snapshot_key(hold['final'])}")
    lift = want[final + 1:]
    c.check(len(after) == len(lift) == 1, f"after the resync: the lift frame ({len(after)} frames)")
    check_frames(c, after, lift, "frame after the resync")

    # Samples and contacts as the format prescribes for: the frames kept before
    # the drop, the resynced state, the lift; rows of the resync frame carry flag 8.
    frames = want[:len(before)] + [dict(hold["final"])] + lift
    times = [g["t"] for g in got]
    want_samples, want_contacts = expected_rows(frames, times)
    want_samples = [s[:6] + (s[6] | FLAG_AFTER_DROP,) if s[0] == resync["t"] else s for s in want_samples]
    c.check(t.samples == want_samples, f"sample rows match ({len(want_samples)})", first_difference(t.samples, want_samples))
    c.check(any(s[0] == resync["t"] and s[6] & FLAG_AFTER_DROP and (s[3], s[4], s[5]) == (3000, 1500, 200) for s in t.samples),
            "a row at the resync frame holds 3000/1500/200 with flag 8 (after SYN_DROPPED)")
    got_contacts, consistent = contact_rows(t)
    c.check(got_contacts == want_contacts, "contacts match", first_difference(got_contacts, want_contacts))
    c.check(consistent, "contact rows point at their own samples")
    c.check(t.contacts and t.contacts[-1][2] == 200 and t.contacts[-1][5] == after[0]["t"],
            "the held contact (tid 200) ends at the lift", t.contacts)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
