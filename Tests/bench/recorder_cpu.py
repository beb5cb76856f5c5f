#!/usr/bin/env python3
"""The live recorder's CPU at about 10 k events/s (at most 1 % of a core).

Simulates once a busy multitouch screen (two fingers, noisy positions and
pressures, 1000 Hz scans) into an evemu file kept in --out, replays it with
`forcetrace record --replay` at a --speed that makes its events arrive at
--rate per second (the recording's own rate is about half: it rests between
presses), and reads /proc/PID/task/*/stat (utime + stime of every thread,
named by /proc/PID/task/TID/comm) once the recorder has started and again
--seconds later, before the replay ends. The recorder's CPU is every thread's
but the replay's decoder thread ("forcetrace replay decoder", which parses the
evemu text, work a live device does not need); start-up and the final
compaction are outside the window and reported apart.

The yardstick is the target itself: a recorder should vanish beside what it
records, so the row gives the absolute % of one core against 1 %, and the CPU
microseconds per event.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
TARGET_PERCENT = 1.0
# The thread not counted: the replay's parser (its comm, at most 15 bytes).
REPLAY_THREAD = "ft replay parse"
# Builds before the threads were named: it was the one other thread named
# like the process.
UNNAMED_REPLAY_THREAD = "forcetrace"
SIMULATE = ["--seed", "11", "--rate", "1000", "--kinds", "two-finger", "--position-noise", "8", "--pressure-noise", "6"]
# Replayed beyond the window on both sides: start-up before it, the replay's end after it.
LEAD_SECONDS = 1.0
TAIL_SECONDS = 3.0


def recording_rate(path):
    """Events and the span of their times (s) in an evemu file."""
    events, first, last = 0, None, None
    with open(path, "rb") as source:
        for line in source:
            if line.startswith(b"E: "):
                seconds = float(line.split(None, 2)[1])
                first = seconds if first is None else first
                last = seconds
                events += 1
    return events, (last - first) if events > 1 else 0.0


def ensure_recording(forcetrace, seconds, rate, out):
    """The simulated recording long enough for `seconds` at `rate`, made once.
    A press lasts about a second and yields about 5000 events."""
    presses = max(4, math.ceil((seconds + LEAD_SECONDS + TAIL_SECONDS) * rate / 5000 * 1.1))
    out.mkdir(parents=True, exist_ok=True)
    recording = out / f"recorder-{presses}.evemu"
    if not recording.exists():
        print(f"recorder_cpu: simulating {presses} presses into {recording} (once)", file=sys.stderr, flush=True)
        partial = recording.with_suffix(".evemu.part")
        subprocess.run([forcetrace, "simulate", *SIMULATE, "--presses", str(presses), "-o", str(partial), "--force", "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
        partial.rename(recording)
    return recording


def thread_times(pid):
    """{tid: (name, CPU seconds)} of the process's threads now."""
    result = {}
    task = Path(f"/proc/{pid}/task")
    for entry in task.iterdir():
        try:
            stat = (entry / "stat").read_text()
            name = (entry / "comm").read_text().rstrip("\n")
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended meanwhile
        # Fields after the parenthesised name, which may hold spaces.
        fields = stat[stat.rindex(")") + 2:].split()
        utime, stime = int(fields[11]), int(fields[12])
        tid = int(entry.name)
        result[tid] = (f"{name} (main)" if tid == pid else name, (utime + stime) / TICKS)
    return result


