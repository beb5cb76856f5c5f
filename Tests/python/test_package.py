"""The forcetrace Python package (python/) on files forcetrace wrote, checked
against independent evidence: raw h5py reads, the evemu text, the kernel's
header and `forcetrace report`."""
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, SAMPLES, SHARED_NAMES, ragged_rows, run, shared_recording

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402  (the worktree's package; `forcetrace` is the CLI fixture)

HEADER = Path("/usr/include/linux/input-event-codes.h")
MIXED = SAMPLES / "touchscreen-mixed.evemu"


class Evemu:
    """What an evemu text says, parsed here without forcetrace."""

    def __init__(self, path):
        self.axes, self.events, self.labels, self.names = {}, [], {}, {}
        current_type = None
        text = Path(path).read_text(encoding="utf-8")
        if "\nN: " not in text:  # the description is in a separate DEVICE.desc beside it
            text = (Path(path).parent / (Path(path).name.split(".")[0] + ".desc")).read_text(encoding="utf-8") + text
        for line in text.splitlines():
            if line.startswith("N: "):
                self.name = line[3:]
            elif line.startswith("I: "):
                self.id = [int(v, 16) for v in line[3:].split()]
            elif line.startswith("P: "):
                mask = [int(v, 16) for v in line[3:].split()]
                self.properties = [i * 8 + b for i, byte in enumerate(mask) for b in range(8) if byte >> b & 1]
            elif line.startswith("A: "):
                code, low, high, fuzz, flat, *res = line[3:].split()
                self.axes[int(code, 16)] = dict(min=int(low), max=int(high), fuzz=int(fuzz), flat=int(flat),
                                                resolution=int(res[0]) if res else 0)
            elif line.startswith("E: "):
                stamp, type_, code, value = line[3:].split("#")[0].split()
                seconds, micros = stamp.split(".")
                self.events.append((int(seconds) * 1_000_000 + int(micros), int(type_, 16), int(code, 16), int(value)))
            elif match := re.match(r"#\s+Event type (\d+) \((\w+)\)", line):
                current_type = int(match.group(1))
                self.names[(None, current_type)] = match.group(2)
            elif match := re.match(r"#\s+Event code (\d+) \((\w+)\)", line):
                self.names[(current_type, int(match.group(1)))] = match.group(2)
            elif match := re.match(r"# forcetrace-label: press slot=(\S+) tracking_id=(\S+) .*class=(\S+) kind=(\S+)", line):
                self.labels[int(match.group(2))] = (match.group(3), match.group(4))


@pytest.fixture(scope="module")
def trace_path(forcetrace, tmp_path_factory):
    out = tmp_path_factory.mktemp("package") / "samples.h5"
    run(forcetrace, "import", *sorted(SAMPLES.glob("*.evemu")), "-o", out)
    return out


@pytest.fixture(scope="module")
def report_path(forcetrace, trace_path):
    out = trace_path.with_name("report.h5")
    run(forcetrace, "report", trace_path, "--save", out, "--contacts", "0")
    return out


def test_open_lists_recordings_and_device_as_the_evemu_header_says(trace_path):
    evemu = Evemu(MIXED)
    with ft.open(trace_path) as trace, h5py.File(trace_path, "r") as raw:
        assert trace.recordings == sorted(raw["recordings"])
        device = trace["touchscreen-mixed"].device
    assert device.name == evemu.name
    assert list(device.id) == evemu.id
    assert device.properties == ("INPUT_PROP_DIRECT",) and evemu.properties == [1]
    assert device.pressure_axis == "ABS_MT_PRESSURE" and device.slots == 5
    axes = device.axes.set_index("code")
    assert sorted(axes.index) == sorted(evemu.axes)
    for code, expected in evemu.axes.items():
        assert {k: int(axes.loc[code, k]) for k in expected} == expected
    assert all(isinstance(name, str) for name in axes["name"])
    with pytest.raises(KeyError, match="no recording 'nope'"):
        ft.open(trace_path)["nope"]


def test_samples_are_in_physical_units(trace_path):
    evemu = Evemu(MIXED)
    pressure_axis, x_axis, y_axis = evemu.axes[0x3A], evemu.axes[0x35], evemu.axes[0x36]
    samples = ft.open(trace_path)["touchscreen-mixed"].samples()
    with h5py.File(trace_path, "r") as raw:
        group = raw["recordings/touchscreen-mixed"]
        t_ns, t0 = group["samples/t_ns"][:], int(group.attrs["t0_ns"])
        flags, pressure = group["samples/flags"][:], group["samples/pressure"][:]
        x, y = group["samples/x"][:], group["samples/y"][:]
    assert samples["t"].dtype == "timedelta64[ns]"
    np.testing.assert_array_equal(samples["t"].to_numpy().astype(np.int64), t_ns)
    # Realtime clock: absolute times are the evemu timestamps of the frames' SYN_REPORTs.
    syn_times = {stamp for stamp, type_, code, _ in evemu.events if type_ == 0 and code == 0}
    absolute_us = samples["time"].dt.tz_convert(None).to_numpy().astype("datetime64[us]").astype(np.int64)
    assert set(absolute_us) <= syn_times
    assert samples["time"].iloc[0] == pd.Timestamp(t0 + int(t_ns[0]), unit="ns", tz="UTC")
    norm = (pressure - pressure_axis["min"]) / (pressure_axis["max"] - pressure_axis["min"])
    np.testing.assert_array_equal(samples["pressure_norm"], norm)
    np.testing.assert_array_equal(samples["force"], norm * 6.667)
    np.testing.assert_allclose(samples["x_mm"], (x - x_axis["min"]) / x_axis["resolution"])
    np.testing.assert_allclose(samples["y_mm"], (y - y_axis["min"]) / y_axis["resolution"])
    assert samples["x_mm"].between(0, 4095 / 20).all()
    for name, bit in [("down", 1), ("moved", 2), ("pressure_changed", 4), ("after_syn_dropped", 8)]:
        assert samples[name].dtype == bool
        np.testing.assert_array_equal(samples[name], (flags & bit) != 0)
    assert samples["down"].sum() == len(evemu.labels)


def test_peak_force_equals_the_report(trace_path, report_path):
    """The package's force and forcetrace report's peak_force are computed apart."""
    samples = ft.open(trace_path)["touchscreen-mixed"].samples()
    report = ft.read_report(report_path).contacts("touchscreen-mixed").set_index("id")
    peaks = samples.groupby("contact")["force"].max()
    np.testing.assert_array_equal(peaks.to_numpy(), report.loc[peaks.index, "peak_force"].to_numpy())


def test_contacts_carry_the_labels_of_the_evemu_comments(trace_path):
    evemu = Evemu(MIXED)
    contacts = ft.open(trace_path)["touchscreen-mixed"].contacts()
    assert len(contacts) == len(evemu.labels)
    found = zip(contacts["tracking_id"], contacts["label"].astype(str), contacts["kind"].astype(str))
    assert {track: (cls, kind) for track, cls, kind in found} == evemu.labels
    assert isinstance(contacts["label"].dtype, pd.CategoricalDtype)
    assert set(contacts["label"]) == {"tap", "peek-press", "pop-press"}
    assert contacts["tool"].astype(str).eq("BTN_TOOL_FINGER").all()
    with h5py.File(trace_path, "r") as raw:
        group = raw["recordings/touchscreen-mixed/contacts"]
        np.testing.assert_array_equal(contacts["t_down"].to_numpy().astype(np.int64), group["t_down_ns"][:])
        np.testing.assert_array_equal(contacts["duration"].to_numpy().astype(np.int64),
                                      group["t_up_ns"][:] - group["t_down_ns"][:])
    assert not contacts["still_down"].any()


def test_events_are_the_evemu_lines_with_kernel_names(trace_path):
    evemu = Evemu(MIXED)
    events = ft.open(trace_path)["touchscreen-mixed"].events()
    assert len(events) == len(evemu.events)
    assert events["type_id"].tolist() == [e[1] for e in evemu.events]
    assert events["code_id"].tolist() == [e[2] for e in evemu.events]
    assert events["value"].tolist() == [e[3] for e in evemu.events]
    first = evemu.events[0][0]
    assert (events["t"].to_numpy().astype(np.int64) // 1000).tolist() == [e[0] - first for e in evemu.events]
    assert isinstance(events["code"].dtype, pd.CategoricalDtype)
    counts = events.groupby(["type", "code"], observed=True).size()
    assert counts[("EV_ABS", "ABS_MT_PRESSURE")] == sum(1 for e in evemu.events if e[1:3] == (3, 0x3A))
    assert counts[("EV_SYN", "SYN_REPORT")] == sum(1 for e in evemu.events if e[1:3] == (0, 0))


@pytest.mark.skipif(not HEADER.exists(), reason=f"{HEADER} is absent (Debian: linux-libc-dev)")
def test_name_table_matches_the_kernel_header():
    defines = dict(re.findall(r"^#define\s+([A-Z][A-Z0-9_]*)\s+(0x[0-9a-fA-F]+|\d+)\b", HEADER.read_text(), re.M))
    from forcetrace import _codes  # noqa: F401
    tables = [_codes.TYPES, _codes.PROPERTIES, *_codes.CODES.values()]
    names = [(value, name) for table in tables for value, name in table.items()]
    assert len(names) > 600
    for value, name in names:
        assert int(defines[name], 0) == value, name
    assert ft.codes.code_name(1, 0x14A) == "BTN_TOUCH"
    assert ft.codes.code_name(3, 0x3F) == "ABS_MAX" and ft.codes.code_name(20, 1) == "REP_PERIOD"
    assert ft.codes.code_name(21, 0x50) == "EV_FF:0x0050"  # force-feedback codes are not in the header


@pytest.mark.parametrize("name", SHARED_NAMES)
def test_shared_recordings_read_like_their_evemu_text(forcetrace, tmp_path, name):
    source = shared_recording(name)
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", source, "-o", out)
    evemu = Evemu(source)
    with ft.open(out) as trace:
        (recording,) = list(trace)
        events = recording.events()
        samples, contacts = recording.samples(), recording.contacts()
        device = recording.device
    assert device.name == evemu.name and list(device.id) == evemu.id
    # evemu-record names every supported code (libevdev's names); ours come from the kernel header.
    for (type_, code), expected in evemu.names.items():
        if type_ is None:
            assert ft.codes.type_name(code) == expected
        elif type_ in (0, 1, 2, 3, 4, 5, 17, 18, 20) and expected != "null":
            assert ft.codes.code_name(type_, code) == expected, (type_, code)
    assert events["value"].tolist() == [e[3] for e in evemu.events]
    names = [ft.codes.code_name(t, c) for _, t, c, _ in evemu.events]
    assert events["code"].astype(str).tolist() == names
    pressure_code = recording.attrs["pressure_axis"]
    if pressure_code >= 0:
        axis = evemu.axes[pressure_code]
        expected = (samples["pressure"] - axis["min"]) / (axis["max"] - axis["min"])
        np.testing.assert_array_equal(samples["pressure_norm"], expected)
    else:
        assert samples["pressure_norm"].isna().all()
    x_code = 0x35 if device.slots else 0x00
    if evemu.axes[x_code]["resolution"]:
        np.testing.assert_allclose(samples["x_mm"], (samples["x"] - evemu.axes[x_code]["min"]) /
                                   evemu.axes[x_code]["resolution"])
    else:
        assert samples["x_mm"].isna().all()
    assert len(contacts) == int(contacts["n_samples"].astype(bool).sum())
    if name == "dell_canvas_pen.evemu":
        assert set(contacts["tool"].astype(str)) == {"BTN_TOOL_PEN"}
        assert samples["time"].isna().all() == (recording.clock != "realtime")


def test_markers_and_the_syn_dropped_flag(forcetrace, tmp_path):
    """A SYN_DROPPED put into the evemu text is a marker, and the next frame's samples carry the flag."""
    lines = MIXED.read_text().splitlines(keepends=True)
    events = [i for i, line in enumerate(lines) if line.startswith("E: ")]
    target = events[200]
    stamp = lines[target].split()[1]
    lines.insert(target, f"E: {stamp} 0000 0003 0000\n")
    dropped = tmp_path / "dropped.evemu"
    dropped.write_text("".join(lines))
    out = tmp_path / "dropped.h5"
    run(forcetrace, "import", dropped, "-o", out)
    recording = ft.open(out)["dropped"]
    markers, samples, frame = recording.markers(), recording.samples(), recording.events()
    assert markers["kind"].astype(str).tolist() == ["syn_dropped"]
    index = int(markers["event_index"].iloc[0])
    assert index == 200 and frame["code"].iloc[index] == "SYN_DROPPED"
    assert markers["t"].iloc[0] == frame["t"].iloc[index]
    flagged = samples[samples["after_syn_dropped"]]
    assert len(flagged) >= 1 and (flagged["t"] > markers["t"].iloc[0]).all()


def test_to_xarray_has_named_dimensions_and_units(trace_path):
    pytest.importorskip("xarray")
    recording = ft.open(trace_path)["touchscreen-mixed"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        samples = recording.to_xarray()
        contacts = recording.to_xarray("contacts")
        events = recording.to_xarray("events")
    assert samples.sizes == {"sample": len(recording.samples())}
    assert samples["t"].dtype == "timedelta64[ns]" and samples["time"].dtype == "datetime64[ns]"
    assert samples["x_mm"].attrs["units"] == "mm" and samples["force"].attrs["units"] == "UIKit force"
    assert samples["pressure_norm"].attrs["units"] == "1"
    assert contacts.sizes == {"contact": 28} and events.sizes == {"event": len(Evemu(MIXED).events)}
    assert str(events["code"].values[3]) == "ABS_MT_PRESSURE"
    assert samples.attrs["device_name"] == "forcetrace simulated touchscreen"


def test_load_concatenates_files_and_recordings(forcetrace, trace_path, report_path, tmp_path):
    folder = tmp_path / "many"
    (folder / "sub").mkdir(parents=True)
    run(forcetrace, "import", MIXED, "-o", folder / "one.h5")
    run(forcetrace, "import", *sorted(SAMPLES.glob("*.evemu")), "-o", folder / "sub" / "two.h5")
    run(forcetrace, "report", folder / "one.h5", "--save", folder / "report.h5")  # not a trace: left out
    frame = ft.load(folder)
    assert list(frame.columns[:2]) == ["file", "recording"]
    sizes = frame.groupby(["file", "recording"], observed=True).size()
    expected = {}
    for path in (folder / "one.h5", folder / "sub" / "two.h5"):
        with h5py.File(path, "r") as raw:
            for name, group in raw["recordings"].items():
                expected[(str(path), name)] = group["samples/t_ns"].shape[0]
    assert sizes.to_dict() == expected
    contacts = ft.load([folder / "one.h5", trace_path], table="contacts")
    assert len(contacts) == 28 + 58
    events = ft.load(trace_path, table="events")
    assert isinstance(events["code"].dtype, pd.CategoricalDtype)
    with pytest.raises(ValueError, match="is a report written by 'report --save', not a trace file"):
        ft.load([report_path])


def test_read_report_matches_the_saved_file(report_path):
    pytest.importorskip("xarray")
    report = ft.read_report(report_path)
    contacts = report.contacts()
    with h5py.File(report_path, "r") as raw:
        assert report.recordings == list(raw["recordings"])
        for name in report.recordings:
            group = raw["recordings"][name]
            mine = contacts[contacts["recording"] == name]
            np.testing.assert_array_equal(mine["peak_norm"], group["contacts/peak_norm"][:])
            assert mine["class"].astype(str).tolist() == [v.decode() for v in group["contacts/class"][:]]
            np.testing.assert_array_equal(report.curves(name).values, group["curves"][:])
            aligned = report.aligned_curves(name).values
            for row, stored in zip(aligned, ragged_rows(group), strict=True):
                np.testing.assert_array_equal(row[:len(stored)], stored)
                assert np.isnan(row[len(stored):]).all()
        np.testing.assert_array_equal(report.sweep()["reached"], raw["total/sweep/reached"][:])
        np.testing.assert_array_equal(report.histograms()["t_peek"].to_numpy(), raw["total/histograms/t_peek"][:])
        assert report.summary()["contacts"] == raw["total"].attrs["contacts"]
        state = report.state()
        # Every field the group lists (its other datasets are the fields' dimension scales).
        assert sorted(state) == sorted(raw["total/state"].attrs["fields"]) and state["contacts"].tolist() == [58]
        np.testing.assert_array_equal(state["peak_values"], raw["total/state/peak_values"][:])
    curves = report.curves()
    assert curves.dims == ("contact", "fraction") and curves.sizes["contact"] == 58
    assert curves["fraction"].values[1] == 1 / 64
    assert set(curves["class"].values) == {"tap", "peek-press", "pop-press"}
    aligned = report.aligned_curves()
    assert aligned["t_ms"].values[:3].tolist() == [0.0, 10.0, 20.0]
    assert report.histograms()["t_peek"].index[1] == 0.01
    assert all(isinstance(v, str) for v in contacts["label"].astype(str))


def test_follow_yields_rows_while_the_recorder_writes(forcetrace, tmp_path):
    """A real growing SWMR file: record --replay writes it at 10× the original pace (about 2.5 s)."""
    out = tmp_path / "live.h5"
    recorder = subprocess.Popen([forcetrace, "record", "--replay", str(MIXED), "--speed", "10", "-o", str(out), "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        batches, while_running = [], 0
        for frame in ft.follow(out, start_timeout=20, idle_timeout=20):
            batches.append(frame)
            while_running += recorder.poll() is None
        assert recorder.wait(timeout=30) == 0, recorder.stderr.read()
    finally:
        if recorder.poll() is None:
            recorder.send_signal(signal.SIGINT)
            recorder.wait(timeout=30)
    assert while_running >= 2, f"rows arrived in {len(batches)} batches, {while_running} before the recorder ended"
    followed = pd.concat(batches, ignore_index=True)
    with ft.open(out) as trace:
        final = trace["touchscreen-mixed"].samples()
        assert trace["touchscreen-mixed"].complete
    pd.testing.assert_frame_equal(followed, final)


def test_errors_name_the_file(report_path, tmp_path):
    with pytest.raises(ValueError, match=re.escape(str(report_path)) + ": is a report written by 'report --save', not a trace file"):
        ft.open(report_path)
    junk = tmp_path / "junk.h5"
    junk.write_text("not hdf5")
    with pytest.raises(OSError, match="junk.h5"):
        ft.open(junk)
    with pytest.raises(ValueError, match="not a forcetrace-report file"):
        ft.read_report(report_path.with_name("samples.h5"))


def test_pip_installs_the_package(tmp_path, trace_path):
    """`pip install ./python` works (built here without network: no build isolation)."""
    import shutil

    target, source = tmp_path / "site", tmp_path / "python"  # a copy: setuptools builds inside the source tree
    shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    result = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                             "--target", str(target), str(source)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    code = ("import forcetrace, sys; r = forcetrace.open(sys.argv[1])['touchscreen-mixed'];"
            "print(forcetrace.__file__); print(len(r.samples()))")
    result = subprocess.run([sys.executable, "-c", code, str(trace_path)], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(target)}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    location, rows = result.stdout.split()
    assert location.startswith(str(target)) and int(rows) == 1630


def test_files_without_the_new_attributes_read_the_same(trace_path, tmp_path):
    """Files written before units/long_name (and dimension scales) were added read the same."""
    old = tmp_path / "old.h5"
    old.write_bytes(trace_path.read_bytes())
    with h5py.File(old, "r+") as handle:
        def strip(name, obj):
            if isinstance(obj, h5py.Dataset):
                for key in ("units", "long_name", "DIMENSION_LIST"):
                    if key in obj.attrs:
                        del obj.attrs[key]
        handle.visititems(strip)
        scales = []
        handle.visititems(lambda name, obj: scales.append(name) if isinstance(obj, h5py.Dataset)
                          and obj.attrs.get("CLASS") in (b"DIMENSION_SCALE", "DIMENSION_SCALE") else None)
        for name in scales:  # dimension scales came with the same addition
            del handle[name]
        assert not [n for n, o in handle["recordings/touchscreen-mixed/samples"].items() if "units" in o.attrs]
    for name in ("touchscreen-mixed", "touchscreen-deep-presses"):
        new_rec, old_rec = ft.open(trace_path)[name], ft.open(old)[name]
        for table in ("samples", "contacts", "events", "markers", "labels", "axes", "capabilities"):
            pd.testing.assert_frame_equal(old_rec.frame(table), new_rec.frame(table))
    if pytest.importorskip("xarray"):
        dataset = ft.open(old)["touchscreen-mixed"].to_xarray()
        assert dataset["x"].attrs["units"] == "device units" and dataset["x_mm"].attrs["units"] == "mm"


def test_pandas_read_hdf_does_not_read_trace_files(trace_path):
    """docs/GUIDE.md says pandas alone cannot read trace files (it reads only PyTables' layout)."""
    pytest.importorskip("tables")
    with pd.HDFStore(trace_path, "r") as store:
        assert store.keys() == []
    with pytest.raises(TypeError, match="cannot create a storer"):
        pd.read_hdf(trace_path, key="/recordings/touchscreen-mixed/samples")
    with h5py.File(trace_path, "r") as raw:  # what h5py gives for strings, as docs/GUIDE.md says
        assert isinstance(raw["recordings/touchscreen-mixed/axes/name"][0], bytes)
        assert isinstance(raw["recordings/touchscreen-mixed"].attrs["device_name"], str)


def test_optional_label_columns_shorter_than_the_table_read_as_unknown(trace_path, tmp_path):
    """A labels table whose optional columns (`kind`, a string, and
    `intended_peak`, a float) hold fewer rows than the rest, as older writers
    left them: the missing rows read as "" and NaN, the rest as stored."""
    copy = tmp_path / "short.h5"
    shutil.copy(trace_path, copy)
    with h5py.File(copy, "r+") as raw:
        labels = raw["recordings/touchscreen-mixed/labels"]
        rows = labels["class"].shape[0]
        assert rows > 2
        for name in ("kind", "intended_peak"):
            kept = labels[name][: rows - 2]
            attrs = dict(labels[name].attrs)
            del labels[name]
            labels.create_dataset(name, data=kept)
            for key, value in attrs.items():
                if key not in ("DIMENSION_LIST",):
                    labels[name].attrs[key] = value
    whole = ft.open(trace_path)["touchscreen-mixed"].labels()
    short = ft.open(copy)["touchscreen-mixed"].labels()
    assert len(short) == rows
    assert list(short["kind"].astype(str)[: rows - 2]) == list(whole["kind"].astype(str)[: rows - 2])
    assert list(short["kind"].astype(str)[rows - 2:]) == ["", ""]
    np.testing.assert_array_equal(short["intended_peak"].to_numpy()[: rows - 2], whole["intended_peak"].to_numpy()[: rows - 2])
    assert np.isnan(short["intended_peak"].to_numpy()[rows - 2:]).all()
