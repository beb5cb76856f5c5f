"""Text from a recording or a file name never reaches a terminal raw: every C0 control, DEL, every C1 control and the bidirectional
controls in a device name, a kernel string, a recording name, a label, a
quoted input line, a file name or an argument are shown escaped (`\\x1b`,
`\\u0085`, `\\u202e`, TerminalText) by info, report, suggest, calibrate,
record, import, the error messages and the progress line; `--json` keeps the
exact string."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import SAMPLES, run
from test_progress import on_terminal

BIDI = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029]
# NUL cannot be in a name: evemu refuses it as binary data, YAML strings end at it.
HOSTILE = [chr(c) for c in range(0x01, 0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)] + [chr(c) for c in BIDI]
# An evemu line ends at a newline.
IN_A_LINE = [c for c in HOSTILE if c != "\n"]
SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
CALIBRATION = SAMPLES / "calibration" / "touchpad.evemu"
EVEMU_NAME = "N: forcetrace simulated touchpad"


def escaped(char):
    """How TerminalText shows `char`."""
    code = ord(char)
    if char in SHORT:
        return SHORT[char]
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def forbidden(data, allowed=(b"\n", b"\t")):
    """The raw controls in `data` (bytes) that a terminal would act on."""
    text = data.decode("utf-8", "surrogateescape")
    return sorted({hex(ord(c)) for c in text
                   if (ord(c) < 0x20 and c.encode() not in allowed) or 0x7F <= ord(c) < 0xA0 or ord(c) in BIDI})


def terminal_controls_removed(output):
    """What a pty showed without the progress line's own controls (return to
    the start, clear the line) and the pty's own \\r before each \\n, as bytes."""
    return output.replace("\r\x1b[K", "").replace("\r\n", "\n").encode()


def run_bytes(forcetrace, *args, **kwargs):
    """Runs forcetrace; stdout and stderr as bytes (file names need not be UTF-8)."""
    return subprocess.run([forcetrace, *args], capture_output=True, **kwargs)


def shown(data):
    return data.decode("utf-8", "surrogateescape")


def hexname(char):
    return f"{ord(char):04x}"


@pytest.fixture(scope="module")
def traces(forcetrace, tmp_path_factory):
    """Two trace files: one recording per hostile character from evemu (in the
    device name, the kernel string and the recording name, which is the
    input's base name) and from libinput YAML (device name and kernel)."""
    directory = tmp_path_factory.mktemp("terminal")
    source = CALIBRATION.read_text()
    evemu_files = []
    for char in IN_A_LINE:
        text = source.replace(EVEMU_NAME, f"N: d{char}n", 1).replace("# EVEMU 1.3\n", f"# EVEMU 1.3\n# Kernel: k{char}l\n", 1)
        path = directory / f"r{char}n-{hexname(char)}.evemu"
        path.write_text(text)
        evemu_files.append(str(path))
    run(forcetrace, "import", "--format", "evemu", *evemu_files, "-o", directory / "evemu.h5")
    run(forcetrace, "import", CALIBRATION, "-o", directory / "plain.h5")
    libinput = run(forcetrace, "export", directory / "plain.h5", "--format", "libinput", "-o", "-").stdout
    yaml_files = []
    for char in HOSTILE:
        # YAML's own escape puts the character in the string.
        text = libinput.replace('name: "forcetrace simulated touchpad"', f'name: "d\\u{ord(char):04x}n"', 1)
        text = text.replace('kernel: "unknown"', f'kernel: "k\\u{ord(char):04x}l"', 1)
        assert text.count(f"\\u{ord(char):04x}") == 2
        path = directory / f"yaml-{hexname(char)}.yml"
        path.write_text(text)
        yaml_files.append(str(path))
    run(forcetrace, "import", *yaml_files, "-o", directory / "yaml.h5")
    return directory, directory / "evemu.h5", directory / "yaml.h5"


ALL_ESCAPED = "".join(map(escaped, HOSTILE))


def hostile_replay(traces, path):
    """A libinput YAML replay (record and calibrate detect the format) whose
    device name holds every hostile character."""
    directory, _, _ = traces
    source = (directory / f"yaml-{hexname(HOSTILE[0])}.yml").read_text()
    name = "".join(f"\\u{ord(c):04x}" for c in HOSTILE)
    path.write_text(source.replace('name: "d\\u0001n"', f'name: "d{name}n"', 1))
    return path


