"""forcetrace.open and forcetrace.load on recordings, not only trace files:
each read through `forcetrace import` into a temporary trace, checked against
the trace the command itself writes from the same recording."""
import sys
import tempfile
import warnings
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, SAMPLES, SHARED_NAMES, run, shared_recording

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402  (the worktree's package; `forcetrace` is the CLI fixture)

FIXTURES = ROOT / "Tests" / "fixtures"
# One recording of each format import tells from the content.
RECORDINGS = [
    SAMPLES / "touchscreen-mixed.evemu",
    FIXTURES / "negative-times.yml",
    FIXTURES / "getevent-lp-lt.txt",
    FIXTURES / "getevent-p-t.txt",
    FIXTURES / "inkml-pen.inkml",
    FIXTURES / "svc2004-task2.txt",
    FIXTURES / "svc2004-task1.txt",
]


@pytest.fixture(autouse=True)
def command(forcetrace, monkeypatch, tmp_path):
    """The package runs the built CLI; temporary files go to a folder the
    tests can look into."""
    monkeypatch.setenv("FORCETRACE", forcetrace)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return scratch


def imported(forcetrace, recording, folder, *options):
    """The trace `forcetrace import` writes from `recording`: the oracle."""
    output = Path(folder) / f"{Path(recording).name}.h5"
    run(forcetrace, "import", recording, "-o", output, *options)
    return output


def assert_same_tables(opened, oracle_path):
    with ft.open(oracle_path) as oracle:
        assert opened.recordings == oracle.recordings
        for name in oracle.recordings:
            for table in ("samples", "contacts", "events"):
                mine, theirs = opened[name].frame(table), oracle[name].frame(table)
                assert len(theirs) > 0 or table == "contacts", (name, table)
                pd.testing.assert_frame_equal(mine, theirs)
            assert opened[name].device.name == oracle[name].device.name


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda p: p.name)
def test_open_reads_each_import_format(forcetrace, recording, tmp_path, command):
    """Every table equals the one of the trace `forcetrace import` writes;
    the trace and its tables name the recording, and no temporary file stays."""
    with ft.open(recording) as trace:
        assert trace.path == recording
        assert trace[trace.recordings[0]].samples().attrs["file"] == str(recording)
        assert_same_tables(trace, imported(forcetrace, recording, tmp_path))
    assert list(command.iterdir()) == []


def test_open_passes_format_and_desc_for_raw_streams(forcetrace, tmp_path):
    """A raw input_event stream needs its description: desc= is import's --desc."""
    trace = imported(forcetrace, SAMPLES / "touchscreen-mixed.evemu", tmp_path)
    raw, desc = tmp_path / "mixed.raw", tmp_path / "mixed.desc"
    run(forcetrace, "export", trace, "--format", "raw", "-o", raw)
    desc.write_text("".join(line for line in (SAMPLES / "touchscreen-mixed.evemu").read_text().splitlines(True)
                            if not line.startswith("E:")))
    with ft.open(raw, format="raw", desc=desc) as opened:
        assert_same_tables(opened, imported(forcetrace, raw, tmp_path, "--format", "raw", "--desc", desc))
    with pytest.raises(ft.CommandFailed, match=r"mixed\.raw.*--desc"):
        ft.open(raw, format="raw")
    with pytest.raises(ValueError, match=r"is a trace file; format= and desc= apply only"):
        ft.open(trace, desc=desc)


def test_load_mixes_recordings_and_trace_files(forcetrace, tmp_path):
    """load takes recordings beside trace files; `file` names each as given."""
    trace = imported(forcetrace, SAMPLES / "touchscreen-deep-presses.evemu", tmp_path)
    signature = FIXTURES / "svc2004-task2.txt"
    frame = ft.load([trace, signature], table="contacts")
    assert list(frame["file"].cat.categories) == sorted([str(trace), str(signature)])
    mine = frame[frame["file"] == str(signature)].drop(columns=["file", "recording"]).reset_index(drop=True)
    with ft.open(imported(forcetrace, signature, tmp_path)) as oracle:
        expected = oracle[oracle.recordings[0]].contacts()
    # The other file's labels add columns, empty for this one.
    assert mine.drop(columns=list(expected.columns)).isna().all().all()
    pd.testing.assert_frame_equal(mine[list(expected.columns)], expected, check_categorical=False)


