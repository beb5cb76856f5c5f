"""Shared host-side helpers for the live-kernel scenario checkers.

- load_expect(path): parse the player's --expect JSON lines
- MTReplay: replays an evdev event stream (type, code, value) through a
  protocol-B state model and yields one snapshot per SYN_REPORT, in the same
  shape as the player's expected frames, so any recorder's output (evemu,
  forcetrace HDF5, ...) can be compared frame by frame.
- parse_evemu(path): header + events of an evemu-record file
- Checks: a tiny pass/fail counter that prints the plain closing line
  "N passed, N failed".
"""
import json
import sys

EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
SYN_REPORT, SYN_DROPPED = 0, 3
BTN_TOUCH, BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP = 0x14A, 0x145, 0x14D
ABS_X, ABS_Y, ABS_PRESSURE = 0x00, 0x01, 0x18
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y = 0x2F, 0x35, 0x36
ABS_MT_TRACKING_ID, ABS_MT_PRESSURE = 0x39, 0x3A
INPUT_PROP_DIRECT = 1
NSLOTS = 2


def load_expect(path):
    """Return dict(device=..., frames=[...], hold=..., end=...)."""
    out = {"device": None, "frames": [], "hold": None, "end": None}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            rec = json.loads(line)
            t = rec.get("type")
            if t == "frame":
                if rec["frame"] != len(out["frames"]):
                    raise ValueError(f"{path}:{n}: frame {rec['frame']} out of order")
                out["frames"].append(rec)
            elif t in ("device", "hold", "end"):
                out[t] = rec
            else:
                raise ValueError(f"{path}:{n}: unknown record type {t!r}")
    return out


def snapshot_key(rec):
    """Comparable form of a frame/snapshot: stale values of lifted slots ignored."""
    slots = []
    for s in rec["slots"]:
        if s["tid"] == -1:
            slots.append((-1,))
        else:
            slots.append((s["tid"], s["x"], s["y"], s["p"]))
    return (tuple(slots), rec["btn_touch"], rec["tool"], rec["abs_x"], rec["abs_y"], rec["abs_p"])


class MTReplay:
    """Protocol-B state machine over raw events.

    feed(type, code, value, t) returns a snapshot dict at SYN_REPORT, else
    None.  After SYN_DROPPED, events up to and including the next SYN_REPORT
    are discarded (as the evdev protocol requires) and the snapshot returned
    for that SYN_REPORT has "dropped": True; callers that resync state from
    ioctls must do so themselves (resync()).
    """

    def __init__(self, nslots=NSLOTS):
        self.slots = [{"tid": -1, "x": 0, "y": 0, "p": 0} for _ in range(nslots)]
        self.cur = 0
        self.keys = {BTN_TOUCH: 0, BTN_TOOL_FINGER: 0, BTN_TOOL_DOUBLETAP: 0}
        self.abs = {ABS_X: 0, ABS_Y: 0, ABS_PRESSURE: 0}
        self.in_drop = False
        self.frame_events = []
        self.unknown = []

    def tool(self):
        if self.keys[BTN_TOOL_DOUBLETAP]:
            return "doubletap"
        if self.keys[BTN_TOOL_FINGER]:
            return "finger"
        return "none"

    def snapshot(self):
        return {
            "slots": [dict(slot=i, **s) for i, s in enumerate(self.slots)],
            "btn_touch": self.keys[BTN_TOUCH],
            "tool": self.tool(),
            "abs_x": self.abs[ABS_X],
            "abs_y": self.abs[ABS_Y],
            "abs_p": self.abs[ABS_PRESSURE],
        }

    def feed(self, etype, code, value, t=None):
        if etype == EV_SYN and code == SYN_DROPPED:
            self.in_drop = True
            self.frame_events = []
            return None
        if etype == EV_SYN and code == SYN_REPORT:
            snap = self.snapshot()
            # value 1 marks the kernel's own SYN_REPORT after it released
            # held keys on unregister (unplug); players always send 0
            snap["events"] = self.frame_events + [[EV_SYN, SYN_REPORT, value]]
            snap["t"] = t
            snap["dropped"] = self.in_drop
            self.in_drop = False
            self.frame_events = []
            return snap
        if self.in_drop:
            return None
        self.frame_events.append([etype, code, value])
        if etype == EV_ABS:
            if code == ABS_MT_SLOT:
                self.cur = value
            elif code == ABS_MT_TRACKING_ID:
                self.slots[self.cur]["tid"] = value
            elif code == ABS_MT_POSITION_X:
                self.slots[self.cur]["x"] = value
            elif code == ABS_MT_POSITION_Y:
                self.slots[self.cur]["y"] = value
            elif code == ABS_MT_PRESSURE:
                self.slots[self.cur]["p"] = value
            elif code in self.abs:
                self.abs[code] = value
            else:
                self.unknown.append((etype, code, value))
        elif etype == EV_KEY and code in self.keys:
            self.keys[code] = value
        else:
            self.unknown.append((etype, code, value))
        return None


def parse_evemu(path):
    """Return (header, events): header has name, id, props (bytes), absinfo
    {code: (min, max, fuzz, flat, res)}; events are (t, type, code, value)."""
    header = {"name": None, "id": None, "props": b"", "absinfo": {}}
    events = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            tag, _, rest = line.partition(":")
            rest = rest.strip()
            if tag == "N":
                header["name"] = rest
            elif tag == "I":
                header["id"] = tuple(int(x, 16) for x in rest.split())
            elif tag == "P":
                header["props"] += bytes(int(x, 16) for x in rest.split())
            elif tag == "A":
                parts = rest.split()
                header["absinfo"][int(parts[0], 16)] = tuple(int(x) for x in parts[1:])
            elif tag == "E":
                ts, ty, co, va = rest.split()[:4]
                events.append((float(ts), int(ty, 16), int(co, 16), int(va)))
    return header, events


class Checks:
    def __init__(self, title):
        self.title = title
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"  ok   {what}")
        else:
            self.failed += 1
            print(f"  FAIL {what}" + (f": {detail}" if detail else ""))
        return ok

    def finish(self):
        print(f"{self.title}: {self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 and self.passed > 0 else 1


def read_text(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


if __name__ == "__main__":
    sys.exit("library module; run a check_*.py script")
