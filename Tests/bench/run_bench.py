#!/usr/bin/env python3
"""`make bench`: forcetrace against numpy peers and bare reads, at three sizes.

Each size is a simulated recording (forcetrace simulate, fixed seed) kept in
out/bench/ as evemu text and as its imported trace, made once; delete
out/bench/*.h5 after changing how traces are written. Every command runs
--repeat times as a child process; a time is the median wall time, memory the
largest peak RSS (getrusage of the child). Before timing, forcetrace's numbers
are checked against the lean peer at every size and the full peer at the
smallest. The result is one table of ratios, printed and written to
out/bench/last-run.md, which README.md quotes.

Yardsticks, all in the same run:
  - bare h5py read: h5py reading the seven samples columns the report reads;
  - lean peer (lean_peer.py): the page of numpy for the headline numbers;
  - full peer (peer.py): numpy for everything the report computes;
  - forcetrace's own bare read (forcetrace-bare-read): the same seven columns
    as raw chunks inflated with libdeflate on two threads, and nothing else:
    the floor the summary is held to (within 1.25× of it);
  - gzip -1 and gzip -6 of the evemu text, for import time and for size;
  - the summary itself, for --html, --json and --save (output_ratios.py:
    interleaved turns, each ratio against the summary's median of those turns);
  - --save's floor: its saved file's chunked datasets deflated again alone
    (forcetrace-bare-read --deflate-report), added to the summary on 2 cores;
  - the summary's work but its per-row loop (forcetrace-bare-read
    --summary-floor): the floor's read, the contacts and labels tables and a
    result per contact, as the summary does them; a loop that cost nothing
    would leave the summary here;
  - --json's floor: its document written by orjson, a JSON library in Rust
    (json_peer.py), on one thread, added to the summary on 2 cores; and
    --json's CPU beyond the summary's against that writing;
  - for the live recorder, its target itself: % of one core at 10 k events/s
    against 1 % (recorder_cpu.py, a paced replay, the replay's parser left out).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import output_ratios
import recorder_cpu

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TABLES = ("events", "samples", "contacts", "labels")


def measure(command, repeat, stdin=None):
    """Median wall seconds and max peak RSS (MiB) of `command` run `repeat`
    times; `cpu_seconds[command[0]]` gets the median user+system time."""
    times, peaks, cpu = [], [], []
    for _ in range(repeat):
        start = time.perf_counter()
        with open(os.devnull, "wb") as sink:
            source = open(stdin, "rb") if stdin else None
            try:
                process = subprocess.Popen(command, stdout=sink, stdin=source)
                _, status, usage = os.wait4(process.pid, 0)
            finally:
                if source:
                    source.close()
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"bench: {' '.join(map(str, command))} failed with status {status}")
        times.append(elapsed)
        peaks.append(usage.ru_maxrss / 1024)  # Linux reports KiB
        cpu.append(usage.ru_utime + usage.ru_stime)
    LAST_CPU[0] = statistics.median(cpu)
    return statistics.median(times), max(peaks)


# CPU seconds of the last `measure`: on a shared machine, wall times swing
# with the load; CPU times much less.
LAST_CPU = [0.0]


def ensure_recording(forcetrace, size, out):
    """The evemu recording and its trace for a size "N" (N presses) or "NxK"
    (K recordings of N presses in one trace: simulate takes at most 100 000)."""
    presses, _, copies = size.partition("x")
    copies = int(copies or 1)
    out.mkdir(parents=True, exist_ok=True)
    recording = out / f"simulated-{presses}.evemu"
    if not recording.exists():
        print(f"bench: simulating {presses} presses into {recording} (once; kept in {out})", flush=True)
        partial = recording.with_suffix(".evemu.part")
        subprocess.run(["nice", forcetrace, "simulate", "--seed", "42", "--presses", presses, "-o", str(partial), "--force"],
                       check=True, stdout=subprocess.DEVNULL)
        partial.rename(recording)
    single = out / f"simulated-{presses}.h5"
    if not single.exists():
        print(f"bench: importing {recording} into {single} (once)", flush=True)
        subprocess.run([forcetrace, "import", str(recording), "-o", str(single), "--force"], check=True, stdout=subprocess.DEVNULL)
    trace = out / f"simulated-{size}.h5"
    if not trace.exists():
        # The same tables as importing the recording K times, without parsing it K times.
        print(f"bench: copying the recording {copies} times into {trace} (once)", flush=True)
        subprocess.run([sys.executable, "-c", COPIES, str(single), str(trace), str(copies)], check=True)
    return recording, trace, copies


COPIES = """
import sys, h5py
source, target, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
with h5py.File(source, "r") as src, h5py.File(target + ".part", "w") as dst:
    for name, value in src.attrs.items():
        dst.attrs[name] = value
    recordings = dst.create_group("recordings")
    (name,) = src["recordings"].keys()
    for copy in range(copies):
        src.copy(src["recordings"][name], recordings, name=f"{name}-{copy + 1}")
