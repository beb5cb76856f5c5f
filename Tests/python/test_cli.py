"""The command line as a user meets it: help, usage errors, exit codes, nothing half-written."""
import os

import pytest

from conftest import SAMPLES, run, shared_recording

COMMANDS = ["import", "export", "info", "simulate", "report", "devices", "record", "calibrate", "suggest", "levels", "whatif", "capture-page"]


def test_version(forcetrace):
    result = run(forcetrace, "--version")
    assert result.stdout.strip() == "forcetrace 0.1.0"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(forcetrace, command):
    result = run(forcetrace, command, "--help")
    assert result.stdout.startswith("OVERVIEW: ")
    assert f"USAGE: forcetrace {command}" in result.stdout
    assert "-h, --help" in result.stdout
    assert result.stderr == ""


def test_main_help_lists_every_command(forcetrace):
    result = run(forcetrace, "--help")
    for command in COMMANDS:
        assert f"\n  {command}" in result.stdout


def test_unknown_option_is_a_usage_error(forcetrace):
    result = run(forcetrace, "info", "--bogus", "x.h5", check=False)
    assert result.returncode == 2
    assert result.stderr == (
        "Error: Unknown option '--bogus'\n"
        "Usage: forcetrace info FILE.h5 [options]\n"
        "  See 'forcetrace info --help'.\n"
    )
    assert result.stdout == ""


def test_unknown_subcommand(forcetrace):
    result = run(forcetrace, "frobnicate", check=False)
    assert result.returncode == 2
    assert "Unknown subcommand 'frobnicate'" in result.stderr


def test_invalid_value_names_the_range(forcetrace, tmp_path):
    result = run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", tmp_path / "x.h5",
                 "--compression", "12", check=False)
    assert result.returncode == 2
    assert "Invalid value '12' for '--compression': expected an integer from 0 to 9" in result.stderr


def test_missing_output_is_a_usage_error(forcetrace):
    result = run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", check=False)
    assert result.returncode == 2
    assert "Missing expected argument '--output FILE.h5'" in result.stderr


def test_bad_input_leaves_no_output(forcetrace, tmp_path):
    good = SAMPLES / "touchscreen-mixed.evemu"
    bad = tmp_path / "bad.evemu"
    bad.write_text(good.read_text().replace("E: 1764400000.217926 0003 0036", "E: 1764400000.217926 0003 00x6", 1))
    out = tmp_path / "out.h5"
    result = run(forcetrace, "import", good, bad, "-o", out, check=False)
    assert result.returncode == 1
    line = next(i for i, text in enumerate(bad.read_text().splitlines(), 1) if "00x6" in text)
    assert f"{bad}:{line}: expected the event code in hex" in result.stderr
    assert not out.exists()
    assert os.listdir(tmp_path) == ["bad.evemu"], "no temporary file is left behind"


def test_existing_output_needs_force(forcetrace, tmp_path):
    out = tmp_path / "out.h5"
    out.write_text("precious")
    result = run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", out, check=False)
    assert result.returncode == 1
    assert "already exists" in result.stderr and "--force" in result.stderr
    assert out.read_text() == "precious"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", out, "--force")
    assert out.read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"


def test_info_json_and_text(forcetrace, tmp_path):
    import json

    source = shared_recording("CyPS2 Cypress Trackpad.three_finger_press.events")
    out = tmp_path / "cypress.h5"
    run(forcetrace, "import", source, "-o", out)
    info = json.loads(run(forcetrace, "info", out, "--json").stdout)
    (recording,) = info["recordings"]
    assert recording["contacts"] == 3
    assert recording["events"] == 342
    assert recording["frames"] == sum(1 for line in open(source) if line.startswith("E:") and " 0000 0000 " in line)
    assert recording["pressure_axis"]["name"] == "ABS_MT_PRESSURE"
    assert recording["device"]["name"] == "CyPS/2 Cypress Trackpad"
    assert info["file_size"] == out.stat().st_size
    assert info["compression_ratio"] > 1
    text = run(forcetrace, "info", out).stdout
    assert "contacts 3" in text and "multitouch protocol B, 2 slots" in text


def test_info_rejects_non_trace_files(forcetrace, tmp_path):
    plain = tmp_path / "notes.txt"
    plain.write_text("hello")
    result = run(forcetrace, "info", plain, check=False)
    assert result.returncode == 1
    assert f"{plain}: is not an HDF5 file" in result.stderr
    assert "H5F" not in result.stderr, "no raw HDF5 stack"


def test_export_round_trip_through_cli(forcetrace, tmp_path):
    source = shared_recording("dell_canvas_pen.evemu")
    trace = tmp_path / "pen.h5"
    run(forcetrace, "import", source, "-o", trace)
    exported = run(forcetrace, "export", trace, "--format", "evemu").stdout
    original = [line.split("#")[0].split() for line in open(source) if line.startswith("E:")]
    back = [line.split() for line in exported.splitlines() if line.startswith("E:")]
    assert back == original


def test_simulate_is_deterministic(forcetrace, tmp_path):
    first, second = tmp_path / "a.evemu", tmp_path / "b.evemu"
    run(forcetrace, "simulate", "--seed", "3", "--presses", "5", "-o", first)
    run(forcetrace, "simulate", "--seed", "3", "--presses", "5", "-o", second)
    assert first.read_text() == second.read_text()
    third = tmp_path / "c.evemu"
    run(forcetrace, "simulate", "--seed", "4", "--presses", "5", "-o", third)
    assert third.read_text() != first.read_text()


def test_truncated_trace_file_gets_a_message_not_an_hdf5_stack(forcetrace, tmp_path):
    trace = tmp_path / "full.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", trace)
    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(trace.read_bytes()[:4096])
    result = run(forcetrace, "info", truncated, check=False)
    assert result.returncode == 1
    assert str(truncated) in result.stderr
    assert "HDF5-DIAG" not in result.stderr and "#000" not in result.stderr, result.stderr
    assert result.stderr.count("\n") <= 3, "one message and a hint, not a stack dump"


@pytest.mark.parametrize("command", ["export", "suggest"])
def test_output_dash_is_standard_output(forcetrace, tmp_path, command):
    """`-o -` writes to standard output, as in most Unix tools, not to a file named '-'."""
    trace = tmp_path / "a.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", trace)
    arguments = ["export", trace, "--format", "evemu"] if command == "export" else ["suggest", trace, "--format", "json"]
    result = run(forcetrace, *arguments, "-o", "-", cwd=tmp_path)
    assert not (tmp_path / "-").exists()
    expected = run(forcetrace, *arguments, cwd=tmp_path).stdout
    assert result.stdout == expected and len(expected) > 100
