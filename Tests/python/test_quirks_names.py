"""`suggest --format quirks` with hostile device and recording names:
libinput's own parser (`libinput quirks validate`) accepts every file,
its attributes are the suggestion's and nothing else, and MatchName, read with
glibc's fnmatch as libinput reads it, matches the device's name and no other;
names libinput's grammar cannot hold are left out for the ids, with a comment."""
import ctypes
import ctypes.util
import json
import re
import subprocess

import h5py
import pytest

from conftest import SAMPLES, run
from test_calibrate import libinput

SAMPLE = SAMPLES / "calibration" / "touchpad.evemu"
LINE_LIMIT = 510  # libinput's fgets into char[512]: 510 bytes and the newline
ORDINARY = b"forcetrace simulated touchpad"  # the sample's name
LIBC = ctypes.CDLL(ctypes.util.find_library("c"))

# Names an evemu N: line carries (printable), and whether MatchName can hold them.
EVEMU_NAMES = {
    "*": True, "?": True, "[abc]": True, "Touch*pad?": True, "a\\b": True, "\\": True,
    "]": True, "name]": True, "[": True, "[forcetrace x]": True,
    '"quoted"': True, "'single'": True, 'ends"': True,
    "Touchpad \u00fcn\u00efc\u00f6d\u00e9 \u202e": True, "x" * 480: True,
    "a # b": False, "#lead": False, "a#b": False, "a=b": False, "=lead": False, "trail=": False,
    # Old code: the name spilled past libinput's line into an attribute of the attacker's choosing.
    "x" * 501 + "AttrPalmPressureThreshold=1": False,
    "x" * 1000: False, "\u00e9" * 300: False,
}
# Names an evemu file cannot carry (it is read as binary, and the N: line's
# blanks at either end are dropped): set on the trace itself. None of the controls is held.
TRACE_NAMES = {f"ctl{b:02x}": (bytes([b]), False) for b in [*range(0x01, 0x20), 0x7F]}
TRACE_NAMES |= {"c1": ("a\u0085b".encode(), False), "newline-attr": (b"pad\nAttrPressureRange=1:0", False),
                "not-utf8": (b"pad\xff\xfe", False), "lead": (b" lead", True), "trail": (b"trail ", True), "both": (b"  both  ", True),
                "quote-lead": (b'"quoted', True)}


def calibrate(forcetrace, tmp_path, name=None, stem="cal"):
    source = SAMPLE.read_bytes()
    if name is not None:
        source = re.sub(rb"^N: .*$", lambda _: b"N: " + name.encode(), source, count=1, flags=re.M)
    evemu = tmp_path / f"{stem}.evemu"
    evemu.write_bytes(source)
    out = tmp_path / "cal.h5"
    run(forcetrace, "calibrate", "--replay", evemu, "--protocol", "touchpad", "-o", out, "--fast", "--force")
    return out


def suggest(forcetrace, trace, tmp_path):
    folder = tmp_path / "quirks"
    folder.mkdir(exist_ok=True)
    run(forcetrace, "suggest", trace, "--format", "quirks", "-o", folder / "forcetrace.quirks", "--force")
    checked = subprocess.run([libinput(), "quirks", "validate", "--data-dir", folder], capture_output=True, text=True)
    text = (folder / "forcetrace.quirks").read_bytes()
    assert checked.returncode == 0, f"libinput rejected:\n{text!r}\n{checked.stdout}{checked.stderr}"
    return text


def entries(text):
    """The file's lines as libinput's parse_file reads them: cut at the first
    '#', blank lines skipped; every line must fit libinput's buffer."""
    lines = []
    for line in text.split(b"\n")[:-1]:
        assert len(line) <= LINE_LIMIT, f"a line of {len(line)} bytes: {line[:80]!r}..."
        line = line.split(b"#", 1)[0].rstrip(b" \t")
        if line:
            lines.append(line)
    return lines


def fnmatch(pattern, name):
    return LIBC.fnmatch(pattern, name, 0) == 0


