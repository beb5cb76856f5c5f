#!/usr/bin/env python3
"""`make bench`: forcetrace report against the numpy peer on one large trace.

The trace is simulated once (forcetrace simulate → evemu → forcetrace import)
and kept in out/bench/. Each command runs --repeat times in a child process;
the table shows the median wall time and the largest peak RSS (getrusage of
the child), and the ratios peer / forcetrace. Both sides read the same file
and compute the same statistics; both are checked to agree before timing.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def measure(command, repeat):
    """Median wall seconds and max peak RSS (MiB) of `command` run `repeat` times."""
    times, peaks = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        with open(os.devnull, "wb") as sink:
            process = subprocess.Popen(command, stdout=sink)
            _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"bench: {' '.join(command)} failed with status {status}")
        times.append(elapsed)
        peaks.append(usage.ru_maxrss / 1024)  # Linux reports KiB
    return statistics.median(times), max(peaks)


def ensure_trace(forcetrace, presses, out):
    out.mkdir(parents=True, exist_ok=True)
    trace = out / f"simulated-{presses}.h5"
    if trace.exists():
        return trace
    recording = out / f"simulated-{presses}.evemu"
    print(f"bench: simulating {presses} presses into {recording} (once; kept in {out})", flush=True)
    subprocess.run(["nice", forcetrace, "simulate", "--seed", "42", "--presses", str(presses), "-o", str(recording), "--force"], check=True)
    subprocess.run(["nice", forcetrace, "import", str(recording), "-o", str(trace), "--force"], check=True)
    recording.unlink()
    return trace


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forcetrace", default=str(ROOT / ".build" / "release" / "forcetrace"))
    parser.add_argument("--presses", type=int, default=40000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "out" / "bench"))
    args = parser.parse_args()
    trace = ensure_trace(args.forcetrace, args.presses, Path(args.out))
    info = json.loads(subprocess.run([args.forcetrace, "info", str(trace), "--json"], check=True, capture_output=True, text=True).stdout)
    recording = info["recordings"][0]
    print(f"bench: {trace}: {recording['samples']:,} samples, {recording['contacts']:,} contacts, "
          f"{recording['events']:,} events, {info['file_size'] / 2**20:.1f} MiB")

    # The two must agree before their times mean anything.
    ours = json.loads(subprocess.run([args.forcetrace, "report", str(trace), "--json"], check=True, capture_output=True, text=True).stdout)["total"]
    theirs = json.loads(subprocess.run([sys.executable, str(HERE / "peer.py"), str(trace), "--json"], check=True, capture_output=True, text=True).stdout)["total"]
    for key in ["contacts", "motion_events", "stationary_pressure_events", "reached_peek", "reached_pop", "classes"]:
        if ours[key] != theirs[key]:
            sys.exit(f"bench: forcetrace and the peer disagree on {key}: {ours[key]} vs {theirs[key]}")

    pairs = [
        ("summary (text)", [args.forcetrace, "report", str(trace), "--contacts", "0"],
         [sys.executable, str(HERE / "peer.py"), str(trace)]),
        ("per-contact JSON", [args.forcetrace, "report", str(trace), "--json"],
         [sys.executable, str(HERE / "peer.py"), str(trace), "--json"]),
    ]
    print(f"{'task':18} {'forcetrace s':>12} {'peer s':>8} {'time ratio':>10} {'forcetrace MiB':>14} {'peer MiB':>9} {'RSS ratio':>9}")
    for name, ours_command, theirs_command in pairs:
        our_time, our_rss = measure(ours_command, args.repeat)
        their_time, their_rss = measure(theirs_command, args.repeat)
        print(f"{name:18} {our_time:12.3f} {their_time:8.3f} {their_time / our_time:9.2f}x {our_rss:14.1f} {their_rss:9.1f} {their_rss / our_rss:8.2f}x")
    print("ratios are peer / forcetrace: above 1 means forcetrace is faster or smaller")
    bench_import(args)


def bench_import(args):
    """forcetrace import against pandas + h5py on one evemu recording."""
    out = Path(args.out)
    presses = max(1, args.presses // 8)
    recording = out / f"import-{presses}.evemu"
    if not recording.exists():
        print(f"bench: simulating {presses} presses into {recording} (once)", flush=True)
        subprocess.run(["nice", args.forcetrace, "simulate", "--seed", "43", "--presses", str(presses),
                        "-o", str(recording), "--force"], check=True)
    ours_file, theirs_file = out / "import-forcetrace.h5", out / "import-peer.h5"
    ours_command = [args.forcetrace, "import", str(recording), "-o", str(ours_file), "--force"]
    theirs_command = [sys.executable, str(HERE / "peer_import.py"), str(recording), "-o", str(theirs_file)]
    our_time, our_rss = measure(ours_command, args.repeat)
    their_time, their_rss = measure(theirs_command, args.repeat)
    # Same events, or the times mean nothing.
    import h5py
    import numpy as np
    with h5py.File(ours_file, "r") as ours, h5py.File(theirs_file, "r") as theirs:
        (name,) = ours["recordings"].keys()
        for column in ("t_ns", "type", "code", "value"):
            if not np.array_equal(ours["recordings"][name]["events"][column][:], theirs["recordings/peer/events"][column][:]):
                sys.exit(f"bench: import: forcetrace and the peer disagree on events/{column}")
        events = len(ours["recordings"][name]["events/t_ns"])
    size_mib = recording.stat().st_size / 2**20
    print(f"\nimport: {recording.name}, {size_mib:.1f} MiB, {events:,} events "
          "(the peer writes only the events table; forcetrace also decodes samples and contacts)")
    print(f"{'task':18} {'forcetrace s':>12} {'peer s':>8} {'time ratio':>10} {'forcetrace MiB':>14} {'peer MiB':>9} {'RSS ratio':>9}")
    print(f"{'evemu import':18} {our_time:12.3f} {their_time:8.3f} {their_time / our_time:9.2f}x {our_rss:14.1f} {their_rss:9.1f} {their_rss / our_rss:8.2f}x")
    print(f"import throughput: forcetrace {events / our_time / 1e6:.2f} M events/s, {size_mib / our_time:.1f} MiB/s")


if __name__ == "__main__":
    main()
