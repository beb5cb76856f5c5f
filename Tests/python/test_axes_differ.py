"""x_mm and y_mm on recordings whose axes differ: Tests/fixtures/axes-differ.evemu
(x min 100, 10 units/mm; y min 20, 40 units/mm; rows worked out below by hand)
and the shared Cypress recording (x 16, y 15 units/mm, both minimum 0)."""
import sys

import numpy as np

from conftest import ROOT, run, shared_recording

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402

FIXTURE = ROOT / "Tests" / "fixtures" / "axes-differ.evemu"

# (x - 100) / 10 and (y - 20) / 40 for the fixture's 15 sample rows, contact by contact.
EXPECTED_X_MM = [90, 90.5, 91.1, 50, 50, 50, 50, 50.5, 99.6, 100.1, -0.1, 0.5, 0, 0.1, 0.3]
EXPECTED_Y_MM = [4.5, 4.5, 4.5, 11.475, 11.975, 12.5, 7, 7.5, 0, 0.525, 7, 7.5, 2, 2.1, 2.35]


def imported(forcetrace, source, tmp_path):
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", source, "-o", out)
    with ft.open(out) as trace:
        (recording,) = trace
        return recording.samples()


def test_fixture_millimetres_per_axis(forcetrace, tmp_path):
    samples = imported(forcetrace, FIXTURE, tmp_path)
    assert list(samples["x"]) == [1000, 1005, 1011, 600, 600, 600, 600, 605, 1096, 1101, 99, 105, 100, 101, 103]
    np.testing.assert_allclose(samples["x_mm"], EXPECTED_X_MM, rtol=0, atol=1e-12)
    np.testing.assert_allclose(samples["y_mm"], EXPECTED_Y_MM, rtol=0, atol=1e-12)


def test_cypress_sixteen_by_fifteen(forcetrace, tmp_path):
    source = shared_recording("CyPS2 Cypress Trackpad.three_finger_press.events")
    samples = imported(forcetrace, source, tmp_path)
    np.testing.assert_allclose(samples["x_mm"], samples["x"] / 16, rtol=0, atol=1e-12)
    np.testing.assert_allclose(samples["y_mm"], samples["y"] / 15, rtol=0, atol=1e-12)
