"""The row checks `forcetrace report` makes (contacts, labels, samples) are
the Python package's too: `forcetrace.load` refuses what `report` refuses,
with the same first line, and reads what it reads. Each damage is one of
Tests/hostile/generate.py's, applied to a fresh import."""
import sys

import h5py
import numpy as np
import pytest

import forcetrace
from conftest import ROOT, changed_copy, run

sys.path.insert(0, str(ROOT / "Tests" / "hostile"))
import generate  # noqa: E402

LIMIT_NS = 2**62 - 1


def damaged(good, folder, change):
    return changed_copy(good, folder, change, "damaged.h5")


def report_line(binary, path):
    """`report`'s first error line (without "Error: "), or None when it reads the file."""
    result = run(binary, "report", path, "-q", check=False, timeout=120)
    assert result.returncode in (0, 1), result.stderr
    return result.stderr.splitlines()[0].removeprefix("Error: ") if result.returncode else None


def load_line(path):
    """`load`'s error as the CLI's line shows it (line breaks as \\n), or None when it reads the file."""
    try:
        forcetrace.load(path)
    except forcetrace.ForceTraceFileError as error:
        return str(error).replace("\n", "\\n")
    return None


ROW_DAMAGE = ["contacts-ids-swapped", "contacts-up-before-down", "contacts-down-out-of-order",
              "contacts-down-beyond-limit", "contacts-samples-outside", "contacts-first-sample-negative",
              "samples-contact-nonexistent", "samples-contact-negative", "samples-time-beyond-limit",
              "labels-class-unknown", "labels-time-beyond-limit"]


@pytest.mark.parametrize("name", ROW_DAMAGE)
def test_load_refuses_what_report_refuses_with_its_words(forcetrace, good, tmp_path, name):
    change, expected = generate.DAMAGED[name]
    path = damaged(good, tmp_path, change)
    cli = report_line(forcetrace, path)
    assert cli is not None and cli.startswith(f"{path}: recording 'touchscreen-mixed'") and expected in cli, cli
    assert load_line(path) == cli


def set_sample(row, column, value):
    def change(f):
        values = generate.rec(f)["samples"][column][:]
        values[len(values) + row if row < 0 else row] = value
        generate.rec(f)["samples"][column][...] = values
    return change


@pytest.mark.parametrize("time, refused", [(LIMIT_NS, False), (LIMIT_NS + 1, True), (-LIMIT_NS, False), (-LIMIT_NS - 1, True)])
def test_a_samples_time_at_the_limit_is_read_and_one_past_it_refused(forcetrace, good, tmp_path, time, refused):
    # The last row, so that the samples stay in time order.
    path = damaged(good, tmp_path, set_sample(-1, "t_ns", time) if time > 0 else set_sample(0, "t_ns", time))
    cli = report_line(forcetrace, path)
    assert (cli is not None) == refused, cli
    assert load_line(path) == cli


def test_contact_ids_are_checked_at_the_table_end(forcetrace, good, tmp_path):
    # The last contact names the last id: any other, one past it, is refused.
    def change(f):
        ids = generate.rec(f)["samples"]["contact"][:]
        ids[ids == ids.max()] = ids.max() + 1
        generate.rec(f)["samples"]["contact"][...] = ids
    path = damaged(good, tmp_path, change)
    cli = report_line(forcetrace, path)
    assert cli is not None and "which the contacts table lacks" in cli, cli
    assert load_line(path) == cli


def test_a_slot_taken_twice_and_a_continuation_without_its_contact_are_refused(forcetrace, good, tmp_path):
    def down_again(f):  # the second row of the first contact says it went down again
        samples = generate.rec(f)["samples"]
        flags, ids = samples["flags"][:], samples["contact"][:]
        flags[np.flatnonzero(ids == 0)[1]] |= 1
        samples["flags"][...] = flags

    def not_down(f):  # the first row of the first contact lacks its touch-down
        flags = generate.rec(f)["samples"]["flags"][:]
        flags[0] &= ~np.uint8(1)
        generate.rec(f)["samples"]["flags"][...] = flags
    for change, words in ((down_again, "goes down in slot"), (not_down, "which has no open contact with that id")):
        path = damaged(good, tmp_path, change)
        cli = report_line(forcetrace, path)
        assert cli is not None and words in cli, cli
        assert load_line(path) == cli


