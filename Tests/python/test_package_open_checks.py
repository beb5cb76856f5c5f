"""Damage both readers refuse on open (`forcetrace info`, `forcetrace.open`)
or on reading (`forcetrace report`, `forcetrace.load`), with the same words;
and the edge cases both read. Each file is one of Tests/hostile/generate.py's
changes, or an attribute at either side of its limit, applied to a fresh import."""
import sys

import numpy as np
import pytest

import forcetrace as package
from conftest import ROOT, changed_copy, run

sys.path.insert(0, str(ROOT / "Tests" / "hostile"))
import generate  # noqa: E402


def changed(good, folder, change):
    return changed_copy(good, folder, change, "changed.h5")


def cli_line(binary, command, path):
    """The command's error line (without "Error: "), or None when it reads the file."""
    result = run(binary, command, path, *(["-q"] if command == "report" else []), check=False, timeout=120)
    assert result.returncode in (0, 1), result.stderr
    return result.stderr.splitlines()[0].removeprefix("Error: ") if result.returncode else None


def python_line(read, path):
    """The package's error as the CLI's line shows it (line breaks as \\n), or None."""
    try:
        read(path)
    except package.ForceTraceFileError as error:
        return str(error).replace("\n", "\\n")
    return None


def opened(path):
    package.open(path).close()


ON_OPEN = ["version-float", "format-other", "recordings-is-dataset", "slots-uint64-max", "slots-string",
           "pressure-axis-string", "pressure-axis-beyond-abs-max", "short-events-code", "short-markers-event_index",
           "events-time-beyond-limit"]
ON_READ = ["labels-contact-outside", "labels-contact-below-none", "labels-peek-string", "labels-peek-inf",
           "samples-time-backwards", "empty-recordings-group"]


@pytest.mark.parametrize("name", ON_OPEN)
def test_info_and_open_refuse_with_the_same_words(forcetrace, good, tmp_path, name):
    change, expected = generate.DAMAGED[name]
    path = changed(good, tmp_path, change)
    cli = cli_line(forcetrace, "info", path)
    assert cli is not None and cli.startswith(f"{path}: ") and expected in cli, cli
    assert python_line(opened, path) == cli


@pytest.mark.parametrize("name", ON_READ)
def test_report_and_load_refuse_with_the_same_words(forcetrace, good, tmp_path, name):
    change, expected = generate.DAMAGED[name]
    path = changed(good, tmp_path, change)
    cli = cli_line(forcetrace, "report", path)
    assert cli is not None and cli.startswith(f"{path}: ") and expected in cli, cli
    assert python_line(package.load, path) == cli


@pytest.mark.parametrize("name", ["bigendian-samples-x", "short-labels-kind", "labels-contact-none"])
def test_edge_cases_the_format_allows_are_read_by_both(forcetrace, good, tmp_path, name):
    path = changed(good, tmp_path, generate.VALID[name])
    assert cli_line(forcetrace, "report", path) is None
    rows = generate.expect(path)["touchscreen-mixed"]
    assert len(package.load(path)) == rows["samples"]
    with package.open(path) as trace:
        assert len(trace["touchscreen-mixed"].labels()) == rows["labels"]


@pytest.mark.parametrize("attribute, value, refused", [
    ("slots", 1024, False), ("slots", 1025, True), ("slots", 0, False), ("slots", -1, True),
    ("pressure_axis", -1, False), ("pressure_axis", 63, False), ("pressure_axis", 64, True), ("pressure_axis", -2, True)])
def test_integer_attributes_at_their_limits(forcetrace, good, tmp_path, attribute, value, refused):
    path = changed(good, tmp_path, generate.attribute("REC", attribute, np.int64(value)))
    cli = cli_line(forcetrace, "info", path)
    assert (cli is not None) == refused and (not refused or f"attribute {attribute}: {value} is not" in cli), cli
    assert python_line(opened, path) == cli


def test_a_group_the_format_does_not_know_inside_a_table_is_ignored_by_both(forcetrace, good, tmp_path):
    """Readers ignore names they do not know (FORMAT.md, "Versioning"), a
    group as much as a dataset: info, report, open and load all read the file."""
    def add_group(f):
        f["recordings/touchscreen-mixed/samples"].create_group("later_addition")
    path = changed(good, tmp_path, add_group)
    for command in ("info", "report"):
        assert cli_line(forcetrace, command, path) is None
    assert python_line(opened, path) is None
    assert python_line(package.load, path) is None
    assert len(package.open(path)["touchscreen-mixed"].samples()) == 1630


def test_capability_names_follow_their_type(good):
    """EV_SYN's row of capabilities lists event types, named EV_*; other
    types' rows name their codes (BTN_TOUCH for 0x14a under EV_KEY)."""
    caps = package.open(good)["touchscreen-mixed"].device.capabilities
    syn = caps[caps["type"] == 0]
    assert set(syn["code_name"]) >= {"EV_SYN", "EV_KEY", "EV_ABS"}
    keys = caps[caps["type"] == 1]
    assert "BTN_TOUCH" in set(keys["code_name"]) and not any(name.startswith("EV_") for name in keys["code_name"])