def check(forcetrace, trace, text, name, held):
    suggestion = json.loads(run(forcetrace, "suggest", trace, "--format", "json").stdout)
    pad = suggestion["touchpad"]
    lines = entries(text)
    assert [line for line in lines if line.startswith(b"[")] == [lines[0]] and lines[0].endswith(b"]")
    pairs = [line.split(b"=") for line in lines[1:]]
    assert all(len(pair) == 2 for pair in pairs), lines
    keys = [key for key, _ in pairs]
    values = dict(pairs)
    assert len(keys) == len(values), "a key written twice"
    attributes = {key: value for key, value in values.items() if key.startswith(b"Attr")}
    assert attributes == {
        b"AttrPressureRange": f"{pad['pressure_range_begin']['value']}:{pad['pressure_range_end']['value']}".encode(),
        b"AttrThumbPressureThreshold": str(pad["thumb_pressure_threshold"]["value"]).encode(),
        b"AttrPalmPressureThreshold": str(pad["palm_pressure_threshold"]["value"]).encode(),
    }
    assert values[b"MatchVendor"] == b"0x1D6B" and values[b"MatchProduct"] == b"0x7F02" and values[b"MatchUdevType"] == b"touchpad"
    if held:
        pattern = values[b"MatchName"]
        assert fnmatch(pattern, name), (pattern, name)
        assert not fnmatch(pattern, name + b"x") and not fnmatch(pattern, b"other " + name)
        assert name == ORDINARY or not fnmatch(pattern, ORDINARY)
        # Glob characters are literal: a name with other characters in their place is not matched.
        sibling = name.translate(bytes.maketrans(b"*?[]\\", b"ZZZZZ"))
        assert sibling == name or not fnmatch(pattern, sibling), (pattern, sibling)
    else:
        assert b"MatchName" not in values
        assert b"\n# MatchName left out: the device name " in text, text
    return values


@pytest.mark.parametrize("name", EVEMU_NAMES, ids=lambda n: repr(n[:24]) + f"({len(n)})")
def test_device_name_from_evemu(forcetrace, tmp_path, name):
    trace = calibrate(forcetrace, tmp_path, name)
    with h5py.File(trace, "r") as f:
        imported = f["recordings"]["cal"].attrs["device_name"]
    assert imported == name
    check(forcetrace, trace, suggest(forcetrace, trace, tmp_path), imported.encode(), EVEMU_NAMES[name])


@pytest.fixture(scope="module")
def plain_calibration(forcetrace, tmp_path_factory):
    """The sample's calibration, made once; each test edits a copy."""
    return calibrate(forcetrace, tmp_path_factory.mktemp("plain"))


@pytest.mark.parametrize("label", TRACE_NAMES)
def test_device_name_set_on_the_trace(forcetrace, plain_calibration, tmp_path, label):
    trace = tmp_path / "cal.h5"
    trace.write_bytes(plain_calibration.read_bytes())
    name, held = TRACE_NAMES[label]
    with h5py.File(trace, "r+") as f:
        attrs = f["recordings"]["cal"].attrs
        attrs.create("device_name", name, dtype=h5py.string_dtype("utf-8"))
    text = suggest(forcetrace, trace, tmp_path)
    check(forcetrace, trace, text, name, held)
    # No control byte but the newlines of the file's own lines reaches it.
    assert not any(b < 0x20 and b != 0x0A or b == 0x7F for b in text)


@pytest.mark.parametrize("stem", ["rec#1", "rec]x", "rec[x", "r\u202eec", "r\u200fec", "x" * 240])
def test_recording_name_in_the_header(forcetrace, tmp_path, stem):
    trace = calibrate(forcetrace, tmp_path, stem=stem)
    text = suggest(forcetrace, trace, tmp_path)
    header = [line for line in text.split(b"\n") if line.startswith(b"[")]
    assert len(header) == 1 and header[0].startswith(b"[forcetrace ") and header[0].endswith(b"]")
    assert b"#" not in header[0] and b"]" not in header[0][:-1]
    # No bidirectional control or direction mark is written raw (TerminalText's set).
    assert not any(mark.encode() in header[0] for mark in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
    check(forcetrace, trace, text, ORDINARY, held=True)


def test_a_long_input_path_cuts_the_comment_only(forcetrace, tmp_path):
    folder = tmp_path
    for part in "abc":
        folder = folder / (part * 200)
    folder.mkdir(parents=True)
    trace = calibrate(forcetrace, folder)
    text = suggest(forcetrace, trace, tmp_path)
    source = [line for line in text.split(b"\n") if line.startswith(b"# from ")]
    assert len(source) == 1 and len(source[0]) == LINE_LIMIT and source[0].endswith(b"...")
    check(forcetrace, trace, text, ORDINARY, held=True)


def test_ordinary_names_are_written_as_they_are(forcetrace, tmp_path):
    trace = calibrate(forcetrace, tmp_path, stem="touchpad")
    text = suggest(forcetrace, trace, tmp_path)
    assert b"\n[forcetrace touchpad]\nMatchName=forcetrace simulated touchpad\nMatchBus=usb\n" in text
