"""Units and long names travel with the data: every DataFrame's `.attrs`
names the file, recording and device and each column's units and long name,
from the file's own attributes (docs/FORMAT.md, "units"); a column added to
the file with h5py appears with them; parquet (pyarrow) and xarray keep them.
The ground truth is `label` in both APIs."""
import shutil
import sys

import h5py
import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, SAMPLES, run

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402


@pytest.fixture(scope="module")
def trace_path(forcetrace, tmp_path_factory):
    path = tmp_path_factory.mktemp("units") / "samples.h5"
    run(forcetrace, "import", *sorted(SAMPLES.glob("*.evemu")), "-o", path)
    return path


def stored(path, recording, table):
    with h5py.File(path, "r") as handle:
        group = handle["recordings"][recording][table]
        return {name: (group[name].attrs["units"], group[name].attrs["long_name"]) for name in group
                if "units" in group[name].attrs}


@pytest.mark.parametrize("table", ["samples", "contacts", "events", "markers", "labels"])
def test_attrs_carry_the_file_s_units_and_the_names(trace_path, table):
    with ft.open(trace_path) as trace:
        recording = trace["touchscreen-mixed"]
        frame = recording.frame(table)
        device = recording.device.name
    attrs = frame.attrs
    assert attrs["file"] == str(trace_path) and attrs["recording"] == "touchscreen-mixed"
    assert attrs["device"] == device == "forcetrace simulated touchscreen" and attrs["table"] == table
    assert set(attrs["units"]) == set(attrs["long_name"]) == set(frame.columns)
    assert all(attrs["long_name"].values()), attrs["long_name"]
    renamed = {"class": "label"}
    for name, (units, long_name) in stored(trace_path, "touchscreen-mixed", table).items():
        name = renamed.get(name, name)
        if name in frame.columns and (table, name) not in {("events", "type"), ("events", "code"), ("markers", "kind"),
                                                                   ("contacts", "tool")}:
            assert (attrs["units"][name], attrs["long_name"][name]) == (units, long_name), name


def test_samples_units_by_column(trace_path):
    frame = ft.open(trace_path)["touchscreen-mixed"].samples()
    units = frame.attrs["units"]
    assert units["x"] == units["y"] == units["pressure"] == "device units"
    assert units["x_mm"] == units["y_mm"] == "mm" and units["pressure_norm"] == "1"
    assert units["force"] == "UIKit force" and units["contact"] == "1"


def test_a_column_added_with_h5py_appears_with_its_units(trace_path, tmp_path):
    copy = tmp_path / "widened.h5"
    shutil.copy(trace_path, copy)
    with h5py.File(copy, "r+") as handle:
        group = handle["recordings/touchscreen-mixed/samples"]
        rows = group["t_ns"].shape[0]
        added = group.create_dataset("touch_major", data=np.arange(rows, dtype=np.int32) % 50)
        added.attrs["units"] = "device units"
        added.attrs["long_name"] = "ABS_MT_TOUCH_MAJOR, the contact's long axis"
        added.dims[0].attach_scale(group["sample"])
    with ft.open(copy) as trace:
        recording = trace["touchscreen-mixed"]
        frame = recording.samples()
        dataset = recording.to_xarray()
    assert frame.columns[-1] == "touch_major"
    np.testing.assert_array_equal(frame["touch_major"].to_numpy(), np.arange(rows, dtype=np.int32) % 50)
    assert frame.attrs["units"]["touch_major"] == "device units"
    assert frame.attrs["long_name"]["touch_major"] == "ABS_MT_TOUCH_MAJOR, the contact's long axis"
    assert dataset["touch_major"].attrs == {"units": "device units",
                                            "long_name": "ABS_MT_TOUCH_MAJOR, the contact's long axis"}
    # What the package knows is as before.
    before = ft.open(trace_path)["touchscreen-mixed"].samples()
    pd.testing.assert_frame_equal(frame.drop(columns="touch_major"), before, check_like=False)


@pytest.mark.parametrize("table", ["samples", "contacts", "events"])
def test_a_parquet_round_trip_through_pyarrow_keeps_them(trace_path, tmp_path, table):
    pytest.importorskip("pyarrow", reason="pyarrow: pip install -r Tests/python/requirements.txt")
    frame = ft.open(trace_path)["touchscreen-mixed"].frame(table)
    path = tmp_path / f"{table}.parquet"
    frame.to_parquet(path, engine="pyarrow")
    back = pd.read_parquet(path, engine="pyarrow")
    assert back.attrs == frame.attrs
    assert back.attrs["units"] and back.attrs["recording"] == "touchscreen-mixed"


