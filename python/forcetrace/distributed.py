"""`forcetrace report` over many files on a Dask distributed cluster.

The files are split into one batch per worker thread; each batch is one
task, `forcetrace report FILES --save-part PART`, on whichever worker is
free; the parts (only what the merge reads: no curves or per-contact rows)
are merged with `forcetrace report --merge`, in rounds, on the workers too. Every statistic merges exactly (docs/ANALYSIS.md, "Aggregates"), so the
result equals `forcetrace report --json` over all files at once: the total,
and each file's and each recording's summary.

Workers need the `forcetrace` command (on PATH, or `forcetrace=` / the
FORCETRACE environment variable), this package and `dask[distributed]`
(`pip install "forcetrace[dask]"`), and must read the trace files at the
paths given. The command is the only part that reads trace files: workers
need neither h5py's HDF5 nor Swift, only the binary (a `make install` or
`make deb` one carries its Swift runtime). Parts travel between workers as
bytes, so no shared scratch space is needed.
"""
import math
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ._extras import Extra, require
from ._policy import check_errors, skipped
from .cli import CommandFailed, run, run_json
from .trace import Paths, trace_files

__all__ = ["report", "report_part", "merge_parts", "FailedFile"]


def report_part(paths: Sequence[str], options: Sequence[str] = (), forcetrace: Optional[str] = None) -> bytes:
    """Runs `forcetrace report PATHS --save-part PART` and returns PART's bytes
    (what `--merge` reads, docs/ANALYSIS.md). Raises CommandFailed, naming
    the first file when there is one."""
    with tempfile.TemporaryDirectory(prefix="forcetrace-part-") as folder:
        part = Path(folder) / "part.h5"
        run("report", *paths, "--save-part", part, "--contacts", "0", *options, forcetrace=forcetrace,
            what=paths[0] if len(paths) == 1 else None)
        return part.read_bytes()


@dataclass(frozen=True)
class FailedFile:
    """A file `report` refused, and what it said."""
    path: str
    message: str


@dataclass(frozen=True)
class Part:
    """One task's result: the part over the files of its batch that `report`
    read (None when it read none), and the files it refused. Returned, not
    raised: a task that raises is logged by every worker as "Compute Failed",
    and the caller then raises once, naming the file."""
    data: Optional[bytes]
    failed: list[FailedFile] = field(default_factory=list)


def _part(paths: list[str], options: Sequence[str], forcetrace: Optional[str]) -> Part:
    try:
        return Part(report_part(paths, options, forcetrace))
    except CommandFailed as error:
        if len(paths) == 1:
            return Part(None, [FailedFile(paths[0], str(error))])
    # `report` stops at the first bad file of a batch: try each, then the good ones together.
    failed, good = [], []
    for path in paths:
        try:
            report_part([path], options, forcetrace)
            good.append(path)
        except CommandFailed as error:
            failed.append(FailedFile(path, str(error)))
    return Part(report_part(good, options, forcetrace) if good else None, failed)


def _failures(part: Part) -> list[FailedFile]:
    return part.failed


def _has_data(part: Part) -> bool:
    return part.data is not None


def merge_parts(parts: Sequence[Any], forcetrace: Optional[str] = None, output: str = "save") -> Any:
    """Merges parts (bytes, or `Part`s) with `forcetrace report --merge`: the
    merged part's bytes (`output="save"`, a `--save-part` file), or the `--json` document."""
    blobs = [part.data if isinstance(part, Part) else part for part in parts]
    with tempfile.TemporaryDirectory(prefix="forcetrace-merge-") as folder:
        paths = []
        for index, data in enumerate(blob for blob in blobs if blob is not None):
            paths.append(Path(folder) / f"part-{index:05d}.h5")
            paths[-1].write_bytes(data)
        arguments = ["report", "--merge", *map(str, paths), "--contacts", "0"]
        what = f"merging {len(paths)} parts"
        if output == "save":
            merged = Path(folder) / "merged.h5"
            run(*arguments, "--save-part", merged, forcetrace=forcetrace, what=what)
            return merged.read_bytes()
        return run_json(*arguments, forcetrace=forcetrace, what=what)


def _batches(files: list[str], count: int) -> list[list[str]]:
    """`files` in `count` runs of consecutive files (the order `report` keeps)."""
    size = max(1, math.ceil(len(files) / max(1, count)))
    return [files[start:start + size] for start in range(0, len(files), size)]


def report(paths: Paths, client: Any = None, *, options: Sequence[str] = (), forcetrace: Optional[str] = None,
           batch: int = 64, errors: str = "raise", tasks: Optional[int] = None) -> dict[str, Any]:
    """`forcetrace report` over trace files (and folders of them) as Dask
    tasks. Returns the document `forcetrace report FILES --json` prints:
    `total`, `files` (each file's `summary`), `recordings` (each recording's
    `summary`, device and thresholds; their `contacts` lists are empty: the
    per-contact rows are in `--save` files), `thresholds` and `tool_version`.

    `client`: a `dask.distributed.Client`; without one a LocalCluster runs
    for the call. `options`: further `report` options, e.g. ["--tolerance",
    "0.1mm"] (the same for every file). `tasks`: how many batches the files
    are split into (default: one per worker thread; each batch is one
    `report` run, which reads its files in parallel itself). `batch`: parts
    merged by one task; more are merged in rounds. A file that is missing or
    that `report` refuses raises one RuntimeError naming it, as `forcetrace
    report` fails; `errors="skip"` leaves such files out with one warning each."""
    check_errors(errors)
    dask_distributed = require("dask.distributed", Extra.DASK, "forcetrace.distributed.report")
    files = [str(path) for path in trace_files(paths, errors=errors)]
    if not files:
        raise FileNotFoundError(f"no trace files in {paths!r}")
    options = [str(option) for option in options]
    own = client is None
    if own:
        cluster = dask_distributed.LocalCluster(n_workers=min(len(files), os.cpu_count() or 1), threads_per_worker=1,
                                                processes=False, dashboard_address=":0")
        client = dask_distributed.Client(cluster)
    try:
        threads = sum(client.nthreads().values()) or 1
        batches = _batches(files, tasks or threads)
        parts = client.map(_part, batches, options=options, forcetrace=forcetrace, pure=False)
        # Only the failures travel back here, not the parts.
        failures = [failure for found in client.gather(client.map(_failures, parts, pure=False)) for failure in found]
        if failures and errors == "raise":
            others = [failure.path for failure in failures[1:]]
            more = f"; {len(others)} other file{'s' if len(others) > 1 else ''} failed too: {', '.join(others)}" \
                if others else ""
            raise RuntimeError(failures[0].message + more)
        for failure in failures:
            skipped(failure.path, failure.message)
        if failures:
            kept = client.gather(client.map(_has_data, parts, pure=False))
            parts = [part for part, has in zip(parts, kept) if has]
            if not parts:
                raise FileNotFoundError(f"no trace files in {paths!r} could be read")
        while len(parts) > batch:
            parts = [client.submit(merge_parts, parts[start:start + batch], forcetrace=forcetrace, pure=False)
                     for start in range(0, len(parts), batch)]
        document: dict[str, Any] = client.submit(merge_parts, parts, forcetrace=forcetrace, output="json",
                                                 pure=False).result()
        return document
    finally:
        if own:
            client.close()
            cluster.close()
