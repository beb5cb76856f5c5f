"""forcetrace.follow on a finished file: the rows once, and never an empty frame."""
import sys

from conftest import ROOT, run

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402

FIXTURE = ROOT / "Tests" / "fixtures" / "axes-differ.evemu"
SAMPLE_ROWS = 15  # the fixture's samples


def test_follow_yields_only_new_rows_of_a_finished_file(forcetrace, tmp_path):
    """follow() on a file no recorder holds: the rows once, in non-empty frames, then
    it ends (the writer is gone after two looks); never an empty frame for 'no new rows'."""
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", FIXTURE, "-o", out)
    frames = list(ft.follow(out, interval=0.01, idle_timeout=5, start_timeout=5))
    assert frames and all(len(frame) > 0 for frame in frames), [len(f) for f in frames]
    assert sum(len(frame) for frame in frames) == SAMPLE_ROWS


def test_follow_of_a_finished_file_without_samples_yields_nothing(forcetrace, tmp_path):
    """A finished recording with no samples (the fixture's header without its E: lines):
    follow() yields no frame at all, not an empty one."""
    header = "\n".join(line for line in FIXTURE.read_text().split("\n") if not line.startswith("E:"))
    source = tmp_path / "empty.evemu"
    source.write_text(header)
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", source, "-o", out)
    assert list(ft.follow(out, interval=0.01, idle_timeout=5, start_timeout=5)) == []

