"""The levels protocol from the command line and the Python package:
simulated people of known capacity, replayed through `levels`, their
capacity recovered by the CLI and, independently, by `forcetrace.levels`."""
import json
import re
import sys

import h5py
import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402
from forcetrace import levels  # noqa: E402


def session(cli, tmp_path, device, capacity, counts="2-6", trials=10, seed=7, name="person", misses=3):
    evemu, out = tmp_path / "person.evemu", tmp_path / "person.h5"
    run(cli, "simulate", "--protocol", "levels", "--device", device, "--capacity", capacity, "--levels", counts,
        "--trials", trials, "--seed", seed, "--misses", misses, "-o", evemu)
    live = run(cli, "levels", "--replay", evemu, "--seed", seed, "--levels", counts, "--trials", trials,
               "-o", out, "--fast", "--name", name)
    shown = json.loads(run(cli, "levels", "--show", out, "--json").stdout)
    return out, live, shown


@pytest.mark.parametrize("device,capacity", [("touchscreen", 4), ("touchpad", 2), ("pen", 6)])
def test_capacity_is_recovered_by_the_cli_and_the_package(forcetrace, tmp_path, device, capacity):
    out, live, shown = session(forcetrace, tmp_path, device, capacity)
    assert shown["capacity"] == capacity
    assert f"levels controlled reliably (>= 90 % of trials in the band): {capacity}\n" in live.stdout
    assert "(2 discarded)" in live.stdout if device != "pen" else "(1 discarded)" in live.stdout
    assert shown["seed"] == "7"
    assert [s["reliable"] for s in shown["sets"]] == [c <= capacity for c in range(2, 7)]
    assert len(shown["thresholds"]) == (capacity - 1 if capacity <= 6 else 5)
    with ft.open(out) as trace:
        recording = trace["person"]
        assert levels.is_levels(recording)
        assert levels.capacity(recording) == capacity
        minimum, maximum = levels._axis(recording)
        for stored in shown["sets"]:
            count = stored["count"]
            assert levels.band_edges(count, 0.0, 1.0, minimum, maximum) == stored["edges_raw"]
            table = levels.confusion(recording, count)
            for row in stored["levels"]:
                assert list(table.loc[row["level"]]) == [row["below"], *row["held_in"], row["above"]]
        summary = levels.summary(recording)
        assert len(summary) == sum(range(2, 7))
        assert (summary["trials"] == 10).all()
        for stage in shown["thresholds"]:
            assert stage["force"] == pytest.approx(stage["normalized"] * ft.MAXIMUM_POSSIBLE_FORCE)
            assert stage["normalized"] == pytest.approx((stage["raw"] - minimum) / (maximum - minimum))


def test_the_file_holds_the_plan_and_xarray_reads_the_table(forcetrace, tmp_path):
    out, _, _ = session(forcetrace, tmp_path, "touchscreen", 3, counts="2-4", trials=3, seed=123)
    with h5py.File(out, "r") as f:
        table = f["recordings/person/labels"]
        assert table.attrs["protocol"] == "levels"
        assert int(table.attrs["seed"]) == 123
        assert list(table.attrs["level_counts"]) == [2, 3, 4]
        assert int(table.attrs["trials_per_level"]) == 3
        assert list(table.attrs["level_range"]) == [0.0, 1.0]
        for column in ("level", "level_count", "held"):
            assert table[column].attrs["units"] in ("1", "device units")
            assert len(table[column]) == 27
        assert set(table["class"].asstr()[:]) == {"level"}
    with ft.open(out) as trace:
        dataset = trace["person"].to_xarray("labels")
        assert dataset["held"].attrs["units"] == "device units"
        assert sorted(set(int(v) for v in dataset["level_count"].values)) == [2, 3, 4]
    # report reads a levels file (its labels are no press labels) without failing.
    run(forcetrace, "report", out)


