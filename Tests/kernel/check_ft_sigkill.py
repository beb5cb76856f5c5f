#!/usr/bin/env python3
"""Host-side check of the ft-sigkill scenario.

usage: check_ft_sigkill.py RESULT_DIR

forcetrace record --flush-ms 50 was SIGKILLed 0.3 s after the player sent
frame 50. The file must open (as a SWMR reader as is; after `h5clear -s --increment=0`
for ordinary readers, the documented recovery) and hold every frame up to
at least frame 50, each exactly as sent, with the samples and contacts that
belong to them; it must not claim to be complete.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h5py  # noqa: E402
from ft_checks import check_scenario_ran, scenario_dir  # noqa: E402
from ft_trace import check_attrs, check_frames, contact_rows, expected_rows, first_difference, live_frames, load_trace  # noqa: E402
from kernel_expect import Checks, load_expect, read_text  # noqa: E402

FORCETRACE = os.environ.get("FORCETRACE", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.build/debug/forcetrace"))


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = scenario_dir(argv[1], "ft-sigkill")
    c = Checks("check_ft_sigkill")
    print(f"checking {d}")
    if not check_scenario_ran(c, d):
        return c.finish()
    c.check(read_text(os.path.join(d, "recorder.rc")) == "137", "recorder died of SIGKILL (status 137)",
            read_text(os.path.join(d, "recorder.rc")))
    killed_after = int(read_text(os.path.join(d, "killed_after_frames"), "0"))
    path = os.path.join(d, "rec.h5")
    try:
        h5py.File(path, "r").close()
        plain = "opened"
    except OSError as error:
        plain = str(error)
    c.check("already open for write" in plain, "a plain reader is refused: the file is still marked open for writing", plain)

    t = load_trace(path, swmr=True)
    c.check(True, "a SWMR reader opens the killed file as is")
    check_attrs(c, t, None)
    want = load_expect(os.path.join(d, "expected.jsonl"))["frames"]
    got, unknown = live_frames(t.events)
    c.check(not unknown, "no unexpected event codes", unknown[:5])
    # The player's expect file is stdio-buffered, so `killed_after_frames`
    # (counted from it after the kill) can lag behind what was really sent;
    # frame 50 showing up there means it was sent at least 0.3 s before the kill.
    c.check(51 <= len(got) <= len(want), f"{len(got)} frames kept: all up to frame 50 (sent 0.3 s or more before the kill, "
            f"flushes every 50 ms; {killed_after} frames were in the expect file at the kill)")
    check_frames(c, got, want[:len(got)])
    want_samples, want_contacts = expected_rows(want[:len(got)], [g["t"] for g in got])
    by_frame_50 = len(expected_rows(want[:51], [g["t"] for g in got[:51]])[0])
    c.check(t.samples == want_samples[:len(t.samples)] and len(t.samples) >= by_frame_50,
            f"{len(t.samples)} sample rows, a prefix of the script's and at least the {by_frame_50} up to frame 50",
            first_difference(t.samples, want_samples))
    got_contacts, consistent = contact_rows(t)
    ended = [w for w in want_contacts if w[5] != -1]
    c.check(got_contacts == ended[:len(got_contacts)], "contact rows are those of contacts that had ended",
            first_difference(got_contacts, ended))
    c.check(consistent, "contact rows point at their own samples")

    if shutil.which("h5clear"):
        with tempfile.TemporaryDirectory() as scratch:
            copy = os.path.join(scratch, "rec.h5")
            shutil.copy(path, copy)
            # The documented command: -s alone can truncate the file to a stale EOA.
            cleared = subprocess.run(["h5clear", "-s", "--increment=0", copy], capture_output=True, text=True)
            c.check(cleared.returncode == 0, "h5clear -s --increment=0 succeeds", cleared.stderr)
            recovered = load_trace(copy)
            c.check(recovered.events == t.events, "after h5clear -s --increment=0 a plain reader sees the same events")
            if os.path.exists(FORCETRACE):
                info = subprocess.run([FORCETRACE, "info", copy], capture_output=True, text=True)
                c.check(info.returncode == 0 and f"events {len(t.events)}," in info.stdout and "incomplete" in info.stdout,
                        "forcetrace info reads the recovered file and calls it incomplete", info.stdout + info.stderr)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
