"""The `report --save` file is self-describing (docs/ANALYSIS.md, "The --save
file"): every dataset carries units and long_name, every dimension has an HDF5
dimension scale, so xarray (h5netcdf) and h5netcdf open every group with named
dimensions and no warning; the curve matrices' columns are coordinates with
values. A merged part (`report --merge --save`) keeps all of it."""
import shutil
import sys
import warnings

import h5netcdf
import h5py
import numpy as np
import pytest
import xarray as xr

from conftest import ROOT, SAMPLES, SHARED_NAMES, ragged_rows, run, save_as_version_1, shared_recording

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402  (the worktree's package; `forcetrace` is the CLI fixture)

K = 40  # not the default 64, so the fraction scale must follow --k


@pytest.fixture(scope="module")
def parts(forcetrace, tmp_path_factory):
    """Two traces, a --save part of each, and the merged part of both."""
    folder = tmp_path_factory.mktemp("report-netcdf")
    saved = []
    for evemu in sorted(SAMPLES.glob("*.evemu")):
        trace = folder / (evemu.stem + ".h5")
        run(forcetrace, "import", evemu, "-o", trace)
        saved.append(folder / (evemu.stem + ".report.h5"))
        run(forcetrace, "report", trace, "--save", saved[-1], "--k", K, "--contacts", "0")
    merged = folder / "merged.h5"
    run(forcetrace, "report", "--merge", *saved, "--save", merged)
    again = folder / "merged-again.h5"
    run(forcetrace, "report", "--merge", merged, "--save", again)
    return {"parts": saved, "merged": merged, "again": again}


def netcdf_variables(path):
    """Every variable of the file through h5netcdf, with warnings as errors:
    (group path, name, dimensions, shape, attributes)."""
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with h5netcdf.File(path, "r") as handle:
            def walk(group):
                for name, variable in group.variables.items():
                    found.append((group.name, name, variable.dimensions, variable.shape, dict(variable.attrs)))
                for child in group.groups.values():
                    walk(child)
            walk(handle)
    return found


def open_group(path, group):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return xr.open_dataset(path, group=group, engine="h5netcdf")


def check_report(path, k=K):
    variables = netcdf_variables(path)
    with h5py.File(path, "r") as f:
        datasets = []
        f.visititems(lambda name, obj: datasets.append(name) if isinstance(obj, h5py.Dataset) else None)
        dimension_only = {name for name in datasets
                          if f[name].attrs.get("NAME", b"").startswith(b"This is a netCDF dimension but not")}
        recordings = list(f["recordings"])
        contacts = {name: f["recordings"][name]["contacts/id"].shape[0] for name in recordings}
    # Every dataset but the dimension-only scales is a variable, with units and a long_name.
    assert {f"{group.strip('/')}/{name}".strip("/") for group, name, *_ in variables} == set(datasets) - dimension_only
    for group, name, dims, shape, attrs in variables:
        assert len(dims) == len(shape), (group, name)
        assert "units" in attrs and attrs["long_name"], (group, name, attrs)
    assert recordings

    for name in recordings:
        n = contacts[name]
        ds = open_group(path, f"recordings/{name}")
        with ds:
            samples = int(ds["aligned_curve_counts"].values.sum())
            assert dict(ds.sizes) == {"contact": n, "fraction": k, "t_ms": 200, "aligned_sample": samples, "sweep_tolerance_mm": 5}
            assert ds["curves"].dims == ("contact", "fraction")
            assert ds["aligned_curve_counts"].dims == ("contact",)
            assert ds["aligned_curve_counts"].attrs["sample_dimension"] == "aligned_sample"
            assert ds["aligned_curve_values"].dims == ("aligned_sample",) and ds["aligned_curve_values"].dtype == np.float32
            np.testing.assert_array_equal(ds["fraction"].values, np.arange(k) / k)
            np.testing.assert_allclose(ds["t_ms"].values, np.arange(200) * 10.0)
            assert ds["t_ms"].attrs["units"] == "milliseconds" and ds["fraction"].attrs["units"] == "1"
        with open_group(path, f"recordings/{name}/contacts") as ds:
            assert dict(ds.sizes) == {"contact": n, "sweep_tolerance_mm": 5}
            assert ds["stationary_sweep"].dims == ("contact", "sweep_tolerance_mm")
            assert ds["t_down_s"].attrs["units"] == "seconds"
            assert ds["peak_pressure"].attrs["units"] == "device units"
            assert set(ds["class"].values) <= {"tap", "peek-press", "pop-press", "no-pressure"}
    for group in ["total"] + [f"recordings/{name}" for name in recordings]:
        with open_group(path, f"{group}/sweep") as ds:
            assert dict(ds.sizes) == {"threshold": 101}
            np.testing.assert_allclose(ds["threshold"].values, np.arange(101) / 100)
        with open_group(path, f"{group}/inflation_sweep") as ds:
            assert ds["tolerance_mm"].values.tolist() == [0, 0.1, 0.25, 0.5, 1]
            assert ds["inflation"].dims == ("tolerance_mm",)
        with open_group(path, f"{group}/histograms") as ds:
            assert dict(ds.sizes) == {"peak_norm_bin": 101, "time_bin": 301}
            assert ds["t_pop"].dims == ("time_bin",) and ds["time_bin"].attrs["units"] == "seconds"
            np.testing.assert_allclose(ds["time_bin"].values[:3], [0, 0.01, 0.02])
        with open_group(path, f"{group}/state") as ds:
            assert len(ds.data_vars) == len(h5py.File(path, "r")[group]["state"].attrs["fields"])
            assert ds["duration_ns"].attrs["units"] == "nanoseconds"


def test_saved_report_opens_in_xarray_and_h5netcdf(parts):
    for part in parts["parts"]:
        check_report(part)


def test_merged_report_keeps_its_scales(parts):
    """--merge copies the parts' recording groups into a new file; HDF5 alone
    would leave the scales' references dangling there."""
    check_report(parts["merged"])
    check_report(parts["again"])
    with h5py.File(parts["merged"], "r") as f:
        for name, group in f["recordings"].items():
            assert group["curves"].dims[0][0].name == f"/recordings/{name}/contact"
            assert group["contacts/t_up_s"].dims[0][0] == group["contact"]


@pytest.mark.parametrize("name", SHARED_NAMES)
def test_shared_recordings_report_opens_in_xarray(forcetrace, tmp_path, name):
    trace, saved = tmp_path / "shared.h5", tmp_path / "report.h5"
    run(forcetrace, "import", shared_recording(name), "-o", trace)
    run(forcetrace, "report", trace, "--save", saved, "--k", K, "--contacts", "0")
    check_report(saved)


def test_read_report_takes_the_curve_coordinates_from_the_file(parts, tmp_path):
    path = tmp_path / "shifted.h5"
    shutil.copy(parts["parts"][0], path)
    with h5py.File(path, "r+") as f:
        for group in f["recordings"].values():
            group["fraction"][...] = group["fraction"][...] + 0.5
            group["t_ms"][...] = group["t_ms"][...] * 2
    report = ft.read_report(path)
    curves, aligned = report.curves(), report.aligned_curves()
    np.testing.assert_array_equal(curves["fraction"].values, np.arange(K) / K + 0.5)
    np.testing.assert_allclose(aligned["t_ms"].values[:3], [0, 20, 40])
    assert aligned["t_ms"].attrs == {"long_name": "time since touch-down", "units": "milliseconds"}
    # The bin coordinates are not histograms, the sweep's threshold is still a column.
    assert set(report.histograms()) == {"peak_norm", "time_to_peak", "t_peek", "t_pop", "peek_to_pop"}
    assert list(report.sweep()["threshold"][:2]) == [0, 0.01]


def test_read_report_reads_a_report_saved_before_the_scales(parts, tmp_path):
    """An old --save file: no scales, no units (and version 1's aligned_curves
    matrix); read_report computes the coordinates."""
    path = tmp_path / "old.h5"
    shutil.copy(parts["parts"][0], path)
    save_as_version_1(path)
    with h5py.File(path, "r+") as f:
        scales, described = [], []
        f.visititems(lambda name, obj: (scales if obj.attrs.get("CLASS") == b"DIMENSION_SCALE" else described).append(name)
                     if isinstance(obj, h5py.Dataset) else None)
        for name in described:
            for key in ("units", "long_name", "DIMENSION_LIST"):
                if key in f[name].attrs:
                    del f[name].attrs[key]
        for name in scales:
            if name.split("/")[-1] in ("threshold", "tolerance_mm"):  # were plain columns
                for key in ("CLASS", "NAME", "REFERENCE_LIST", "units", "long_name"):
                    if key in f[name].attrs:
                        del f[name].attrs[key]
            else:
                del f[name]
    old, new = ft.read_report(path), ft.read_report(parts["parts"][0])
    for recording in new.recordings:
        for getter in ("curves", "aligned_curves"):
            a, b = getattr(old, getter)(recording), getattr(new, getter)(recording)
            np.testing.assert_array_equal(a.values, b.values)
            for dim in a.dims[1:]:
                np.testing.assert_allclose(a[dim].values, b[dim].values)
        assert old.contacts(recording).equals(new.contacts(recording))
        assert old.sweep(recording).equals(new.sweep(recording))
        assert set(old.histograms(recording)) == set(new.histograms(recording))


def test_read_report_reads_the_aligned_curves_of_both_layouts_alike(parts, tmp_path):
    """Version 2's ragged array (aligned_curve_values, aligned_curve_counts) and
    version 1's matrix (aligned_curves) read as the same DataArray: contact x
    t_ms, NaN from each contact's end."""
    path = tmp_path / "version-1.h5"
    shutil.copy(parts["parts"][0], path)
    save_as_version_1(path)
    old, new = ft.read_report(path), ft.read_report(parts["parts"][0])
    with h5py.File(path, "r") as f:
        assert f.attrs["format_version"] == 1 and all("aligned_curves" in group for group in f["recordings"].values())
    assert old.recordings == new.recordings
    for recording in new.recordings + [None]:
        a, b = old.aligned_curves(recording), new.aligned_curves(recording)
        assert a.dims == b.dims == ("contact", "t_ms") and a.dtype == b.dtype == np.float32
        np.testing.assert_array_equal(a.values, b.values)
        for name in b.coords:
            np.testing.assert_array_equal(a[name].values, b[name].values)
        assert a.attrs == b.attrs
    aligned = new.aligned_curves()
    with h5py.File(parts["parts"][0], "r") as f:
        rows = [row for group in f["recordings"].values() for row in ragged_rows(group)]
    assert aligned.shape == (len(rows), 200)
    for index, row in enumerate(rows):
        np.testing.assert_array_equal(aligned.values[index, :len(row)], row)
        assert np.isnan(aligned.values[index, len(row):]).all()
    assert any(0 < len(row) < 200 for row in rows)


@pytest.mark.parametrize("damage", ["count beyond the grid", "counts beyond the values"])
def test_read_report_refuses_a_ragged_array_whose_counts_do_not_fit(parts, tmp_path, damage):
    path = tmp_path / "damaged.h5"
    shutil.copy(parts["parts"][0], path)
    with h5py.File(path, "r+") as f:
        name = next(iter(f["recordings"]))
        counts = f["recordings"][name]["aligned_curve_counts"]
        if damage == "count beyond the grid":
            counts[0], counts[1] = 201, counts[1] - (201 - counts[0])  # the same sum
        else:
            counts[0] = counts[0] + 1
    with pytest.raises(ValueError) as raised:
        ft.read_report(path)
    message = str(raised.value)
    assert message.startswith(f"{path}: /recordings/{name}/aligned_curve_counts "), message
    assert ("outside 0 … 200" if damage == "count beyond the grid" else "adds up to") in message


def test_contact_strings_are_fixed_length_utf8_and_variable_length_ones_read_alike(parts, tmp_path):
    """contacts/class and contacts/label are fixed-length UTF-8, NUL-padded,
    with `_Encoding` (variable-length strings live in HDF5's global heap, one
    entry a row: writing them was a sixth of --save's main thread). A file
    saved before holds variable-length ones: read_report reads both alike."""
    new = parts["parts"][0]
    old = tmp_path / "old.h5"
    shutil.copy(new, old)
    with h5py.File(old, "r+") as f:
        for name, group in f["recordings"].items():
            for column in ("class", "label"):
                stored = group["contacts"][column]
                assert stored.dtype.kind == "S", (name, column, stored.dtype)
                assert h5py.check_string_dtype(stored.dtype).encoding == "utf-8"
                assert stored.attrs["_Encoding"] in ("utf-8", b"utf-8")
                values, attributes = stored.asstr()[:], {k: v for k, v in stored.attrs.items() if k == "units" or k == "long_name"}
                del group["contacts"][column]
                group["contacts"].create_dataset(column, data=values.astype(object), dtype=h5py.string_dtype())
                group["contacts"][column].attrs.update(attributes)
    for recording in ft.read_report(new).recordings:
        fresh, before = ft.read_report(new).contacts(recording), ft.read_report(old).contacts(recording)
        assert fresh.equals(before), recording
        assert set(fresh["class"]) <= {"tap", "peek-press", "pop-press", "no-pressure"} and len(fresh) > 0