@pytest.mark.parametrize("misses,capacity", [(0, 4), (1, 4), (2, 2)])
def test_ninety_percent_rule_end_to_end(forcetrace, tmp_path, misses, capacity):
    """A person of capacity 2 who, above it, misses 0, 1 (9 in 10 inside: on the
    rule) or 2 in 10 (8 in 10: one below) trials of each level."""
    out, _, shown = session(forcetrace, tmp_path, "touchscreen", 2, counts="2-4", trials=10, seed=5, misses=misses)
    assert shown["capacity"] == capacity
    with ft.open(out) as trace:
        summary = levels.summary(trace["person"])
        above = summary[summary["level_count"] > 2]
        assert (above["inside"] == 10 - misses).all()
        assert levels.capacity(trace["person"]) == capacity


def test_usage_errors_and_a_file_without_a_session(forcetrace, tmp_path):
    for args, message in [
        (["--json", "-o", tmp_path / "x.h5"], "'--json' needs '--show FILE.h5'"),
        (["--levels", "1-4", "-o", tmp_path / "x.h5"], "Invalid value '1-4' for '--levels'"),
        (["--range", "0.8:0.2", "-o", tmp_path / "x.h5"], "Invalid value '0.8:0.2' for '--range'"),
        (["--seed", "-3", "-o", tmp_path / "x.h5"], "Invalid value '-3' for '--seed'"),
        (["--show", tmp_path / "x.h5", "--trials", "3"], "'--trials' belongs to a session"),
    ]:
        result = run(forcetrace, "levels", *args, check=False)
        assert result.returncode == 2, args
        assert message in result.stderr
        assert not (tmp_path / "x.h5").exists()
    evemu, plain = tmp_path / "cal.evemu", tmp_path / "cal.h5"
    run(forcetrace, "simulate", "--protocol", "app", "--trials", "2", "-o", evemu)
    run(forcetrace, "calibrate", "--replay", evemu, "--protocol", "app", "--trials", "2", "-o", plain, "--fast")
    result = run(forcetrace, "levels", "--show", plain, check=False)
    assert result.returncode == 1
    assert f"{plain}: recording 'cal' holds no levels session" in result.stderr
    assert "forcetrace levels DEVICE -o FILE.h5" in result.stderr
    with ft.open(plain) as trace:
        with pytest.raises(ValueError, match="holds no levels session"):
            levels.trials(trace["cal"])


def test_names_are_escaped_in_the_text(forcetrace, tmp_path):
    out, live, _ = session(forcetrace, tmp_path, "touchscreen", 2, counts="2", trials=2, name="evil\x1b[2Jname")
    shown = run(forcetrace, "levels", "--show", out)
    for text in (live.stdout, shown.stdout):
        assert "\x1b" not in text
        assert "evil\\x1b[2Jname" in text


def test_band_edges_agree_between_the_cli_and_the_package(forcetrace, tmp_path):
    """Held values rewritten onto every band edge, one below and one above:
    the CLI and the package put each in the same place, the edge itself inside
    the upper level."""
    out, _, _ = session(forcetrace, tmp_path, "touchscreen", 5, counts="3,5", trials=3, seed=2)
    expected = {}
    with h5py.File(out, "r+") as f:
        table = f["recordings/person/labels"]
        counts, asked = table["level_count"][:], table["level"][:]
        held = table["held"][:]
        seen = {}
        for row, (count, level) in enumerate(zip(counts, asked)):
            edges = levels.band_edges(int(count), 0.0, 1.0, 0, 255)
            step = seen.get((count, level), 0)
            seen[(count, level)] = step + 1
            if level == 1:
                continue
            held[row] = edges[level - 1] + (step - 1)  # edge - 1, edge, edge + 1
            expected[(int(count), int(level))] = expected.get((int(count), int(level)), []) + [level - 1 if step == 0 else level]
        table["held"][:] = held
    shown = json.loads(run(forcetrace, "levels", "--show", out, "--json").stdout)
    with ft.open(out) as trace:
        for stored in shown["sets"]:
            count = stored["count"]
            table = levels.confusion(trace["person"], count)
            for row in stored["levels"]:
                assert list(table.loc[row["level"]]) == [row["below"], *row["held_in"], row["above"]]
                if row["level"] > 1:
                    places = expected[(count, row["level"])]
                    assert row["held_in"][row["level"] - 2] == places.count(row["level"] - 1) == 1
                    assert row["inside"] == places.count(row["level"]) == 2