import os
os.rename(target + ".part", target)
"""


def headline(numbers):
    return {key: numbers[key] for key in ("contacts", "motion_events", "stationary_pressure_events", "inflation", "reached_peek", "reached_pop")}


def check_agreement(args, trace, full):
    """Runs `check_numbers` in a child and returns forcetrace's totals: the
    per-contact JSON is large, and a child's peak RSS counts the pages of the
    parent it was forked from, so the parent must never hold it."""
    command = [sys.executable, __file__, "--check", str(trace), "--forcetrace", args.forcetrace] + (["--full"] if full else [])
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def check_numbers(args, trace, full):
    ours = json.loads(subprocess.run([args.forcetrace, "report", str(trace), "--json"], check=True, capture_output=True, text=True).stdout)["total"]
    lean = json.loads(subprocess.run([sys.executable, str(HERE / "lean_peer.py"), str(trace), "--json"], check=True, capture_output=True, text=True).stdout)
    if headline(ours) != headline(lean):
        sys.exit(f"bench: forcetrace and the lean peer disagree on {trace}: {headline(ours)} vs {headline(lean)}")
    if full:
        theirs = json.loads(subprocess.run([sys.executable, str(HERE / "peer.py"), str(trace), "--json"], check=True, capture_output=True, text=True).stdout)["total"]
        for key in ["contacts", "motion_events", "stationary_pressure_events", "reached_peek", "reached_pop", "classes"]:
            if ours[key] != theirs[key]:
                sys.exit(f"bench: forcetrace and the full peer disagree on {key}: {ours[key]} vs {theirs[key]}")
    return {"contacts": ours["contacts"]}


SIZES = """
import json, sys, h5py
events = samples = stored = 0
with h5py.File(sys.argv[1], "r") as handle:
    for group in handle["recordings"].values():
        events += group["events/t_ns"].shape[0]
        samples += group["samples/t_ns"].shape[0]
        for table in sys.argv[2:]:
            if table in group:
                stored += sum(dataset.id.get_storage_size() for dataset in group[table].values())
print(json.dumps([events, samples, stored]))
"""


def trace_sizes(trace):
    """Events, samples, and stored bytes of events+samples+contacts+labels.
    In a child, so that this process stays small: a child's peak RSS counts
    the parent's pages it was forked from."""
    result = subprocess.run([sys.executable, "-c", SIZES, str(trace), *TABLES], check=True, capture_output=True, text=True)
    return json.loads(result.stdout)


def deflate_seconds(bare_read, path, repeat, probe="--deflate"):
    """The median of the seconds `forcetrace-bare-read --deflate` (a trace's
    columns) or `--deflate-report` (a saved report's chunked datasets)
    reports the deflating took (its reading of them is left out)."""
    seconds = []
    for _ in range(repeat):
        result = subprocess.run([bare_read, probe, str(path)], check=True, capture_output=True, text=True)
        seconds.append(float(result.stdout.split()[1]))
    return statistics.median(seconds)


