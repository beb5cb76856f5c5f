"""Reading a recording while `forcetrace record` writes it (docs/FORMAT.md,
"Reading while recording (SWMR)")."""
import fcntl
import os
import time

from collections.abc import Iterator
from typing import Optional

import pandas as pd

from ._h5 import column_names
from ._policy import PathLike
from ._validate import ForceTraceFileError
from .trace import SAMPLE_COLUMNS, Recording, Trace

#: `follow`'s default `idle_timeout`, s: it ends on its own when the recorder
#: ends or dies; this is for when it cannot see that (see `_writer_gone`).
IDLE_TIMEOUT = 300.0


def _live_trace(path: PathLike) -> Trace:
    """A Trace opened as a SWMR reader whatever the file's state, with no
    HDF5 file lock: it would hide the recorder's going (`_writer_gone`) and
    make the recorder's final copy refuse to replace the file."""
    return Trace(path, live=True)


def _inode(path: PathLike) -> Optional[int]:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def _open_when_ready(path: PathLike, recording: Optional[str],
                     deadline: Optional[float]) -> tuple[Trace, str, Optional[int]]:
    """Waits until the file exists and holds the recording's tables."""
    while True:
        try:
            trace = _live_trace(path)
            names = trace.recordings
            if recording is not None and names and recording not in names:
                trace.close()
                raise ValueError(f"{path}: no recording {recording!r}; it has {names}")
            name = recording if recording is not None else (names[0] if len(names) == 1 else None)
            if name is not None and name in names and all(c in trace.h5file["recordings"][name]["samples"]
                                                           for c in SAMPLE_COLUMNS):
                return trace, name, _inode(path)
            if recording is None and len(names) > 1:
                trace.close()
                raise ValueError(f"{path}: several recordings {names}; pass recording=")
            trace.close()
        except ForceTraceFileError:
            raise  # damaged, not unfinished: waiting would not mend it
        except (OSError, KeyError):
            pass
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"{path}: no recording appeared in time")
        time.sleep(0.05)


def _writer_gone(path: PathLike) -> bool:
    """Whether no recorder holds `path` any longer. A recorder holds a shared
    flock on its live file while it records, which goes with it when it ends
    or is killed; an exclusive flock on a descriptor of our own is granted
    only when no one else holds one, and is let go at once. follow's own
    h5py handle takes no lock; another handle that does (h5py's default,
    `forcetrace.open` of a live file) looks like a recorder until it closes."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:  # held; or no flock on this file system: cannot tell
        return False
    finally:
        os.close(descriptor)


def _rows(recording: Recording, start: int, refresh: bool) -> tuple[Optional[pd.DataFrame], int]:
    """Sample rows from `start` to the extent every column has reached."""
    group = recording.group["samples"]
    names = column_names(group)
    datasets = [group[name] for name in names]
    if refresh:
        for dataset in datasets:
            dataset.refresh()
    end = min(dataset.shape[0] for dataset in datasets)
    if end <= start:
        return None, start
    raw = {name: dataset[start:end] for name, dataset in zip(names, datasets)}
    return recording.samples_frame(raw), end


def follow(path: PathLike, recording: Optional[str] = None, *, interval: float = 0.25,
           idle_timeout: Optional[float] = IDLE_TIMEOUT,
           start_timeout: Optional[float] = 30.0) -> Iterator[pd.DataFrame]:
    """Yields the new rows of `samples()` as DataFrames while a recorder writes
    `path`, until the recorder ends.

    Waits up to `start_timeout` s for the file and its recording to appear; a
    file that exists without the recording named fails at once, listing its
    recordings. It ends when the recorder stops cleanly (it renames a finished
    copy over the file: the rows after the last flush are read from that
    copy), or dies (its lock on the file goes, see `_writer_gone`: the rows it
    flushed are yielded, then follow returns), or when no rows have arrived
    for `idle_timeout` s (default 300; None waits as long as the lock is
    held). Rows appear per flush (`record --flush-ms`, default 250 ms)."""
    deadline = time.monotonic() + start_timeout if start_timeout is not None else None
    trace, name, inode = _open_when_ready(path, recording, deadline)
    offset, last_change, gone = 0, time.monotonic(), 0
    try:
        live = Recording(trace, name)
        while True:
            if "import_status" in live.group.attrs:  # a finished file: nothing more will come
                frame, offset = _rows(live, offset, refresh=False)
                if frame is not None:
                    yield frame
                return
            # Looked at before reading: what a dead writer flushed is then read below.
            alive = not _writer_gone(path)
            frame, offset = _rows(live, offset, refresh=True)
            if frame is not None:
                last_change = time.monotonic()
                yield frame
            if _inode(path) not in (inode, None):
                # The recorder finished: read the rest from the final file.
                trace.close()
                trace, name, inode = _open_when_ready(path, name, deadline=time.monotonic() + 10)
                live = Recording(trace, name)
                continue
            # Gone twice, an interval apart: not the instant between the
            # recorder's moving its file into place and locking it.
            gone = 0 if alive else gone + 1
            if gone >= 2:
                return
            if idle_timeout is not None and time.monotonic() - last_change > idle_timeout:
                return
            time.sleep(interval)
    finally:
        trace.close()


__all__ = ["follow"]
