#!/usr/bin/env python3
"""Host-side check of the ft-plugin scenario: what libinput 1.31.3 does with
the Lua plugin `forcetrace suggest --format libinput-plugin` wrote.

usage: check_ft_plugin.py RESULT_DIR

Three debug-events read the played pen session: `plain` without plugins,
`plugin` with them, and `other` with them on a device of another name. The
tips are worked out here from the played events with libinput's rule
(`detect_tool_contact`: down at >= upper, up at <= lower, on the
proximity-in frame and on frames with an axis update; up when the tool
leaves): plain with the defaults of the whole axis, plugin with the defaults
of the range the plugin sets (5 % and 1 % of it above its minimum). Each
reported tip-down pressure is set against the two things it could be: the
stored value normalized over the range (what libinput's tablet code reads)
and the plugin's curve of it (what the plugin's frame hook writes)."""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kernel_expect import Checks, parse_evemu, read_text  # noqa: E402

EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
ABS_PRESSURE = 0x18
TABLET_AXES = {0x00, 0x01, 0x02, 0x08, 0x18, 0x19, 0x1a, 0x1b}
TOOLS = set(range(0x140, 0x148))
TIP = re.compile(r"^\s*\S+\s+TABLET_TOOL_TIP\s.*\s(down|up)\s*$")
PRESSURE = re.compile(r"pressure: ([0-9.]+)")


def percentage(low, high, percent):
    """axis_range_percentage: (int)((max - min) * percent / 100.0 + min)."""
    return int((high - low) * percent / 100.0 + low)


def expected_tips(events, upper, lower):
    """[(direction, raw pressure)] as libinput decides them from the events."""
    tips, down, tool, entering, changed, pressure = [], False, None, False, False, 0
    for _, ty, code, value in events:
        if ty == EV_ABS and code in TABLET_AXES:
            changed = True
            if code == ABS_PRESSURE:
                pressure = value
        elif ty == EV_KEY and code in TOOLS:
            if value and tool is None:
                tool, entering = code, True
            elif not value and tool == code:
                tool = None
                if down:
                    tips.append(("up", pressure))
                    down = False
        elif ty == EV_SYN and code == 0:
            if tool is not None and (entering or changed):
                if down and pressure <= lower:
                    tips.append(("up", pressure)); down = False
                elif not down and pressure >= upper:
                    tips.append(("down", pressure)); down = True
            entering = changed = False
    return tips


def logged_tips(log):
    """[(direction, reported pressure or None)] of the TABLET_TOOL_TIP lines."""
    tips = []
    for line in log.splitlines():
        m = TIP.match(line)
        if m:
            p = PRESSURE.search(line)
            tips.append((m.group(1), float(p.group(1)) if p else None))
    return tips


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
    axis_min, axis_max = header["absinfo"][ABS_PRESSURE][:2]
    low, high, curve = plugin_constants(source)

    c.check("Loading plugin from" in logs["plugin"] and "50-forcetrace-pen.lua" in logs["plugin"],
            "libinput 1.31.3 loaded the plugin from its compiled-in folder", logs["plugin"][:400])
    c.check(f"forcetrace: pressure range {low}..{high}" in logs["plugin"], "the plugin took the calibrated pen")
    c.check(not re.search(r"plugin bug|forcetrace: ABS_PRESSURE is not", logs["plugin"] + logs["other"]),
            "no plugin error in either log")
    c.check("Loading plugin from" in logs["other"] and "forcetrace: pressure range" not in logs["other"],
            "on a device of another name the plugin loads and acts on nothing")
    c.check("Loading plugin" not in logs["plain"], "without --enable-plugins nothing is loaded")

    plain = logged_tips(logs["plain"])
    want_plain = expected_tips(events, percentage(axis_min, axis_max, 5), percentage(axis_min, axis_max, 1))
    c.check([t for t, _ in plain] == [t for t, _ in want_plain] and len(plain) > 0,
            f"plain: {len(plain)} tips where the whole axis's defaults put them",
            f"libinput {[t for t, _ in plain][:8]}, worked out {[t for t, _ in want_plain][:8]}")
    c.check([t for t, _ in logged_tips(logs["other"])] == [t for t, _ in plain],
            "the other device's tips are the plain ones")

    upper, lower = percentage(low, high, 5), percentage(low, high, 1)
    got = logged_tips(logs["plugin"])
    want = expected_tips(events, upper, lower)
    print(f"  range {low}..{high} of {axis_min}..{axis_max}: tip down at >= {upper}, up at <= {lower} "
          f"(the whole axis: >= {percentage(axis_min, axis_max, 5)}); tips plain {len(plain)}, plugin {len(got)}")
    c.check([t for t, _ in got] == [t for t, _ in want],
            "plugin: each tip where the range's defaults put it, from the stored pressure",
            f"libinput {[t for t, _ in got][:8]}, worked out {[t for t, _ in want][:8]}")
    # The pressure reported at each tip down: linear over [lower, high] of the stored value, or the plugin's curve of it.
    linear = curved = compared = 0
    for (_, reported), (_, raw) in zip([g for g in got if g[0] == "down"], [w for w in want if w[0] == "down"]):
        if reported is None:
            continue
        compared += 1
        as_linear = min(1.0, max(0.0, (raw - lower) / (high - lower)))
        as_curve = min(1.0, max(0.0, (curve_of(raw, low, high, curve) - lower) / (high - lower)))
        linear += abs(reported - as_linear) <= 0.006
        curved += abs(reported - as_curve) <= 0.006
    print(f"  reported tip-down pressure: {compared} compared, {linear} linear over the range, {curved} on the plugin's curve")
    c.check(compared > 0 and linear == compared,
            "libinput reports the stored pressure, linear over the range: the plugin's frame curve does not reach it",
            f"{linear} of {compared} linear, {curved} on the curve")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
