"""Exports round-trip any name.

A device name, kernel or DMI string, label kind or recording name holding
control characters, line breaks, C1 controls, bidi overrides, invalid UTF-8
or 1000 bytes goes out through `export --format evemu|libinput|raw` and back
through `import`: the same strings, labels and events, no forged line. The
exports are also read by the formats' own readers: PyYAML (pure and libyaml)
for libinput, libevemu's evemu_read (Tests/python/evemu_reader.c) for evemu.
"""
import copy
import os
import pathlib
import shutil
import subprocess

import h5py
import numpy as np
import pytest
import yaml

from conftest import SAMPLES, run

HERE = pathlib.Path(__file__).resolve().parent
SAMPLE = SAMPLES / "touchscreen-mixed.evemu"

# A press label that is not in the sample: forged if it ever appears.
FORGED_LABEL = "forcetrace-label: press slot=0 tracking_id=999 t=1764400000.300000 class=pop-press"

NAMES = {
    "c0-and-del": "A" + "".join(map(chr, range(1, 0x20))) + "\x7fZ",
    "c1": "C1 " + "".join(map(chr, range(0x80, 0xA0))) + " end",
    "bidi": "bidi \u202eevil\u202c \u2066x\u2069 \u200f\u061c\u200e",
    "separators": "ls\u2028ps\u2029bom\ufeffnon\ufffe\uffffchars",
    "osc52": "\x1b]52;c;aGVsbG8=\x07 \x1b[31mred\x1b[0m",
    "forged-label": "pad\n# " + FORGED_LABEL,
    "forged-fields": "pad\nI: 0003 dead beef 0001\nS: 05 1\r\nN: other",
    "backslashes": "back\\slash \\n \\x41 \\u0041 \\\\ end\\",
    "quotes-and-hashes": 'say "hi" # not: a [comment] {x} & *y !z %',
    "blanks": "  two leading, two trailing\t ",
    "long": "L" * 990 + "\u00e9" * 5,
    "plain": "Wacom Intuos Pro M Pen",
}


def labels_and_events(path):
    """Everything import made of the names, labels and events of each recording."""
    with h5py.File(path, "r") as handle:
        result = {}
        for name, group in handle["recordings"].items():
            attrs = {key: group.attrs[key] for key in ("device_name", "kernel", "dmi") if key in group.attrs}
            attrs["device_id"] = group.attrs["device_id"].tolist()
            for key in ("led_state", "switch_state"):
                attrs[key] = group.attrs[key].tolist() if key in group.attrs else []
            labels = {}
            if "labels" in group:
                table = group["labels"]
                labels = {key: table.attrs[key] for key in ("peek", "pop") if key in table.attrs}
                for column in table:
                    values = table[column]
                    labels[column] = (values.asstr()[:] if h5py.check_string_dtype(values.dtype) else values[:]).tolist()
            events = {column: group["events"][column][:] for column in ("t_ns", "type", "code", "value")}
            events["t0_ns"] = int(group.attrs["t0_ns"])
            result[name] = (attrs, labels, events)
        return result


def assert_same(before, after, what):
    assert list(before) == list(after), what
    for name in before:
        attrs, labels, events = before[name]
        attrs2, labels2, events2 = after[name]
        assert attrs2 == attrs, what
        assert labels2 == labels, what
        assert events2["t0_ns"] == events["t0_ns"], what
        for column in ("t_ns", "type", "code", "value"):
            assert np.array_equal(events2[column], events[column]), f"{what}: events/{column}"


@pytest.fixture(scope="module")
def plain_yaml(forcetrace, tmp_path_factory):
    """The sample as libinput record YAML, with its plain name."""
    directory = tmp_path_factory.mktemp("plain")
    run(forcetrace, "import", SAMPLE, "-o", directory / "sample.h5")
    run(forcetrace, "export", directory / "sample.h5", "--format", "libinput", "-o", directory / "plain.yml")
    # Parsed once: pure-Python PyYAML takes seconds over its 500 KB.
    return yaml.safe_load((directory / "plain.yml").read_text(encoding="utf-8"))


