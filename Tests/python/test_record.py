"""`forcetrace record` and `devices` without hardware: errors, replay through the
live pipeline, reading a file while it is written (SWMR), SIGINT/SIGTERM and SIGKILL."""
import json
import os
import re
import shutil
import signal
import subprocess
import time

import h5py
import numpy as np
import pytest

from conftest import ROOT, SAMPLES, flushed_events, run, signal_while_held, wait_for

SAMPLE = SAMPLES / "touchscreen-deep-presses.evemu"
RECORDING = "recordings/touchscreen-deep-presses"


def sample_times_s(path=SAMPLE):
    """Event times of an evemu file, in seconds from its first event."""
    times = [float(line.split()[1]) for line in open(path, encoding="utf-8") if line.startswith("E:")]
    return np.array(times) - times[0]


@pytest.mark.parametrize("command", ["devices", "record"])
def test_help(forcetrace, command):
    result = run(forcetrace, command, "--help")
    assert result.stdout.startswith("OVERVIEW: ")
    assert f"USAGE: forcetrace {command}" in result.stdout
    assert result.stderr == ""


def test_main_help_lists_the_capture_commands(forcetrace):
    result = run(forcetrace, "--help")
    assert "\n  devices " in result.stdout and "\n  record " in result.stdout


@pytest.mark.parametrize("arguments, message", [
    (["--fast"], "Error: '--fast' needs '--replay RECORDING'"),
    (["--replay", "x.evemu", "--fast", "--speed", "2"], "Error: '--speed' and '--fast' cannot be combined"),
    (["/dev/input/event3", "--replay", "x.evemu"], "Error: give either DEVICE ('/dev/input/event3') or '--replay', not both"),
    (["--replay", "x.evemu", "--grab"], "Error: '--grab' needs a live DEVICE, not '--replay'"),
    (["--replay", "x.evemu", "--show-keycodes"],
     "Error: '--show-keycodes' applies to a live DEVICE; '--replay' keeps its recording's key codes as they are"),
    (["--replay", "x.evemu", "--allow-keyboard"],
     "Error: '--allow-keyboard' applies to a live DEVICE; '--replay' keeps its recording's key codes as they are"),
    (["/dev/input/event3", "--flush-ms", "5000"], "Error: Invalid value '5000' for '--flush-ms': expected an integer from 1 to 1000"),
])
def test_usage_errors_exit_2(forcetrace, tmp_path, arguments, message):
    result = run(forcetrace, "record", *arguments, "-o", tmp_path / "out.h5", check=False)
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == message
    assert not (tmp_path / "out.h5").exists()


def test_dev_null_is_not_an_evdev_device(forcetrace, tmp_path):
    result = run(forcetrace, "record", "/dev/null", "-o", tmp_path / "out.h5", check=False)
    assert result.returncode == 1
    assert result.stderr.startswith("Error: /dev/null: is not an evdev device (libevdev_new_from_fd: Inappropriate ioctl for device)\n")
    assert not (tmp_path / "out.h5").exists()


def test_a_recording_given_as_device_hints_at_replay(forcetrace, tmp_path):
    result = run(forcetrace, "record", SAMPLE, "-o", tmp_path / "out.h5", check=False)
    assert result.returncode == 1
    assert result.stderr == (f"Error: {SAMPLE}: is a regular file or directory, not an evdev device node\n"
                             f"  hint: to feed a recording through the recorder use 'forcetrace record --replay {SAMPLE}'\n")


def test_existing_output_is_not_replaced_without_force(forcetrace, tmp_path):
    output = tmp_path / "out.h5"
    output.write_bytes(b"keep me")
    result = run(forcetrace, "record", "--replay", SAMPLE, "--fast", "-o", output, check=False)
    assert result.returncode == 1
    assert "already exists" in result.stderr
    assert output.read_bytes() == b"keep me"


@pytest.mark.skipif(os.path.exists("/dev/input"), reason="this machine has /dev/input")
def test_no_dev_input_is_said_plainly(forcetrace):
    for arguments in (["devices"], ["devices", "--json"], ["record", "touchscreen", "-o", "/tmp/never.h5"]):
        result = run(forcetrace, *arguments, check=False)
        assert result.returncode == 1
        assert result.stderr.startswith("Error: /dev/input: does not exist: this machine (or container) has no input devices\n")


def test_fast_replay_is_complete_and_equals_import(forcetrace, tmp_path):
    replayed, imported = tmp_path / "replayed.h5", tmp_path / "imported.h5"
    result = run(forcetrace, "record", "--replay", SAMPLE, "--fast", "-o", replayed, "--label", "demo run")
    assert result.stdout.startswith(f"{replayed}: /recordings/touchscreen-deep-presses: ")
    assert result.stdout.rstrip().endswith("30 contacts, 0 resyncs (end of replay)")
    assert result.stderr == ""  # not a TTY: no status line
    run(forcetrace, "import", SAMPLE, "-o", imported)
    with h5py.File(replayed, "r") as live, h5py.File(imported, "r") as reference:
        group, expected = live[RECORDING], reference[RECORDING]
        assert group.attrs["import_status"] == "complete"
        assert group.attrs["stop_reason"] == "end-of-input"
        assert group.attrs["label"] == "demo run"
        assert group.attrs["source"] == f"replay:evemu:{SAMPLE}"
        for table in ("events", "samples", "contacts", "markers"):
            for column in expected[table]:
                np.testing.assert_array_equal(group[table][column][:], expected[table][column][:], err_msg=f"{table}/{column}")


