"""A quick self-test of `make mutation`'s generator (Tests/mutation): the
schemata of one small Swift file compile, behave as the original with no
mutant active, and one known mutant flips a known result."""
import ast
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "mutation"))
import python_mutants  # noqa: E402
import swift_schemata  # noqa: E402

PRESS_CLASS = "Sources/ForceTrace/Events/PressClass.swift"


def swiftc():
    found = shutil.which("swiftc") or ("/opt/swift/usr/bin/swiftc" if os.path.exists("/opt/swift/usr/bin/swiftc") else None)
    if found is None:
        pytest.skip("swiftc not found")
    return found


@pytest.fixture(scope="module")
def press_class_binary(tmp_path_factory):
    source = (ROOT / PRESS_CLASS).read_text()
    analysed = swift_schemata.analyse(PRESS_CLASS, source)
    for number, site in enumerate(analysed.sites, 1):
        site.id = number
    work = tmp_path_factory.mktemp("schemata")
    (work / "PressClass.swift").write_text(analysed.render())
    (work / "Mutant.swift").write_text(swift_schemata.HELPER)
    # A peak exactly at pop, a peak exactly at peek, and the classes' order.
    (work / "main.swift").write_text(
        'print(PressClass.of(peak: 500, peek: 400, pop: 500).rawValue, '
        'PressClass.of(peak: 400, peek: 400, pop: 500).rawValue, PressClass.tap < PressClass.tap)\n')
    binary = work / "press"
    subprocess.run([swiftc(), "-Onone", "-o", str(binary), str(work / "main.swift"), str(work / "Mutant.swift"),
                    str(work / "PressClass.swift")], check=True, timeout=240)
    return binary, analysed


def outcome(binary, mutant=None):
    env = dict(os.environ)
    env.pop("FORCETRACE_MUTANT", None)
    if mutant is not None:
        env["FORCETRACE_MUTANT"] = str(mutant)
    return subprocess.run([str(binary)], env=env, capture_output=True, text=True, check=True, timeout=30).stdout.split()


def test_press_class_sites_are_the_three_comparisons():
    analysed = swift_schemata.analyse(PRESS_CLASS, (ROOT / PRESS_CLASS).read_text())
    assert [(s.rule, s.original, s.mutated) for s in analysed.sites] == [
        ("comparison", ">=", ">"), ("comparison", ">=", ">"), ("comparison", "<", "<=")]


def test_schemata_behave_as_the_original_with_no_mutant(press_class_binary):
    binary, _ = press_class_binary
    assert outcome(binary) == ["pop-press", "peek-press", "false"]
    assert outcome(binary, 999) == ["pop-press", "peek-press", "false"]


def test_each_mutant_flips_its_own_result(press_class_binary):
    binary, analysed = press_class_binary
    pop, peek, order = (s.id for s in analysed.sites)
    assert outcome(binary, pop) == ["peek-press", "peek-press", "false"]
    assert outcome(binary, peek) == ["pop-press", "tap", "false"]
    assert outcome(binary, order) == ["pop-press", "peek-press", "true"]


def test_guard_else_exits_are_kept_and_nested_sites_compose():
    source = """func f(_ xs: [Int], limit: Int = 3) -> Int {
    var total = 0
    for x in xs {
        guard x > 0 else { continue }
        if x >= limit { break }
        total += x
    }
    return total
}
"""
    analysed = swift_schemata.analyse("Sources/ForceTrace/Analysis/F.swift", source)
    rules = sorted((s.rule, s.original) for s in analysed.sites)
    assert ("loop-exit", "break") in rules and ("loop-exit", "continue") not in rules
    assert analysed.skipped == {"continue that a guard's else needs to exit": 1}
    assert ("literal", "3") in rules and ("literal", "0") in rules and ("guard", "guard x > 0") in rules
    for number, site in enumerate(analysed.sites, 1):
        site.id = number
    rendered = analysed.render()
    assert "else { continue }" in rendered and "if (Mutant.on(5) ? (x > limit) : (x >= limit)) { if !Mutant.on(6) { break } }" in rendered
    # The guard's negation holds the comparison's schemata, which holds the literal's.
    comparison = "(Mutant.on(3) ? (x >= (Mutant.on(4) ? 1 : 0)) : (x > (Mutant.on(4) ? 1 : 0)))"
    assert f"guard (Mutant.on(2) ? !({comparison}) : ({comparison})) else {{ continue }}" in rendered


def test_python_mutants_parse_and_change_one_operator():
    path = "python/forcetrace/report.py"
    analysed = python_mutants.analyse(path, (ROOT / path).read_text())
    assert {s.rule for s in analysed.sites} >= {"comparison", "guard", "literal", "loop-exit"}
    for site in analysed.sites:
        mutated = analysed.mutated(site)
        assert mutated != analysed.source
        ast.parse(mutated)


def test_trace_mode_records_the_sites_a_process_reaches(press_class_binary, tmp_path):
    """FORCETRACE_MUTANT_TRACE=DIR: at exit the process appends the ids it reached to DIR/PID.ids
    (the runner's coverage); without it nothing is written."""
    binary, analysed = press_class_binary
    env = dict(os.environ)
    env.pop("FORCETRACE_MUTANT", None)
    subprocess.run([str(binary)], env=env, check=True, timeout=30, capture_output=True)
    assert list(tmp_path.iterdir()) == []
    env["FORCETRACE_MUTANT_TRACE"] = str(tmp_path)
    subprocess.run([str(binary)], env=env, check=True, timeout=30, capture_output=True)
    (ids,) = tmp_path.glob("*.ids")
    reached = {int(i) for i in ids.read_text().split()}
    # main.swift classifies two peaks and compares the classes: every site of PressClass.swift runs.
    assert reached == {site.id for site in analysed.sites}


def test_every_equivalent_key_names_a_site():
    """Each reviewed equivalent mutant (equivalent.json) is a site the generator still makes, keyed by
    module, declaration, rule, operator and ordinal, never by a line's text: an entry whose code is
    gone, or a key in another form, fails here instead of silently matching nothing."""
    import json
    keys = set()
    for path in sorted((ROOT / "Sources").rglob("*.swift")) + sorted((ROOT / "python" / "forcetrace").rglob("*.py")):
        relative = str(path.relative_to(ROOT))
        generator = swift_schemata if relative.endswith(".swift") else python_mutants
        keys |= {site.key for site in generator.analyse(relative, path.read_text()).sites}
    entries = json.loads((ROOT / "Tests" / "mutation" / "equivalent.json").read_text())
    assert entries
    for entry in entries:
        assert not entry["key"].startswith(("Sources/", "python/")), entry["key"]
        assert entry["key"] in keys, entry["key"]


def test_a_test_failing_with_no_mutant_cannot_kill_in_the_whole_suite_run():
    """The whole-suite run that confirms a survivor leaves out the tests that
    fail with no mutant active: their failure would count as a kill."""
    import rules
    tests = ["ForceTraceTests.A/testOne", "ForceTraceTests.A/testTwo", "ForceTraceTests.B/testThree"]
    assert rules.full_run_filter(tests, []) is None
    assert rules.full_run_filter(tests, ["pytest Tests/python/test_x.py::test_y"]) is None
    assert rules.full_run_filter(tests, ["XCTest ForceTraceTests.A/testTwo"]) == "ForceTraceTests.A/testOne,ForceTraceTests.B/testThree"
    assert rules.full_run_filter(tests[:1], ["XCTest ForceTraceTests.A/testOne"]) == ""
