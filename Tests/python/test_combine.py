"""Combining trace files (issue 13): `import` takes trace files among its
inputs and copies their recordings whole; `export --format libinput` writes
several recordings as several devices, which libinput's own tools read; and
`report DIR` passes over the `--save` files in the folder."""
import json
import os
import subprocess
import sys
import warnings

import h5py
import numpy as np
import pytest

from conftest import ROOT, SAMPLES, run, shared_recording

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as forcetrace_py  # noqa: E402 - the package in python/, as test_package.py uses it

MIXED = SAMPLES / "touchscreen-mixed.evemu"
DEEP = SAMPLES / "touchscreen-deep-presses.evemu"
CALIBRATION = SAMPLES / "calibration" / "touchpad.evemu"
LIBINPUT_TOOLS = "/usr/libexec/libinput"
# HDF5's dimension-scale bookkeeping: object references, which differ between files by nature.
REFERENCES = {"DIMENSION_LIST", "REFERENCE_LIST"}


def tree(group):
    """Everything under a recording group: {path: (attributes, dtype, values, dimension names)}."""
    found = {"": ({k: v for k, v in group.attrs.items()}, None, None, None)}

    def visit(name, obj):
        attrs = {k: v for k, v in obj.attrs.items() if k not in REFERENCES}
        if isinstance(obj, h5py.Dataset):
            dims = tuple(os.path.relpath(scale.name, group.name) for axis in obj.dims for scale in axis.values())
            found[name] = (attrs, obj.dtype, obj[()], dims)
        else:
            found[name] = (attrs, None, None, None)

    group.visititems(visit)
    return found


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def assert_same_recording(a, b):
    first, second = tree(a), tree(b)
    assert sorted(first) == sorted(second)
    for path, (attrs, dtype, values, dims) in first.items():
        other = second[path]
        assert sorted(attrs) == sorted(other[0]), path
        for key, value in attrs.items():
            assert same(value, other[0][key]), (path, key)
        assert dtype == other[1], path
        assert dims == other[3], path
        assert same(values, other[2]), path


@pytest.fixture(scope="module")
def traces(forcetrace, tmp_path_factory):
    """Two imported samples with labels, and a calibration session with its extra label columns."""
    folder = tmp_path_factory.mktemp("traces")
    samples, calibration = folder / "samples.h5", folder / "calibration.h5"
    run(forcetrace, "import", MIXED, DEEP, "-o", samples)
    run(forcetrace, "calibrate", "--replay", CALIBRATION, "--protocol", "touchpad", "-o", calibration, "--fast")
    with h5py.File(calibration, "r+") as f:
        # What `record` writes for a keyboard-capable device, so that the copy must keep it too.
        f["recordings/touchpad"].attrs["keycodes"] = "obfuscated"
    return samples, calibration


def test_import_copies_trace_recordings_whole(forcetrace, traces, tmp_path):
    samples, calibration = traces
    out = tmp_path / "combined.h5"
    result = run(forcetrace, "import", samples, CALIBRATION, calibration, "-o", out)
    assert "/recordings/touchscreen-mixed: 6966 events, 1518 frames, 28 contacts, 1630 samples" in result.stdout
    assert f"(from {samples}:/recordings/touchscreen-mixed)" in result.stdout
    with h5py.File(out, "r") as f, h5py.File(samples, "r") as s, h5py.File(calibration, "r") as c:
        # The evemu input's group is named after it, so the calibration copy takes the next free name.
        assert sorted(f["recordings"]) == ["touchpad", "touchpad-2", "touchscreen-deep-presses", "touchscreen-mixed"]
        for name in ("touchscreen-mixed", "touchscreen-deep-presses"):
            assert_same_recording(s["recordings"][name], f["recordings"][name])
        assert_same_recording(c["recordings/touchpad"], f["recordings/touchpad-2"])
        copied = f["recordings/touchpad-2"]
        assert copied.attrs["keycodes"] == "obfuscated" and copied.attrs["stop_reason"] == "session-complete"
        assert list(copied["labels"]["peak"][:5]) == list(c["recordings/touchpad/labels/peak"][:5])
        assert copied["labels"].attrs["protocol"] == "touchpad"
        assert f["recordings/touchpad"].attrs["source"].startswith("evemu:")
    # forcetrace itself sees the same recordings as in the sources.
    info = {r["name"]: r for r in json.loads(run(forcetrace, "info", out, "--json").stdout)["recordings"]}
    for source, name, copy in [(samples, "touchscreen-mixed", "touchscreen-mixed"), (calibration, "touchpad", "touchpad-2")]:
        (original,) = [r for r in json.loads(run(forcetrace, "info", source, "--json").stdout)["recordings"] if r["name"] == name]
        original["name"] = copy
        assert info[copy] == original
    # And so does the report: the combined file counts what its sources count.
    fresh = tmp_path / "fresh.h5"
    run(forcetrace, "import", CALIBRATION, "-o", fresh)
    combined_total = json.loads(run(forcetrace, "report", out, "--json").stdout)["total"]
    assert combined_total == json.loads(run(forcetrace, "report", samples, fresh, calibration, "--json").stdout)["total"]
    # xarray opens the copied tables with named dimensions and no warning.
    xarray = pytest.importorskip("xarray")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with xarray.open_dataset(out, group="recordings/touchpad-2/labels", engine="h5netcdf") as labels:
            assert labels["peak"].dims == ("label",)
            assert labels["t_end_ns"].attrs["units"] == "nanoseconds"


