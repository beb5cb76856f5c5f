#!/usr/bin/env python3
"""Checks the ft-kills scenario: each of the 8 files a SIGKILLed recorder
left is reported in the guest with exit 0, and its numbers equal the host's
report of the same events, exported from the file and imported afresh.

Usage: check_ft_kills.py RESULT_DIR   (the run's out/ or out/ft-kills)
The host's forcetrace: $FORCETRACE, else the repository's debug build."""
import json
import os
import subprocess
import sys
import tempfile

import h5py

from ft_checks import scenario_dir
from kernel_expect import Checks, read_text

HERE = os.path.dirname(os.path.abspath(__file__))
FORCETRACE = os.environ.get("FORCETRACE") or os.path.join(HERE, "..", "..", ".build", "debug", "forcetrace")


def comparable(report, shift_s=0.0):
    """The numbers, without what names the file or says how it was read.
    A live recording's times count from the recorder's start, an import's
    from its first event: `shift_s`, the gap between the two, moves the
    reference's times since the start (a contact's t_down_s and t_up_s, a
    recording's duration_s), rounded to the microsecond an evemu export keeps."""
    def moved(value, key, in_contact):
        if isinstance(value, dict):
            return {k: moved(v, k, in_contact) for k, v in value.items() if k not in ("file", "warnings", "name")}
        if isinstance(value, list):
            return [moved(v, key, in_contact or key == "contacts") for v in value]
        since_start = key in ("t_down_s", "t_up_s") or (key == "duration_s" and not in_contact)
        if since_start and isinstance(value, (int, float)) and not (key == "t_up_s" and value < 0):
            return round(value + shift_s, 6)
        return value
    return moved(report["recordings"], None, False), moved(report["total"], None, False)


def host(*args):
    return subprocess.run([FORCETRACE, *map(str, args)], capture_output=True, text=True, timeout=120)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = scenario_dir(argv[1], "ft-kills")
    c = Checks("check_ft_kills")
    print(f"checking {d}")
    c.check(read_text(os.path.join(d, "status")) == "0", "guest scenario exited 0", read_text(os.path.join(d, "failure"), ""))
    with_contacts = 0
    for k in range(1, 9):
        s = os.path.join(d, f"kill-{k}")
        c.check(read_text(os.path.join(s, "recorder.rc")) == "137", f"kill-{k}: recorder died of SIGKILL (status 137)",
                read_text(os.path.join(s, "recorder.rc")))
        c.check(read_text(os.path.join(s, "report.rc")) == "0", f"kill-{k}: report in the guest exited 0",
                read_text(os.path.join(s, "report.err"), ""))
        try:
            guest = json.loads(read_text(os.path.join(s, "report.json"), "") or "null")
        except ValueError as error:
            guest = None
            c.check(False, f"kill-{k}: report --json is JSON", error)
        if not guest:
            continue
        warnings = [w for r in guest["recordings"] for w in r["warnings"]]
        c.check(any(w.startswith("not finished (still being recorded, or its recorder was killed)") for w in warnings),
                f"kill-{k}: the report says the recording was not finished", warnings)
        with tempfile.TemporaryDirectory() as work:
            kept, fresh = os.path.join(work, "kept.evemu"), os.path.join(work, "fresh.h5")
            steps = [host("export", os.path.join(s, "rec.h5"), "--format", "evemu", "-o", kept),
                     host("import", kept, "-o", fresh, "--name", guest["recordings"][0]["name"])]
            reference = host("report", fresh, "--json")
            ok = all(step.returncode == 0 for step in steps + [reference])
            c.check(ok, f"kill-{k}: the host exports, imports and reports the kept events",
                    [step.stderr for step in steps + [reference] if step.returncode != 0])
            if ok:
                with h5py.File(os.path.join(s, "rec.h5"), "r", swmr=True) as f:
                    recording = f["recordings"][guest["recordings"][0]["name"]]
                    times = recording["events"]["t_ns"]
                    # A kill before the first flush leaves no events (nothing to move).
                    shift = int(times[0]) / 1e9 if times.shape[0] else 0.0
                same = comparable(guest) == comparable(json.loads(reference.stdout), shift)
                c.check(same, f"kill-{k}: the guest's report equals the host's of the same events imported afresh")
        contacts = [contact for r in guest["recordings"] for contact in r["contacts"]]
        if contacts:
            with_contacts += 1
            # The first finger is down from the gesture's start to its end, after every kill.
            c.check(any(contact["still_down"] for contact in contacts), f"kill-{k}: a contact is still down at the kill",
                    [(contact["id"], contact["still_down"]) for contact in contacts])
    # Under load a kill can come before the recorder's first flush: such a file has no events.
    c.check(with_contacts >= 4, f"{with_contacts} of the 8 files hold contacts (at least 4)")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
