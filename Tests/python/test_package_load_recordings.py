"""`forcetrace.load` on recordings, not trace files: a `capture-page` browser
capture and an evemu file are imported by the forcetrace command first, and
read as the trace file `import` writes; the values are checked against the
capture's own JSON."""
import json
import math
import sys

import numpy as np
import pytest

from conftest import ROOT, SAMPLES, run

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402  (the worktree's package; `forcetrace` is the CLI fixture)

CAPTURE = ROOT / "Tests" / "fixtures" / "browser-ios-app.json"


@pytest.fixture(autouse=True)
def command(forcetrace, monkeypatch):
    monkeypatch.setenv("FORCETRACE", str(forcetrace))


def test_load_reads_a_browser_capture_through_import():
    samples = ft.load(CAPTURE)
    assert set(samples["file"]) == {str(CAPTURE)}
    assert samples.attrs["files"] == [str(CAPTURE)]
    assert set(samples["recording"]) == {"browser-ios-app-touch"}
    data = json.loads(CAPTURE.read_text())
    # Touch.force 0..1 on the 0..65535 axis, positions in CSS px x devicePixelRatio 2, and the
    # contact diameter: a sample for each touch event while down that changes one of them
    # (the kernel reports only changes).
    def half_up(value):  # rounded half away from zero, as docs/FORMAT.md says (Python's round() goes to even)
        return math.floor(value + 0.5)

    def values(item):
        return half_up(item["x"] * 2), half_up(item["y"] * 2), half_up(item["force"] * 65535), half_up(item["radiusX"] * 4)
    down, last = [], {}
    for item in data["touch"]:
        if item["type"] != "end" and values(item) != last.get(item["id"]):
            down.append(item)
        last[item["id"]] = values(item)
    assert len(samples) == len(down)
    assert samples["pressure"].tolist() == [values(item)[2] for item in down]
    assert samples["x"].tolist() == [values(item)[0] for item in down]
    assert samples["y"].tolist() == [values(item)[1] for item in down]
    seconds = np.array([item["t"] for item in down]) / 1000
    elapsed = samples["t"].to_numpy().astype("timedelta64[ns]").astype(np.int64) / 1e9
    assert np.allclose(elapsed, seconds - seconds[0], rtol=0, atol=1e-9)
    labels = ft.load(CAPTURE, table="labels")
    assert labels[ft.LABEL].tolist() == [trial["class"] for trial in data["trials"]]
    assert set(labels["kind"]) == {"calibration"}
    assert (labels["contact"] >= 0).all()


def test_load_reads_an_evemu_file_as_import_would(forcetrace, tmp_path):
    evemu = SAMPLES / "touchscreen-mixed.evemu"
    trace = tmp_path / "mixed.h5"
    run(forcetrace, "import", evemu, "-o", trace)
    direct, imported = ft.load(evemu), ft.load(trace)
    assert set(direct["file"]) == {str(evemu)}
    for column in ["t", "contact", "x", "y", "pressure"]:
        assert direct[column].tolist() == imported[column].tolist(), column


def test_a_bad_recording_fails_naming_it_or_is_skipped(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "forcetrace-browser-capture", "version": 2}\n')
    with pytest.raises(ft.CommandFailed, match=r"bad\.json.*\$\.version: is 2\.0"):
        ft.load(bad)
    with pytest.warns(UserWarning, match="bad.json"):
        samples = ft.load([bad, CAPTURE], errors="skip")
    assert set(samples["file"]) == {str(CAPTURE)}