def test_python_package_reads_the_copy_as_the_source(forcetrace, traces, tmp_path):
    samples, calibration = traces
    out = tmp_path / "combined.h5"
    run(forcetrace, "import", calibration, samples, "-o", out)
    with forcetrace_py.open(out) as combined, forcetrace_py.open(calibration) as source:
        for table in ("samples", "contacts", "events", "markers", "labels"):
            a, b = source["touchpad"].frame(table), combined["touchpad"].frame(table)
            assert a.equals(b), table


def test_name_collisions_and_name_option(forcetrace, traces, tmp_path):
    samples, _ = traces
    out = tmp_path / "twice.h5"
    run(forcetrace, "import", samples, samples, "-o", out)
    with h5py.File(out, "r") as f:
        assert sorted(f["recordings"]) == ["touchscreen-deep-presses", "touchscreen-deep-presses-2",
                                           "touchscreen-mixed", "touchscreen-mixed-2"]
    named = tmp_path / "named.h5"
    run(forcetrace, "import", samples, MIXED, "--name", "rig", "-o", named)
    with h5py.File(named, "r") as f:
        assert sorted(f["recordings"]) == ["rig", "rig-2", "rig-3"]
        assert f["recordings/rig"].attrs["source"].endswith("touchscreen-deep-presses.evemu")


def test_shared_recordings_through_two_imports(forcetrace, tmp_path):
    pen = shared_recording("dell_canvas_pen.evemu")
    pad = shared_recording("bcm5974.three-finger-click.events")
    first = tmp_path / "first.h5"
    run(forcetrace, "import", pen, pad, "-o", first)
    second = tmp_path / "second.h5"
    run(forcetrace, "import", first, MIXED, "-o", second)
    with h5py.File(first, "r") as a, h5py.File(second, "r") as b:
        for name in a["recordings"]:
            assert_same_recording(a["recordings"][name], b["recordings"][name])


def test_output_may_not_be_an_input(forcetrace, traces, tmp_path):
    samples, _ = traces
    copy = tmp_path / "copy.h5"
    copy.write_bytes(samples.read_bytes())
    before = copy.read_bytes()
    failed = run(forcetrace, "import", copy, MIXED, "-o", copy, "--force", check=False)
    assert failed.returncode != 0 and str(copy) in failed.stderr
    assert copy.read_bytes() == before


def test_damaged_trace_input_is_a_clear_error(forcetrace, traces, tmp_path):
    samples, _ = traces
    damaged = tmp_path / "damaged.h5"
    damaged.write_bytes(samples.read_bytes())
    with h5py.File(damaged, "r+") as f:
        # A contact whose lift-off comes before its touch-down: the reader's validation refuses it.
        f["recordings/touchscreen-mixed/contacts/t_up_ns"][3] = 1
    out = tmp_path / "out.h5"
    failed = run(forcetrace, "import", MIXED, damaged, "-o", out, check=False)
    assert failed.returncode == 1, failed.stderr
    assert str(damaged) in failed.stderr and "recording 'touchscreen-mixed'" in failed.stderr
    assert "contacts row 3" in failed.stderr
    assert not out.exists()


def test_damaged_chunk_in_a_trace_input_is_a_clear_error(forcetrace, traces, tmp_path):
    samples, _ = traces
    damaged = tmp_path / "chunk.h5"
    data = bytearray(samples.read_bytes())
    with h5py.File(samples, "r") as f:
        chunk = f["recordings/touchscreen-deep-presses/samples/pressure"].id.get_chunk_info(0)
    for offset in range(chunk.byte_offset + 8, chunk.byte_offset + chunk.size - 8):
        data[offset] ^= 0x5A
    damaged.write_bytes(bytes(data))
    out = tmp_path / "out.h5"
    failed = run(forcetrace, "import", damaged, "-o", out, check=False)
    assert failed.returncode == 1, failed.stderr
    assert str(damaged) in failed.stderr and "samples/pressure" in failed.stderr
    assert not out.exists()


