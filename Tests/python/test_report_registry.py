"""`read_report` gives what `report --json` gives, under the same names: each
contact's numbers (the ContactField registry, docs/ARCHITECTURE.md) and each
summary, the total's included."""
import json
import math
import sys

import numpy as np
import pytest

from conftest import ROOT, SAMPLES, run, shared_recording

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402  (the worktree's package; `forcetrace` is the CLI fixture)

# Smoothing makes signal_peak apply; a tolerance in mm makes the sweep lanes apply or not by resolution.
OPTIONS = ("--smooth", "ema:0.5", "--tolerance", "0.25mm")
BOOKKEEPING = {"file", "recording"}  # the DataFrame's own columns over several recordings


@pytest.fixture(scope="module")
def saved(forcetrace, tmp_path_factory):
    """A --save file and the --json of the same run, over the samples (labelled)
    and a shared recording (a touchpad whose contacts are still down or not)."""
    folder = tmp_path_factory.mktemp("report-registry")
    trace = folder / "traces.h5"
    inputs = sorted(SAMPLES.glob("*.evemu")) + [shared_recording("CyPS2 Cypress Trackpad.three_finger_press.events")]
    run(forcetrace, "import", *inputs, "-o", trace)
    out = folder / "report.h5"
    printed = run(forcetrace, "report", trace, "--json", "--save", out, *OPTIONS).stdout
    return ft.read_report(out), json.loads(printed)


def test_summary_is_the_json_summary_for_the_total_and_every_recording(saved):
    report, printed = saved
    total = report.summary()
    assert set(total) == set(printed["total"]), set(total) ^ set(printed["total"])
    assert "configured_thresholds_vs_labels" in total and "suggested_thresholds" in total and "quantiles" in total and "classes" in total
    assert total == printed["total"]
    by_name = {recording["name"]: recording["summary"] for recording in printed["recordings"]}
    assert sorted(report.recordings) == sorted(by_name)
    for name in report.recordings:
        assert report.summary(name) == by_name[name], name


def test_figures_are_the_json_numbers_from_their_own_datasets(saved):
    """classes/, quantiles/ and suggested_thresholds/ read back as the JSON
    summary's same keys, values equal, for the total and every recording; the
    samples are labelled (with_labels present), the shared recording is not
    (with_labels null)."""
    import h5py

    report, printed = saved
    keys = ("classes", "quantiles", "suggested_thresholds")
    by_name = {recording["name"]: recording["summary"] for recording in printed["recordings"]}
    seen = set()
    for name, expected in [(None, printed["total"])] + list(by_name.items()):
        figures = report.figures(name)
        assert figures == {key: expected[key] for key in keys}, name
        seen.add(expected["suggested_thresholds"]["with_labels"] is None)
    assert seen == {True, False}
    # From the datasets, not from the stored summary text: altering a dataset alters figures().
    altered = report.path.with_name("altered.h5")
    altered.write_bytes(report.path.read_bytes())
    with h5py.File(altered, "r+") as f:
        f["total/classes/tap"][()] = 12345
        f["total/suggested_thresholds/without_labels/pop"][()] = 0.5
    figures = ft.read_report(altered).figures()
    assert figures["classes"]["tap"] == 12345 and figures["suggested_thresholds"]["without_labels"]["pop"] == 0.5


def test_figures_carry_units_and_long_names(saved):
    import h5py

    report, _ = saved
    with h5py.File(report.path, "r") as f:
        total = f["total"]
        assert total["quantiles/t_pop_s"].attrs["units"] == "seconds" and total["quantiles/peak_norm"].attrs["units"] == "1"
        assert total["quantiles/level"][...].tolist() == [0.05, 0.25, 0.5, 0.75, 0.95]
        assert total["quantiles/t_pop_s"].dims[0][0].name == "/total/quantiles/level"
        assert total["classes/peek-press"].shape == () and total["classes/peek-press"].attrs["long_name"]
        confusion = total["suggested_thresholds/with_labels/confusion"]
        assert confusion.shape == (3, 3) and confusion.attrs["units"] == "1"
        assert [dim[0].name.rsplit("/", 1)[1] for dim in confusion.dims] == ["label", "found"]
        assert total["suggested_thresholds/with_labels"].attrs["method"] == "balanced-accuracy"


def test_large_arrays_are_deflated_in_chunks_and_small_ones_stay_contiguous(saved):
    """Arrays of 1024 elements or more (the curve bands in state/, the curve
    matrices) are chunked and deflated at level 1, with shuffle (ReportFile.compression)
    except the curve matrices, whose held values repeat whole (ReportFile.curveCompression);
    smaller ones contiguous."""
    import h5py

    report, _ = saved
    with h5py.File(report.path, "r") as f:
        sizes = {}

        def visit(name, obj):
            # Dimension-only scales hold no data.
            if isinstance(obj, h5py.Dataset) and not obj.attrs.get("NAME", b"").startswith(b"This is a netCDF dimension"):
                sizes[name] = obj
        f.visititems(visit)
        big = [name for name, dataset in sizes.items() if dataset.size >= 1024 and dataset.dtype.kind in "iuf"]
        small = [name for name, dataset in sizes.items() if 0 < dataset.size < 1024 and dataset.ndim == 1 and dataset.dtype.kind in "iuf"]
        assert "total/state/aligned_bands" in big and "total/state/class_counts" in small
        for name in big:
            curves = name.rsplit("/", 1)[-1] in ("curves", "aligned_curve_values")
            assert sizes[name].chunks and sizes[name].compression == "gzip" and sizes[name].shuffle != curves, name
            assert sizes[name].compression_opts == 1, name
        assert any(name.endswith("/aligned_curve_values") for name in big) and any(name.endswith("/curves") for name in big)
        for name in small:
            assert sizes[name].chunks is None, name
        bands = f["total/state/aligned_bands"]
        assert bands.id.get_storage_size() < bands.size * bands.dtype.itemsize / 10


def test_figures_of_a_file_saved_before_them_come_from_the_summary(saved, tmp_path):
    import h5py

    report, printed = saved
    older = tmp_path / "older.h5"
    older.write_bytes(report.path.read_bytes())
    with h5py.File(older, "r+") as f:
        for group in ["total"] + [f"recordings/{name}" for name in f["recordings"]]:
            for key in ("classes", "quantiles", "suggested_thresholds"):
                del f[group][key]
    assert ft.read_report(older).figures() == {key: printed["total"][key] for key in ("classes", "quantiles", "suggested_thresholds")}


def test_contacts_have_every_json_key_and_its_values(saved):
    report, printed = saved
    recordings = {recording["name"]: recording for recording in printed["recordings"]}
    for name in report.recordings:
        frame = report.contacts(name)
        expected = recordings[name]["contacts"]
        assert set(frame.columns) - BOOKKEEPING == set(expected[0]), set(frame.columns) ^ set(expected[0])
        assert len(frame) == len(expected)
        for key in expected[0]:
            for row, contact in enumerate(expected):
                assert_same(frame[key].iloc[row], contact[key], f"{name} contact {row} {key}")


def test_signal_peak_only_with_smoothing(forcetrace, tmp_path):
    trace = tmp_path / "mixed.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", trace)
    out = tmp_path / "report.h5"
    printed = json.loads(run(forcetrace, "report", trace, "--json", "--save", out).stdout)
    columns = set(ft.read_report(out).contacts().columns) - BOOKKEEPING
    assert "signal_peak" not in columns and "signal_peak" not in printed["recordings"][0]["contacts"][0]
    assert columns == set(printed["recordings"][0]["contacts"][0])


