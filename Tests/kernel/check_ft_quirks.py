#!/usr/bin/env python3
"""Host-side check of the ft-quirks scenario.

usage: check_ft_quirks.py RESULT_DIR

For each hostile device name, forcetrace's quirks section sat in a folder
with libinput's shipped quirks; `libinput quirks list` ran on a uinput
touchpad with that name and on one with the same ids and another name. The
folder must validate; the section's attributes must be listed for the
device it was made for; for the other device they must not be, except for a
name that falls back to ids-only matching (` # `), where the section says
so and does apply to every device with those ids (docs/ANALYSIS.md).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_expect import Checks, read_text  # noqa: E402

# step: whether MatchName holds the name (False: ids-only matching)
CASES = {"glob": True, "quote-bracket": True, "comment": False}


def attributes(quirks):
    """The section's Attr lines, as `quirks list` prints them."""
    return [line for line in quirks.splitlines() if line.startswith("Attr")]


def check_case(c, d, step, held):
    s = os.path.join(d, step)
    name = read_text(os.path.join(s, "name"), "")
    quirks = read_text(os.path.join(s, "forcetrace.quirks"), "")
    attrs = attributes(quirks)
    c.check(len(attrs) == 3, f"{step}: the section holds AttrPressureRange, AttrThumbPressureThreshold and AttrPalmPressureThreshold", quirks)
    c.check(read_text(os.path.join(s, "validate.rc")) == "0", f"{step}: libinput quirks validate accepts it with libinput's quirks",
            read_text(os.path.join(s, "validate.txt"), ""))
    c.check("MatchBus=usb\nMatchVendor=0x1D6B\nMatchProduct=0x7F02\nMatchUdevType=touchpad\n" in quirks + "\n",
            f"{step}: it matches bus, ids and type", quirks)
    c.check(("\nMatchName=" in quirks) == held and ("# MatchName left out: " in quirks) != held,
            f"{step}: {'MatchName' if held else 'a comment saying why there is no MatchName'}", quirks)
    own = open(os.path.join(s, "sysfs-name-own"), "rb").read().rstrip(b"\n")
    c.check(own == name.encode(), f"{step}: the device is named {name!r}", own)
    for which in ("own", "other"):
        udev = read_text(os.path.join(s, f"udev-{which}.txt"), "")
        c.check("ID_INPUT_TOUCHPAD=1" in udev, f"{step}: udevd typed the {which} device a touchpad", udev)
        c.check(read_text(os.path.join(s, f"list-{which}.rc")) == "0", f"{step}: quirks list ran on the {which} device",
                read_text(os.path.join(s, f"list-{which}.txt"), ""))
    listed = read_text(os.path.join(s, "list-own.txt"), "").splitlines()
    c.check(all(a in listed for a in attrs), f"{step}: the section applies to {name!r}", listed)
    other = read_text(os.path.join(s, "other-name"), "")
    listed = read_text(os.path.join(s, "list-other.txt"), "").splitlines()
    if held:
        c.check(not any(a in listed for a in attrs), f"{step}: it does not apply to {other!r}, same ids", listed)
    else:
        c.check(all(a in listed for a in attrs), f"{step}: ids-only, so it applies to {other!r} too, as documented", listed)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = os.path.join(argv[1], "ft-quirks") if os.path.isdir(os.path.join(argv[1], "ft-quirks")) else argv[1]
    c = Checks("check_ft_quirks")
    print(f"checking {d}")
    c.check(read_text(os.path.join(d, "status")) == "0", "guest scenario exited 0", read_text(os.path.join(d, "failure"), ""))
    for step, held in CASES.items():
        check_case(c, d, step, held)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