def test_info_shows_every_control_escaped(forcetrace, traces):
    _, evemu, yaml = traces
    for path, chars, recording_names in [(evemu, IN_A_LINE, True), (yaml, HOSTILE, False)]:
        result = run_bytes(forcetrace, "info", str(path))
        assert result.returncode == 0, result.stderr
        assert forbidden(result.stdout) == [], f"info printed raw controls for {path.name}"
        assert forbidden(result.stderr) == []
        text = shown(result.stdout)
        for char in chars:
            assert f'device:     "d{escaped(char)}n"' in text, (hex(ord(char)), path.name)
            assert f"kernel:     k{escaped(char)}l\n" in text, hex(ord(char))
            if recording_names:
                assert f"/recordings/r{escaped(char)}n-{hexname(char)}\n" in text, hex(ord(char))


def test_info_json_keeps_the_exact_strings(forcetrace, traces):
    _, evemu, yaml = traces
    for path, chars in [(evemu, IN_A_LINE), (yaml, HOSTILE)]:
        info = json.loads(run_bytes(forcetrace, "info", "--json", str(path)).stdout)
        assert sorted(r["device"]["name"] for r in info["recordings"]) == sorted(f"d{c}n" for c in chars)
        assert sorted(r["system"]["kernel"] for r in info["recordings"]) == sorted(f"k{c}l" for c in chars)


def test_report_text_shows_every_control_escaped(forcetrace, traces):
    _, evemu, yaml = traces
    result = run_bytes(forcetrace, "report", str(evemu), str(yaml), "--contacts", "0")
    assert result.returncode == 0, result.stderr
    assert forbidden(result.stdout) == [] and forbidden(result.stderr) == []
    text = shown(result.stdout)
    for char in IN_A_LINE:
        assert f"/recordings/r{escaped(char)}n-{hexname(char)} ==\n" in text, hex(ord(char))
    for char in HOSTILE:
        assert f'device: "d{escaped(char)}n", ' in text, hex(ord(char))


def test_report_json_keeps_the_exact_strings(forcetrace, traces):
    _, evemu, yaml = traces
    result = run_bytes(forcetrace, "report", str(evemu), str(yaml), "--json")
    assert result.returncode == 0 and forbidden(result.stderr) == []
    report = json.loads(result.stdout)
    assert sorted(r["device"] for r in report["recordings"]) == sorted(f"d{c}n" for c in IN_A_LINE + HOSTILE)


@pytest.fixture(scope="module")
def calibration(forcetrace, traces, tmp_path_factory):
    """A touchpad calibration whose device name holds every hostile character."""
    directory = tmp_path_factory.mktemp("calibration")
    replay = hostile_replay(traces, directory / "hostile.yml")
    result = run_bytes(forcetrace, "calibrate", "--replay", str(replay), "--protocol", "touchpad",
                       "-o", str(directory / "cal.h5"), "--fast")
    assert result.returncode == 0, result.stderr
    return directory / "cal.h5", result


def test_calibrate_prints_the_name_escaped(calibration):
    _, result = calibration
    assert forbidden(result.stdout) == [] and forbidden(result.stderr) == []
    assert f'"d{ALL_ESCAPED}n"' in shown(result.stdout)


def test_suggest_text_shows_every_control_escaped(forcetrace, calibration):
    path, _ = calibration
    result = run_bytes(forcetrace, "suggest", str(path))
    assert result.returncode == 0, result.stderr
    assert forbidden(result.stdout) == [] and forbidden(result.stderr) == []
    assert f'"d{ALL_ESCAPED}n"' in shown(result.stdout)
    suggestion = json.loads(run_bytes(forcetrace, "suggest", str(path), "--format", "json").stdout)
    assert suggestion["device"]["name"] == "d" + "".join(HOSTILE) + "n"


def test_record_replay_status_shows_the_name_escaped(forcetrace, traces, tmp_path):
    replay = hostile_replay(traces, tmp_path / "hostile.yml")
    # The "recording ... Ctrl-C stops" line shows only on a terminal.
    status, output = on_terminal([forcetrace, "record", "--replay", str(replay), "--fast", "-o", str(tmp_path / "r.h5")], tmp_path)
    assert status == 0, output
    assert forbidden(terminal_controls_removed(output)) == [], repr(output)
    assert f'"d{ALL_ESCAPED}n"' in output, repr(output)


@pytest.mark.parametrize("char", IN_A_LINE, ids=hexname)
def test_errors_quoting_a_bad_evemu_line_show_it_escaped(forcetrace, tmp_path, char):
    bad = tmp_path / "bad.evemu"
    lines = CALIBRATION.read_text().splitlines(keepends=True)
    at = len(lines) // 2
    # An unknown line: the error quotes it.
    bad.write_text("".join(lines[:at]) + f"Q1{char}2 junk\n" + "".join(lines[at:]))
    result = run_bytes(forcetrace, "import", "--format", "evemu", str(bad), "-o", str(tmp_path / "x.h5"))
    assert result.returncode == 1
    assert forbidden(result.stderr) == [], result.stderr
    assert f"1{escaped(char)}2" in shown(result.stderr), result.stderr
    # Salvaged: the warning, and info's import_error, quote the line too.
    result = run_bytes(forcetrace, "import", "--format", "evemu", "--salvage", str(bad), "-o", str(tmp_path / "s.h5"))
    assert result.returncode == 0, result.stderr
    assert forbidden(result.stderr) == [] and f"1{escaped(char)}2" in shown(result.stderr), result.stderr
    result = run_bytes(forcetrace, "info", str(tmp_path / "s.h5"))
    assert forbidden(result.stdout) == [] and f"1{escaped(char)}2" in shown(result.stdout)


