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
from pathlib import Path

from .trace import trace_files

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


def report(paths, client=None, *, options=(), forcetrace=None, batch=64):
    """`forcetrace report` over trace files (and folders of them) as Dask
    tasks; returns what `forcetrace report --json` gives as `total`.

    `client`: a `dask.distributed.Client`; without one a LocalCluster runs
    for the call. `options`: further `report` options, e.g. ["--tolerance",
    "0.1mm"] (they must be the same for every file). `batch`: parts merged by
    one task; more parts are merged in rounds."""
    from dask.distributed import Client, LocalCluster

    files = [str(path) for path in trace_files(paths)]
    if not files:
        raise FileNotFoundError(f"no trace files in {paths!r}")
    options = [str(option) for option in options]
    own = client is None
    if own:
        cluster = LocalCluster(n_workers=min(len(files), os.cpu_count() or 1), threads_per_worker=1,
                               processes=False, dashboard_address=":0")
        client = Client(cluster)
    try:
        parts = client.map(report_part, files, options=options, forcetrace=forcetrace, pure=False)
        while len(parts) > batch:
            parts = [client.submit(merge_parts, parts[start:start + batch], forcetrace=forcetrace, pure=False)
                     for start in range(0, len(parts), batch)]
        document = client.submit(merge_parts, parts, forcetrace=forcetrace, output="json", pure=False).result()
        return document["total"]
    finally:
        if own:
            client.close()
            cluster.close()