def test_a_hostile_device_name_is_escaped_on_the_terminal_and_exact_in_json(forcetrace, tmp_path):
    evemu, trace, hostile = tmp_path / "p.evemu", tmp_path / "p.h5", tmp_path / "hostile.evemu"
    run(forcetrace, "simulate", "--protocol", "levels", "--levels", "2", "--trials", "2", "--seed", "1", "-o", evemu)
    run(forcetrace, "import", evemu, "-o", trace)
    name = "d\x1b[31m\u202e\nn"
    with h5py.File(trace, "r+") as f:
        f["recordings/p"].attrs["device_name"] = name
    run(forcetrace, "export", trace, "--format", "evemu", "-o", hostile)
    out = tmp_path / "levels.h5"
    live = run(forcetrace, "levels", "--replay", hostile, "--levels", "2", "--trials", "2", "--seed", "1", "-o", out, "--fast")
    shown = run(forcetrace, "levels", "--show", out)
    for text in (live.stdout, shown.stdout, live.stderr):
        assert "\x1b" not in text and "\u202e" not in text
    assert '"d\\x1b[31m\\u202e\\nn"' in shown.stdout and '"d\\x1b[31m\\u202e\\nn"' in live.stdout
    assert json.loads(run(forcetrace, "levels", "--show", out, "--json").stdout)["device"] == name


def test_the_live_bar_marks_the_band_on_a_terminal(forcetrace, tmp_path):
    """At the replay's own pace, with stderr on a pty: the bar shows the
    pressure with the asked band's two edges marked, and the level asked."""
    from test_progress import on_terminal

    evemu = tmp_path / "p.evemu"
    run(forcetrace, "simulate", "--protocol", "levels", "--levels", "2", "--trials", "1", "--seed", "3", "-o", evemu)
    status, terminal = on_terminal([forcetrace, "levels", "--replay", str(evemu), "--levels", "2", "--trials", "1",
                                    "--seed", "3", "-o", str(tmp_path / "bar.h5")], tmp_path)
    assert status == 0
    bars = re.findall(r"\[([#.|]{40})\]  (\d+)/255  level (\d) of 2", terminal)
    assert bars, terminal[-500:]
    for cells, pressure, level in bars:
        # Level 1 of 2 spans 0..127: its marks are cells 0 and 20; level 2's cells 20 and 39.
        marks = [i for i, c in enumerate(cells) if c == "|"]
        assert marks == ([0, 20] if level == "1" else [20, 39]), (cells, level)
    assert {level for _, _, level in bars} == {"1", "2"}
    status, quiet = on_terminal([forcetrace, "levels", "--replay", str(evemu), "--levels", "2", "--trials", "1",
                                 "--seed", "3", "-o", str(tmp_path / "quiet.h5"), "--quiet"], tmp_path)
    assert status == 0 and "/255  level" not in quiet


def test_a_session_cut_short_keeps_its_trials(forcetrace, tmp_path):
    """A replay that runs out before every trial is done: exit 1 with the reason,
    and the file holds the trials so far, which --show reads."""
    evemu, out = tmp_path / "short.evemu", tmp_path / "short.h5"
    run(forcetrace, "simulate", "--protocol", "levels", "--levels", "2", "--trials", "2", "--seed", "8", "-o", evemu)
    result = run(forcetrace, "levels", "--replay", evemu, "--levels", "2,3", "--trials", "2", "--seed", "8",
                 "-o", out, "--fast", check=False)
    assert result.returncode == 1
    assert "warning: stopped after 4 of 10 trials (end-of-input); the result uses those" in result.stderr
    shown = json.loads(run(forcetrace, "levels", "--show", out, "--json").stdout)
    assert [s["count"] for s in shown["sets"]] == [2, 3]
    assert sum(level["trials"] for level in shown["sets"][0]["levels"]) == 4
    assert all(level["trials"] == 0 and not level["reliable"] for level in shown["sets"][1]["levels"])
    assert shown["capacity"] == 2