def test_many_contact_violations_are_counted_and_listed_as_report_lists_them(forcetrace, good, tmp_path):
    def change(f):
        ids = generate.rec(f)["contacts"]["id"][:]
        generate.rec(f)["contacts"]["id"][...] = ids + 1
    path = damaged(good, tmp_path, change)
    cli = report_line(forcetrace, path)
    assert "problems:" in cli and cli.endswith("more"), cli
    assert load_line(path) == cli


def test_the_valid_trace_loads_with_every_row(good):
    with h5py.File(good) as f:
        rows = len(generate.rec(f)["samples"]["t_ns"])
    assert len(forcetrace.load(good)) == rows


@pytest.mark.parametrize("name", ROW_DAMAGE + ["samples-time-backwards", "labels-contact-outside", "labels-peek-inf"])
def test_suggest_refuses_the_rows_report_refuses_with_its_words(forcetrace, good, tmp_path, name):
    # The sample is an app calibration: suggest reads its labels and samples.
    path = damaged(good, tmp_path, generate.DAMAGED[name][0])
    result = run(forcetrace, "suggest", path, check=False, timeout=120)
    assert result.returncode == 1, result.stdout[-500:]
    assert result.stderr.splitlines()[0].removeprefix("Error: ") == report_line(forcetrace, path)


def test_samples_columns_of_two_lengths_are_refused_before_any_row():
    """Two lengths are enough: the columns must all be one length."""
    from forcetrace import _validate
    samples = {"t_ns": np.arange(3, dtype=np.int64), "contact": np.zeros(3, np.int32), "slot": np.zeros(3, np.int16),
               "x": np.zeros(3, np.int32), "y": np.zeros(3, np.int32), "pressure": np.zeros(2, np.int32),
               "flags": np.zeros(3, np.uint8)}
    with pytest.raises(forcetrace.ForceTraceFileError, match="the samples columns differ in length"):
        _validate.check_samples("f.h5", "rec", samples, np.array([2]))


@pytest.mark.parametrize("time, refused", [(LIMIT_NS, False), (LIMIT_NS + 1, True)])
def test_a_touch_down_at_the_time_limit_is_read_and_one_past_it_refused(forcetrace, good, tmp_path, time, refused):
    # The last contact, so that the contacts stay in touch-down order; it never lifts (t_up −1).
    def change(f):
        contacts = generate.rec(f)["contacts"]
        for column, value in (("t_down_ns", time), ("t_up_ns", -1)):
            values = contacts[column][:]
            values[-1] = value
            contacts[column][...] = values
    path = damaged(good, tmp_path, change)
    cli = report_line(forcetrace, path)
    assert (cli is not None) == refused, cli
    if refused:
        assert cli.endswith(f"t_down_ns {time} is beyond ±2^62 ns"), cli
    assert load_line(path) == cli


def test_contact_violations_are_counted_to_the_row_past_the_thousandth(forcetrace, tmp_path):
    """report stops counting after the row at which more than 1000 violations
    were found: 1,100 contacts each one id off count as 1,001 problems."""
    source = tmp_path / "presses.evemu"
    run(forcetrace, "simulate", "--seed", "3", "--presses", "1100", "-o", source)
    good = tmp_path / "many.h5"
    run(forcetrace, "import", source, "-o", good)

    def change(f):
        ids = generate.rec(f)["contacts"]["id"][:]
        assert len(ids) >= 1002, len(ids)
        generate.rec(f)["contacts"]["id"][...] = ids + 1
    path = damaged(good, tmp_path, change)
    cli = report_line(forcetrace, path)
    assert cli is not None and "has 1001 problems:" in cli, cli
    assert load_line(path) == cli
