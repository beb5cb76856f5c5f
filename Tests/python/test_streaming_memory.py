"""Memory does not grow with a recording's length: simulate, import (from a
file and from standard input), record --replay and export stream their
events. Each runs at two sizes ten times apart; the peak RSS (the child's own
ru_maxrss, from wait4) may differ by a bound far below what holding the
events would take (import held about 72 bytes per event before it streamed,
simulate and export about 22: 50 to 60 MiB here). What does grow a little,
the labels table (one row per press) and HDF5's bounded metadata cache, stays
well inside the bounds. Memory only, never time."""
import os
import subprocess
import sys

import pytest

SMALL, LARGE = 300, 3000      # presses; LARGE is about 880 000 events
MIB = 1024                    # ru_maxrss is in KiB


# A child's ru_maxrss starts at the peak of the process it was forked from
# (Linux keeps it across exec), so pytest with h5py loaded would set a floor
# of some 40 MiB. A small helper interpreter forks and execs the command and
# reports its child's own peak.
HELPER = """
import os, sys
stdin = os.open(sys.argv[1], os.O_RDONLY)
pid = os.fork()
if pid == 0:
    os.dup2(stdin, 0)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def peak_rss_kib(tmp_path, args, stdin=None):
    """Runs args to completion and returns its peak RSS in KiB."""
    result = subprocess.run([sys.executable, "-c", HELPER, str(stdin or os.devnull), *map(str, args)],
                            capture_output=True, text=True, check=True)
    status, rss = map(int, result.stdout.split())
    assert status == 0, (args, result.stderr)
    return rss


@pytest.fixture(scope="module")
def sizes(forcetrace, tmp_path_factory):
    """Per size: its recording, its trace file, and each command's peak RSS."""
    tmp = tmp_path_factory.mktemp("streaming")
    result = {}
    for presses in (SMALL, LARGE):
        evemu, trace = tmp / f"sim{presses}.evemu", tmp / f"sim{presses}.h5"
        rss = {"simulate": peak_rss_kib(tmp, [forcetrace, "simulate", "--presses", presses, "--seed", 3, "-o", evemu])}
        rss["import"] = peak_rss_kib(tmp, [forcetrace, "import", evemu, "-o", trace])
        rss["import -"] = peak_rss_kib(tmp, [forcetrace, "import", "-", "-o", tmp / f"stdin{presses}.h5"], stdin=evemu)
        rss["record --replay"] = peak_rss_kib(tmp, [forcetrace, "record", "--replay", evemu, "--fast", "-q",
                                                   "-o", tmp / f"replay{presses}.h5"])
        rss["export"] = peak_rss_kib(tmp, [forcetrace, "export", trace, "--format", "evemu", "-o", tmp / f"out{presses}.evemu"])
        assert (tmp / f"out{presses}.evemu").stat().st_size > 0
        result[presses] = {"evemu": evemu, "rss": rss}
    return result


@pytest.mark.parametrize("command, bound_mib", [
    ("simulate", 8), ("import", 20), ("import -", 20), ("record --replay", 20), ("export", 10)])
def test_peak_rss_does_not_grow_with_length(sizes, command, bound_mib):
    small, large = sizes[SMALL]["rss"][command], sizes[LARGE]["rss"][command]
    print(f"{command}: {small // MIB} MiB at {SMALL} presses, {large // MIB} MiB at {LARGE}")
    events = sizes[LARGE]["evemu"].read_text().count("\nE: ") - sizes[SMALL]["evemu"].read_text().count("\nE: ")
    assert events > 700_000, "the sizes must differ enough for growth to show"
    assert large - small < bound_mib * MIB, (
        f"{command}: peak RSS {small // MIB} MiB at {SMALL} presses, {large // MIB} MiB at {LARGE} presses "
        f"({events} more events): it grows with the recording")
