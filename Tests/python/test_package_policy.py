"""The Python package fails as the CLI does.

A damaged or missing file makes `load` and `distributed.report` raise an
error naming it (`forcetrace report DIR` exits 1 on the same folder), unless
`errors="skip"`, which warns once per skipped file. `follow` ends when its
recorder dies; a wrong `recording=` and a closed trace say so at once."""
import json
import logging
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings

import h5py
import pandas as pd
import pytest

from conftest import ROOT, SAMPLES, flushed_events, run, signal_while_held, wait_for

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402  (`forcetrace` is the CLI fixture)
import forcetrace.distributed  # noqa: E402,F401  (Dask is imported only when a report runs)

MIXED = SAMPLES / "touchscreen-mixed.evemu"
NAME = "touchscreen-mixed"


def damage_a_chunk(path):
    """Inverts the bytes of the first stored chunk of samples/x: the file
    opens, and reading that column fails."""
    with h5py.File(path, "r") as raw:
        chunk = raw[f"recordings/{NAME}/samples/x"].id.get_chunk_info(0)
    with open(path, "r+b") as handle:
        handle.seek(chunk.byte_offset)
        data = handle.read(chunk.size)
        handle.seek(chunk.byte_offset)
        handle.write(bytes(b ^ 0xFF for b in data))


