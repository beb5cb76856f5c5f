"""forcetrace.plot.paths, notebook 01's paths: each contact's path in time
order, its peak drawn above every line with the peak's own pressure, and a
legend giving n. On the samples, where each press lifts where it pressed."""
import sys

import numpy as np
import pytest

from conftest import ROOT, SAMPLES, run

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402
import forcetrace.plot  # noqa: E402,F401


@pytest.fixture(scope="module")
def samples(forcetrace, tmp_path_factory):
    path = tmp_path_factory.mktemp("plot") / "samples.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", path)
    with ft.open(path) as trace:
        return trace["touchscreen-mixed"].samples()


def test_peaks_are_drawn_above_the_paths_with_their_own_pressure(samples):
    fig, ax = plt.subplots()
    # Shuffled rows: the drawing must not depend on the frame's order.
    drawn = ft.plot.paths(ax, samples.sample(frac=1, random_state=3))
    peaks = samples.loc[samples.groupby("contact")["pressure_norm"].idxmax()]
    assert drawn.contacts == samples["contact"].nunique() == len(peaks)
    np.testing.assert_allclose(drawn.peaks.get_offsets(), peaks[["x_mm", "y_mm"]].to_numpy())
    np.testing.assert_allclose(drawn.peaks.get_array(), peaks["pressure_norm"].to_numpy())
    assert drawn.peaks.get_zorder() > drawn.lines.get_zorder()
    assert drawn.peaks.get_clim() == drawn.lines.get_clim() == (0, 1)
    # Drawn sample by sample, what covers the peak spot last is the contact's light lift.
    last = samples.groupby("contact").tail(1).set_index("contact")["pressure_norm"]
    assert (last.loc[peaks["contact"]].to_numpy() < peaks["pressure_norm"].to_numpy()).all()
    plt.close(fig)


def test_segments_follow_time_within_each_contact(samples):
    fig, ax = plt.subplots()
    drawn = ft.plot.paths(ax, samples.sample(frac=1, random_state=5))
    expected = []
    for _, curve in samples.sort_values("t", kind="stable").groupby("contact"):
        points = curve[["x_mm", "y_mm"]].to_numpy()
        expected.extend(np.stack([points[:-1], points[1:]], axis=1))
    found = drawn.lines.get_segments()
    assert len(found) == len(expected) == len(samples) - samples["contact"].nunique()
    np.testing.assert_allclose(np.asarray(found), np.asarray(expected))
    pressure = [curve["pressure_norm"].to_numpy() for _, curve in samples.sort_values("t").groupby("contact")]
    np.testing.assert_allclose(drawn.lines.get_array(), np.concatenate([np.fmax(p[:-1], p[1:]) for p in pressure]))
    plt.close(fig)


def test_the_legend_gives_n(samples):
    fig, ax = plt.subplots()
    ft.plot.paths(ax, samples)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    contacts, rows = samples["contact"].nunique(), len(samples)
    assert texts == [f"paths in time order ({contacts} contacts, n={rows} samples)",
                     f"each contact's peak (n={contacts})"]
    plt.close(fig)
