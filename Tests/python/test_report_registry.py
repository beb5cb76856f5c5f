"""`read_report` gives what `report --json` gives, under the same names: each
contact's numbers (the ContactField registry, docs/ARCHITECTURE.md) and each
summary, the total's included (issue 23 item 1, issue 24 item 6)."""
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
