#!/usr/bin/env python3
"""Host-side check of the ft-plugin scenario: what libinput 1.31.3 does with
the Lua plugin `forcetrace suggest --format libinput-plugin` wrote.

usage: check_ft_plugin.py RESULT_DIR

Three debug-events read the played pen session: `plain` without plugins,
`plugin` with them, and `other` with them on a device of another name.

Every TABLET_TOOL line libinput should print is worked out here from the
played events with libinput's rule (`detect_tool_contact`: tip down at
>= upper, up at <= lower, on the proximity-in frame and on frames with an
axis update; up when the tool leaves; one line a frame: proximity, tip or
axis): plain with the defaults of the whole axis, plugin with the defaults
of the range the plugin sets (5 % and 1 % of it above its minimum,
`axis_range_percentage`). The logs must hold exactly those lines, kind, tip
and position, in order.

Each pressure libinput reports is set against the two things it could be:
the stored value normalized over [lower, maximum] (`normalize_pressure`,
what libinput's tablet code reads) and the plugin's curve of it (what the
plugin's frame hook writes). The checks assert what libinput does: the
linear one (docs/ANALYSIS.md, "Pen settings")."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kernel_expect import Checks, parse_evemu, read_text  # noqa: E402

EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
ABS_X, ABS_Y, ABS_PRESSURE = 0x00, 0x01, 0x18
TABLET_AXES = {0x00, 0x01, 0x02, 0x08, 0x18, 0x19, 0x1a, 0x1b}
TOOLS = set(range(0x140, 0x148))
# " event1   TABLET_TOOL_AXIS    3  +0.018s\t\t86.55*/51.45 \tpressure: 0.00*" (tools/shared.c, libinput-record.c's buffer_tablet_axes)
TABLET_LINE = re.compile(r"^[ -]event\d+\s+TABLET_TOOL_(PROXIMITY|TIP|AXIS)\s+(?:\d+\s+)?\+\S+s\s+"
                         r"([0-9.]+)[* ]?/([0-9.]+)[* ]?\s+pressure: ([0-9.]+)")
# The count after the event type numbers runs of the same type as debug-events
# happened to read them, which depends on timing: it is left out, like the time.
EVENT_LINE = re.compile(r"^([ -])event\d+\s+([A-Z_]+)\s+(?:\d+\s+)?(?:\+\S+s)?(.*)$")
# debug-events prints values with two fraction digits.
ROUNDING = 0.0051


def percentage(low, high, percent):
    """axis_range_percentage: (int)((max - min) * percent / 100.0 + min)."""
    return int((high - low) * percent / 100.0 + low)


def expected_lines(events, upper, lower):
    """[(kind, tip, x, y, raw pressure)]: the TABLET_TOOL lines libinput prints
    for the events, kind PROXIMITY (tip in/out), TIP (down/up) or AXIS. A
    frame with the tool leaving reports the axes of the frame before it."""
    rows = []
    state = {code: 0 for code in TABLET_AXES}
    tool, down, entering, leaving, changed = None, False, False, False, False
    last = (0, 0, 0)
    for _, ty, code, value in events:
        if ty == EV_ABS and code in TABLET_AXES:
            changed = changed or state[code] != value
            state[code] = value
        elif ty == EV_KEY and code in TOOLS:
            if value and tool is None:
                tool, entering = code, True
            elif not value and tool == code:
                leaving = True
        elif ty == EV_SYN and code == 0:
            now = (state[ABS_X], state[ABS_Y], state[ABS_PRESSURE])
            if entering:
                rows.append(("PROXIMITY", "in") + now)
                if now[2] >= upper:
                    down = True
                    rows.append(("TIP", "down") + now)
            elif leaving:
                if down:
                    rows.append(("TIP", "up") + last)
                    down = False
                rows.append(("PROXIMITY", "out") + last)
                tool = None
            elif tool is not None and changed:
                if not down and now[2] >= upper:
                    down = True
                    rows.append(("TIP", "down") + now)
                elif down and now[2] <= lower:
                    down = False
                    rows.append(("TIP", "up") + now)
                else:
                    rows.append(("AXIS", "") + now)
            if tool is not None:
                last = now
            entering = leaving = changed = False
    return rows


def logged_lines(log):
    """[(kind, tip, x mm, y mm, reported pressure)] of the TABLET_TOOL lines."""
    rows = []
    for line in log.splitlines():
        m = TABLET_LINE.match(line)
        if not m:
            continue
        kind = m.group(1)
        if kind == "PROXIMITY":
            tip = "in" if "proximity-in" in line else "out"
        elif kind == "TIP":
            tip = line.split()[-1]
        else:
            tip = ""
        rows.append((kind, tip, float(m.group(2)), float(m.group(3)), float(m.group(4))))
    return rows


def same_place(want, got, resolution):
    """Kind, tip and position (mm, two digits) of a worked-out and a logged line agree."""
    return (want[:2] == got[:2] and abs(want[2] / resolution[0] - got[2]) < 0.006
            and abs(want[3] / resolution[1] - got[3]) < 0.006)


def event_lines(log, name):
    """Every event line of a log, without its device node, run count and time, the device's name as <device>
    (and runs of blanks as one: debug-events pads the name to a width)."""
    out = []
    for line in log.splitlines():
        m = EVENT_LINE.match(line)
        if m:
            out.append(" ".join((m.group(1) + m.group(2) + " " + m.group(3)).replace(name, "<device>").split()))
    return out


def plugin_constants(text):
    """LOW, HIGH and the curve's X1, Y1, X2, Y2 from the plugin's source."""
    low, high = map(int, re.search(r"local LOW, HIGH = (-?\d+), (-?\d+)", text).groups())
    curve = tuple(int(x) for x in re.search(r"local X1, Y1, X2, Y2 = (\d+), (\d+), (\d+), (\d+)", text).groups())
    return low, high, curve


def curve_of(value, low, high, curve):
    """The plugin's mapping of a raw value (its Lua, in Python)."""
    if value <= low or value >= high:
        return value
    x1, y1, x2, y2 = (c / 100 for c in curve)

    def bezier(t, a, b):
        u = 1 - t
        return 3 * u * u * t * a + 3 * u * t * t * b + t * t * t
    x = (value - low) / (high - low)
    lo, hi = 0.0, 1.0
    for _ in range(48):
        mid = (lo + hi) / 2
        if bezier(mid, x1, x2) < x:
            lo = mid
        else:
            hi = mid
    return int(low + bezier((lo + hi) / 2, y1, y2) * (high - low) + 0.5)


