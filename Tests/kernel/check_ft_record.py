#!/usr/bin/env python3
"""Host-side check of the ft-record scenario.

usage: check_ft_record.py RESULT_DIR

forcetrace record (DEVICE given as a name substring) recorded the player's
scripted gesture and was stopped by SIGINT. The trace file must hold exactly
what the player sent: every frame's raw events and slot state, every samples
row (x, y, pressure, flags, time), the contacts, and the stationary pressure
changes of the ramp.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ft_checks import check_scenario_ran, check_script_recording, scenario_dir  # noqa: E402
from kernel_expect import Checks, read_text  # noqa: E402


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = scenario_dir(argv[1], "ft-record")
    c = Checks("check_ft_record")
    print(f"checking {d}")
    if check_scenario_ran(c, d):
        c.check("record forcetrace-test " in read_text(os.path.join(d, "recorder.cmd"), ""), "DEVICE was a name substring")
        check_devices(c, d)
        check_script_recording(c, d)
    return c.finish()


def check_devices(c, d):
    """`forcetrace devices --json` in the guest: the player's touchscreen and qemu's keyboard."""
    c.check(read_text(os.path.join(d, "devices.rc")) == "0", "forcetrace devices exited 0", read_text(os.path.join(d, "devices.err")))
    try:
        devices = json.loads(read_text(os.path.join(d, "devices.json"), "[]"))
    except ValueError as error:
        devices = []
        c.check(False, "devices.json is JSON", str(error))
    touch = [x for x in devices if x.get("name") == "forcetrace-test-touch"]
    if c.check(len(touch) == 1, "the player's device is listed once", [x.get("name") for x in devices]):
        x = touch[0]
        c.check(x["path"] == read_text(os.path.join(d, "devnode")), "with the player's devnode", x["path"])
        c.check((x["bus_name"], x["vendor"], x["product"]) == ("virtual", 0x1D6B, 0x7F01), "bus virtual, vendor 0x1d6b, product 0x7f01",
                (x["bus_name"], hex(x["vendor"]), hex(x["product"])))
        c.check(x["mt_protocol_b"] is True and x["slots"] == 2, "multitouch protocol B, 2 slots")
        c.check(x["pressure_axis"] == {"code": 0x3A, "name": "ABS_MT_PRESSURE", "min": 0, "max": 255, "resolution": 0},
                "pressure axis ABS_MT_PRESSURE 0..255", x["pressure_axis"])
        c.check(x["is_pen"] is False and x["force_capability"] == "available", "not a pen; pressure-capable: available")
        c.check(x["properties"] == ["INPUT_PROP_DIRECT"], "INPUT_PROP_DIRECT", x["properties"])
    keyboard = [x for x in devices if "keyboard" in x.get("name", "").lower()]
    c.check(keyboard and all(x["force_capability"] == "unavailable" and x["pressure_axis"] is None for x in keyboard),
            "qemu's keyboard: no pressure axis, unavailable", keyboard)
    text = read_text(os.path.join(d, "devices.txt"), "")
    c.check("\"forcetrace-test-touch\"" in text and "pressure-capable: available" in text, "text listing names it and its verdict")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
