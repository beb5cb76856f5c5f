"""The Python package at the boundaries its rule-made mutants moved (issue 26).

Axis resolution: x_mm and y_mm exist only for an axis with a resolution above 0.
Tests/fixtures/axes-differ.evemu with ABS_X/ABS_MT_POSITION_X at 1 unit/mm and
ABS_Y/ABS_MT_POSITION_Y at 0 (unknown): x_mm is x - 100 (the minimum) exactly,
y_mm is NaN throughout, never inf."""
import sys

import numpy as np

from conftest import ROOT, run

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402

FIXTURE = ROOT / "Tests" / "fixtures" / "axes-differ.evemu"
X = [1000, 1005, 1011, 600, 600, 600, 600, 605, 1096, 1101, 99, 105, 100, 101, 103]


def with_resolutions(tmp_path, x_resolution, y_resolution):
    lines = []
    for line in FIXTURE.read_text().split("\n"):
        fields = line.split(" ")
        if fields[0] == "A:" and fields[1] in ("00", "35"):
            line = " ".join(fields[:6] + [str(x_resolution)])
        elif fields[0] == "A:" and fields[1] in ("01", "36"):
            line = " ".join(fields[:6] + [str(y_resolution)])
        lines.append(line)
    source = tmp_path / "resolutions.evemu"
    source.write_text("\n".join(lines))
    return source


def test_resolution_one_converts_and_zero_gives_nan(forcetrace, tmp_path):
    source = with_resolutions(tmp_path, 1, 0)
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", source, "-o", out)
    with ft.open(out) as trace:
        (recording,) = trace
        samples = recording.samples()
    assert list(samples["x"]) == X
    np.testing.assert_array_equal(samples["x_mm"], np.array(X, dtype=np.float64) - 100)
    assert samples["y_mm"].isna().all(), list(samples["y_mm"])


def test_follow_yields_only_new_rows_of_a_finished_file(forcetrace, tmp_path):
    """follow() on a file no recorder holds: the rows once, in non-empty frames, then
    it ends (the writer is gone after two looks); never an empty frame for 'no new rows'."""
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", FIXTURE, "-o", out)
    frames = list(ft.follow(out, interval=0.01, idle_timeout=5, start_timeout=5))
    assert frames and all(len(frame) > 0 for frame in frames), [len(f) for f in frames]
    assert sum(len(frame) for frame in frames) == len(X)


def test_follow_of_a_finished_file_without_samples_yields_nothing(forcetrace, tmp_path):
    """A finished recording with no samples (the fixture's header without its E: lines):
    follow() yields no frame at all, not an empty one."""
    header = "\n".join(line for line in FIXTURE.read_text().split("\n") if not line.startswith("E:"))
    source = tmp_path / "empty.evemu"
    source.write_text(header)
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", source, "-o", out)
    assert list(ft.follow(out, interval=0.01, idle_timeout=5, start_timeout=5)) == []