def assert_same(saved_value, json_value, where):
    """A --save value against the JSON's: null is NaN, -1 or "" (inf for an
    unbounded inflation), true/false are 1/0, a per-lane list has -1 for null."""
    if isinstance(json_value, list):
        assert [int(v) for v in np.asarray(saved_value)] == [-1 if v is None else v for v in json_value], where
    elif json_value is None:
        assert saved_value == "" or saved_value == -1 or (isinstance(saved_value, float) and not math.isfinite(saved_value)), \
            (where, saved_value)
    elif isinstance(json_value, bool):
        assert int(saved_value) == int(json_value), where
    elif isinstance(json_value, str):
        assert str(saved_value) == json_value, where
    else:
        assert saved_value == json_value, (where, saved_value, json_value)


def test_state_fields_share_one_dimension_per_length(saved):
    """`state/` holds its fields and one dimension-only scale per distinct
    length, not one `<field>_element` scale per field."""
    import h5py

    report, _ = saved
    with h5py.File(report.path, "r") as f:
        for group in ["total"] + [f"recordings/{name}" for name in f["recordings"]]:
            state = f[group]["state"]
            fields = [name.decode() if isinstance(name, bytes) else name for name in state.attrs["fields"]]
            lengths = {state[name].shape[0] for name in fields}
            assert sorted(set(state) - set(fields)) == sorted(f"length_{n}" for n in lengths), group
            for name in fields:
                assert state[name].dims[0][0].name == f"/{group}/state/length_{state[name].shape[0]}"


@pytest.mark.parametrize("presses,chunked", [(1023, False), (1024, True)])
def test_contact_columns_are_deflated_from_1024_contacts(forcetrace, tmp_path, presses, chunked):
    """The boundary of the rule: 1023 contacts stay contiguous, 1024 are chunked and deflated."""
    import h5py

    run(forcetrace, "simulate", "--seed", "1", "--presses", presses, "--kinds", "tap", "-o", tmp_path / "taps.evemu")
    run(forcetrace, "import", tmp_path / "taps.evemu", "-o", tmp_path / "taps.h5")
    run(forcetrace, "report", tmp_path / "taps.h5", "--contacts", "0", "--save", tmp_path / "taps.report.h5")
    with h5py.File(tmp_path / "taps.report.h5", "r") as f:
        (group,) = f["recordings"].values()
        column = group["contacts/peak_norm"]
        assert column.shape == (presses,)
        assert (column.chunks is not None, column.compression) == ((True, "gzip") if chunked else (False, None))