@pytest.fixture(scope="module")
def folder(forcetrace, tmp_path_factory):
    """Two good traces, one cut short (does not open), one with a damaged
    chunk (opens, fails on reading) and a saved report (not a trace: left out)."""
    folder = tmp_path_factory.mktemp("folder")
    run(forcetrace, "import", MIXED, "-o", folder / "a-good.h5")
    run(forcetrace, "import", SAMPLES / "touchscreen-deep-presses.evemu", "-o", folder / "b-good.h5")
    data = (folder / "a-good.h5").read_bytes()
    (folder / "c-truncated.h5").write_bytes(data[:len(data) // 2])
    shutil.copy(folder / "a-good.h5", folder / "d-damaged.h5")
    damage_a_chunk(folder / "d-damaged.h5")
    run(forcetrace, "report", folder / "a-good.h5", "--save", folder / "e-report.h5")
    return folder


GOOD = ("a-good.h5", "b-good.h5")
BAD = ("c-truncated.h5", "d-damaged.h5")


def test_the_cli_refuses_the_folder(forcetrace, folder):
    assert run(forcetrace, "report", folder, "--json", check=False).returncode == 1
    for name in BAD:
        assert run(forcetrace, "report", folder / name, check=False).returncode == 1


def test_load_raises_naming_each_damaged_file(folder):
    for name in BAD:
        with pytest.raises(Exception, match=name):
            ft.load([folder / "a-good.h5", folder / name])
    with pytest.raises(Exception, match="c-truncated.h5"):
        ft.load(folder)
    with pytest.raises(FileNotFoundError, match="missing.h5"):
        ft.load([folder / "a-good.h5", folder / "missing.h5"])


def test_load_skips_with_one_warning_per_file(folder):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = ft.load([folder, folder / "missing.h5"], errors="skip")
    messages = [str(w.message) for w in caught]
    assert len(messages) == 3, messages
    for name in BAD + ("missing.h5",):
        assert sum(name in m for m in messages) == 1, (name, messages)
    expected = ft.load([folder / name for name in GOOD])
    pd.testing.assert_frame_equal(frame, expected)
    with pytest.raises(ValueError, match="errors="):
        ft.load(folder, errors="ignore")


def test_distributed_raises_one_error_naming_the_file(forcetrace, folder, client, caplog):
    for name in BAD:
        with caplog.at_level(logging.WARNING):
            with pytest.raises(RuntimeError, match=name) as raised:
                ft.distributed.report([folder / "a-good.h5", folder / name], client=client, forcetrace=forcetrace)
        assert "a-good.h5" not in str(raised.value)
        assert not [r for r in caplog.records if "Compute Failed" in r.getMessage()], caplog.text
        caplog.clear()
    with pytest.raises(RuntimeError, match="(?s)c-truncated.h5.*1 other file failed too: .*d-damaged.h5"):
        ft.distributed.report(folder, client=client, forcetrace=forcetrace)
    with pytest.raises(FileNotFoundError, match="missing.h5"):
        ft.distributed.report([folder / "a-good.h5", folder / "missing.h5"], client=client, forcetrace=forcetrace)


def test_distributed_skips_with_one_warning_per_file(forcetrace, folder, client):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        total = ft.distributed.report(folder, client=client, forcetrace=forcetrace, errors="skip")["total"]
    messages = [str(w.message) for w in caught if "skipped" in str(w.message)]
    assert len(messages) == 2 and all(sum(name in m for m in messages) == 1 for name in BAD), messages
    good = [folder / name for name in GOOD]
    assert total == json.loads(run(forcetrace, "report", *good, "--json", "--contacts", "0").stdout)["total"]


# follow -----------------------------------------------------------------------

def follow_in_thread(path, **options):
    """Runs follow in a thread (the old one never returned): its batches,
    when it returned, and what it raised."""
    result = {"batches": [], "ended": None, "error": None}

    def body():
        try:
            for frame in ft.follow(path, **options):
                result["batches"].append(frame)
        except Exception as error:  # noqa: BLE001  (handed to the test)
            result["error"] = error
        result["ended"] = time.monotonic()

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, result


def test_follow_ends_soon_after_its_recorder_is_killed(forcetrace, tmp_path):
    path = tmp_path / "live.h5"
    recorder = subprocess.Popen([forcetrace, "record", "--replay", str(MIXED), "--speed", "1", "-q", "--flush-ms", "50",
                                 "-o", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        thread, result = follow_in_thread(path, start_timeout=20)
        deadline = time.monotonic() + 20
        while len(result["batches"]) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(result["batches"]) >= 3 and result["ended"] is None, result
    finally:
        recorder.send_signal(signal.SIGKILL)
        recorder.communicate(timeout=30)
    killed = time.monotonic()
    thread.join(timeout=10)
    assert result["ended"] is not None, "follow was still waiting 10 s after its recorder was killed"
    assert result["error"] is None, result["error"]
    assert result["ended"] - killed < 3, result["ended"] - killed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ft.open(path) as trace:
            flushed = trace[NAME].samples()
    pd.testing.assert_frame_equal(pd.concat(result["batches"], ignore_index=True), flushed)


def test_follow_of_a_file_a_killed_recorder_left_returns_its_rows(forcetrace, tmp_path):
    path = tmp_path / "left.h5"
    recorder = subprocess.Popen([forcetrace, "record", "--replay", str(MIXED), "--speed", "4", "-q", "--flush-ms", "50",
                                 "-o", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # Held at a known point: rows flushed, the replay not yet over.
    wait_for(lambda: flushed_events(path, f"recordings/{NAME}") > 0 or recorder.poll() is not None, 60, "the first flush")
    signal_while_held(recorder, signal.SIGKILL, lambda: recorder.poll() is None)
    recorder.communicate(timeout=30)
    thread, result = follow_in_thread(path, start_timeout=5)
    thread.join(timeout=10)
    assert result["ended"] is not None and result["error"] is None, result
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ft.open(path) as trace:
            flushed = trace[NAME].samples()
    assert len(flushed) > 0
    pd.testing.assert_frame_equal(pd.concat(result["batches"], ignore_index=True), flushed)


def test_follow_with_a_wrong_recording_lists_the_names_at_once(forcetrace, tmp_path):
    path = tmp_path / "done.h5"
    run(forcetrace, "import", MIXED, SAMPLES / "touchscreen-deep-presses.evemu", "-o", path)
    started = time.monotonic()
    with pytest.raises(ValueError, match="no recording 'nope'.*touchscreen-deep-presses.*touchscreen-mixed"):
        next(ft.follow(path, recording="nope", start_timeout=10))
    assert time.monotonic() - started < 2


def test_a_closed_trace_says_so(forcetrace, tmp_path):
    path = tmp_path / "done.h5"
    run(forcetrace, "import", MIXED, "-o", path)
    with ft.open(path) as trace:
        recording = trace[NAME]
    for use in (recording.samples, recording.contacts, recording.events, lambda: recording.device,
                lambda: trace[NAME]):
        with pytest.raises(ValueError, match=f"{path}: the trace is closed; use it inside 'with forcetrace.open"):
            use()