def test_failed_import_names_the_file(tmp_path, command):
    """The command's error comes back as CommandFailed naming the file and
    saying what is wrong; errors="skip" leaves the file out with a warning."""
    bad = tmp_path / "cut.txt"
    bad.write_text("3\n1 2 3 1\n")
    with pytest.raises(ft.CommandFailed) as failure:
        ft.open(bad)
    assert str(failure.value).startswith(f"{bad}: forcetrace import exited 1: ")
    assert "cut.txt:1: declares 3 points but the file holds 1" in str(failure.value)
    with pytest.raises(ft.CommandFailed, match="declares 3 points"):
        ft.load([bad])
    good = FIXTURES / "svc2004-task1.txt"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = ft.load([bad, good], errors="skip")
    assert [str(w.message).split(": skipped: ")[0] for w in caught] == [str(bad)]
    assert set(frame["file"]) == {str(good)}
    assert list(command.iterdir()) == []


def test_recordings_need_the_command_and_trace_files_do_not(forcetrace, tmp_path, monkeypatch):
    """Without the command a recording raises CommandNotFound naming it; a
    trace file still opens."""
    trace = imported(forcetrace, FIXTURES / "svc2004-task1.txt", tmp_path)
    monkeypatch.setenv("FORCETRACE", str(tmp_path / "absent"))
    with pytest.raises(ft.CommandNotFound, match=r"svc2004-task1\.txt: is not a trace file"):
        ft.open(FIXTURES / "svc2004-task1.txt")
    with ft.open(trace) as opened:
        assert opened.recordings == ["svc2004-task1"]


def test_trace_file_names_missing_files_and_folders_fail_as_before(tmp_path, command):
    """Only recordings are imported: a *.h5 that is not HDF5 is a damaged
    trace file, as `forcetrace report` takes it."""
    with pytest.raises(OSError, match=r"absent\.h5: cannot open as HDF5"):
        ft.open(tmp_path / "absent.h5")
    with pytest.raises(OSError, match="cannot open as HDF5"):
        ft.open(tmp_path)
    for name in ("junk.h5", "junk.hdf5"):
        junk = tmp_path / name
        junk.write_bytes((FIXTURES / "svc2004-task1.txt").read_bytes())
        with pytest.raises(OSError, match=rf"{name}: cannot open as HDF5"):
            ft.open(junk)
    junk.rename(tmp_path / "junk.txt")
    with ft.open(tmp_path / "junk.txt") as renamed:
        assert renamed.recordings == ["junk"]


@pytest.mark.parametrize("name", SHARED_NAMES)
def test_open_reads_the_shared_recordings(forcetrace, name, tmp_path):
    """The genuine recordings (an events-only file finds its .desc beside it)."""
    recording = shared_recording(name)
    with ft.open(recording) as trace:
        assert_same_tables(trace, imported(forcetrace, recording, tmp_path))


def test_a_folder_gives_only_its_trace_files(forcetrace, tmp_path):
    """A folder still means its trace files, as `forcetrace report DIR` reads
    them: a recording beside one is not imported."""
    folder = tmp_path / "rig"
    folder.mkdir()
    trace = imported(forcetrace, FIXTURES / "svc2004-task1.txt", folder)
    (folder / "svc2004-task2.txt").write_bytes((FIXTURES / "svc2004-task2.txt").read_bytes())
    assert ft.trace_files(folder) == [trace]
    assert set(ft.load(folder)["file"]) == {str(trace)}