def source_yaml(plain_yaml, tmp_path, name, kernel, dmi, kind):
    """A libinput record file of the sample's events, with these strings: its
    description and labels written by PyYAML, so forcetrace's YAML reader
    alone decides what they are."""
    data = copy.deepcopy(plain_yaml)
    data["system"] = {"kernel": kernel, "dmi": dmi}
    device = data["devices"][0]
    device["evdev"]["name"] = name
    labels = device["forcetrace"]["labels"]
    labels[1] = labels[1].replace("kind=tap", "kind=" + kind)
    assert kind in labels[1]
    path = tmp_path / "source.yml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def evemu_reader(tmp_path_factory):
    """libevemu's own reader, built from evemu_reader.c; `make test-python`
    installs libevemu-dev. Skipped where it is absent, unless CI."""
    if shutil.which("gcc") is None or not pathlib.Path("/usr/include/evemu.h").exists():
        if os.environ.get("CI"):
            pytest.fail("libevemu-dev or gcc is missing: `make test-python` installs them")
        pytest.skip("libevemu-dev or gcc is missing (make test-python installs them)")
    binary = tmp_path_factory.mktemp("evemu") / "evemu_reader"
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "evemu"], capture_output=True, text=True, check=True).stdout.split()
    subprocess.run(["gcc", "-Wall", "-Werror", "-o", str(binary), str(HERE / "evemu_reader.c"), *flags], check=True)
    return binary


def read_with_libevemu(reader, path):
    result = subprocess.run([str(reader), str(path)], capture_output=True)
    assert result.returncode == 0, f"libevemu refused {path}: {result.stderr.decode(errors='replace')}"
    lines = result.stdout.decode("ascii").splitlines()
    assert lines[0].startswith("name ") and lines[1].startswith("id ")
    name = bytes.fromhex(lines[0][5:]).decode("utf-8")
    device_id = [int(part) for part in lines[1].split()[1:]]
    events = [tuple(int(part) for part in line.split()) for line in lines[2:]]
    return name, device_id, events


def decoded_evemu_field(text, escaped):
    """An escaped evemu value read as docs/FORMAT.md says: YAML's
    double-quoted escapes, so PyYAML decodes it."""
    if not escaped:
        return text
    return yaml.safe_load('"' + text.replace('"', '\\"') + '"')


def check_evemu_with_libevemu(reader, path, name, events):
    text = path.read_bytes()
    escaped = b"\n# forcetrace-escaped:" in text
    libevemu_name, device_id, libevemu_events = read_with_libevemu(reader, path)
    # libevemu keeps the rest of the N: line: what forcetrace wrote there, one line, no control character.
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in libevemu_name)
    assert decoded_evemu_field(libevemu_name, escaped) == name
    assert len(libevemu_events) == len(events["type"])
    assert [e[0] for e in libevemu_events] == events["type"].tolist()
    assert [e[1] for e in libevemu_events] == events["code"].tolist()
    assert [e[2] for e in libevemu_events] == events["value"].tolist()
    return device_id


