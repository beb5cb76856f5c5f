"""Every hostile file of Tests/hostile/generate.py through every read command
of the CLI and the Python package, each run under CPU-time and address-space
limits (Tests/hostile/matrix.py): no signal, no run past the limits, exit
status 0, 1 or 2 only, an error naming the file on refusal, the valid edge
cases read back with their expected rows, and on every file `forcetrace
info` and `forcetrace.open`, `forcetrace report` and `forcetrace.load`
agreeing word for word. The runs go two or more at a time (one per core)."""
import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES, run

sys.path.insert(0, str(ROOT / "Tests" / "hostile"))
import generate  # noqa: E402
import matrix  # noqa: E402


@pytest.fixture(scope="module")
def results(forcetrace, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", folder / "good.source.h5")
    manifest = generate.generate(folder / "good.source.h5", folder / "files")

    runners = matrix.PythonRunners(os.cpu_count() or 2)

    def one(name):
        path = folder / "files" / f"{name}.h5"
        with tempfile.TemporaryDirectory() as scratch:
            return name, {"path": str(path), "cli": matrix.run_cli(forcetrace, path, scratch),
                          "python": runners.run(path, scratch), **manifest[name]}
    try:
        with ThreadPoolExecutor(os.cpu_count() or 2) as pool:  # each run is a child process
            found = dict(pool.map(one, sorted(manifest)))
    finally:
        runners.close()
    runs = sum(len(entry["cli"]) + 1 for entry in found.values())
    print(f"\nhostile matrix: {len(found)} files x ({len(matrix.CLI_COMMANDS)} CLI commands + the Python package's "
          f"{len(matrix.PYTHON_STEPS)} steps in one forked child) = {runs} bounded runs")
    return found


def test_the_generator_writes_damage_and_valid_edge_cases(results):
    assert sum(not entry["valid"] for entry in results.values()) >= 90
    assert sum(entry["valid"] for entry in results.values()) >= 8


def test_no_command_traps_or_runs_past_its_limits(results):
    bad = [(name, command, outcome["status"], outcome["stderr"][-300:])
           for name, entry in results.items() for command, outcome in entry["cli"].items()
           if outcome["status"] not in (0, 1, 2)]
    bad += [(name, "python", entry["python"]["status"], entry["python"].get("stderr", "")[-300:])
            for name, entry in results.items() if entry["python"]["status"] != 0]
    assert not bad, json.dumps(bad, indent=1)


def test_every_refusal_names_the_file(results):
    unnamed = [(name, command, outcome["stderr"][:300]) for name, entry in results.items()
               for command, outcome in entry["cli"].items()
               if outcome["status"] == 1 and not (outcome["error"] or "").startswith(entry["path"] + ":")]
    unnamed += [(name, step, outcome["message"][:300]) for name, entry in results.items()
                for step, outcome in entry["python"]["steps"].items()
                if not outcome["ok"] and not outcome["message"].startswith(entry["path"] + ":")]
    assert not unnamed, json.dumps(unnamed, indent=1)


def test_python_raises_forcetrace_file_errors_never_bare_key_or_value_errors(results):
    bare = [(name, step, outcome["type"], outcome["message"][:200]) for name, entry in results.items()
            for step, outcome in entry["python"]["steps"].items()
            if not outcome["ok"] and step == "open" and outcome["type"] != "ForceTraceFileError"]
    assert not bare, json.dumps(bare, indent=1)


def as_cli_line(message):
    """A Python error as the CLI's error line shows it: line breaks as \\n."""
    return message.replace("\n", "\\n")


def disagreements(results, command, step):
    found = []
    for name, entry in results.items():
        cli, python = entry["cli"][command], entry["python"]["steps"][step]
        cli_message = cli["error"] if cli["status"] != 0 else None
        python_message = None if python["ok"] else as_cli_line(python["message"])
        if cli_message != python_message:
            found.append((name, cli_message, python_message))
    return found


def test_info_and_python_open_agree_word_for_word(results):
    found = disagreements(results, "info", "open")
    assert not found, json.dumps(found, indent=1)


def test_report_and_python_load_agree_word_for_word(results):
    found = disagreements(results, "report", "load")
    assert not found, json.dumps(found, indent=1)


def test_what_info_refuses_every_command_refuses(results):
    for name, entry in results.items():
        if entry["cli"]["info"]["status"] == 1:
            accepted = [command for command, outcome in entry["cli"].items() if outcome["status"] == 0]
            assert not accepted, (name, accepted)


def test_damage_info_and_open_refuse_names_its_object(results):
    for name, entry in results.items():
        if not entry["valid"] and entry["cli"]["info"]["status"] == 1:
            assert entry["expect"] in entry["cli"]["info"]["error"], (name, entry["cli"]["info"]["error"])


def test_valid_edge_cases_are_read_with_their_rows(results):
    for name, entry in results.items():
        if not entry["valid"]:
            continue
        steps = entry["python"]["steps"]
        assert all(outcome["ok"] for outcome in steps.values()), (name, steps)
        for command in ("info", "info --json", "report", "report --json", "report --save", "report --html"):
            assert entry["cli"][command]["status"] == 0, (name, command, entry["cli"][command]["stderr"])
        expected = entry["expect"]
        assert set(steps["open"]["value"]) == set(expected), name
        for table in ("samples", "contacts", "events", "markers", "labels"):
            for recording, rows in steps[table]["value"].items():
                assert rows == expected[recording].get(table, 0), (name, recording, table)
        described = json.loads(entry["cli"]["info --json"]["stdout"])
        assert len(described["recordings"]) == len(expected), name