@pytest.mark.parametrize("char", IN_A_LINE, ids=hexname)
def test_errors_quoting_a_label_show_it_escaped(forcetrace, tmp_path, char):
    bad = tmp_path / "label.evemu"
    text = CALIBRATION.read_text().replace("# EVEMU 1.3\n", "# EVEMU 1.3\n"
                                          f"# forcetrace-label: press slot=0 tracking_id=100 t=1.0 class=t{char}p\n", 1)
    bad.write_text(text)
    result = run_bytes(forcetrace, "import", "--format", "evemu", str(bad), "-o", str(tmp_path / "x.h5"))
    assert result.returncode == 1
    assert forbidden(result.stderr) == [], result.stderr
    assert f"t{escaped(char)}p" in shown(result.stderr), result.stderr


@pytest.mark.parametrize("char", HOSTILE, ids=hexname)
def test_errors_quoting_a_libinput_label_show_it_escaped(forcetrace, traces, tmp_path, char):
    directory, _, _ = traces
    source = (directory / f"yaml-{hexname(HOSTILE[0])}.yml").read_text()
    assert "      t0_ns:" in source
    bad = tmp_path / "label.yml"
    bad.write_text(source.replace("      t0_ns:", f'      labels: ["press slot=0 tracking_id=100 t=1.0 class=t\\u{ord(char):04x}p"]\n      t0_ns:', 1))
    result = run_bytes(forcetrace, "import", str(bad), "-o", str(tmp_path / "x.h5"))
    assert result.returncode == 1, result.stderr
    assert forbidden(result.stderr) == [], result.stderr
    assert f"t{escaped(char)}p" in shown(result.stderr), result.stderr


def test_report_dir_shows_file_names_escaped(forcetrace, traces, tmp_path):
    _, evemu, _ = traces
    small = evemu.parent / "plain.h5"
    folder = tmp_path / "folder"
    folder.mkdir()
    for char in HOSTILE:
        shutil.copy(small, folder / f"f{char}n.h5")
    # File names are bytes: not UTF-8 at all, and a lone lead byte.
    for raw in [b"g\xffn.h5", b"h\xc3n.h5"]:
        shutil.copy(small, os.path.join(os.fsencode(folder), raw))
    result = run_bytes(forcetrace, "report", str(folder), "--contacts", "0")
    assert forbidden(result.stdout) == [] and forbidden(result.stderr) == [], result.stderr
    out = shown(result.stdout) + shown(result.stderr)
    for char in HOSTILE:
        assert f"f{escaped(char)}n.h5" in out, hex(ord(char))
    assert "g\\xffn.h5" in out and "h\\xc3n.h5" in out, out


@pytest.mark.parametrize("args", [["info", "--x\x1b]52;c;aGk=\x07y"], ["report", "x.h5", "--contacts", "\x1b[2J\u202e"],
                                  ["no\x1bsuch"], ["info", "a\x9bb.h5"]], ids=["option", "value", "subcommand", "missing file"])
def test_arguments_echoed_in_errors_are_escaped(forcetrace, args, tmp_path):
    result = run_bytes(forcetrace, *args, cwd=tmp_path)
    assert result.returncode in (1, 2)
    assert forbidden(result.stderr) == [], result.stderr
    assert "\\x1b" in shown(result.stderr) or "\\u009b" in shown(result.stderr)


def test_progress_line_shows_the_file_name_escaped(forcetrace, tmp_path):
    big = tmp_path / "big.evemu"
    run(forcetrace, "simulate", "--seed", "5", "--presses", "1000", "-o", big)
    hostile = tmp_path / "p\x1b]52;c;aGk=\x07\x9b\u202eq.h5"
    run(forcetrace, "import", *[big] * 8, "-o", hostile)
    status, output = on_terminal([forcetrace, "report", str(hostile), "--contacts", "0"], tmp_path)
    assert status == 0, output
    assert "analysing " in output, output
    assert forbidden(terminal_controls_removed(output)) == [], repr(output)
    assert "p\\x1b]52;c;aGk=\\x07\\u009b\\u202eq.h5" in output, repr(output)