def check_libinput_with_pyyaml(path, name, kernel, dmi):
    text = path.read_text(encoding="utf-8")
    for loader in (yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        data = yaml.load(text, Loader=loader)
        assert data["devices"][0]["evdev"]["name"] == name, loader
        assert data["system"]["kernel"] == kernel, loader
        assert data["system"]["dmi"] == dmi, loader
        assert len(data["devices"]) == 1


@pytest.mark.parametrize("case", sorted(NAMES))
def test_hostile_strings_round_trip_through_every_export(forcetrace, tmp_path, evemu_reader, plain_yaml, case):
    name = NAMES[case]
    kernel = "6.1.0-k " + name
    dmi = "dmi:bvn" + name + ":"
    kind = "k" + name.replace(" ", "").replace("\\", "")
    source = source_yaml(plain_yaml, tmp_path, name, kernel, dmi, kind)
    first = tmp_path / "first.h5"
    run(forcetrace, "import", source, "-o", first)
    original = labels_and_events(first)
    attrs, labels, events = original["source"]
    # What import made of PyYAML's file, before any export.
    assert (attrs["device_name"], attrs["kernel"], attrs["dmi"]) == (name, kernel, dmi)
    assert kind in labels["kind"]
    assert "peek" in labels and 999 not in labels["tracking_id"]

    for fmt in ("evemu", "libinput"):
        exported = tmp_path / f"export.{fmt}"
        run(forcetrace, "export", first, "--format", fmt, "-o", exported)
        back = tmp_path / f"back-{fmt}.h5"
        run(forcetrace, "import", exported, "--name", "source", "-o", back)
        assert_same(original, labels_and_events(back), f"{case} through {fmt}")
        if fmt == "evemu":
            assert exported.read_bytes().count(b"\nN:") == 1
            device_id = check_evemu_with_libevemu(evemu_reader, exported, name, events)
            assert device_id == attrs["device_id"]
        else:
            check_libinput_with_pyyaml(exported, name, kernel, dmi)

    # raw carries no description: it comes back with the evemu export as --desc.
    raw = tmp_path / "export.raw"
    run(forcetrace, "export", first, "--format", "raw", "-o", raw)
    back = tmp_path / "back-raw.h5"
    run(forcetrace, "import", raw, "--desc", tmp_path / "export.evemu", "--name", "source", "-o", back)
    attrs2, _, events2 = labels_and_events(back)["source"]
    assert attrs2["device_name"] == name
    assert np.array_equal(events2["t_ns"] + events2["t0_ns"], events["t_ns"] + events["t0_ns"])
    assert np.array_equal(events2["value"], events["value"])


def test_invalid_utf8_name_is_stored_with_replacement_characters_and_round_trips(forcetrace, tmp_path, evemu_reader):
    """Bytes that are not UTF-8 (a kernel name in Latin-1, say) are stored
    with U+FFFD for each bad sequence; every export then round-trips that."""
    lines = SAMPLE.read_bytes().split(b"\n")
    index = next(i for i, line in enumerate(lines) if line.startswith(b"N: "))
    lines[index] = b"N: Caf\xe9 \xff\xfe pad \xc3"
    source = tmp_path / "latin1.evemu"
    source.write_bytes(b"\n".join(lines))
    first = tmp_path / "first.h5"
    run(forcetrace, "import", source, "--format", "evemu", "--name", "source", "-o", first)
    original = labels_and_events(first)
    attrs, _, events = original["source"]
    assert attrs["device_name"] == "Caf\ufffd \ufffd\ufffd pad \ufffd"
    for fmt in ("evemu", "libinput"):
        exported = tmp_path / f"export.{fmt}"
        run(forcetrace, "export", first, "--format", fmt, "-o", exported)
        back = tmp_path / f"back-{fmt}.h5"
        run(forcetrace, "import", exported, "--name", "source", "-o", back)
        assert_same(original, labels_and_events(back), f"invalid UTF-8 through {fmt}")
    check_evemu_with_libevemu(evemu_reader, tmp_path / "export.evemu", attrs["device_name"], events)
    assert yaml.safe_load((tmp_path / "export.libinput").read_text())["devices"][0]["evdev"]["name"] == attrs["device_name"]


@pytest.mark.parametrize("fmt", ["evemu", "libinput"])
def test_recording_name_in_the_export_comment_forges_no_label(forcetrace, tmp_path, fmt):
    """The export's comment names the recording; a name with a line break
    must not become a label line (or any other line) on re-import."""
    first = tmp_path / "first.h5"
    run(forcetrace, "import", SAMPLE, "--name", "x\n" + FORGED_LABEL + "\n\x1b[2J\u2028version: 2", "-o", first)
    original = labels_and_events(first)
    exported = tmp_path / f"export.{fmt}"
    run(forcetrace, "export", first, "--format", fmt, "-o", exported)
    back = tmp_path / "back.h5"
    run(forcetrace, "import", exported, "--name", list(original)[0], "-o", back)
    assert_same(original, labels_and_events(back), f"recording name through {fmt}")
    if fmt == "libinput":
        assert yaml.safe_load(exported.read_text(encoding="utf-8"))["version"] == 1


def test_a_nul_in_a_label_kind_ends_it_as_stored(forcetrace, tmp_path):
    """A NUL ends a string when it is stored (docs/FORMAT.md): a label kind
    escaped as `a\\x00b` is stored as `a`, as a NUL in a name is. import
    failed instead, calling its own output damaged."""
    text = SAMPLE.read_text().replace("class=tap kind=tap peak=0.2833", "class=tap kind=a\\x00b peak=0.2833", 1)
    source = tmp_path / "nul.evemu"
    source.write_text(text)
    output = tmp_path / "nul.h5"
    result = run(forcetrace, "import", source, "-o", output, check=False)
    assert result.returncode == 0, result.stderr
    (_, labels, _), = labels_and_events(output).values()
    assert labels["kind"][0] == "a"
