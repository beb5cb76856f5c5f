#!/usr/bin/env python3
"""Host-side check of the evemu-smoke scenario.

usage: check_evemu_smoke.py RESULT_DIR
  RESULT_DIR is run-guest.sh's --out directory (or its evemu-smoke/ subdir).

Compares evemu-record's recording against the player's expected.jsonl:
device description, every frame's events and resulting slot states, and
independent properties of the gesture (pressure ramp with x/y still, two
simultaneous contacts, everything lifted at the end, no SYN_DROPPED).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_expect import (  # noqa: E402
    ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_PRESSURE, ABS_MT_SLOT,
    ABS_MT_TRACKING_ID, ABS_PRESSURE, ABS_X, ABS_Y, EV_SYN, INPUT_PROP_DIRECT,
    SYN_DROPPED, Checks, MTReplay, load_expect, parse_evemu, read_text,
    snapshot_key,
)

NAME = "forcetrace-test-touch"


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = argv[1]
    if os.path.isdir(os.path.join(d, "evemu-smoke")):
        d = os.path.join(d, "evemu-smoke")
    c = Checks("check_evemu_smoke")
    print(f"checking {d}")

    c.check(read_text(os.path.join(d, "status")) == "0", "guest scenario exited 0",
            read_text(os.path.join(d, "failure"), ""))
    c.check(read_text(os.path.join(d, "player.rc")) == "0", "player exited 0")
    exp_path = os.path.join(d, "expected.jsonl")
    rec_path = os.path.join(d, "recording.evemu")
    if not c.check(os.path.isfile(exp_path) and os.path.isfile(rec_path),
                   "expected.jsonl and recording.evemu present"):
        return c.finish()

    exp = load_expect(exp_path)
    header, events = parse_evemu(rec_path)
    frames = exp["frames"]

    # --- device description ---
    c.check(header["name"] == NAME, "device name", repr(header["name"]))
    props = header["props"]
    c.check(len(props) > 0 and props[0] & (1 << INPUT_PROP_DIRECT), "INPUT_PROP_DIRECT set")
    ai = header["absinfo"]
    for code in (ABS_X, ABS_Y, ABS_MT_POSITION_X, ABS_MT_POSITION_Y):
        c.check(ai.get(code) == (0, 4095, 0, 0, 40), f"absinfo 0x{code:02x} 0..4095 res 40", ai.get(code))
    for code in (ABS_PRESSURE, ABS_MT_PRESSURE):
        c.check(ai.get(code, (None, None))[:2] == (0, 255), f"absinfo 0x{code:02x} 0..255", ai.get(code))
    c.check(ai.get(ABS_MT_SLOT, (None, None))[:2] == (0, 1), "ABS_MT_SLOT 0..1", ai.get(ABS_MT_SLOT))
    c.check(ABS_MT_TRACKING_ID in ai, "ABS_MT_TRACKING_ID present")
    c.check(exp["end"] is not None and exp["end"]["frames"] == len(frames), "expect file complete")

    # --- frame-by-frame replay ---
    replay = MTReplay()
    got = []
    for t, ty, co, va in events:
        snap = replay.feed(ty, co, va, t)
        if snap is not None:
            got.append(snap)
    c.check(not any(ty == EV_SYN and co == SYN_DROPPED for _, ty, co, _ in events), "no SYN_DROPPED")
    c.check(not replay.unknown, "no unexpected event codes", replay.unknown[:5])
    c.check(len(got) == len(frames), f"frame count {len(got)} == expected {len(frames)}")
    state_bad = [i for i, (g, e) in enumerate(zip(got, frames)) if snapshot_key(g) != snapshot_key(e)]
    c.check(not state_bad, "every frame's slot/pointer state matches the script",
            f"first mismatch at frame {state_bad[0]}: got {snapshot_key(got[state_bad[0]])} "
            f"want {snapshot_key(frames[state_bad[0]])}" if state_bad else "")
    ev_bad = [i for i, (g, e) in enumerate(zip(got, frames)) if g["events"] != e["events"]]
    c.check(not ev_bad, "every frame's events match exactly what the player sent",
            f"first mismatch at frame {ev_bad[0]}: got {got[ev_bad[0]]['events']} "
            f"want {frames[ev_bad[0]]['events']}" if ev_bad else "")

    # --- properties of the gesture, independent of the expect file ---
    s0 = [g["slots"][0] for g in got]
    ramp = [i for i, e in enumerate(frames) if e["phase"] in ("down", "ramp")]
    if c.check(len(ramp) >= 30 and ramp[-1] < len(got), f"ramp phase present ({len(ramp)} frames)"):
        ps = [s0[i]["p"] for i in ramp]
        c.check(all(b > a for a, b in zip(ps, ps[1:])) and ps[0] == 10 and ps[-1] == 250,
                "pressure ramps strictly 10 -> 250", ps)
        c.check(len({(s0[i]["x"], s0[i]["y"], s0[i]["tid"]) for i in ramp}) == 1,
                "x/y/tracking id stay still during the ramp")
    move = [i for i, e in enumerate(frames) if e["phase"] == "move"]
    if move and move[-1] < len(got):
        xs = [s0[i]["x"] for i in move]
        c.check(all(b > a for a, b in zip(xs, xs[1:])) and len({s0[i]["p"] for i in move}) == 1,
                "finger 1 moves in x at constant pressure")
    two = [g for g in got if sum(s["tid"] != -1 for s in g["slots"]) == 2]
    c.check(len(two) >= 10 and all(g["tool"] == "doubletap" for g in two),
            f"two simultaneous contacts with BTN_TOOL_DOUBLETAP ({len(two)} frames)")
    tids = {s["tid"] for g in got for s in g["slots"] if s["tid"] != -1}
    c.check(tids == {100, 101}, "tracking ids 100 and 101", tids)
    if got:
        last = got[-1]
        c.check(all(s["tid"] == -1 for s in last["slots"]) and last["btn_touch"] == 0
                and last["abs_p"] == 0, "all contacts lifted at the end")
    ts = [t for t, *_ in events]
    c.check(all(b >= a for a, b in zip(ts, ts[1:])), "event timestamps monotonic")
    if ramp and ramp[-1] < len(got):
        dur = got[ramp[-1]]["t"] - got[ramp[0]]["t"]
        c.check(0.2 <= dur <= 5.0, f"ramp took {dur:.3f}s (~40 frames at ~10 ms)")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
