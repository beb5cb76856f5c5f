"""Self-describing trace files (docs/FORMAT.md, "Units" and "Dimensions"):
xarray and h5netcdf open every table with named dimensions and no warning,
and every column carries units and long_name."""
import warnings

import h5netcdf
import h5py
import pytest
import xarray as xr

from conftest import SAMPLES, SHARED_NAMES, run, shared_recording

DIMENSIONS = {"events": "event", "samples": "sample", "contacts": "contact", "markers": "marker",
              "axes": "axis", "capabilities": "capability", "labels": "label"}


def tables(path):
    with h5py.File(path, "r") as f:
        for name, recording in f["recordings"].items():
            for table in recording:
                yield name, table, recording[table]


def check_file(path):
    seen = set()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with h5netcdf.File(path, "r") as handle:
            assert "recordings" in handle.groups
        with h5py.File(path, "r") as f:
            layout = {(name, table): {c: f["recordings"][name][table][c].shape[0]
                                      for c in f["recordings"][name][table] if c != DIMENSIONS[table]}
                      for name in f["recordings"] for table in f["recordings"][name]}
        for (name, table), columns in layout.items():
            ds = xr.open_dataset(path, group=f"recordings/{name}/{table}", engine="h5netcdf")
            try:
                dimension = DIMENSIONS[table]
                assert dict(ds.sizes) == {dimension: next(iter(columns.values()))}, (table, ds.sizes)
                assert set(ds.data_vars) == set(columns), (table, set(ds.data_vars))
                for column in ds.data_vars.values():
                    assert column.dims == (dimension,)
                    assert column.attrs["long_name"], (table, column.name)
                    assert "units" in column.attrs
                if table == "samples":
                    assert ds["t_ns"].attrs["units"] == "nanoseconds"
                    assert ds["pressure"].attrs["units"] == "device units"
                if table == "axes":
                    assert isinstance(ds["name"].values[0], str)
            finally:
                ds.close()
            seen.add(table)
    return seen


def test_imported_samples_open_in_xarray_and_h5netcdf(forcetrace, tmp_path):
    out = tmp_path / "samples.h5"
    run(forcetrace, "import", *sorted(SAMPLES.glob("*.evemu")), "-o", out)
    assert check_file(out) == set(DIMENSIONS)


@pytest.mark.parametrize("name", SHARED_NAMES)
def test_shared_recordings_open_in_xarray(forcetrace, tmp_path, name):
    out = tmp_path / "shared.h5"
    run(forcetrace, "import", shared_recording(name), "-o", out)
    assert {"events", "samples", "contacts", "markers", "axes", "capabilities"} <= check_file(out)


def test_xarray_decodes_the_times_as_time_spans(forcetrace, tmp_path):
    out = tmp_path / "samples.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", out)
    with h5py.File(out, "r") as f:
        raw = f["recordings/touchscreen-mixed/samples/t_ns"][:]
    with xr.open_dataset(out, group="recordings/touchscreen-mixed/samples", engine="h5netcdf", decode_timedelta=True) as ds:
        assert ds["t_ns"].dtype == "timedelta64[ns]"
        assert (ds["t_ns"].values.astype("int64") == raw).all()
        assert ds["pressure"].dtype == "int32"


def test_recorded_file_gets_its_scales_when_the_recorder_compacts(forcetrace, tmp_path):
    out = tmp_path / "recorded.h5"
    run(forcetrace, "record", "--replay", SAMPLES / "touchscreen-mixed.evemu", "--fast", "-o", out)
    check_file(out)


def test_the_scale_is_the_only_extra_dataset_and_stores_nothing(forcetrace, tmp_path):
    out = tmp_path / "samples.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", out)
    with h5py.File(out, "r") as f:
        for _, table, group in tables(out):
            scale = group[DIMENSIONS[table]]
            assert scale.attrs["CLASS"] == b"DIMENSION_SCALE"
            assert scale.id.get_storage_size() == 0
            columns = [c for c in group if c != DIMENSIONS[table]]
            assert all("CLASS" not in group[c].attrs for c in columns)
            assert all(group[c].dims[0][0] == scale for c in columns)
            assert {group[c].shape for c in columns} == {scale.shape}


def test_without_scales_xarray_needs_phony_dims(tmp_path):
    """The yardstick for the tests above: a table without scales (an old
    file, or a live one) warns or fails, so check_file can tell."""
    path = tmp_path / "old.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("t/t_ns", data=[1, 2, 3])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            xr.open_dataset(path, group="t", engine="h5netcdf").close()
            failed = False
        except ValueError:
            failed = True
    assert failed or any("phony_dims" in str(w.message) for w in caught)
