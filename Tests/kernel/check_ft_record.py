#!/usr/bin/env python3
"""Host-side check of the ft-record scenario.

usage: check_ft_record.py RESULT_DIR

forcetrace record (DEVICE given as a name substring) recorded the player's
scripted gesture and was stopped by SIGINT. The trace file must hold exactly
what the player sent: every frame's raw events and slot state, every samples
row (x, y, pressure, flags, time), the contacts, and the stationary pressure
changes of the ramp.
"""
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
        check_script_recording(c, d)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
