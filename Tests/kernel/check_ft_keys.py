#!/usr/bin/env python3
"""Host-side check of the ft-keys scenario.

usage: check_ft_keys.py RESULT_DIR

The player's device has keys and a touchpad and typed "pass" while a finger
pressed. By default the recording holds KEY_A for every letter, with A's
scancode (0x1e) in each MSC_SCAN, and is otherwise the events the player
sent; with --show-keycodes it holds KEY_P, KEY_A, KEY_S, KEY_S as sent. Both
give the same samples and contacts. qemu's AT keyboard (keys, no pressure)
is refused without --allow-keyboard and recorded obfuscated with it.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ft_trace import load_trace  # noqa: E402
from kernel_expect import EV_KEY, Checks, load_expect, read_text  # noqa: E402

EV_MSC, MSC_SCAN = 4, 4
KEY_A, KEY_P, KEY_S = 30, 25, 31
NAME = "forcetrace-test-keypad"


def obfuscated(events):
    """The player's events as forcetrace must store them by default."""
    out = []
    for ty, co, va in events:
        if ty == EV_KEY and co < 0x100:
            co = KEY_A
        elif ty == EV_MSC and co == MSC_SCAN:
            va = 0x1E
        out.append((ty, co, va))
    return out


def touch_rows(t):
    return [s[1:] for s in t.samples]


