#!/usr/bin/env python3
"""The report's outputs (--html, --json, --save) against the summary
(`report --contacts 0`) of the same trace, as ratios.

The commands run in turns (summary, html, json, save, summary, ...), so a
change in the machine's load touches all of them alike; each time is the
median of --repeat turns and each ratio is taken against the summary's
median of the same run. `make bench` (run_bench.py) adds these rows to its
table; run alone, this prints them, optionally for several binaries in the
same turns (--forcetrace A --forcetrace B), each against its own summary.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Output, the option that makes it, and its target as a multiple of the summary.
OUTPUTS = (("html", ["--html"], 1.3), ("json", ["--json"], 1.2), ("save", ["--save"], 1.5))
# Each task's name in the tables.
TASK_NAMES = {"summary": "report summary", **{task: f"report {options[0]}" for task, options, _ in OUTPUTS}}


def commands(forcetrace, trace, scratch):
    """The four commands for one binary; --html and --save write into `scratch`."""
    report = [forcetrace, "report", str(trace)]
    return {
        "summary": report + ["--contacts", "0"],
        "html": report + ["--contacts", "0", "--html", str(Path(scratch) / "out.html"), "--force"],
        "json": report + ["--json"],
        "save": report + ["--contacts", "0", "--save", str(Path(scratch) / "out.h5"), "--force"],
    }


def run_once(command):
    """Wall seconds and user+system CPU seconds of one run, its output discarded."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen(command, stdout=sink)
        _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"output_ratios: {' '.join(map(str, command))} failed with status {status}")
    return elapsed, usage.ru_utime + usage.ru_stime


def measure(binaries, trace, repeat):
    """{binary: {task: (median wall s, median CPU s)}}, every command of every binary in each turn."""
    with tempfile.TemporaryDirectory(prefix="forcetrace-ratios-") as scratch:
        plans = {binary: commands(binary, trace, Path(scratch) / str(index)) for index, binary in enumerate(binaries)}
        for index in range(len(binaries)):
            (Path(scratch) / str(index)).mkdir()
        # One untimed turn: the trace's pages in the cache for every command alike.
        for plan in plans.values():
            for command in plan.values():
                run_once(command)
        samples = {binary: {task: [] for task in plan} for binary, plan in plans.items()}
        for _ in range(repeat):
            for binary, plan in plans.items():
                for task, command in plan.items():
                    samples[binary][task].append(run_once(command))
    return {binary: {task: (statistics.median(t for t, _ in runs), statistics.median(c for _, c in runs))
                     for task, runs in tasks.items()} for binary, tasks in samples.items()}


def rows(times):
    """(task, seconds, summary seconds, ratio, target, CPU ratio) per output of one binary."""
    summary, summary_cpu = times["summary"]
    return [(TASK_NAMES[task], times[task][0], summary, times[task][0] / summary, target,
             times[task][1] / summary_cpu) for task, options, target in OUTPUTS]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--forcetrace", action="append", required=True, help="a binary; give several to compare them")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    measured = measure(args.forcetrace, args.trace, args.repeat)
    print(f"| binary | task | seconds | summary s | ratio | target | CPU ratio |")
    print("|---|---|---|---|---|---|---|")
    for binary, times in measured.items():
        for task, seconds, summary, ratio, target, cpu in rows(times):
            print(f"| {binary} | {task} | {seconds:.3f} | {summary:.3f} | {ratio:.2f}× | ≤ {target}× | {cpu:.2f}× |")
    print(f"\nMedians of {args.repeat} interleaved turns on {args.trace}; {os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")


if __name__ == "__main__":
    main()
