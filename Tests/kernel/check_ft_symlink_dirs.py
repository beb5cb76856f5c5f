#!/usr/bin/env python3
"""Host-side check of the ft-symlink-dirs scenario.

usage: check_ft_symlink_dirs.py RESULT_DIR

The refused imports exited 1 with an error naming the link and its owner
and left nothing behind the link; the two followed links each hold one
whole trace of the simulated input (its recording, with the samples of its
three presses), readable by h5py."""
import os
import sys

import h5py


def read(path):
    """The text of `path`, or None when the guest did not get that far."""
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = argv[1]
    if os.path.basename(os.path.normpath(d)) != "ft-symlink-dirs":
        d = os.path.join(d, "ft-symlink-dirs")
    problems = []
    refused = os.path.join(d, "refused")
    for name in ("refused.rc", "refused-force.rc"):
        if (read(os.path.join(refused, name)) or "").strip() != "1":
            problems.append(f"{name}: not 1")
    error = read(os.path.join(refused, "refused.err")) or ""
    if "/tmp/LINK/out.h5: is reached through a symbolic link (/tmp/LINK) owned by another user (uid 4242)" not in error:
        problems.append(f"the error does not name the output, the link and its owner: {error!r}")
    if "hint:" not in error:
        problems.append(f"the error says nothing about what to do: {error!r}")
    if (read(os.path.join(refused, "behind-after-refusal")) or "").strip():
        problems.append("files appeared behind the refused link")
    followed = os.path.join(d, "followed")
    if (read(os.path.join(followed, "behind-after-follow")) or "").split() != ["mine.h5", "theirs.h5"]:
        problems.append("the folder behind the links does not hold exactly the two outputs")
    for name in ("mine.h5", "theirs.h5"):
        if not os.path.exists(os.path.join(followed, name)):
            problems.append(f"{name}: missing")
            continue
        with h5py.File(os.path.join(followed, name), "r") as trace:
            recordings = list(trace["recordings"])
            if len(recordings) != 1:
                problems.append(f"{name}: {len(recordings)} recordings, not 1")
                continue
            contacts = len(trace["recordings"][recordings[0]]["contacts"]["id"])
            if contacts != 3:
                problems.append(f"{name}: {contacts} contacts, not the 3 simulated presses")
    for problem in problems:
        print("FAIL:", problem)
    print("ft-symlink-dirs:", "ok" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
