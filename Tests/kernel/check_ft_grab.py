#!/usr/bin/env python3
"""Host-side check of the ft-grab scenario.

usage: check_ft_grab.py RESULT_DIR

forcetrace record --grab held EVIOCGRAB while the scripted gesture played: a
second reader must have seen no events at all, and the recording must still
hold the whole gesture exactly.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ft_checks import check_scenario_ran, check_script_recording, scenario_dir  # noqa: E402
from kernel_expect import Checks, read_text  # noqa: E402


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = scenario_dir(argv[1], "ft-grab")
    c = Checks("check_ft_grab")
    print(f"checking {d}")
    if check_scenario_ran(c, d):
        second = read_text(os.path.join(d, "second.txt"), "")
        c.check(re.match(r"^events=0 syn_reports=0 ", second) is not None, "the second reader saw no events", second)
        c.check("--grab" in read_text(os.path.join(d, "recorder.cmd"), ""), "recorder ran with --grab")
        check_script_recording(c, d)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