def test_a_narrower_range_moves_the_bands(forcetrace, tmp_path):
    evemu, out = tmp_path / "r.evemu", tmp_path / "r.h5"
    run(forcetrace, "simulate", "--protocol", "levels", "--levels", "3", "--trials", "2", "--seed", "4", "-o", evemu)
    run(forcetrace, "levels", "--replay", evemu, "--levels", "3", "--trials", "2", "--seed", "4", "--range", "0.2:0.8",
        "-o", out, "--fast")
    shown = json.loads(run(forcetrace, "levels", "--show", out, "--json").stdout)
    assert shown["range"] == [0.2, 0.8]
    assert shown["sets"][0]["edges_raw"] == levels.band_edges(3, 0.2, 0.8, 0, 255) == [51, 102, 153, 204]
    with ft.open(out) as trace:
        assert levels.level_range(trace["r"]) == (0.2, 0.8)
        assert list(levels.confusion(trace["r"], 3).sum()) == [
            sum(level["below"] for level in shown["sets"][0]["levels"]),
            *[sum(level["held_in"][i] for level in shown["sets"][0]["levels"]) for i in range(3)],
            sum(level["above"] for level in shown["sets"][0]["levels"])]


def test_a_damaged_levels_table_is_refused_by_name(forcetrace, tmp_path):
    out, _, _ = session(forcetrace, tmp_path, "touchscreen", 2, counts="2", trials=2, seed=6)
    with h5py.File(out, "r+") as f:
        level = f["recordings/person/labels/level"]
        values = level[:]
        values[1] = 9
        level[:] = values
    result = run(forcetrace, "levels", "--show", out, check=False)
    assert result.returncode == 1
    assert (f"Error: {out}: recording 'person': labels of a levels session: row 1 asks for level 9 of 2 "
            "(levels are 1...count, counts 2...12)") in result.stderr
    assert "hint: the table was not written by 'forcetrace levels'; record the session again" in result.stderr
    with h5py.File(out, "r+") as f:
        del f["recordings/person/labels/held"]
    result = run(forcetrace, "levels", "--show", out, check=False)
    assert result.returncode == 1 and "labels of a levels session: no 'held' column" in result.stderr


def test_combining_trace_files_keeps_the_session(forcetrace, tmp_path):
    out, _, shown = session(forcetrace, tmp_path, "pen", 3, counts="2-4", trials=10, seed=12)
    copy = tmp_path / "copy.h5"
    run(forcetrace, "import", out, out, "-o", copy)
    with h5py.File(copy, "r") as f:
        names = sorted(f["recordings"])
    assert len(names) == 2
    for name in names:
        again = json.loads(run(forcetrace, "levels", "--show", copy, "--recording", name, "--json").stdout)
        assert {k: v for k, v in again.items() if k not in ("file", "recording")} == \
               {k: v for k, v in shown.items() if k not in ("file", "recording")}


def test_a_band_edge_above_the_range_is_past_the_maximum():
    """Raw 2147483646..2147483647 (span 1). An edge's normalized value just
    above 1 (1 + 2**-40) is reached by no raw value in the range, so the edge
    is max + 1 = 2147483648 (min + wanted * span rounds to max in floating
    point, so the last step up starts at max itself). Exactly 1 is reached
    at max; 0.5 also at max (min is 0.0)."""
    low, high = 2147483646, 2147483647
    assert levels.band_edges(1, 1 + 2 ** -40 + 1e-12, 2.0, low, high) == [high + 1, high + 1]
    assert levels.band_edges(1, 1.0 + 1e-12, 2.0, low, high) == [high, high + 1]
    assert levels.band_edges(1, 0.5, 2.0, low, high) == [high, high + 1]