def normalized(raw, lower, maximum):
    """normalize_pressure: the value over [lower, maximum], clamped to 0..1."""
    return min(1.0, max(0.0, (raw - lower) / (maximum - lower)))


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = os.path.join(argv[1], "ft-plugin", "plugin")
    c = Checks("ft-plugin")
    logs = {name: read_text(os.path.join(d, f"{name}.log"), "") for name in ("plain", "plugin", "other")}
    source = read_text(os.path.join(d, "plugin.lua"), "")
    if not c.check(bool(source) and all(logs.values()), "the plugin was written and all three readers logged",
                   {k: len(v) for k, v in logs.items()}):
        return c.finish()
    header, events = parse_evemu(os.path.join(d, "played.evemu"))
    other_header, other_events = parse_evemu(os.path.join(d, "other.evemu"))
    axis_min, axis_max = header["absinfo"][ABS_PRESSURE][:2]
    resolution = (header["absinfo"][ABS_X][4] or 1, header["absinfo"][ABS_Y][4] or 1)
    low, high, curve = plugin_constants(source)
    try:
        with open(os.path.join(d, "suggestion.json")) as f:
            profile = json.load(f)["pen"]["profile"]
        suggested = (tuple(profile["usable_range"]), tuple(profile["range_fit"]["curve"]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        suggested = repr(e)
    c.check(suggested == ((low, high), curve), "the plugin carries suggest --format json's range and curve",
            f"plugin {(low, high)} {curve}, json {suggested}")

    c.check("Loading plugin from" in logs["plugin"] and "50-forcetrace-pen.lua" in logs["plugin"],
            "libinput 1.31.3 loaded the plugin from its compiled-in folder", logs["plugin"][:400])
    c.check(f"forcetrace: pressure range {low}..{high}" in logs["plugin"], "the plugin took the calibrated pen")
    c.check(not re.search(r"plugin bug|forcetrace: ABS_PRESSURE is not|[Ee]rror", logs["plugin"] + logs["other"]),
            "no plugin bug or error in either log")
    c.check("Loading plugin from" in logs["other"] and "forcetrace: pressure range" not in logs["other"],
            "on a device of another name the plugin loads and acts on nothing")
    c.check("Loading plugin" not in logs["plain"], "without --enable-plugins nothing is loaded")
    c.check("SYN_DROPPED" not in "".join(logs.values()), "no reader lost events (SYN_DROPPED)")

    # The control: the same events, another name; every event line alike.
    c.check([e[1:] for e in other_events] == [e[1:] for e in events] and other_header["name"] != header["name"],
            "the other device played the same events under another name")
    plain_events = event_lines(logs["plain"], header["name"])
    other_lines = event_lines(logs["other"], other_header["name"])
    first = next((i for i, (a, b) in enumerate(zip(plain_events, other_lines)) if a != b), None)
    c.check(plain_events == other_lines and len(plain_events) > 0,
            f"the other device with the plugin: the plain reader's {len(plain_events)} event lines, one by one",
            f"{len(plain_events)} against {len(other_lines)}; first difference at {first}: "
            f"{plain_events[first] if first is not None else ''!r} / {other_lines[first] if first is not None else ''!r}")

    readers = {"plain": (axis_min, axis_max), "plugin": (low, high)}
    lines = {}
    for name, (lo, hi) in readers.items():
        upper, lower = percentage(lo, hi, 5), percentage(lo, hi, 1)
        want, got = expected_lines(events, upper, lower), logged_lines(logs[name])
        lines[name] = (upper, lower, hi, want, got)
        bad = [i for i, (w, g) in enumerate(zip(want, got)) if not same_place(w, g, resolution)]
        tips = sum(1 for w in want if w[0] == "TIP")
        c.check(len(want) == len(got) and not bad and tips > 0,
                f"{name}: all {len(got)} tablet lines ({tips} tips) where the rule over {lo}..{hi} puts them "
                f"(down at >= {upper}, up at <= {lower})",
                f"{len(want)} worked out, {len(got)} logged; first difference at "
                f"{bad[0] if bad else min(len(want), len(got))}: "
                f"{want[bad[0]] if bad else ''} / {got[bad[0]] if bad else ''}")

    # The first tip down of each stroke: the recording's pressure there, with and without the plugin.
    print(f"  range {low}..{high} of {axis_min}..{axis_max}, curve {curve}: with the plugin tip down at >= "
          f"{lines['plugin'][0]}, up at <= {lines['plugin'][1]}; without, >= {lines['plain'][0]}, <= {lines['plain'][1]}")

    def strokes(rows):
        """Per proximity: the raw pressure at its first tip down, or None."""
        out, current = [], None
        for kind, tip, _, _, raw in rows:
            if (kind, tip) == ("PROXIMITY", "in"):
                current = None
            elif (kind, tip) == ("TIP", "down") and current is None:
                current = raw
            elif (kind, tip) == ("PROXIMITY", "out"):
                out.append(current)
        return out

    def logged_downs(rows):
        out, current = [], None
        for kind, tip, _, _, reported in rows:
            if (kind, tip) == ("PROXIMITY", "in"):
                current = None
            elif (kind, tip) == ("TIP", "down") and current is None:
                current = reported
            elif (kind, tip) == ("PROXIMITY", "out"):
                out.append(current)
        return out
    up_, lo_, hi_, want, got = lines["plugin"]
    plain_downs, plugin_downs = strokes(lines["plain"][3]), strokes(want)
    plugin_seen = logged_downs(got)
    print("  proximity | raw at tip down: plain  plugin | plugin's reported  linear  curve")
    for i, (a, b, seen) in enumerate(zip(plain_downs, plugin_downs, plugin_seen)):
        if a is None and b is None:
            continue
        lin = f"{normalized(b, lo_, hi_):.3f}" if b is not None else "-"
        cur = f"{normalized(curve_of(b, low, high, curve), lo_, hi_):.3f}" if b is not None else "-"
        print(f"  {i + 1:9} | {a if a is not None else '-':>18} {b if b is not None else '-':>7} | "
              f"{seen if seen is not None else '-':>17} {lin:>7} {cur:>6}")

    # Every pressure the plugin's reader reports: linear over the range, or the curve?
    for name in ("plain", "plugin"):
        up_, lo_, hi_, want, got = lines[name]
        n = linear = curved = telling = telling_linear = telling_curved = 0
        worst = 0.0
        for w, g in zip(want, got):
            if w[0] == "PROXIMITY":
                continue
            n += 1
            as_linear = normalized(w[4], lo_, hi_)
            as_curve = normalized(curve_of(w[4], low, high, curve), lo_, hi_)
            is_linear, is_curve = abs(g[4] - as_linear) <= ROUNDING, abs(g[4] - as_curve) <= ROUNDING
            worst = max(worst, abs(g[4] - as_linear))
            linear += is_linear
            curved += is_curve
            if abs(as_linear - as_curve) > 2 * ROUNDING:
                telling += 1
                telling_linear += is_linear
                telling_curved += is_curve
        if name == "plugin":
            print(f"  {name}: {n} reported pressures, {linear} linear over {lo_}..{hi_}, {curved} on the plugin's curve; "
                  f"where the two differ by more than rounding: {telling}, {telling_linear} linear, {telling_curved} curve; "
                  f"largest gap to linear {worst:.4f}")
            for target in (0.25, 0.5, 0.85):
                raw = min((w[4] for w in want if w[0] != "PROXIMITY"),
                          key=lambda r: abs(normalized(curve_of(r, low, high, curve), lo_, hi_) - target))
                seen = next(g[4] for w, g in zip(want, got) if w[0] != "PROXIMITY" and w[4] == raw)
                print(f"    raw {raw}: reported {seen:.2f}, linear {normalized(raw, lo_, hi_):.3f}, "
                      f"curve {normalized(curve_of(raw, low, high, curve), lo_, hi_):.3f}")
            c.check(n > 0 and linear == n and telling > 0 and telling_curved == 0,
                    "libinput reports the stored pressure, linear over the plugin's range: the plugin's frame curve does not reach it",
                    f"{linear} of {n} linear, {telling_curved} of {telling} telling ones on the curve")
        else:
            print(f"  {name}: {n} reported pressures, {linear} linear over {lo_}..{hi_}; largest gap {worst:.4f}")
            c.check(n > 0 and linear == n, "plain: every reported pressure linear over the whole axis",
                    f"{linear} of {n}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