def start_paced_replay(forcetrace, output, speed="4", *extra):
    return subprocess.Popen([forcetrace, "record", "--replay", str(SAMPLE), "--speed", speed, "-o", str(output), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_file(path, timeout=10):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert os.path.exists(path), f"{path} never appeared"


def test_a_reader_sees_the_file_grow_while_recording(forcetrace, tmp_path):
    output = tmp_path / "live.h5"
    recorder = start_paced_replay(forcetrace, output)
    try:
        wait_for_file(output)
        time.sleep(0.5)
        counts = []
        with h5py.File(output, "r", swmr=True) as live:
            events = live[RECORDING]["events"]["t_ns"]
            assert "import_status" not in live[RECORDING].attrs
            for _ in range(4):
                time.sleep(0.4)
                events.refresh()
                counts.append(events.shape[0])
        assert counts == sorted(counts) and counts[-1] > counts[0] > 0, counts
    finally:
        recorder.send_signal(signal.SIGINT)
        recorder.communicate(timeout=30)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_closes_the_file_cleanly(forcetrace, tmp_path, stop):
    output = tmp_path / "stopped.h5"
    recorder = start_paced_replay(forcetrace, output)
    # Held at a known point: past its first flush, not at the end of the replay.
    wait_for(lambda: flushed_events(output, RECORDING) > 0 or recorder.poll() is not None, 60, "the recorder's first flush")
    signal_while_held(recorder, stop, lambda: recorder.poll() is None)
    stdout, stderr = recorder.communicate(timeout=30)
    assert recorder.returncode == 0, stderr
    assert stdout.rstrip().endswith(f"(stopped by {stop.name})"), stdout
    with h5py.File(output, "r") as trace:
        group = trace[RECORDING]
        assert group.attrs["import_status"] == "complete"
        assert group.attrs["stop_reason"] == "signal"
        recorded = group["events"]["t_ns"].shape[0]
        # Nothing lost: every event read before the signal is there, in order.
        times = sample_times_s()
        assert 0 < recorded < len(times)
        np.testing.assert_array_equal(group["events"]["t_ns"][:] / 1e9, np.round(times[:recorded], 6))
        assert f"{recorded} events" in stdout


def contacts_flushed(path):
    try:
        with h5py.File(path, "r", swmr=True) as live:
            return live[RECORDING]["contacts"]["id"].shape[0]
    except (OSError, KeyError):
        return 0


def test_sigkill_loses_at_most_the_last_flush(forcetrace, tmp_path):
    output = tmp_path / "killed.h5"
    speed = 4.0
    recorder = start_paced_replay(forcetrace, output, str(speed), "--flush-ms", "100")
    # Held at a known point: a contact has lifted and been flushed; what a
    # reader saw flushed then must survive the kill.
    wait_for(lambda: contacts_flushed(output) > 0 or recorder.poll() is not None, 60, "a flushed contact")
    flushed_before = []
    signal_while_held(recorder, signal.SIGKILL,
                      lambda: recorder.poll() is None and not flushed_before.append(flushed_events(output, RECORDING)))
    recorder.communicate(timeout=30)
    assert recorder.returncode == -signal.SIGKILL
    # Without h5clear only a SWMR reader may open it; that is the documented recovery path too.
    with pytest.raises(OSError):
        h5py.File(output, "r")
    times = sample_times_s()
    with h5py.File(output, "r", swmr=True) as crashed:
        group = crashed[RECORDING]
        assert "import_status" not in group.attrs
        recorded = group["events"]["t_ns"].shape[0]
        np.testing.assert_array_equal(group["events"]["t_ns"][:] / 1e9, np.round(times[:recorded], 6))
        samples, contacts = group["samples"]["t_ns"].shape[0], group["contacts"]["id"].shape[0]
    assert recorded >= flushed_before[0] > 0, (recorded, flushed_before)
    assert samples > 0 and contacts > 0
    # forcetrace itself falls back to a SWMR read and says why.
    marked = run(forcetrace, "info", output)
    assert f"events {recorded}," in marked.stdout
    assert "still marked open by a writer" in marked.stdout and "h5clear -s --increment=0" in marked.stdout
    assert json.loads(run(forcetrace, "info", output, "--json").stdout)["open_by_writer"] is True
    exported = run(forcetrace, "export", output, "--format", "evemu")
    assert "still marked open by a writer" in exported.stderr
    assert sum(line.startswith("E:") for line in exported.stdout.splitlines()) == recorded
    subprocess.run(["h5clear", "-s", "--increment=0", str(output)], check=True)
    info = run(forcetrace, "info", output)
    assert f"events {recorded}," in info.stdout
    assert "incomplete" in info.stdout
    assert "still marked open" not in info.stdout


def test_the_documented_recovery_keeps_a_killed_recorders_last_flushes(forcetrace, tmp_path):
    """A file left by a SIGKILLed recorder in the qemu scenario (ft-sigkill):
    its superblock's EOA (35324) is short of data already written (the file
    is 37265 bytes). `h5clear -s` alone truncates it to the EOA and the
    events table no longer reads; the command info names must keep it all."""
    fixture = ROOT / "Tests" / "fixtures" / "killed-recorder-stale-eoa.h5"
    with h5py.File(fixture, "r", swmr=True) as f:
        recording = f["recordings"][next(iter(f["recordings"]))]
        events = recording["events"]["t_ns"][:]
    assert len(events) == 254
    copy = tmp_path / "killed.h5"
    shutil.copy(fixture, copy)
    marked = run(forcetrace, "info", copy)
    command = re.search(r"'(h5clear [^']*)'", marked.stdout).group(1).split()
    subprocess.run(command, check=True)
    assert copy.stat().st_size == fixture.stat().st_size
    with h5py.File(copy, "r") as f:
        recording = f["recordings"][next(iter(f["recordings"]))]
        assert (recording["events"]["t_ns"][:] == events).all()
    info = run(forcetrace, "info", copy)
    assert "events 254," in info.stdout and "incomplete" in info.stdout
