#!/usr/bin/env python3
"""`make bench-python`: the Python package's two timed promises, as ratios
against a yardstick measured in the same run:

  - `Recording.to_xarray()` against `Recording.samples()` on one simulated
    trace (at most 1.5×);
  - `forcetrace.distributed.report` over FILES simulated trace files on a
    LocalCluster of two workers (started before the clock) against one
    `forcetrace report FILES --json` call (at most 1.3×).

Each time is the median of --repeat runs, wall clock. The package is the one
on PYTHONPATH (make bench-python points it at python/). The result table is
printed and written to OUT/python.md. Nothing here asserts: tests check
numbers, this measures time.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def cpu_seconds():
    """User and system time of this process (its threads: Dask's workers
    here) and of its waited-for children (the forcetrace commands)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def median_time(call, repeat):
    """Median wall seconds and median CPU seconds of `repeat` calls. On a
    shared machine wall times swing with the load; CPU times much less."""
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), cpu_seconds()
        call()
        times.append(time.perf_counter() - start)
        cpu.append(cpu_seconds() - start_cpu)
    return statistics.median(times), statistics.median(cpu)


def make(forcetrace, out, name, *options):
    """A simulated trace file under `out`, made once."""
    trace = out / f"{name}.h5"
    if not trace.exists():
        evemu = out / f"{name}.evemu"
        subprocess.run([forcetrace, "simulate", *map(str, options), "-o", str(evemu), "--force"], check=True,
                       capture_output=True)
        subprocess.run([forcetrace, "import", str(evemu), "-o", str(trace), "--force"], check=True, capture_output=True)
        evemu.unlink()
    return trace


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--forcetrace", required=True)
    parser.add_argument("--presses", type=int, default=3000, help="presses in the to_xarray trace")
    parser.add_argument("--files", type=int, default=64)
    parser.add_argument("--file-presses", type=int, default=20, help="presses in each of the FILES")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "bench-python")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    forcetrace_cli = str(Path(args.forcetrace).resolve())
    import forcetrace
    import forcetrace.distributed
    from dask.distributed import Client, LocalCluster

    print(f"package {forcetrace.__file__}, command {forcetrace_cli}", file=sys.stderr)
    rows = []

    big = make(forcetrace_cli, args.out, f"big-{args.presses}", "--seed", 3, "--presses", args.presses)
    with forcetrace.open(big) as trace:
        recording = trace[trace.recordings[0]]
        n = len(recording.samples())
        recording.to_xarray()  # warm: imports and the file cache
        samples = median_time(recording.samples, args.repeat)
        xarray = median_time(recording.to_xarray, args.repeat)
    rows.append((f"to_xarray() vs samples(), {n} samples", xarray, samples, 1.5))

    folder = args.out / f"files-{args.files}x{args.file_presses}"
    folder.mkdir(exist_ok=True)
    files = [make(forcetrace_cli, folder, f"f{index:03d}", "--seed", 1000 + index, "--presses", args.file_presses)
             for index in range(args.files)]

    def one_call():
        subprocess.run([forcetrace_cli, "report", *map(str, files), "--json", "--contacts", "0", "--quiet"],
                       check=True, capture_output=True)

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        def on_dask():
            forcetrace.distributed.report(files, client=client, forcetrace=forcetrace_cli)
        on_dask()  # warm
        one_call()
        dask = median_time(on_dask, args.repeat)
        cli = median_time(one_call, args.repeat)
    rows.append((f"distributed.report, {args.files} files, 2 workers, vs one report call", dask, cli, 1.3))

    lines = ["| what | wall (s) | yardstick wall (s) | wall ratio | CPU (s) | yardstick CPU (s) | CPU ratio | at most |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for what, (mine, mine_cpu), (yardstick, yardstick_cpu), limit in rows:
        lines.append(f"| {what} | {mine:.3f} | {yardstick:.3f} | {mine / yardstick:.2f} | {mine_cpu:.3f} | "
                     f"{yardstick_cpu:.3f} | {mine_cpu / yardstick_cpu:.2f} | {limit} |")
    table = "\n".join(lines)
    print(table)
    (args.out / "python.md").write_text(table + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