def test_load_describes_every_column_and_what_it_read(trace_path, tmp_path):
    pytest.importorskip("pyarrow", reason="pyarrow: pip install -r Tests/python/requirements.txt")
    frame = ft.load(trace_path)
    assert set(frame.attrs["units"]) == set(frame.columns)
    assert frame.attrs["files"] == [str(trace_path)]
    assert frame.attrs["recordings"] == [f"{trace_path}:touchscreen-deep-presses", f"{trace_path}:touchscreen-mixed"]
    assert frame.attrs["devices"] == ["forcetrace simulated touchscreen"]
    frame.to_parquet(tmp_path / "all.parquet", engine="pyarrow")
    assert pd.read_parquet(tmp_path / "all.parquet").attrs == frame.attrs


def test_to_xarray_puts_them_on_each_variable(trace_path):
    pytest.importorskip("xarray")
    with ft.open(trace_path) as trace:
        recording = trace["touchscreen-mixed"]
        frame, dataset = recording.samples(), recording.to_xarray()
    assert dataset.attrs["recording"] == "touchscreen-mixed"
    assert dataset.attrs["device_name"] == "forcetrace simulated touchscreen"
    for name in ("x", "pressure", "pressure_norm", "force", "x_mm"):
        assert dataset[name].attrs["units"] == frame.attrs["units"][name]
        assert dataset[name].attrs["long_name"] == frame.attrs["long_name"][name]
    # The UTC times, as naive UTC datetime64 (the same instants).
    np.testing.assert_array_equal(dataset["time"].values, frame["time"].dt.tz_convert(None).to_numpy())


def test_label_is_the_ground_truth_in_both_apis(trace_path, forcetrace, tmp_path):
    report_path = tmp_path / "report.h5"
    run(forcetrace, "report", trace_path, "--save", report_path, "--contacts", "0")
    with ft.open(trace_path) as trace:
        recording = trace["touchscreen-mixed"]
        mine, labels = recording.contacts().set_index("id"), recording.labels()
    theirs = ft.read_report(report_path).contacts("touchscreen-mixed").set_index("id")
    assert "class" not in mine.columns and "class" not in labels.columns
    assert mine["label"].astype(str).tolist() == theirs.loc[mine.index, "label"].astype(str).tolist()
    assert set(labels["label"].astype(str)) == {"tap", "peek-press", "pop-press"}


AXES_DIFFER = ROOT / "Tests" / "fixtures" / "axes-differ.evemu"
AXES_DIFFER_X = [1000, 1005, 1011, 600, 600, 600, 600, 605, 1096, 1101, 99, 105, 100, 101, 103]


def with_resolutions(tmp_path, x_resolution, y_resolution):
    lines = []
    for line in AXES_DIFFER.read_text().split("\n"):
        fields = line.split(" ")
        if fields[0] == "A:" and fields[1] in ("00", "35"):
            line = " ".join(fields[:6] + [str(x_resolution)])
        elif fields[0] == "A:" and fields[1] in ("01", "36"):
            line = " ".join(fields[:6] + [str(y_resolution)])
        lines.append(line)
    source = tmp_path / "resolutions.evemu"
    source.write_text("\n".join(lines))
    return source


def test_resolution_one_converts_and_zero_gives_nan(forcetrace, tmp_path):
    """Axis resolution: x_mm and y_mm exist only for an axis with a resolution
    above 0. Tests/fixtures/axes-differ.evemu with ABS_X/ABS_MT_POSITION_X at
    1 unit/mm and ABS_Y/ABS_MT_POSITION_Y at 0 (unknown): x_mm is x - 100 (the
    minimum) exactly, y_mm is NaN throughout, never inf."""
    source = with_resolutions(tmp_path, 1, 0)
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", source, "-o", out)
    with ft.open(out) as trace:
        (recording,) = trace
        samples = recording.samples()
    assert list(samples["x"]) == AXES_DIFFER_X
    np.testing.assert_array_equal(samples["x_mm"], np.array(AXES_DIFFER_X, dtype=np.float64) - 100)
    assert samples["y_mm"].isna().all(), list(samples["y_mm"])
