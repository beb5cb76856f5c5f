"""Host-side helpers for the forcetrace recorder scenarios (check_ft_*.py).

- load_trace(path, swmr=False): the one recording in a forcetrace HDF5 file
  (attrs, events, samples, contacts, markers) as plain Python lists
- live_frames(events): per-SYN_REPORT slot snapshots of the recorded events,
  applying the events after SYN_DROPPED as a live recorder writes them
  (libevdev's resync delta), unlike kernel_expect.MTReplay which discards them
- expected_rows(frames, times): the samples and contacts rows the format
  (docs/FORMAT.md) prescribes for the player's frames, derived independently
  of forcetrace's decoder
- check_attrs / check_frames / check_rows: shared checks
"""
import h5py

from kernel_expect import (
    ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_PRESSURE, ABS_MT_SLOT,
    ABS_MT_TRACKING_ID, ABS_PRESSURE, ABS_X, ABS_Y, EV_ABS, EV_KEY, EV_SYN, NSLOTS,
    SYN_DROPPED, SYN_REPORT, MTReplay, snapshot_key,
)

NAME = "forcetrace-test-touch"
BTN_TOOL_FINGER = 0x145
FLAG_DOWN, FLAG_MOVED, FLAG_PRESSURE, FLAG_AFTER_DROP = 1, 2, 4, 8
MARKER_SYN_DROPPED, MARKER_RESYNC, MARKER_INITIAL_STATE = 1, 2, 3
EXIT_DEVICE_REMOVED = 3


class Trace:
    pass


def load_trace(path, swmr=False):
    t = Trace()
    with h5py.File(path, "r", swmr=swmr) as f:
        t.root_attrs = dict(f.attrs)
        names = list(f["recordings"])
        t.names = names
        g = f["recordings"][names[0]]
        t.attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in g.attrs.items()}

        def table(name):
            return {c: g[name][c][:].tolist() for c in g[name]}

        ev = table("events")
        t.events = list(zip(ev["t_ns"], ev["type"], ev["code"], ev["value"]))
        s = table("samples")
        t.samples = list(zip(s["t_ns"], s["contact"], s["slot"], s["x"], s["y"], s["pressure"], s["flags"]))
        c = table("contacts")
        t.contacts = list(zip(c["id"], c["slot"], c["tracking_id"], c["tool"], c["t_down_ns"], c["t_up_ns"],
                              c["first_sample"], c["last_sample"], c["n_samples"]))
        m = table("markers")
        t.markers = list(zip(m["t_ns"], m["kind"], m["event_index"]))
        a = table("axes")
        t.axes = {code: (lo, hi, fuzz, flat, res) for code, lo, hi, fuzz, flat, res in
                  zip(a["code"], a["min"], a["max"], a["fuzz"], a["flat"], a["resolution"])}
        t.axis_values = dict(zip(a["code"], a["value"]))
    return t


def live_frames(events, axis_values=None):
    """Snapshots at every SYN_REPORT, applying resync deltas. Each snapshot
    also has "t" (t_ns of its SYN_REPORT), "events" (the frame's raw events)
    and "dropped" (the frame follows a SYN_DROPPED). `axis_values` (the axes
    table's value column) seeds the state, as the format says readers must."""
    replay = MTReplay()
    if axis_values:
        for code in replay.abs:
            replay.abs[code] = axis_values.get(code, 0)
        for slot in replay.slots:
            slot.update(x=axis_values.get(ABS_MT_POSITION_X, 0), y=axis_values.get(ABS_MT_POSITION_Y, 0),
                        p=axis_values.get(ABS_MT_PRESSURE, 0))
        replay.cur = axis_values.get(ABS_MT_SLOT, 0)
    frames = []
    dropped = False
    for t, ty, co, va in events:
        if ty == EV_SYN and co == SYN_DROPPED:
            dropped = True
            replay.frame_events = []
            continue
        snap = replay.feed(ty, co, va, t)
        if snap is not None:
            snap["dropped"] = dropped
            dropped = False
            frames.append(snap)
    return frames, replay.unknown


def expected_rows(frames, times, first_contact=0):
    """samples rows (t, contact, slot, x, y, p, flags) and contacts rows
    (id, slot, tid, tool, t_down, t_up, n_samples) for the player's frames,
    each frame at times[i]. A contact is a tracking id's life in a slot; its
    down frame gives a row; later frames give a row when x, y or p changed;
    the frame that lifts it gives none. Contacts still down have t_up -1."""
    samples, contacts, open_contacts = [], [], {}
    previous = [{"tid": -1}] * NSLOTS
    next_id = first_contact
    for frame, t in zip(frames, times):
        for slot, s in enumerate(frame["slots"]):
            before = previous[slot]
            if before["tid"] != -1 and s["tid"] != before["tid"]:
                contact = open_contacts.pop(slot)
                contact["t_up"] = t
            if s["tid"] == -1:
                continue
            if s["tid"] != before["tid"]:
                open_contacts[slot] = {"id": next_id, "slot": slot, "tid": s["tid"], "t_down": t, "t_up": -1, "n": 1}
                contacts.append(open_contacts[slot])
                samples.append((t, next_id, slot, s["x"], s["y"], s["p"], FLAG_DOWN))
                next_id += 1
            else:
                flags = (FLAG_MOVED if (s["x"], s["y"]) != (before["x"], before["y"]) else 0) | \
                        (FLAG_PRESSURE if s["p"] != before["p"] else 0)
                if flags:
                    samples.append((t, open_contacts[slot]["id"], slot, s["x"], s["y"], s["p"], flags))
                    open_contacts[slot]["n"] += 1
        previous = [dict(s) for s in frame["slots"]]
    contact_rows = [(c["id"], c["slot"], c["tid"], BTN_TOOL_FINGER, c["t_down"], c["t_up"], c["n"]) for c in contacts]
    return samples, contact_rows