def test_export_libinput_writes_several_devices(forcetrace, traces, tmp_path):
    samples, calibration = traces
    combined = tmp_path / "combined.h5"
    run(forcetrace, "import", samples, calibration, "-o", combined)
    yml = tmp_path / "all.yml"
    run(forcetrace, "export", combined, "--format", "libinput", "-o", yml)
    text = yml.read_text()
    assert "ndevices: 3\n" in text and text.count("\n  - evdev:\n") == 3
    # libinput's own reader of multi-device files is libinput replay; it needs
    # /dev/uinput to replay, so its file checks and frame decoding run here.
    checked = subprocess.run(["/usr/bin/python3", "-c", REPLAY_CHECK, f"{LIBINPUT_TOOLS}/libinput-replay", yml],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["warnings"] == ""
    assert [d["name"] for d in report["devices"]] == ["forcetrace simulated touchscreen"] * 2 + ["forcetrace simulated touchpad"]
    analyzed = subprocess.run(["libinput", "analyze", "recording", yml], capture_output=True, text=True)
    assert analyzed.returncode == 0, analyzed.stderr
    # Round trip: the same recordings, number for number.
    back = tmp_path / "back.h5"
    run(forcetrace, "import", yml, "-o", back)
    with h5py.File(combined, "r") as a, h5py.File(back, "r") as b:
        originals = [a["recordings"][n] for n in a["recordings"]]
        copies = sorted(b["recordings"].values(), key=lambda g: g.attrs["source"])
        assert len(copies) == 3
        for original, copy in zip(originals, copies):
            assert report["devices"][copies.index(copy)]["events"] == len(original["events/t_ns"])
            for table in ("events", "samples", "contacts", "markers"):
                for column in original[table]:
                    if not original[table][column].attrs.get("CLASS") == b"DIMENSION_SCALE":
                        np.testing.assert_array_equal(original[table][column][:], copy[table][column][:], f"{table}/{column}")
            assert copy.attrs["t0_ns"] == original.attrs["t0_ns"] and copy.attrs["clock"] == original.attrs["clock"]
    one = tmp_path / "one.yml"
    run(forcetrace, "export", combined, "--format", "libinput", "--recording", "touchpad", "-o", one)
    assert "ndevices: 1\n" in one.read_text() and "forcetrace simulated touchpad" in one.read_text()


# Loads libinput's replay tool as a module and runs its own checks over the file.
REPLAY_CHECK = r"""
import contextlib, importlib.machinery, importlib.util, io, json, sys
loader = importlib.machinery.SourceFileLoader("libinput_replay", sys.argv[1])
spec = importlib.util.spec_from_loader("libinput_replay", loader)
replay = importlib.util.module_from_spec(spec)
loader.exec_module(replay)
with open(sys.argv[2]) as f:
    recording = replay.yaml.safe_load(f)
errors = io.StringIO()
with contextlib.redirect_stderr(errors):
    replay.check_file(recording)
devices = []
for device in replay.fetch(recording, "devices"):
    evdev = replay.fetch(device, "evdev")
    events = [e for frame in replay.fetch(device, "events") for e in replay.collect_events(replay.fetch(frame, "evdev"))]
    devices.append({"name": replay.fetch(evdev, "name"), "events": len(events),
                    "first": replay.first_timestamp(device)})
print(json.dumps({"warnings": errors.getvalue(), "devices": devices}))
"""


@pytest.mark.parametrize("fmt", ["evemu", "raw"])
def test_single_device_formats_refuse_several_recordings(forcetrace, traces, tmp_path, fmt):
    samples, _ = traces
    out = tmp_path / f"x.{fmt}"
    failed = run(forcetrace, "export", samples, "--format", fmt, "-o", out, check=False)
    assert failed.returncode != 0
    assert "touchscreen-deep-presses, touchscreen-mixed" in failed.stderr and "--recording" in failed.stderr
    assert not out.exists()


def test_report_folder_skips_saved_reports(forcetrace, traces, tmp_path):
    samples, calibration = traces
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "samples.h5").write_bytes(samples.read_bytes())
    alone = json.loads(run(forcetrace, "report", folder, "--json").stdout)["total"]
    run(forcetrace, "report", folder, "--save", folder / "report.h5")
    again = run(forcetrace, "report", folder, "--json")
    assert json.loads(again.stdout)["total"] == alone
    assert "report.h5" in again.stderr and "--save" in again.stderr
