"""Escaping by property: seeded random strings over every
code point class (ASCII, C0, DEL, C1, bidirectional controls, separators,
quotes, glob and quirks metacharacters, backslashes, non-Latin text) as
device names, through each renderer and back through the real reader:

- JSON (`info --json`, `report --json`): Python's json gives the string back;
- terminal text (`info`, `report`): no raw control character reaches the
  output, and undoing TerminalText's documented escapes gives the string back;
- evemu and libinput exports: forcetrace's own import, and PyYAML for
  libinput, give the string back;
- quirks: `libinput quirks validate` accepts the file, and MatchName, read
  with glibc's fnmatch as libinput does, matches the name (or the name is one
  docs/ANALYSIS.md says is matched by ids alone, and MatchName is left out).

The HTML page's escaping is checked in Chromium by Tests/browser."""
import json
import random
import re
import unicodedata

import h5py
import pytest
import yaml

from conftest import SAMPLES, run
from test_quirks_names import LINE_LIMIT, calibrate, check, suggest

SEED = 26
POOLS = [
    "abcxyzABCXYZ0189 _-.,:;/()",
    "".join(map(chr, range(0x01, 0x20))) + "\x7f",
    "".join(map(chr, range(0x80, 0xA0))),
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029",
    "\\\"'`#=[]*?{}&<>%!$",
    "\u00e9\u00fc\u00df\u4e2d\u6587\u0416\u05d0\u0627\U0001F600\ufffd\ufeff",
]


def random_names(count, seed):
    rng = random.Random(seed)
    names = []
    while len(names) < count:
        length = rng.choice([1, 2, 5, 12, 40, 90])
        name = "".join(rng.choice(rng.choice(POOLS)) for _ in range(length))
        if name.strip(" \t") == name and name:  # evemu and YAML names keep no blanks at their ends
            names.append(name)
    return names


NAMES = random_names(24, SEED)
# libyaml's safe loader and dumper: the pure-Python ones take minutes over 24 copies of
# the sample (test_name_roundtrip.py reads names with both).
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def unescape_terminal(text):
    """TerminalText's escapes undone (Sources/ForceTrace/Support/TerminalText.swift)."""
    def one(match):
        token = match.group(0)
        simple = {"\\\\": "\\", "\\n": "\n", "\\t": "\t", "\\r": "\r"}
        if token in simple:
            return simple[token]
        return chr(int(token[2:], 16))
    return re.sub(r"\\\\|\\n|\\t|\\r|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}", one, text)


def raw_controls(text):
    """Characters a terminal acts on, or that reorder what is read."""
    bad = set(map(chr, [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)])) - {"\n"}
    bad |= set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029")
    return sorted({c for c in text if c in bad})


@pytest.fixture(scope="module")
def traces(forcetrace, tmp_path_factory):
    """One libinput record file holding the sample once per random name
    (written by PyYAML), imported: a recording per name."""
    folder = tmp_path_factory.mktemp("properties")
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", folder / "sample.h5")
    run(forcetrace, "export", folder / "sample.h5", "--format", "libinput", "-o", folder / "plain.yml")
    data = yaml.load((folder / "plain.yml").read_text(encoding="utf-8"), Loader=LOADER)
    device = data["devices"][0]
    data["devices"] = []
    for name in NAMES:
        copy = json.loads(json.dumps(device))
        copy["evdev"]["name"] = name
        data["devices"].append(copy)
    source = folder / "names.yml"
    source.write_text(yaml.dump(data, Dumper=DUMPER, sort_keys=False, allow_unicode=True), encoding="utf-8")
    trace = folder / "names.h5"
    run(forcetrace, "import", source, "-o", trace)
    with h5py.File(trace, "r") as f:
        recordings = {name: f["recordings"][name].attrs["device_name"] for name in f["recordings"]}
    assert sorted(recordings.values()) == sorted(NAMES), "import gives every name back exactly"
    return folder, trace, recordings


def test_json_gives_every_name_back(forcetrace, traces):
    _, trace, recordings = traces
    info = json.loads(run(forcetrace, "info", trace, "--json").stdout)
    assert {r["name"]: r["device"]["name"] for r in info["recordings"]} == recordings
    report = json.loads(run(forcetrace, "report", trace, "--json", "--contacts", "0").stdout)
    assert {r["name"]: r["device"] for r in report["recordings"]} == recordings


@pytest.mark.parametrize("command", [["info"], ["report", "--contacts", "0"]], ids=["info", "report"])
def test_terminal_text_hides_every_control_and_escapes_reversibly(forcetrace, traces, command):
    _, trace, recordings = traces
    result = run(forcetrace, command[0], trace, *command[1:])
    assert raw_controls(result.stdout) == [] and raw_controls(result.stderr) == []
    quoted = re.findall(r'^\s*(?:device:\s+)?"(.*)"(?: bus 0x| ?$|,)', result.stdout, flags=re.M)
    shown = sorted(unescape_terminal(text) for text in quoted)
    assert shown == sorted(recordings.values()), result.stdout[:2000]


def test_evemu_and_libinput_exports_give_every_name_back(forcetrace, traces):
    folder, trace, recordings = traces
    exported = folder / "all.yml"
    run(forcetrace, "export", trace, "--format", "libinput", "-o", exported)
    devices = yaml.load(exported.read_text(encoding="utf-8"), Loader=LOADER)["devices"]
    assert sorted(d["evdev"]["name"] for d in devices) == sorted(recordings.values())
    again = folder / "again.h5"
    run(forcetrace, "import", exported, "-o", again)
    with h5py.File(again, "r") as f:
        assert sorted(f["recordings"][n].attrs["device_name"] for n in f["recordings"]) == sorted(recordings.values())
    for index, (recording, name) in enumerate(recordings.items()):
        evemu = folder / f"r{index}.evemu"
        run(forcetrace, "export", trace, "--format", "evemu", "--recording", recording, "-o", evemu)
        back = folder / f"r{index}.h5"
        run(forcetrace, "import", evemu, "--format", "evemu", "-o", back)
        with h5py.File(back, "r") as f:
            (group,) = f["recordings"].values()
            assert group.attrs["device_name"] == name, (recording, name)


@pytest.fixture(scope="module")
def calibration(forcetrace, tmp_path_factory):
    return calibrate(forcetrace, tmp_path_factory.mktemp("calibration"))


def held_by_quirks(name):
    """docs/ANALYSIS.md, "Quirks output": the names MatchName can hold, and
    the MatchName line's length after its escapes."""
    if any(c in name for c in "#=\ufffd") or any(unicodedata.category(c) == "Cc" for c in name):
        return False
    escaped = "".join("\\" + c if c in "*?[]\\" else c for c in name)
    if escaped[:1] in ("\"", "'"):
        escaped = "\\" + escaped
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "[ ]"
    return len(b"MatchName=") + len(escaped.encode()) <= LINE_LIMIT


@pytest.mark.parametrize("name", random_names(10, SEED + 1) + ["x" * 499, "x" * 500, "x" * 501, "\\" * 250],
                         ids=lambda n: ascii(n)[:30])
def test_quirks_are_read_by_libinput_as_written(forcetrace, calibration, tmp_path, name):
    trace = tmp_path / "cal.h5"
    trace.write_bytes(calibration.read_bytes())
    with h5py.File(trace, "r+") as f:
        f["recordings"]["cal"].attrs.create("device_name", name, dtype=h5py.string_dtype("utf-8"))
    text = suggest(forcetrace, trace, tmp_path)
    # MatchName is there, matching the name, exactly when the docs say it can be.
    check(forcetrace, trace, text, name.encode(), held=held_by_quirks(name))
