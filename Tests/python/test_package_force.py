"""The `force` table (docs/FORMAT.md, `force`) through the Python package:
grams and millinewtons with their units, the status bits as booleans, the
lag taken off `t`, and recordings without the table (every older file)."""
import sys

import h5py
import numpy as np
import pandas as pd
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


# The scripted session of `simulate --protocol force` (Sources/ForceTrace/Simulation/ForceSimulator.swift):
# activation 8 gf, saturation 400 gf at pressure 4095, 15 gf of hysteresis, the scale 150 ms late.
SCRIPT_ACTIVATION_GF, SCRIPT_SATURATION_GF, SCRIPT_HYSTERESIS_GF, SCRIPT_LAG_MS = 8.0, 400.0, 15.0, 150.0


def script_pressure(grams):
    """The pen's raw pressure on the press at `grams`, as the script makes it."""
    fraction = np.clip((np.asarray(grams, float) - SCRIPT_ACTIVATION_GF) / (SCRIPT_SATURATION_GF - SCRIPT_ACTIVATION_GF), 0, 1)
    return np.where(np.asarray(grams) >= SCRIPT_ACTIVATION_GF, np.maximum(1, np.round(fraction ** 0.7 * 4095)), 0)


@pytest.fixture()
def session(forcetrace, tmp_path):
    path = tmp_path / "force.h5"
    run(forcetrace, "simulate", "--protocol", "force", "-o", path)
    suggestion = tmp_path / "force.json"
    run(forcetrace, "suggest", path, "--format", "json", "-o", suggestion)
    return path, suggestion


def test_read_suggestion_gives_the_scripted_figures(session):
    from forcetrace import force
    result = force.read_suggestion(session[1])
    assert result.lag_estimated and abs(result.lag_ms - SCRIPT_LAG_MS) < 5
    assert abs(result.activation_gf - SCRIPT_ACTIVATION_GF) < 3
    low, high = result.activation_interval_gf
    assert low <= result.activation_gf <= high
    assert len(result.activation_per_press_gf) == result.presses == 6
    assert abs(result.saturation_gf - SCRIPT_SATURATION_GF) < 5
    assert list(result.curve.columns) == list(force.CURVE_COLUMNS) and len(result.curve) == 5
    np.testing.assert_allclose(result.curve["hysteresis_gf"], SCRIPT_HYSTERESIS_GF, atol=4)
    np.testing.assert_allclose(result.curve["press_gf"] - result.curve["release_gf"], result.curve["hysteresis_gf"], atol=1e-9)
    assert result.tip_up_pressure < result.tip_down_pressure and result.tip_up_gf < result.tip_down_gf
    # The path, the text and the parsed object read the same.
    import json
    for again in (force.read_suggestion(session[1].read_text()), force.read_suggestion(json.loads(session[1].read_text()))):
        pd.testing.assert_frame_equal(again.curve, result.curve)
        assert again.activation_gf == result.activation_gf and again.lag_ms == result.lag_ms


def test_read_suggestion_refuses_another_protocols(forcetrace, tmp_path):
    from forcetrace import force
    evemu, trace = tmp_path / "pad.evemu", tmp_path / "pad.h5"
    run(forcetrace, "simulate", "--protocol", "touchpad", "--trials", "2", "-o", evemu)
    run(forcetrace, "calibrate", "--replay", evemu, "--protocol", "touchpad", "--trials", "2", "-o", trace, "--fast")
    text = run(forcetrace, "suggest", trace, "--format", "json").stdout
    with pytest.raises(ValueError, match="not a force suggestion"):
        force.read_suggestion(text)


def test_pressure_at_readings_pairs_each_weight_with_the_pen_then(session):
    """With the session's lag taken off, each stable reading on a press's rise
    finds the pressure the script gives that weight; without it, the pairs lag."""
    from forcetrace import force
    recording = ft.open(session[0])["force"]
    lag = force.read_suggestion(session[1]).lag_ms
    pairs = force.pressure_at_readings(recording, lag_ms=lag)
    assert len(pairs) == len(recording.force()) and pairs["pressure"].dtype == np.int64
    assert pairs.attrs["units"]["pressure"] == "device units" and pairs.attrs["units"]["grams"] == "g"
    # Below 1 gf the pen is up, pressing or releasing (a release lets go by 2 gf: 4x the force felt).
    assert (pairs.loc[pairs["grams"] < 1, "pressure"] == 0).all() and (pairs["grams"] < 1).sum() > 10
    # Saturated readings read the axis maximum, and the maximum is never read far below saturation.
    assert (pairs.loc[pairs["grams"] > SCRIPT_SATURATION_GF + 10, "pressure"] == 4095).all()
    assert pairs.loc[pairs["pressure"] == 4095, "grams"].min() > SCRIPT_SATURATION_GF - 20
    # On the holds (stable, 250 and 500 gf) the pairs are exact.
    held = pairs[pairs["stable"] & (pairs["grams"] > 240) & (pairs["grams"] < 260)]
    assert len(held) >= 3
    np.testing.assert_array_equal(held["pressure"], script_pressure(held["grams"]))
    # Off by the lag, the rise's pairs miss the script by far more.
    rising = pairs["in_motion"] & (pairs["grams"] > 50) & (pairs["grams"] < 350)
    aligned = np.abs(pairs.loc[rising, "pressure"] - script_pressure(pairs.loc[rising, "grams"]))
    late = force.pressure_at_readings(recording, lag_ms=0)
    unaligned = np.abs(late.loc[rising, "pressure"] - script_pressure(late.loc[rising, "grams"]))
    assert unaligned.median() > 5 * max(aligned.median(), 1)


def test_a_pressure_pads_samples_and_saved_contacts_are_in_grams(forcetrace, tmp_path):
    """The simulated pressure pad (2 units per gram): pressure_gf in the
    samples, peak_gf in a saved report's contacts; a plain touchpad has none."""
    for device, per_gram in (("pressurepad", 2), ("touchpad", None)):
        evemu, trace, saved = tmp_path / f"{device}.evemu", tmp_path / f"{device}.h5", tmp_path / f"{device}-report.h5"
        run(forcetrace, "simulate", "--protocol", "touchpad", "--device", device, "--trials", "2", "-o", evemu)
        run(forcetrace, "calibrate", "--replay", evemu, "--protocol", "touchpad", "--trials", "2", "-o", trace, "--fast")
        recording = ft.open(trace)[device]
        assert recording.device.units_per_gram == per_gram
        assert recording.device.is_pressure_pad == (per_gram is not None)
        samples = recording.samples()
        assert samples.attrs["units"]["pressure_gf"] == "gf"
        run(forcetrace, "report", trace, "--save", saved)
        contacts = ft.read_report(saved).contacts()
        if per_gram is None:
            assert samples["pressure_gf"].isna().all() and contacts["peak_gf"].isna().all()
            continue
        np.testing.assert_array_equal(samples["pressure_gf"], samples["pressure"] / per_gram)
        np.testing.assert_array_equal(contacts["peak_gf"], contacts["peak_pressure"] / per_gram)
        # The peaks in grams are the samples' largest per contact.
        largest = samples.groupby("contact")["pressure_gf"].max()
        np.testing.assert_array_equal(contacts.set_index("id")["peak_gf"].loc[largest.index], largest)
