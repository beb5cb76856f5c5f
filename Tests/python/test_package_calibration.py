"""The Python package on a calibration session and a live recording's
`keycodes` attribute: the calibration label columns (`peak`, `t_end_ns`,
the `protocol` attribute) and the key-code handling are exposed."""
import sys

import h5py
import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, SAMPLES, run

sys.path.insert(0, str(ROOT / "python"))
import forcetrace  # noqa: E402


@pytest.fixture(scope="module")
def calibration(forcetrace_cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("cal") / "cal.h5"
    run(forcetrace_cli, "calibrate", "--replay", SAMPLES / "calibration" / "touchpad.evemu",
        "--protocol", "touchpad", "-o", out, "--fast")
    return out


@pytest.fixture(scope="module")
def forcetrace_cli(request):
    return request.getfixturevalue("forcetrace")


def test_calibration_label_columns(calibration):
    with h5py.File(calibration, "r") as f:
        stored = f["recordings/touchpad/labels"]
        peaks, ends, starts = stored["peak"][:], stored["t_end_ns"][:], stored["t_ns"][:]
        label_contacts = stored["contact"][:]
    with forcetrace.open(calibration) as trace:
        recording = trace["touchpad"]
        assert recording.calibration_protocol == "touchpad"
        labels = recording.labels()
        assert list(labels["peak"]) == list(peaks)
        assert list(labels["t_end"]) == list(pd.to_timedelta(ends, unit="ns"))
        assert "t_end_ns" not in labels.columns
        assert (labels["t_end"] >= labels["t"]).all() and list(labels["t"]) == list(pd.to_timedelta(starts, unit="ns"))
        contacts = recording.contacts().set_index("id")
        for contact, peak in zip(label_contacts, peaks):
            if contact >= 0:
                assert contacts.loc[contact, "peak"] == peak
        assert contacts["peak"].isna().sum() == len(contacts) - len(set(label_contacts[label_contacts >= 0]))


def test_keycodes_attribute(forcetrace_cli, calibration, tmp_path):
    imported = tmp_path / "imported.h5"
    run(forcetrace_cli, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", imported)
    with forcetrace.open(imported) as trace:
        recording = trace["touchscreen-mixed"]
        # An import keeps what its input said: no keycodes attribute.
        assert recording.keycodes is None
        assert recording.calibration_protocol is None
        assert "peak" not in recording.contacts().columns
    # What `record` writes for a keyboard-capable device (FORMAT.md, `keycodes`).
    with h5py.File(imported, "r+") as f:
        f["recordings/touchscreen-mixed"].attrs["keycodes"] = "as-is"
    with forcetrace.open(imported) as trace:
        assert trace["touchscreen-mixed"].keycodes == "as-is"
