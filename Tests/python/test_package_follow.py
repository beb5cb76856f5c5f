"""forcetrace.follow: every row once, never an empty frame, to the finished copy's last row."""
import os
import shutil
import subprocess
import sys

import h5py
import pandas as pd

from conftest import ROOT, run

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402

FIXTURE = ROOT / "Tests" / "fixtures" / "axes-differ.evemu"
SAMPLE_ROWS = 15  # the fixture's samples


def test_follow_yields_only_new_rows_of_a_finished_file(forcetrace, tmp_path):
    """follow() on a file no recorder holds: the rows once, in non-empty frames, then
    it ends (the writer is gone after two looks); never an empty frame for 'no new rows'."""
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", FIXTURE, "-o", out)
    frames = list(ft.follow(out, interval=0.01, idle_timeout=5, start_timeout=5))
    assert frames and all(len(frame) > 0 for frame in frames), [len(f) for f in frames]
    assert sum(len(frame) for frame in frames) == SAMPLE_ROWS


def test_follow_of_a_finished_file_without_samples_yields_nothing(forcetrace, tmp_path):
    """A finished recording with no samples (the fixture's header without its E: lines):
    follow() yields no frame at all, not an empty one."""
    header = "\n".join(line for line in FIXTURE.read_text().split("\n") if not line.startswith("E:"))
    source = tmp_path / "empty.evemu"
    source.write_text(header)
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", source, "-o", out)
    assert list(ft.follow(out, interval=0.01, idle_timeout=5, start_timeout=5)) == []



def _samples_columns(path):
    """Every samples column of the file's one recording (not the dimension scale)."""
    with h5py.File(path, "r") as handle:
        (name,) = list(handle["recordings"])
        samples = handle["recordings"][name]["samples"]
        return {column: samples[column][()] for column in samples if samples[column].maxshape == (None,)}


GROW = """
import sys, h5py
live, finished, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
with h5py.File(finished, "r") as source, h5py.File(live, "r+") as handle:
    (name,) = list(handle["recordings"])
    samples, full = handle["recordings"][name]["samples"], source["recordings"][name]["samples"]
    for column in samples:
        if samples[column].maxshape == (None,):
            samples[column].resize((rows,))
            samples[column][:] = full[column][:rows]
"""


def _grow_samples(live, finished, rows):
    """What a recorder's flush does to its live file, from another process as a
    recorder's is: every samples column grows to `rows`, with the finished
    recording's values."""
    subprocess.run([sys.executable, "-c", GROW, str(live), str(finished), str(rows)], check=True, timeout=60)

def test_follow_reads_the_finished_copy_when_the_writer_went_before_it_replaced_the_file(forcetrace, tmp_path):
    """A recorder's lock can go before its finished copy replaces the live file:
    follow then sees the writer gone once, new rows, and the file replaced, in
    that order. It must read the rest from the finished copy, not count the
    writer gone a second time and end with the rows after the last flush lost."""
    source = tmp_path / "presses.evemu"
    run(forcetrace, "simulate", "--seed", "11", "--presses", "4", "-o", source)
    live, finished = tmp_path / "live.h5", tmp_path / "finished.h5"
    run(forcetrace, "import", source, "-o", finished)
    full = _samples_columns(finished)
    total = len(full["t_ns"])
    assert total > 200, total
    # The live file: the finished recording at its first flush, no import_status, no lock.
    shutil.copyfile(finished, live)
    with h5py.File(live, "r+") as handle:
        (name,) = list(handle["recordings"])
        del handle["recordings"][name].attrs["import_status"]
    _grow_samples(live, finished, 100)

    frames = ft.follow(live, interval=0.01, idle_timeout=30, start_timeout=5)
    first = next(frames)  # the writer is seen gone once, after this frame
    assert len(first) == 100
    _grow_samples(live, finished, 180)  # a last flush
    second = next(frames)
    assert len(second) == 80
    os.replace(finished, live)  # then the finished copy takes the live file's place
    rest = list(frames)
    assert sum(len(frame) for frame in rest) == total - 180, [len(frame) for frame in rest]
    got = pd.concat([first, second, *rest])
    for column in ("contact", "x", "y", "pressure"):
        assert (got[column].to_numpy() == full[column]).all(), column
