"""`forcetrace calibrate --replay`, `suggest` and `simulate --protocol` end to end:
labels in h5py, the suggestion, and libinput's own parser on the quirks file."""
import json
import shutil
import subprocess

import h5py
import pytest

from conftest import SAMPLES, run

SAMPLE = SAMPLES / "calibration" / "touchpad.evemu"


def libinput():
    path = shutil.which("libinput")
    if path is None:
        pytest.fail("libinput is not installed: apt-get install libinput-tools (make test-python does)")
    return path


def test_demo_sample_calibrates_and_libinput_accepts_the_quirk(forcetrace, tmp_path):
    out = tmp_path / "cal.h5"
    result = run(forcetrace, "calibrate", "--replay", SAMPLE, "--protocol", "touchpad", "-o", out, "--fast")
    assert "1/40  light: touch as lightly as you still want a touch to register, then lift\n" in result.stdout
    assert result.stdout.count("discarded: ") == 2
    assert "saved 40 labelled trials (2 discarded) to " in result.stdout
    with h5py.File(out, "r") as f:
        group = f["recordings"]["touchpad"]
        labels = group["labels"]
        assert labels.attrs["protocol"] == "touchpad"
        classes = [c.decode() for c in labels["class"][:]]
        assert classes == ["light", "normal", "thumb", "palm"] * 10
        peaks = labels["peak"][:]
        assert all(30 <= p <= 45 for p, c in zip(peaks, classes) if c == "light")
        assert all(190 <= p <= 240 for p, c in zip(peaks, classes) if c == "palm")
        assert group.attrs["stop_reason"] == "session-complete"
    suggestion = json.loads(run(forcetrace, "suggest", out, "--format", "json").stdout)
    pad = suggestion["touchpad"]
    n, m = pad["pressure_range_begin"]["value"], pad["pressure_range_end"]["value"]
    p, o = pad["thumb_pressure_threshold"]["value"], pad["palm_pressure_threshold"]["value"]
    assert 0 < n < 30 and n - m == 5 and 100 <= p < 130 and 160 <= o < 190
    quirks = tmp_path / "quirks"
    quirks.mkdir()
    run(forcetrace, "suggest", out, "--format", "quirks", "-o", quirks / "forcetrace.quirks")
    text = (quirks / "forcetrace.quirks").read_text()
    assert f"AttrPressureRange={n}:{m}\nAttrThumbPressureThreshold={p}\nAttrPalmPressureThreshold={o}\n" in text
    checked = subprocess.run([libinput(), "quirks", "validate", "--data-dir", quirks], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("protocol", ["pen"])
def test_pen_quirk_passes_libinput(forcetrace, tmp_path, protocol):
    run(forcetrace, "simulate", "--protocol", protocol, "--seed", "9", "-o", tmp_path / "s.evemu")
    run(forcetrace, "calibrate", "--replay", tmp_path / "s.evemu", "--protocol", protocol, "-o", tmp_path / "s.h5", "--fast")
    (tmp_path / "q").mkdir()
    run(forcetrace, "suggest", tmp_path / "s.h5", "--format", "quirks", "-o", tmp_path / "q" / "pen.quirks")
    assert "MatchUdevType=tablet\nAttrPressureRange=" in (tmp_path / "q" / "pen.quirks").read_text()
    checked = subprocess.run([libinput(), "quirks", "validate", "--data-dir", tmp_path / "q"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_app_protocol_has_no_quirk(forcetrace, tmp_path):
    run(forcetrace, "simulate", "--protocol", "app", "-o", tmp_path / "a.evemu")
    run(forcetrace, "calibrate", "--replay", tmp_path / "a.evemu", "--protocol", "app", "-o", tmp_path / "a.h5", "--fast")
    result = run(forcetrace, "suggest", tmp_path / "a.h5", "--format", "quirks", check=False)
    assert result.returncode == 1
    assert "the app protocol's peek/pop thresholds have no libinput quirk" in result.stderr
    text = run(forcetrace, "suggest", tmp_path / "a.h5").stdout
    assert "before a 400 ms long-press timeout: " in text and "before a 500 ms long-press timeout: " in text


def test_calibrate_usage_errors(forcetrace, tmp_path):
    result = run(forcetrace, "calibrate", "-o", tmp_path / "x.h5", check=False)
    assert result.returncode == 2 and result.stderr.startswith("Error: Missing expected argument '--protocol PROTOCOL'")
    result = run(forcetrace, "calibrate", "-o", tmp_path / "x.h5", "--protocol", "knee", check=False)
    assert result.returncode == 2 and "expected one of app, touchpad, pen" in result.stderr


@pytest.mark.parametrize("arguments, message", [
    (["--fast"], "Error: '--fast' needs '--replay RECORDING'"),
    (["/dev/input/event3", "--replay", "x.evemu"], "Error: give either DEVICE ('/dev/input/event3') or '--replay', not both"),
    (["--replay", "x.evemu", "--grab"], "Error: '--grab' needs a live DEVICE, not '--replay'"),
    (["--replay", "x.evemu", "--show-keycodes"],
     "Error: '--show-keycodes' applies to a live DEVICE; '--replay' keeps its recording's key codes as they are"),
    (["/dev/input/event3", "--flush-ms", "0"], "Error: Invalid value '0' for '--flush-ms': expected an integer from 1 to 1000"),
    (["--replay", "x.evemu", "--speed", "2"], "Error: Unknown option '--speed'"),
])
def test_calibrate_shares_records_capture_rules(forcetrace, tmp_path, arguments, message):
    result = run(forcetrace, "calibrate", "--protocol", "app", *arguments, "-o", tmp_path / "x.h5", check=False)
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == message
    assert not (tmp_path / "x.h5").exists()


def test_calibrate_refuses_an_existing_output_without_force(forcetrace, tmp_path):
    output = tmp_path / "x.h5"
    output.write_bytes(b"keep me")
    result = run(forcetrace, "calibrate", "--protocol", "touchpad", "--replay", SAMPLES / "calibration" / "touchpad.evemu",
                 "--fast", "-o", output, check=False)
    assert result.returncode == 1 and str(output) in result.stderr
    assert output.read_bytes() == b"keep me"


def test_suggest_without_labels_says_what_to_do(forcetrace, tmp_path):
    run(forcetrace, "record", "--replay", SAMPLES / "touchscreen-mixed.evemu", "--fast", "-o", tmp_path / "r.h5")
    result = run(forcetrace, "suggest", tmp_path / "r.h5", check=False)
    assert result.returncode == 1
    assert "has no labelled trials" in result.stderr and "forcetrace calibrate" in result.stderr
