"""`forcetrace report` over many files on a Dask distributed cluster.

Each file is one task, `forcetrace report FILE --save PART`, on whichever
worker is free; the parts are merged with `forcetrace report --merge`, in
batches, on the workers too. Every statistic merges exactly (docs/ANALYSIS.md,
"Aggregates"), so the result equals `forcetrace report` over all files at once.

Workers need the `forcetrace` command (on PATH, or `forcetrace=` / the
FORCETRACE environment variable), this package and `dask[distributed]`, and
must read the trace files at the paths given. Parts travel between workers as
bytes, so no shared scratch space is needed.
"""
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .trace import _check_errors, _skipped, trace_files

__all__ = ["report", "report_part", "merge_parts"]


def _command(forcetrace):
    found = forcetrace or os.environ.get("FORCETRACE") or shutil.which("forcetrace")
    if not found:
        raise FileNotFoundError("the forcetrace command is not on this worker's PATH: install it, "
                                "or pass forcetrace='/path/to/forcetrace' (or set FORCETRACE)")
    return found


def _run(command, what):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{what}: forcetrace exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def report_part(path, options=(), forcetrace=None):
    """Runs `forcetrace report PATH --save PART` and returns PART's bytes (one task)."""
    with tempfile.TemporaryDirectory(prefix="forcetrace-part-") as folder:
        part = Path(folder) / "part.h5"
        _run([_command(forcetrace), "report", str(path), "--save", str(part), "--contacts", "0", *options], str(path))
        return part.read_bytes()


@dataclass(frozen=True)
class FailedPart:
    """A file `report` refused, returned by its task rather than raised: a
    task that raises is logged by every worker as "Compute Failed", and the
    caller then raises once, naming the file."""
    path: str
    message: str


def _part(path, options, forcetrace):
    try:
        return report_part(path, options, forcetrace)
    except RuntimeError as error:  # forcetrace refused the file
        return FailedPart(str(path), str(error))


def _failure(part):
    return part.message if isinstance(part, FailedPart) else None


def merge_parts(parts, forcetrace=None, output="save"):
    """Merges part files given as bytes with `forcetrace report --merge`:
    the merged part's bytes (`output="save"`), or the `--json` document."""
    with tempfile.TemporaryDirectory(prefix="forcetrace-merge-") as folder:
        paths = []
        for index, data in enumerate(parts):
            paths.append(Path(folder) / f"part-{index:05d}.h5")
            paths[-1].write_bytes(data)
        command = [_command(forcetrace), "report", "--merge", *map(str, paths), "--contacts", "0"]
        if output == "save":
            merged = Path(folder) / "merged.h5"
            _run(command + ["--save", str(merged)], f"merging {len(parts)} parts")
            return merged.read_bytes()
        return json.loads(_run(command + ["--json"], f"merging {len(parts)} parts"))


def report(paths, client=None, *, options=(), forcetrace=None, batch=64, errors="raise"):
    """`forcetrace report` over trace files (and folders of them) as Dask
    tasks; returns what `forcetrace report --json` gives as `total`.

    `client`: a `dask.distributed.Client`; without one a LocalCluster runs
    for the call. `options`: further `report` options, e.g. ["--tolerance",
    "0.1mm"] (they must be the same for every file). `batch`: parts merged by
    one task; more parts are merged in rounds. A file that is missing or that
    `report` refuses raises one error naming it, as `forcetrace report`
    fails; `errors="skip"` leaves such files out with one warning each."""
    from dask.distributed import Client, LocalCluster

    _check_errors(errors)
    files = [str(path) for path in trace_files(paths, errors=errors)]
    if not files:
        raise FileNotFoundError(f"no trace files in {paths!r}")
    options = [str(option) for option in options]
    own = client is None
    if own:
        cluster = LocalCluster(n_workers=min(len(files), os.cpu_count() or 1), threads_per_worker=1,
                               processes=False, dashboard_address=":0")
        client = Client(cluster)
    try:
        parts = client.map(_part, files, options=options, forcetrace=forcetrace, pure=False)
        # Only the failures' messages travel back here, not the parts.
        failures = client.gather(client.map(_failure, parts, pure=False))
        failed = [message for message in failures if message is not None]
        if failed and errors == "raise":
            others = [path for path, message in zip(files, failures) if message is not None][1:]
            more = f"; {len(others)} other file{'s' if len(others) > 1 else ''} failed too: {', '.join(others)}" if others else ""
            raise RuntimeError(failed[0] + more)
        for path, message in zip(files, failures):
            if message is not None:
                _skipped(path, message)
        parts = [part for part, message in zip(parts, failures) if message is None]
        if not parts:
            raise FileNotFoundError(f"no trace files in {paths!r} could be read")
        while len(parts) > batch:
            parts = [client.submit(merge_parts, parts[start:start + batch], forcetrace=forcetrace, pure=False)
                     for start in range(0, len(parts), batch)]
        document = client.submit(merge_parts, parts, forcetrace=forcetrace, output="json", pure=False).result()
        return document["total"]
    finally:
        if own:
            client.close()
            cluster.close()
