#!/usr/bin/env python3
"""Host-side check of the ft-whatif scenario: libinput itself, Debian's 1.22.1
and each release built from ../shared/libinput, is the oracle for
`forcetrace whatif --libinput VERSION`.

usage: check_ft_whatif.py RESULT_DIR

Each step played one recording through uinput into one `libinput
debug-events --verbose` per version and quirk set (that version's shipped
quirks, then each candidate on top). Here the host's forcetrace imports the
same played file and runs `whatif --json --libinput V` with the host's copy
of the same quirks; the decisions must agree exactly, in order: libinput's
debug lines "pressure: begin/end touch N", "palm: touch N (...), palm
detected (pressure)", "thumb: touch N, THUMB_STATE_FINGER →
THUMB_STATE_JAILED" (and back), and for tablets the TABLET_TOOL_TIP events'
down/up. Prints per step and version, and per version in total: contacts
(touch sequences), decisions, differences (which must be 0).
The host's forcetrace: $FORCETRACE, else the repository's debug build."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from whatif_versions import compare_step, compare_steps  # noqa: E402

# Each scenario's steps (guest-ft-whatif.sh).
STEPS = {
    "ft-whatif": ["calibration-sample", "pen-boundaries", "touchpad-boundaries"],
    "ft-whatif-sim": ["simulated-pen", "simulated-touchpad", "simulated-touchpad-127"],
    "ft-whatif-shared": ["shared-bcm5974", "shared-cypress", "shared-dell-pen", "shared-synaptics"],
}


def main(argv, scenario="ft-whatif"):
    if len(argv) != 2:
        print(__doc__)
        return 2
    c, totals = compare_steps(argv[1], scenario, STEPS[scenario], compare_step)
    c.check(sum(t["decisions"] for t in totals.values()) > 0, "libinput made decisions to compare")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
