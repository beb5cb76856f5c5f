"""The `force` table (docs/FORMAT.md, `force`) through the Python package:
grams and millinewtons with their units, the status bits as booleans, the
lag taken off `t`, and recordings without the table (every older file)."""
import sys

import h5py
import numpy as np
import pytest

from conftest import ROOT, SAMPLES, run

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402


def add_force_table(path, recording, *, lag_ns=None):
    """A force table written here from FORMAT.md: four readings, one of each kind."""
    with h5py.File(path, "r+") as handle:
        group = handle["recordings"][recording].create_group("force")
        columns = {
            "t_ns": (np.array([1_000_000, 2_000_000, 3_000_000, 4_000_000], np.int64), "nanoseconds"),
            "grams": (np.array([12.5, 15.0, np.nan, -3.0]), "g"),
            "status": (np.array([1, 2, 4, 1 | 8 | 256], np.uint16), "1"),
            "raw_value": (np.array([12.5, 15.0, 999999.9, -3.0]), "1"),
        }
        for name, (values, units) in columns.items():
            group.create_dataset(name, data=values)
            group[name].attrs["units"] = units
            group[name].attrs["long_name"] = f"the {name} column"
        group.create_dataset("raw_unit", data=np.array([b"g", b"g", b"g", b"g"]))
        group.attrs["scale_kind"] = "serial"
        group.attrs["scale_device"] = "/dev/ttyUSB0"
        group.attrs["status_flags"] = "1=stable,2=in_motion,4=overload,8=under_zero"
        if lag_ns is not None:
            group.attrs["lag_ns"] = np.int64(lag_ns)
            group.attrs["lag_uncertainty_ns"] = np.int64(2_000_000)


@pytest.fixture()
def trace_path(forcetrace, tmp_path):
    path = tmp_path / "force.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", path)
    return path


def test_force_reads_grams_millinewtons_and_status_bits(trace_path):
    add_force_table(trace_path, "touchscreen-mixed")
    recording = ft.open(trace_path)["touchscreen-mixed"]
    assert recording.has_force
    force = recording.force()
    np.testing.assert_array_equal(force["grams"].to_numpy(), [12.5, 15.0, np.nan, -3.0])
    np.testing.assert_allclose(force["force_mN"].to_numpy()[[0, 1, 3]], [12.5 * 9.80665, 15.0 * 9.80665, -3.0 * 9.80665])
    assert list(force["stable"]) == [True, False, False, True]
    assert list(force["in_motion"]) == [False, True, False, False]
    assert list(force["overload"]) == [False, False, True, False]
    assert list(force["under_zero"]) == [False, False, False, True] and list(force["net"]) == [False, False, False, True]
    assert list(force["raw_unit"]) == ["g"] * 4
    assert force.attrs["units"]["grams"] == "g" and force.attrs["units"]["force_mN"] == "mN"
    assert force.attrs["long_name"]["grams"] == "the grams column"
    assert force.attrs["scale"]["scale_kind"] == "serial"
    # Without lag_ns, t is the stored time.
    assert list(force["t"].dt.total_seconds()) == [0.001, 0.002, 0.003, 0.004]


def test_the_lag_is_taken_off_t_and_t_scale_keeps_the_stored_time(trace_path):
    add_force_table(trace_path, "touchscreen-mixed", lag_ns=500_000)
    force = ft.open(trace_path)["touchscreen-mixed"].force()
    assert list(force["t"].dt.total_seconds()) == pytest.approx([0.0005, 0.0015, 0.0025, 0.0035])
    assert list(force["t_scale"].dt.total_seconds()) == pytest.approx([0.001, 0.002, 0.003, 0.004])
    assert force.attrs["scale"]["lag_uncertainty_ns"] == 2_000_000


def test_a_recording_without_a_scale_has_an_empty_force_table(trace_path):
    recording = ft.open(trace_path)["touchscreen-mixed"]
    assert not recording.has_force
    force = recording.frame("force")
    assert force.empty and "grams" in force.columns


def test_the_cli_reads_and_copies_a_file_with_a_force_table(forcetrace, trace_path, tmp_path):
    add_force_table(trace_path, "touchscreen-mixed")
    run(forcetrace, "info", trace_path)
    copy = tmp_path / "copy.h5"
    run(forcetrace, "import", trace_path, "-o", copy)
    np.testing.assert_array_equal(ft.open(copy)["touchscreen-mixed"].force()["status"].to_numpy(), [1, 2, 4, 265])