def contact_rows(trace):
    """Recorded contacts in expected_rows' shape, plus a check that
    first_sample/last_sample/n_samples point at the contact's own rows."""
    rows, consistent = [], True
    for cid, slot, tid, tool, down, up, first, last, n in trace.contacts:
        own = [i for i, s in enumerate(trace.samples) if s[1] == cid]
        consistent &= bool(own) and own[0] == first and own[-1] == last and len(own) == n
        rows.append((cid, slot, tid, tool, down, up, n))
    return rows, consistent


def check_attrs(c, t, stop_reason):
    c.check(t.root_attrs.get("format") == "forcetrace" and t.root_attrs.get("format_version") == 1,
            "root: format forcetrace, format_version 1")
    a = t.attrs
    c.check(a.get("device_name") == NAME, "device_name", a.get("device_name"))
    c.check(str(a.get("source", "")).startswith("evdev:/dev/input/event"), "source evdev:/dev/input/eventN", a.get("source"))
    c.check(a.get("clock") == "monotonic", "clock monotonic", a.get("clock"))
    c.check(a.get("contact_protocol") == "mt-protocol-b" and a.get("slots") == NSLOTS, "protocol B, 2 slots")
    c.check(a.get("pressure_axis") == ABS_MT_PRESSURE, "pressure_axis ABS_MT_PRESSURE", a.get("pressure_axis"))
    for code in (ABS_X, ABS_Y, ABS_MT_POSITION_X, ABS_MT_POSITION_Y):
        c.check(t.axes.get(code) == (0, 4095, 0, 0, 40), f"axis 0x{code:02x} 0..4095 res 40", t.axes.get(code))
    for code in (ABS_PRESSURE, ABS_MT_PRESSURE):
        c.check(t.axes.get(code, (None, None))[:2] == (0, 255), f"axis 0x{code:02x} 0..255", t.axes.get(code))
    if stop_reason is None:
        c.check("import_status" not in a and "stop_reason" not in a, "no import_status/stop_reason (the writer never finished)")
    else:
        c.check(a.get("import_status") == "complete", "import_status complete", a.get("import_status"))
        c.check(a.get("stop_reason") == stop_reason, f"stop_reason {stop_reason}", a.get("stop_reason"))
    ts = [e[0] for e in t.events]
    c.check(all(b >= a for a, b in zip(ts, ts[1:])) and (not ts or ts[0] >= 0),
            "event times start at or after t0 and never go back")


def check_frames(c, got, want, what="frame"):
    """Every recorded frame's state and raw events equal the player's."""
    state_bad = [i for i, (g, e) in enumerate(zip(got, want)) if snapshot_key(g) != snapshot_key(e)]
    c.check(not state_bad, f"every {what}'s slot/pointer state matches the script",
            f"first mismatch at {what} {state_bad[0]}: got {snapshot_key(got[state_bad[0]])} "
            f"want {snapshot_key(want[state_bad[0]])}" if state_bad else "")
    events_bad = [i for i, (g, e) in enumerate(zip(got, want)) if g["events"] != e["events"]]
    c.check(not events_bad, f"every {what}'s raw events equal what the player sent",
            f"first mismatch at {what} {events_bad[0]}: got {got[events_bad[0]]['events']} "
            f"want {want[events_bad[0]]['events']}" if events_bad else "")


def first_difference(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f"row {i}: got {g} want {w}"
    return f"{len(got)} rows recorded, {len(want)} expected"


def check_rows(c, t, frames, times, complete=True):
    """samples and contacts equal what the format prescribes for `frames`."""
    want_samples, want_contacts = expected_rows(frames, times)
    c.check(t.samples == want_samples, f"all {len(want_samples)} sample rows (t, contact, slot, x, y, pressure, flags) match the script",
            first_difference(t.samples, want_samples))
    got_contacts, consistent = contact_rows(t)
    if not complete:
        # A crashed file has rows only for contacts that ended before the last flush.
        want_contacts = [w for w in want_contacts if w[5] != -1 and w[5] <= (times[-1] if times else -1)][:len(got_contacts)]
    c.check(got_contacts == want_contacts, f"contacts {[(w[2], w[4], w[5]) for w in want_contacts]} (tid, down, up) match",
            first_difference(got_contacts, want_contacts))
    c.check(consistent, "each contact's first_sample/last_sample/n_samples point at its own rows")
    return want_samples