def gzip_bytes(recording, level):
    with open(recording, "rb") as source:
        process = subprocess.Popen(["gzip", f"-{level}", "-c"], stdin=source, stdout=subprocess.PIPE)
        total = 0
        while chunk := process.stdout.read(1 << 20):
            total += len(chunk)
        process.wait()
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forcetrace", default=str(ROOT / ".build" / "release" / "forcetrace"))
    parser.add_argument("--bare-read", default=None, help="forcetrace-bare-read (default: beside --forcetrace)")
    parser.add_argument("--portable", default=None,
                        help="make portable's binary, timed in the same turns as --forcetrace (target: within 5 %%)")
    parser.add_argument("--presses", default="20000,100000,100000x2",
                        help="comma-separated sizes: N presses, or NxK for K recordings of N presses in one trace "
                             "(the default is about 1.4 M, 7 M and 14 M samples)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "out" / "bench"))
    parser.add_argument("--recorder-seconds", type=float, default=60.0,
                        help="window of the recorder's CPU measurement, a paced replay (0 leaves it out)")
    parser.add_argument("--check", metavar="TRACE", help=argparse.SUPPRESS)
    parser.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check:
        print(json.dumps(check_numbers(args, args.check, args.full)))
        return
    bare_read = args.bare_read or str(Path(args.forcetrace).with_name("forcetrace-bare-read"))
    out = Path(args.out)
    sizes = args.presses.split(",")
    rows = []  # (size label, task, seconds, yardstick, yardstick seconds, ratio text, target, CPU text)
    cpu = {}

    def row(label, task, seconds, yardstick, their_seconds, ratio, target="", ours=None, theirs=None):
        cpu_text = f"{cpu[ours]:.2f} / {cpu[theirs]:.2f}" if ours in cpu and theirs in cpu else ""
        rows.append((label, task, seconds, yardstick, their_seconds, ratio, target, cpu_text))

    def timed(name, command, **kwargs):
        result = measure(command, args.repeat, **kwargs)
        cpu[name] = LAST_CPU[0]
        return result

    for index, presses in enumerate(sizes):
        recording, trace, copies = ensure_recording(args.forcetrace, presses, out)
        events, samples, stored = trace_sizes(trace)
        ours = check_agreement(args, trace, full=index == 0)
        label = f"{samples / 1e6:.2f} M samples"
        print(f"bench: {trace.name}: {samples:,} samples, {ours['contacts']:,} contacts, {events:,} events, "
              f"{trace.stat().st_size / 2**20:.1f} MiB", flush=True)
        summary, summary_rss = timed("summary", [args.forcetrace, "report", str(trace), "--contacts", "0"])
        binaries = [args.forcetrace] + ([args.portable] if args.portable else [])
        measured = output_ratios.measure(binaries, trace, args.repeat)
        outputs = measured[args.forcetrace]
        if args.portable:
            for task, (seconds, cpu_seconds) in measured[args.portable].items():
                theirs, their_cpu = outputs[task]
                rows.append((label, f"portable binary, {output_ratios.TASK_NAMES[task]}", seconds,
                             "the Debian build, same turns", theirs, f"{seconds / theirs:.2f}×", "≤ 1.05×",
                             f"{cpu_seconds:.2f} / {their_cpu:.2f}"))
        h5py_read, _ = timed("h5py", [sys.executable, str(HERE / "bare_read.py"), str(trace)])
        our_read, _ = timed("read", [bare_read, str(trace)])
        lean, lean_rss = timed("lean", [sys.executable, str(HERE / "lean_peer.py"), str(trace)])
        full, full_rss = timed("full", [sys.executable, str(HERE / "peer.py"), str(trace)])
        row(label, "report summary", summary, "bare h5py read", h5py_read, f"{summary / h5py_read:.2f}×", "≤ 0.25×", "summary", "h5py")
        row(label, "report summary", summary, "lean peer", lean, f"{lean / summary:.2f}× faster", "≥ 3× faster", "summary", "lean")
        row(label, "report summary", summary, "full peer", full, f"{full / summary:.2f}× faster", "", "summary", "full")
        for task, seconds, their_seconds, ratio, target, cpu_ratio in output_ratios.rows(outputs):
            rows.append((label, task, seconds, "report summary, same turns", their_seconds, f"{ratio:.2f}×", f"≤ {target}×",
                         f"{cpu_ratio:.2f}× (ratio)"))
        row(label, "report summary", summary, "the floor: raw chunks + libdeflate on 2 threads (forcetrace-bare-read)", our_read,
            f"{summary / our_read:.2f}×", "≤ 1.25×", "summary", "read")
        row(label, "forcetrace bare read", our_read, "bare h5py read", h5py_read, f"{our_read / h5py_read:.2f}×", "", "read", "h5py")
        # The summary with a per-row loop that cost nothing: the bare read and the rest of its work, done as it does it.
        beside, _ = timed("beside", [bare_read, "--summary-floor", str(trace)])
        row(label, "the summary's work but its per-row loop, on 2 threads (forcetrace-bare-read --summary-floor)", beside,
            "the floor", our_read, f"{beside / our_read:.2f}×", "", "beside", "read")
        row(label, "report summary", summary, "its work but the per-row loop (--summary-floor)", beside, f"{summary / beside:.2f}×", "",
            "summary", "beside")
        # --save's floor: the summary, and the deflating of what the file holds on the 2 cores.
        saved = out / "report-saved.h5"
        subprocess.run([args.forcetrace, "report", str(trace), "--contacts", "0", "--save", str(saved), "--force"],
                       check=True, stdout=subprocess.DEVNULL)
        save_deflate = deflate_seconds(bare_read, saved, args.repeat, probe="--deflate-report")
        row(label, "--save floor: its chunked datasets deflated alone, one thread (forcetrace-bare-read --deflate-report)",
            save_deflate, "report summary", summary, f"{save_deflate / summary:.2f}×", "")
        row(label, "--save floor on 2 cores: the summary + that deflating / 2", summary + save_deflate / 2,
            "report summary", summary, f"{(summary + save_deflate / 2) / summary:.2f}×", "")
        # --json's floor: its document written by orjson (json_peer.py) on one thread, and on the 2 cores
        # beside the summary; and --json's own CPU beyond the summary's (same turns) against that writing.
        document = out / "report.json"
        with open(document, "wb") as sink:
            subprocess.run([args.forcetrace, "report", str(trace), "--json"], check=True, stdout=sink)
        peer_json = json.loads(subprocess.run([sys.executable, str(HERE / "json_peer.py"), str(document), "--repeat", str(args.repeat)],
                                              check=True, capture_output=True, text=True).stdout)
        document.unlink()
        written = peer_json["seconds"]
        row(label, f"--json floor: the same document written by orjson, one thread (json_peer.py; {peer_json['bytes'] / 1e6:.0f} MB "
            f"against the report's {peer_json['report_bytes'] / 1e6:.0f} MB)", written, "report summary", summary,
            f"{written / summary:.2f}×", "")
        row(label, "--json floor on 2 cores: the summary + that writing / 2", summary + written / 2,
            "report summary", summary, f"{(summary + written / 2) / summary:.2f}×", "")
        rendering = outputs["json"][1] - outputs["summary"][1]
        row(label, "report --json: its CPU beyond the summary's, same turns", rendering, "orjson writing the same document", written,
            f"{rendering / written:.2f}×", "")
        row(label, "report summary peak RSS (MiB)", summary_rss, "lean peer", lean_rss, f"{lean_rss / summary_rss:.2f}× smaller")
        if index == 0:
            import_time, import_rss = timed("import", [args.forcetrace, "import", str(recording), "-o", str(out / "import-timed.h5"), "--force"])
            gzip1, _ = timed("gzip1", ["gzip", "-1", "-c"], stdin=recording)
            gzip6, _ = timed("gzip6", ["gzip", "-6", "-c"], stdin=recording)
            ilabel = f"{events / 1e6:.2f} M events ({recording.stat().st_size / 2**20:.0f} MiB evemu)"
            row(ilabel, "import", import_time, "gzip -1 of the text", gzip1, f"{import_time / gzip1:.2f}×", "≤ 0.50×", "import", "gzip1")
            row(ilabel, "import", import_time, "gzip -6 of the text", gzip6, f"{import_time / gzip6:.2f}×", "", "import", "gzip6")
            # Import's floor: its parse alone, and its worker's deflating alone (forcetrace-bare-read
            # --parse, --deflate), each on one thread; on 2 cores the two can at best overlap.
            parse, _ = timed("parse", [bare_read, "--parse", str(recording)])
            deflate = deflate_seconds(bare_read, out / "import-timed.h5", args.repeat)
            floor = max(parse, deflate, (parse + deflate) / 2)
            row(ilabel, "import floor: the evemu lines parsed alone (forcetrace-bare-read --parse)", parse,
                "gzip -1 of the text", gzip1, f"{parse / gzip1:.2f}×", "", "parse", "gzip1")
            row(ilabel, "import floor: its columns deflated alone, one thread (forcetrace-bare-read --deflate)", deflate,
                "gzip -1 of the text", gzip1, f"{deflate / gzip1:.2f}×", "")
            row(ilabel, "import floor on 2 cores: max(parse, deflate, their sum / 2)", floor,
                "gzip -1 of the text", gzip1, f"{floor / gzip1:.2f}×", "")
            row(ilabel, "import rate (M events/s)", events / import_time / 1e6, "gzip -1", events / gzip1 / 1e6, "")
            row(ilabel, "import peak RSS (MiB)", import_rss, "", 0, "")
        gz6 = gzip_bytes(recording, 6) * copies
        row(label, "bytes/event, trace tables", stored / events, "evemu + gzip -6", gz6 / events, f"{stored / gz6:.2f}×", "≤ 4.0 B/event")
        row(label, "bytes/event, whole file", trace.stat().st_size / events, "", 0, "")

    if args.recorder_seconds > 0:
        print(f"bench: the recorder at 10 k events/s, {args.repeat} × {args.recorder_seconds:g} s", flush=True)
        live = recorder_cpu.measure(args.forcetrace, seconds=args.recorder_seconds, repeat=args.repeat, out=out)
        percent, target = live["recorder_percent"], live["target_percent"]
        rows.append((f"{live['rate']:,.0f} events/s, {args.recorder_seconds:g} s paced replay",
                     "recorder CPU, % of a core at 10 k events/s", percent, "the target", target,
                     f"{percent / target:.2f}×", f"≤ {target:g} %", f"{live['us_per_event']:.2f} µs/event"))

    lines = ["| input | task | forcetrace | yardstick | yardstick value | ratio | target | CPU s, ours / yardstick |",
             "|---|---|---|---|---|---|---|---|"]
    for label, task, seconds, yardstick, theirs, ratio, target, cpu_text in rows:
        theirs_text = f"{theirs:.3f}" if yardstick else ""
        lines.append(f"| {label} | {task} | {seconds:.3f} | {yardstick} | {theirs_text} | {ratio} | {target} | {cpu_text} |")
    table = "\n".join(lines)
    note = (f"Medians of {args.repeat} runs, seconds unless marked; whole processes (Python's start-up counts for the "
            f"peers and the h5py read). {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")
    print()
    print(table)
    print()
    print(note)
    (out / "last-run.md").write_text(table + "\n\n" + note + "\n")


if __name__ == "__main__":
    main()
