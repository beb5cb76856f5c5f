"""Survivors in the Python package of the seed-26 sample run (issue 26):
each test pins the boundary one of them moved."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402
import forcetrace.cli as cli  # noqa: E402
import forcetrace.distributed  # noqa: E402,F401
from forcetrace.levels import band_edges  # noqa: E402


def test_a_failure_names_a_lone_subcommand(forcetrace):
    """argv is [command, ARGS...]: with one argument (len 2) the message
    names it, as with two; only a bare run (len 1) names none."""
    for args, named in [(("bogus",), "forcetrace bogus exited "), (("bogus", "x"), "forcetrace bogus exited ")]:
        with pytest.raises(cli.CommandFailed) as error:
            cli.run(*args, forcetrace=forcetrace)
        assert str(error.value).startswith(named), str(error.value)


def test_a_band_edge_above_the_range_is_past_the_maximum():
    """Raw 2147483646..2147483647 (span 1). An edge's normalized value just
    above 1 (1 + 2**-40) is reached by no raw value in the range, so the edge
    is max + 1 = 2147483648 (min + wanted * span rounds to max in floating
    point, so the last step up starts at max itself). Exactly 1 is reached
    at max; 0.5 also at max (min is 0.0)."""
    low, high = 2147483646, 2147483647
    assert band_edges(1, 1 + 2 ** -40 + 1e-12, 2.0, low, high) == [high + 1, high + 1]
    assert band_edges(1, 1.0 + 1e-12, 2.0, low, high) == [high, high + 1]
    assert band_edges(1, 0.5, 2.0, low, high) == [high, high + 1]


pytest.importorskip("dask.distributed")


def test_the_other_failures_are_counted_in_the_plural(forcetrace, client, tmp_path):
    """Bad files fail one each: with two, "1 other file failed too"; with
    three, "2 other files"."""
    bad = []
    for index in range(3):
        bad.append(tmp_path / f"bad{index}.h5")
        bad[-1].write_text("not hdf5")
    for files, more in [(bad[:2], "; 1 other file failed too: "), (bad, "; 2 other files failed too: ")]:
        with pytest.raises(RuntimeError) as error:
            ft.distributed.report(files, client=client, forcetrace=forcetrace, tasks=len(files))
        assert more in str(error.value), str(error.value)
