#!/usr/bin/env python3
"""Host-side check of the player-selftest scenario (flood and unplug modes).

usage: check_player_selftest.py RESULT_DIR   (run-guest.sh --out dir or its
player-selftest/ subdir)

flood:  the recording must contain SYN_DROPPED; after the frame that the
        drop cut (discarded up to its SYN_REPORT, as the protocol requires)
        the recorded frames must be exactly the last frames the player sent
        (the kernel keeps the newest events), ending with the held final
        DOWN state (3000,1500,p=200) and then the lift.
unplug: every frame up to the unplug is recorded exactly; the contact is
        never lifted by a tracking-id -1; the kernel's own key release
        (BTN_TOOL_FINGER/BTN_TOUCH 0 + SYN_REPORT value 1) ends the stream.
grab:   the grabbing reader (evreader --grab) counted every event the player
        sent; the second, non-grabbing evreader got none.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_expect import (  # noqa: E402
    BTN_TOOL_FINGER, BTN_TOUCH, EV_KEY, EV_SYN, SYN_DROPPED, SYN_REPORT, Checks,
    MTReplay, load_expect, parse_evemu, read_text, snapshot_key,
)


def replay(events):
    r = MTReplay()
    out = []
    for t, ty, co, va in events:
        s = r.feed(ty, co, va, t)
        if s is not None:
            out.append(s)
    return out


def check_flood(c, d):
    print("flood:")
    exp = load_expect(os.path.join(d, "expected.jsonl"))
    _, events = parse_evemu(os.path.join(d, "recording.evemu"))
    c.check(read_text(os.path.join(d, "player.rc")) == "0", "player exited 0")
    frames = exp["frames"]
    hold = exp["hold"]
    c.check(hold is not None and snapshot_key(hold["final"])[0] == ((200, 3000, 1500, 200), (-1,)),
            "player's held final state is finger DOWN at (3000,1500) p=200")
    c.check(exp["end"] is not None and frames[-1]["phase"] == "lift", "player lifted after the hold")
    sent = sum(len(f["events"]) for f in frames)
    ndrop = sum(1 for _, ty, co, _ in events if ty == EV_SYN and co == SYN_DROPPED)
    c.check(ndrop >= 1, f"SYN_DROPPED recorded ({ndrop}x; {len(events)} of {sent} events reached the reader)")
    got = replay(events)
    after = [g for g in got if not g["dropped"]]
    # frames recorded after the (last) drop must be an exact suffix of what was sent
    last_drop = max((i for i, g in enumerate(got) if g["dropped"]), default=-1)
    tail = got[last_drop + 1:]
    want = frames[len(frames) - len(tail):] if tail else []
    c.check(len(tail) > 0 and [g["events"] for g in tail] == [f["events"] for f in want],
            f"the {len(tail)} frames after the drop are exactly the newest frames sent")
    phases = [f["phase"] for f in want]
    c.check(phases[-2:] == ["final", "lift"], "they end with the final and lift frames", phases[-3:])
    c.check(len(after) < len(frames), "fewer frames recorded than sent", f"{len(after)} vs {len(frames)}")


def check_unplug(c, d):
    print("unplug:")
    exp = load_expect(os.path.join(d, "expected.jsonl"))
    _, events = parse_evemu(os.path.join(d, "recording.evemu"))
    c.check(read_text(os.path.join(d, "player.rc")) == "0", "player exited 0")
    c.check(read_text(os.path.join(d, "evemu.rc")) not in (None, "timeout"), "evemu-record exited by itself after the unplug")
    frames = exp["frames"]
    end = exp["end"]
    c.check(end is not None and end["unplugged"] and end["final"]["slots"][0]["tid"] == 300,
            "player unplugged with contact 300 still down")
    got = replay(events)
    played = got[:len(frames)]
    c.check(len(frames) >= 5, f"player sent {len(frames)} frames before the unplug")
    c.check([snapshot_key(g) for g in played] == [snapshot_key(f) for f in frames]
            and [g["events"] for g in played] == [f["events"] for f in frames],
            f"all {len(frames)} played frames recorded exactly")
    rest = got[len(frames):]
    c.check(len(rest) == 1 and rest[0]["events"] == [[EV_KEY, BTN_TOOL_FINGER, 0], [EV_KEY, BTN_TOUCH, 0],
                                                    [EV_SYN, SYN_REPORT, 1]],
            "kernel released the keys on unregister (SYN_REPORT value 1)",
            [r["events"] for r in rest])
    c.check(all(s["slots"][0]["tid"] == 300 for s in got),
            "no tracking-id -1: the MT contact is never lifted, only the device vanishes")


def check_grab(c, d):
    print("grab:")
    exp = load_expect(os.path.join(d, "expected.jsonl"))
    frames = exp["frames"]
    want_ev = sum(1 for f in frames for e in f["events"] if e[0] != EV_SYN)
    g = dict(kv.split("=") for kv in (read_text(os.path.join(d, "grabber.txt"), "") or "").split() if "=" in kv)
    c.check(g.get("grabbed") == "1" and g.get("events") == str(want_ev) and g.get("syn_reports") == str(len(frames))
            and g.get("dropped") == "0", f"grabber saw all {want_ev} events in {len(frames)} frames", g)
    c.check(g.get("enodev") == "1", "grabber saw the device vanish (ENODEV)")
    s = dict(kv.split("=") for kv in (read_text(os.path.join(d, "second.txt"), "") or "").split() if "=" in kv)
    c.check(s.get("events") == "0" and s.get("syn_reports") == "0" and s.get("grabbed") == "0",
            "second (non-grabbing) reader saw no events during the grab", s)
    c.check(s.get("enodev") == "1", "second reader saw the device vanish (it was really open)")


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = argv[1]
    if os.path.isdir(os.path.join(d, "player-selftest")):
        d = os.path.join(d, "player-selftest")
    c = Checks("check_player_selftest")
    print(f"checking {d}")
    c.check(read_text(os.path.join(d, "status")) == "0", "guest scenario exited 0")
    for step, fn, rec in (("flood", check_flood, "recording.evemu"), ("unplug", check_unplug, "recording.evemu"),
                          ("grab", check_grab, "second.txt")):
        sd = os.path.join(d, step)
        if c.check(os.path.isfile(os.path.join(sd, rec))
                   and os.path.isfile(os.path.join(sd, "expected.jsonl")), f"{step}: outputs present"):
            fn(c, sd)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