def check_recording(c, d, step, shown):
    s = os.path.join(d, step)
    c.check(read_text(os.path.join(s, "recorder.rc")) == "0", f"{step}: recorder exited 0")
    exp = load_expect(os.path.join(s, "expected.jsonl"))
    sent = [tuple(e) for f in exp["frames"] for e in f["events"]]
    t = load_trace(os.path.join(s, "rec.h5"))
    got = [(ty, co, va) for _, ty, co, va in t.events]
    handling = "as-is" if shown else "obfuscated"
    c.check(t.attrs.get("keycodes") == handling, f"{step}: keycodes attribute is {handling!r}", t.attrs.get("keycodes"))
    c.check(not t.markers, f"{step}: no initial_state or resync markers", t.markers)
    c.check(got == (sent if shown else obfuscated(sent)),
            f"{step}: the events are the player's {'exactly' if shown else 'with every letter KEY_A and every MSC_SCAN 0x1e'}",
            [g for g, w in zip(got, sent if shown else obfuscated(sent)) if g != w][:4] or (len(got), len(sent)))
    downs = [co for ty, co, va in got if ty == EV_KEY and co < 0x100 and va == 1]
    scans = [va for ty, co, va in got if ty == EV_MSC and co == MSC_SCAN]
    if shown:
        c.check(downs == [KEY_P, KEY_A, KEY_S, KEY_S], f"{step}: key presses KEY_P, KEY_A, KEY_S, KEY_S", downs)
        c.check(scans == [0x19, 0x19, 0x1E, 0x1E, 0x1F, 0x1F, 0x1F, 0x1F], f"{step}: the scancodes as sent", scans)
    else:
        c.check(downs == [KEY_A] * 4, f"{step}: key presses are KEY_A x4", downs)
        c.check(scans == [0x1E] * 8, f"{step}: every MSC_SCAN is A's (0x1e), 8 of them", scans)
    pairs = [(got[i][2], got[i + 1][1]) for i, e in enumerate(got) if e[0] == EV_MSC]
    c.check(all(code == (KEY_A if not shown else code) for _, code in pairs) and len(pairs) == 8,
            f"{step}: each MSC_SCAN is followed by its key", pairs)
    err = read_text(os.path.join(s, "recorder.err"), "")
    devnode = read_text(os.path.join(s, "devnode"))
    want = "key codes are NOT obfuscated" if shown else "key codes are obfuscated"
    c.check(err.startswith(f"warning: {devnode} \"{NAME}\" has keyboard keys; {want}"),
            f"{step}: the recorder warned, naming the device and whether codes are obfuscated", err)
    info = read_text(os.path.join(s, "info.txt"), "")
    c.check(f"  keycodes:   {handling}" in info, f"{step}: info shows keycodes: {handling}")
    info_json = json.loads(read_text(os.path.join(s, "info.json"), "{}"))
    c.check(info_json.get("recordings", [{}])[0].get("keycodes") == handling, f"{step}: info --json keycodes")
    info_err = read_text(os.path.join(s, "info.err"), "")
    if shown:
        c.check("holds 4 key presses" in info_err and "recorded with --show-keycodes" in info_err,
                f"{step}: info warns about unobfuscated key presses", info_err)
    else:
        c.check(info_err == "", f"{step}: info has no key warning", info_err)
    mode = read_text(os.path.join(s, "mode"), "")
    c.check(mode == ("600" if shown else "644"),
            f"{step}: the file's mode is {'600 (keys as typed)' if shown else '644 (0666 minus the umask 022)'}", mode)
    for name in ("rec.yaml", "rec.evemu"):
        text = read_text(os.path.join(s, name), "")
        c.check(f"\n# keycodes: {handling}\n" in text, f"{step}: export {name} carries '# keycodes: {handling}'")
    return t


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = os.path.join(argv[1], "ft-keys") if os.path.isdir(os.path.join(argv[1], "ft-keys")) else argv[1]
    c = Checks("check_ft_keys")
    print(f"checking {d}")
    c.check(read_text(os.path.join(d, "status")) == "0", "guest scenario exited 0", read_text(os.path.join(d, "failure"), ""))

    devices = json.loads(read_text(os.path.join(d, "devices", "devices.json"), "[]") or "[]")
    pad = [x for x in devices if x.get("name") == NAME]
    c.check(len(pad) == 1 and pad[0]["keyboard"] is True and pad[0]["force_capability"] == "available",
            "devices --json marks the keys+touchpad device as a keyboard with pressure", pad)
    at = [x for x in devices if x.get("name") == "AT Translated Set 2 keyboard"]
    c.check(len(at) == 1 and at[0]["keyboard"] is True and at[0]["force_capability"] == "unavailable",
            "devices --json marks qemu's AT keyboard as a keyboard without pressure", at)
    text = read_text(os.path.join(d, "devices", "devices.txt"), "")
    c.check("keyboard: yes (letter keys; record stores common keys as KEY_A, and needs --allow-keyboard)" in text,
            "devices text marks the AT keyboard and says it needs --allow-keyboard")

    hidden = check_recording(c, d, "default", shown=False)
    shown = check_recording(c, d, "shown", shown=True)
    c.check(touch_rows(hidden) == touch_rows(shown) and len(hidden.contacts) == len(shown.contacts) == 1,
            "touch analysis unchanged: the same samples rows (contact, slot, x, y, pressure, flags) and one contact")
    c.check([r[4] for r in touch_rows(hidden)] == [20, 40, 70, 100, 130, 30], "samples pressure 20, 40, 70, 100, 130, 30",
            [r[4] for r in touch_rows(hidden)])

    k = os.path.join(d, "keyboard")
    kbd = read_text(os.path.join(k, "devnode"))
    err = read_text(os.path.join(k, "refused.err"), "")
    c.check(read_text(os.path.join(k, "refused.rc")) == "1", "the AT keyboard is refused (exit 1) without --allow-keyboard")
    c.check(err.startswith(f"Error: {kbd}: \"AT Translated Set 2 keyboard\" is a keyboard (letter keys, no pressure axis)")
            and "pass --allow-keyboard" in err, "with the reason and the hint", err)
    c.check(not os.path.exists(os.path.join(k, "refused.h5")), "and no file is written")
    c.check(read_text(os.path.join(k, "allowed.rc")) == "0", "--allow-keyboard records it", read_text(os.path.join(k, "allowed.err")))
    allowed = json.loads(read_text(os.path.join(k, "allowed-info.json"), "{}") or "{}")
    c.check(allowed.get("recordings", [{}])[0].get("keycodes") == "obfuscated", "obfuscated by default")
    c.check("key codes are obfuscated" in read_text(os.path.join(k, "allowed.err"), ""), "with the warning first")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
