#!/usr/bin/env python3
"""Compares every report output of two forcetrace binaries byte for byte.

Each input (the recordings under samples/ and, when present, ../shared/recordings)
is imported once, with the reference binary; then both binaries report on the
same trace under a few option sets, and the text, --json, --html and --save
outputs (the last through `h5dump`) must be equal. A speed change that keeps
the outputs is shown to keep them here:

    python3 Tests/bench/compare_outputs.py --reference OLD --candidate NEW

Exit status 0 when every output is equal, 1 with the first lines of each
difference otherwise.
"""
import argparse
import difflib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "recordings"
# Option sets: the defaults, smoothing and a tolerance in mm, firm thresholds and few curve points.
OPTION_SETS = ([], ["--smooth", "ema:0.4", "--tolerance", "0.5mm"], ["--sensitivity", "firm", "--k", "16"])


def inputs():
    """(name, evemu path, description path or None) of every recording compared."""
    found = [(path.relative_to(ROOT).as_posix(), path, None) for path in sorted((ROOT / "samples").rglob("*.evemu"))]
    if SHARED.is_dir():
        for path in sorted(SHARED.iterdir()):
            if path.suffix not in (".events", ".evemu"):
                continue
            # The split form: events without a header, the description beside them (shared/README.md).
            description = next(iter(sorted(SHARED.glob(path.name.split(".")[0] + "*.desc"))), None)
            found.append((f"shared/{path.name}", path, description))
    return found


def run(command, allow_failure=False):
    result = subprocess.run([str(part) for part in command], capture_output=True)
    if result.returncode != 0 and not allow_failure:
        sys.exit(f"compare_outputs: {' '.join(map(str, command))} failed ({result.returncode}):\n"
                 f"{result.stderr.decode(errors='replace')}")
    return result


def outputs(binary, trace, options, scratch):
    """{output name: bytes} of one binary's report on `trace`."""
    scratch.mkdir(parents=True, exist_ok=True)
    html, saved = scratch / "report.html", scratch / "report.h5"
    report = [binary, "report", trace, "--quiet"] + options
    text = run(report + ["--contacts", "all"])
    json = run(report + ["--json"])
    run(report + ["--contacts", "0", "--html", html, "--force"])
    run(report + ["--contacts", "0", "--save", saved, "--force"])
    # The file's own path is the only text that differs: h5dump prints it first.
    dump = run(["h5dump", saved]).stdout.replace(str(saved).encode(), b"OUT.h5")
    return {"text": text.stdout, "text stderr": text.stderr, "json": json.stdout, "json stderr": json.stderr,
            "html": html.read_bytes(), "save (h5dump)": dump}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", required=True, help="the binary whose outputs are expected (say, main's)")
    parser.add_argument("--candidate", required=True, help="the binary under test")
    args = parser.parse_args()
    differences = compared = 0
    with tempfile.TemporaryDirectory(prefix="forcetrace-compare-") as directory:
        scratch = Path(directory)
        for index, (name, recording, description) in enumerate(inputs()):
            trace = scratch / f"input-{index}.h5"
            run([args.reference, "import", recording, "-o", trace, "--quiet"]
                + (["--desc", description] if description else []))
            for options in OPTION_SETS:
                expected = outputs(args.reference, trace, options, scratch / "reference")
                found = outputs(args.candidate, trace, options, scratch / "candidate")
                for output, old in expected.items():
                    compared += 1
                    new = found[output]
                    if old == new:
                        continue
                    differences += 1
                    print(f"DIFFERS: {name} {' '.join(options) or '(defaults)'}: {output}")
                    diff = difflib.unified_diff(old.decode(errors="replace").splitlines(), new.decode(errors="replace").splitlines(),
                                                "reference", "candidate", lineterm="", n=1)
                    for line in list(diff)[:12]:
                        print("    " + line[:200])
            print(f"{name}: compared", flush=True)
    print(f"{compared} outputs compared, {differences} differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
