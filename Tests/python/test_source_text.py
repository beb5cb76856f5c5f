"""Code, tests and comments name behaviours, not the rounds of work or the
issues that asked for them; the mutation study's history stays in Tests/mutation."""
import re

from conftest import ROOT

# "issue 22", "(issue 19, item 6)", "Issue #7"; another project's tracker is named with it ("HDF5 issue 2414").
ISSUE = re.compile(r"(?<![A-Za-z0-9] )\b[Ii]ssues? ?#?\d+")
ROUND = re.compile(r"MutantKill|mutant_kill|[Rr]ound \d+ of work")
FOLDERS = ["Sources", "Tests", "python", "Fuzz", "packaging", "Notebooks", ".ci"]
SUFFIXES = {".swift", ".py", ".sh", ".lua", ".c", ".ipynb", ".toml", ".zsh"}


def mentions(text):
    return [m.group(0) for pattern in (ISSUE, ROUND) for m in pattern.finditer(text)]


def test_the_scanner_sees_issue_numbers_and_round_names():
    assert mentions("# Scenario ft-pen (issue 22): the player") == ["issue 22"]
    assert mentions('"""Host-side check (Issue #7)."""') == ["Issue #7"]
    assert mentions("final class MutantKill2Tests") == ["MutantKill"]
    assert mentions("attribute kept in dense storage (HDF5 issue 2414), which") == []
    assert mentions("the issue of a trace file") == []


def test_code_and_tests_name_no_issue_numbers_or_rounds_of_work():
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file() or "mutation" in path.relative_to(ROOT).parts:
                continue
            if path.name == "test_source_text.py" or ".build" in path.parts or "work" in path.relative_to(ROOT).parts[:3]:
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                found += [f"{path.relative_to(ROOT)}:{number}: {hit}" for hit in mentions(line)]
    assert found == [], "\n".join(found)


# A file past this many lines holds more than one mechanism (docs/ARCHITECTURE.md sends readers by file).
MOST_LINES = 600


def test_no_swift_source_file_holds_more_than_600_lines():
    long = []
    for path in sorted((ROOT / "Sources").rglob("*.swift")):
        count = len(path.read_text(errors="replace").splitlines())
        if count > MOST_LINES:
            long.append(f"{path.relative_to(ROOT)}: {count} lines")
    assert long == [], "split these along their mechanisms:\n" + "\n".join(long)
