#!/usr/bin/env python3
"""Compares every report output of two forcetrace binaries byte for byte.

Each input (the recordings under samples/ and, when present, ../shared/recordings)
is imported once, with the reference binary; then both binaries report on the
same trace under a few option sets, and the text, --json, --html and --save
outputs (the last through `h5dump`, without what differs between two runs of
one binary: `normalized_dump`) must be equal. A speed change that keeps
the outputs is shown to keep them here:

    python3 Tests/bench/compare_outputs.py --reference OLD --candidate NEW

Exit status 0 when every output is equal, 1 with the first lines of each
difference otherwise.
"""
import argparse
import difflib
import re
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


# What differs between two runs of the same binary: the time the file was
# written, and the values of the dimension scales without coordinates (HDF5's
# "netCDF dimension but not a netCDF variable"), which are never written:
# their storage holds whatever it held.
CREATED = re.compile(rb'"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"')
# Object references as h5dump prints them, `DATASET 150938 "/path"`: the
# address is where the object happens to lie in the file (it moves when a
# compressed dataset before it changes size); the path names what is referred to.
ADDRESS = re.compile(rb'DATASET \d+ "')
NOT_A_VARIABLE = b"This is a netCDF dimension but not a netCDF variable"


def normalized_dump(dump, path):
    """h5dump's text without the file's path, its creation time, the references' addresses and the unwritten scales' values."""
    dump = CREATED.sub(b'"(creation time)"', dump.replace(str(path).encode(), b"OUT.h5"))
    dump = ADDRESS.sub(b'DATASET (address) "', dump)
    lines = dump.split(b"\n")
    starts = [index for index, line in enumerate(lines) if line.lstrip().startswith((b'DATASET "', b'GROUP "'))] + [len(lines)]
    # From the last block back: collapsing one leaves the earlier blocks' positions as they are.
    for start, end in reversed(list(zip(starts, starts[1:]))):
        block = lines[start:end]
        if not block[0].lstrip().startswith(b'DATASET "') or not any(NOT_A_VARIABLE in line for line in block):
            continue
        # The dataset's own DATA { ... }: the first one, before its attributes.
        opening = next(index for index, line in enumerate(block) if line.strip() == b"DATA {")
        closing = next(index for index in range(opening, len(block)) if block[index].strip() == b"}")
        lines[start + opening + 1:start + closing] = [b"(never written)"]
    return b"\n".join(lines)


def outputs(binary, trace, options, scratch):
    """{output name: bytes} of one binary's report on `trace`."""
    scratch.mkdir(parents=True, exist_ok=True)
    html, saved = scratch / "report.html", scratch / "report.h5"
    report = [binary, "report", trace, "--quiet"] + options
    text = run(report + ["--contacts", "all"])
    json = run(report + ["--json"])
    run(report + ["--contacts", "0", "--html", html, "--force"])
    run(report + ["--contacts", "0", "--save", saved, "--force"])
    dump = normalized_dump(run(["h5dump", saved]).stdout, saved)
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