def process_times(pid):
    fields = Path(f"/proc/{pid}/stat").read_text()
    fields = fields[fields.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def run_once(forcetrace, recording, speed, seconds, flush_ms, workdir, extra=()):
    """One paced replay; the window's CPU per thread and the whole run's."""
    output = Path(workdir) / "recorded.h5"
    command = [forcetrace, "record", "--replay", str(recording), "--speed", f"{speed:.6f}", "-o", str(output),
               "--force", "--quiet", "--flush-ms", str(flush_ms), "--duration", f"{seconds + LEAD_SECONDS + TAIL_SECONDS:.3f}", *extra]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        # The output appears once the file is made and SWMR writing started.
        deadline = time.monotonic() + 120
        while not output.exists():
            if process.poll() is not None:
                sys.exit(f"recorder_cpu: {' '.join(command)} ended with status {process.returncode} before recording")
            if time.monotonic() > deadline:
                sys.exit("recorder_cpu: the recorder did not start within 120 s")
            time.sleep(0.01)
        time.sleep(LEAD_SECONDS)
        before, started = thread_times(process.pid), time.monotonic()
        time.sleep(seconds)
        after, ended = thread_times(process.pid), time.monotonic()
    finally:
        _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"recorder_cpu: {' '.join(command)} failed with status {status}")
    threads = {}
    for tid, (name, cpu) in after.items():
        threads.setdefault(name, 0.0)
        threads[name] += cpu - before.get(tid, (name, 0.0))[1]
    # The replay's parser may end inside the window, a few chunks ahead of the replay.
    gone = [before[tid][0] for tid in before if tid not in after]
    wall = ended - started
    return {"wall": wall, "threads": threads, "ended": gone, "whole_run_cpu": usage.ru_utime + usage.ru_stime}


def measure(forcetrace, seconds=60.0, rate=10000.0, repeat=1, flush_ms=250, out=ROOT / "out" / "bench", extra=()):
    recording = ensure_recording(forcetrace, seconds, rate, Path(out))
    events, span = recording_rate(recording)
    speed = rate / (events / span)
    runs = []
    with tempfile.TemporaryDirectory(prefix="recorder-cpu-") as workdir:
        for _ in range(repeat):
            runs.append(run_once(forcetrace, recording, speed, seconds, flush_ms, workdir, extra))
    percents, replays, per_event = [], [], []
    for run in runs:
        parser_name = REPLAY_THREAD if REPLAY_THREAD in run["threads"] else UNNAMED_REPLAY_THREAD
        recorder = sum(cpu for name, cpu in run["threads"].items() if name != parser_name)
        replay = run["threads"].get(parser_name, 0.0)
        percents.append(100 * recorder / run["wall"])
        replays.append(100 * replay / run["wall"])
        per_event.append(1e6 * recorder / (rate * run["wall"]))
    return {
        "recording": str(recording), "events": events, "span_s": span, "speed": speed,
        "rate": events / span * speed, "seconds": seconds, "flush_ms": flush_ms, "runs": runs,
        "recorder_percent": statistics.median(percents), "recorder_percents": percents,
        "replay_percent": statistics.median(replays), "us_per_event": statistics.median(per_event),
        "target_percent": TARGET_PERCENT,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forcetrace", default=str(ROOT / ".build" / "release" / "forcetrace"))
    parser.add_argument("--seconds", type=float, default=60.0, help="measured window (default 60)")
    parser.add_argument("--rate", type=float, default=10000.0, help="events per second to replay at (default 10000)")
    parser.add_argument("--repeat", type=int, default=1, help="runs; the median is reported")
    parser.add_argument("--flush-ms", type=int, default=250)
    parser.add_argument("--out", default=str(ROOT / "out" / "bench"), help="where the simulated recording is kept")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--record-option", action="append", default=[], help="passed on to record (experiments), e.g. --compression=0")
    args = parser.parse_args()
    result = measure(args.forcetrace, args.seconds, args.rate, args.repeat, args.flush_ms, args.out, args.record_option)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{result['recording']}: {result['events']:,} events over {result['span_s']:.1f} s, replayed at "
          f"--speed {result['speed']:.3f}: {result['rate']:,.0f} events/s, flush every {args.flush_ms} ms")
    for index, run in enumerate(result["runs"], 1):
        names = ", ".join(f"{name!r} {100 * cpu / run['wall']:.2f} %" for name, cpu in sorted(run["threads"].items()))
        ended = f" (ended inside the window, not counted: {', '.join(run['ended'])})" if run["ended"] else ""
        print(f"run {index}: {run['wall']:.1f} s window: {names}{ended}; whole run {run['whole_run_cpu']:.2f} s CPU")
    print(f"recorder (all threads but {REPLAY_THREAD!r}): {result['recorder_percent']:.2f} % of a core "
          f"(median of {len(result['runs'])}; target <= {TARGET_PERCENT:g} %), {result['us_per_event']:.2f} us CPU per event; "
          f"the replay's decoder {result['replay_percent']:.2f} %")


if __name__ == "__main__":
    main()
