#!/usr/bin/env python3
"""Rule-made mutation study: generates mutants by operator over the modules that
compute or render results, compiles the Swift ones into ONE build of a private
copy (mutant schemata: each site reads FORCETRACE_MUTANT), rewrites the Python
ones one at a time, and runs for each mutant first the tests that cover its
file, then, if those pass, the full XCTest and pytest suites.
See Tests/mutation/README.md."""
import argparse
import fcntl
import fnmatch
import hashlib
import json
import os
import pathlib
import random
import re
import resource
import shutil
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import python_mutants  # noqa: E402
import run as curated  # noqa: E402  (the tree copy, the environment, running a suite)
import swift_schemata  # noqa: E402

ROOT, WORK, TREE = curated.ROOT, curated.WORK, curated.TREE
MODULES = ["Analysis", "Calibration", "Report", "Formats", "Events", "Support"]
DEFAULT_FILES = [f"Sources/ForceTrace/{m}/*.swift" for m in MODULES] + ["python/forcetrace/*.py"]
EQUIVALENT = ROOT / "Tests" / "mutation" / "equivalent.json"
SELF_TEST = "Tests/python/test_mutation_schemata.py"
LAST_RUN = ROOT / "Tests" / "mutation" / "last-run.md"
# The default run: a seeded sample, since the whole rule-made set does not fit in 90 minutes.
DEFAULT_SAMPLE, DEFAULT_SEED = 150, 26
COMPILE_ERROR = re.compile(r"^(/\S+\.swift):(\d+):\d+: error:", re.M)
MUTANT_ID = re.compile(r"Mutant\.on\((\d+)\)")


def log(message):
    print(message, file=sys.stderr, flush=True)


def sample_rank(seed, site):
    """A site's place in the seeded sample: a hash of the seed and its key (module, declaration, rule,
    operator, ordinal) and, for identical keys, which of them it is."""
    return hashlib.sha256(f"{seed}|{site.key}|{site.repeat}".encode()).hexdigest()


def module_of(path):
    parts = pathlib.Path(path).parts
    return "python" if parts[0] == "python" else parts[2]


def select_files(patterns):
    files = set()
    for pattern in patterns:
        matched = [p for p in ROOT.glob(pattern) if p.is_file()] if any(c in pattern for c in "*?[") \
            else [ROOT / pattern] if (ROOT / pattern).is_file() else []
        if not matched:
            raise SystemExit(f"no file matches {pattern}")
        files.update(str(p.relative_to(ROOT)) for p in matched)
    inside = [fnmatch.fnmatch(f, d) for d in DEFAULT_FILES for f in [None] if False]  # noqa: F841
    outside = [f for f in files if not any(fnmatch.fnmatch(f, d) for d in DEFAULT_FILES)]
    if outside:
        raise SystemExit(f"outside the mutated modules: {', '.join(sorted(outside))}")
    return sorted(files)


class Mutants:
    """Every site of the chosen files, numbered; the Swift ones written as schemata into TREE."""

    def __init__(self, files):
        self.swift, self.python, self.all = {}, {}, []
        number, seen = 1, {}
        for path in files:
            source = (ROOT / path).read_text()
            analysed = (swift_schemata if path.endswith(".swift") else python_mutants).analyse(path, source)
            (self.swift if path.endswith(".swift") else self.python)[path] = analysed
            for site in analysed.sites:
                site.id, site.path = number, path
                # Identical lines share a key: which of them a site is keeps it apart in samples and resumes.
                site.repeat = seen.get(site.key, 0)
                seen[site.key] = site.repeat + 1
                number += 1
                self.all.append(site)

    def skipped(self):
        counts = {}
        for path, analysed in list(self.swift.items()) + list(self.python.items()):
            counts.setdefault(module_of(path), {})
            for reason, n in analysed.skipped.items():
                counts[module_of(path)][reason] = counts[module_of(path)].get(reason, 0) + n
            rolled_back = sum(getattr(s, "disabled", False) for s in analysed.sites)
            if rolled_back:
                reason = "rewritten, but rejected by the compiler (rolled back)"
                counts[module_of(path)][reason] = counts[module_of(path)].get(reason, 0) + rolled_back
        return counts

    def write_schemata(self):
        (TREE / "Sources" / "ForceTrace" / "Mutant.swift").write_text(swift_schemata.HELPER)
        for path, analysed in self.swift.items():
            (TREE / path).write_text(analysed.render())

    def build(self, rounds=8):
        """Builds the schemata copy; sites the compiler rejects are rolled back, then it builds again.
        The rolled-back sites are remembered for the same sources, so a rerun builds once."""
        memory = WORK / "rolled-back.json"
        digest = hashlib.sha256("".join(a.source for a in self.swift.values()).encode()).hexdigest()
        if memory.exists() and json.loads(memory.read_text()).get("digest") == digest:
            keys = set(json.loads(memory.read_text())["keys"])
            for analysed in self.swift.values():
                for site in analysed.sites:
                    site.disabled = site.disabled or site.key in keys
        for round_number in range(1, rounds + 1):
            self.write_schemata()
            status, seconds, _ = curated.build()
            log(f"schemata build {round_number}: {'ok' if status == 0 else 'errors'} in {seconds:.0f} s")
            if status == 0:
                keys = [s.key for a in self.swift.values() for s in a.sites if s.disabled]
                memory.write_text(json.dumps({"digest": digest, "keys": keys}))
                return True
            errors = COMPILE_ERROR.findall((WORK / "build.log").read_text(errors="replace"))
            if not errors:
                log(f"the build failed without a compiler error: see {WORK / 'build.log'}")
                return False
            shutil.copy(WORK / "build.log", WORK / f"schemata-build-{round_number}.log")
            rolled, handled = 0, {}
            for file, line in sorted(set(errors), key=lambda e: (e[0], int(e[1]))):
                path = str(pathlib.Path(file).resolve().relative_to(TREE.resolve())) \
                    if pathlib.Path(file).resolve().is_relative_to(TREE.resolve()) else None
                if path not in self.swift:
                    log(f"a compiler error outside the rewritten files: {file}:{line}")
                    return False
                # An error a few lines below one just handled is most likely its consequence: next round.
                if any(0 <= int(line) - earlier <= 10 for earlier in handled.get(path, [])):
                    continue
                handled.setdefault(path, []).append(int(line))
                rolled += self.roll_back(path, int(line))
            log(f"  rolled back {rolled} site(s)")
        return False

    def roll_back(self, path, line):
        """Disables the sites written on or just above the line the compiler names; else the whole file's."""
        analysed = self.swift[path]
        lines = (TREE / path).read_text().split("\n")
        by_id = {s.id: s for s in analysed.sites}
        for above in range(0, 8):
            ids = [int(i) for i in MUTANT_ID.findall(lines[line - 1 - above])] if line - 1 - above >= 0 else []
            live = [by_id[i] for i in ids if i in by_id and not by_id[i].disabled]
            if live:
                for site in live:
                    site.disabled = True
                return len(live)
        live = [s for s in analysed.sites if not s.disabled]
        for site in live:
            site.disabled = True
        return len(live)


def listed_tests():
    """The tests `swift test --list-tests` wrote to list-tests.log."""
    log_file = WORK / "list-tests.log"
    lines = log_file.read_text().splitlines() if log_file.exists() else []
    return [line.strip() for line in lines if re.fullmatch(r"ForceTraceTests\.\w+/\w+", line.strip())]


def full_run_filter(tests, flaky):
    """The XCTest filter of a whole-suite run that judges a mutant: every test
    but those failing with no mutant active (a failure there is no kill), or
    None for the whole binary when none fails."""
    left_out = {name.removeprefix("XCTest ") for name in flaky if name.startswith("XCTest ")}
    if not left_out:
        return None
    return ",".join(test for test in tests if test not in left_out)


def declared_names(path, text):
    if path.endswith(".swift"):
        # Types anywhere, functions and constants at the top level.
        names = re.findall(r"^\s*(?:(?:public|internal|package|final|@\w+|nonisolated)\s+)*"
                           r"(?:struct|enum|class|actor|protocol)\s+(\w+)", text, re.M)
        names += re.findall(r"^(?:(?:public|internal|package|@\w+)\s+)*(?:func|let|var)\s+(\w+)", text, re.M)
    else:
        names = re.findall(r"^(?:def|class)\s+(\w+)|^(\w+)\s*=", text, re.M)
        names = [a or b for a, b in names]
    common = {"init", "description", "value", "count", "name", "path", "text", "main", "run", "result", "index"}
    return {n for n in names if len(n) > 3 and n not in common and not n.startswith("_")}


PACKAGE_IMPORT = re.compile(r"^\s*(import forcetrace|from forcetrace)", re.M)
# Tests that run the package in another process (a notebook kernel, `python -c`), which the tracer cannot see.
CHILD_PROCESS = re.compile(r"nbclient|sys\.executable")


def covering_pytests(path):
    """The pytest files that import the package, and test_notebook.py (the notebooks do)."""
    # The copy's tests (what runs), not the checkout's, which may have changed since the sync.
    return [str(t.relative_to(TREE)) for t in sorted((TREE / "Tests" / "python").glob("test_*.py"))
            if str(t.relative_to(TREE)) != SELF_TEST and (PACKAGE_IMPORT.search(t.read_text()) or t.name == "test_notebook.py")]


def child_process_pytests(files):
    """Of the covering files, those that run the package in a child process: a survivor's bounded confirmation."""
    return [f for f in files if CHILD_PROCESS.search((TREE / f).read_text())]


XCTEST_BINARY = TREE / ".build" / "debug" / "forcetracePackageTests.xctest"
TRACE_PLUGIN_DIR = ROOT / "Tests" / "mutation"


def tree_digest(parts):
    """A digest of the copy's files under `parts`: a stored coverage map is reused only for the same tree."""
    digest = hashlib.sha256()
    for part in parts:
        for path in sorted((TREE / part).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(TREE)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class Runner:
    """Runs the mutants. First a coverage pass on the unmutated schemata build (which is also the
    baseline: every test must pass): each XCTest test alone, recording the Swift sites it reaches
    (FORCETRACE_MUTANT_TRACE), and the covering pytest files under a line tracer. Then each mutant
    faces the tests that reach its site, and a survivor the whole XCTest suite (Swift) or its covering
    pytest files whole (Python, which also runs the package in child processes the tracer cannot see)."""

    def __init__(self, arguments):
        self.arguments = arguments
        self.reached, self.xctest_seconds = {}, {}
        self.py_lines, self.py_seconds = {}, {}
        self.pytest_reached = {}
        self.flaky = []  # tests failing with no mutant active
        self.xctest_tests = []  # every XCTest test, "ForceTraceTests.Suite/test"
        # Each of the --jobs workers writes its own logs: a slot number is taken per run.
        self.slots, self.local = list(range(arguments.jobs)), threading.local()
        self.slot_lock = threading.Lock()

    def slot(self):
        with self.slot_lock:
            self.local.slot = self.slots.pop(0)
        return self.local.slot

    def release(self):
        with self.slot_lock:
            self.slots.append(self.local.slot)

    # -- coverage ----------------------------------------------------------------
    def swift_coverage(self):
        cache = WORK / "coverage-swift.json"
        digest = tree_digest(["Sources", "Tests/ForceTraceTests"])
        if cache.exists():
            stored = json.loads(cache.read_text())
            if stored.get("digest") == digest:
                self.reached = {int(k): sorted(set(v)) for k, v in stored["reached"].items()}
                self.xctest_seconds = stored["seconds"]
                self.flaky += stored.get("failed", [])
                self.xctest_tests = stored.get("tests") or listed_tests()
                log(f"XCTest coverage: reused {cache} (same tree)")
                return True
        listing = curated.run(["swift", "test", "--skip-build", "--list-tests"], 300, "list-tests.log")
        tests = listed_tests()
        if listing[0] != 0 or not tests:
            log(f"could not list the XCTest tests (see {WORK / 'list-tests.log'})")
            return False
        self.xctest_tests = tests
        trace = WORK / "trace"
        shutil.rmtree(trace, ignore_errors=True)
        began, done, lock = time.monotonic(), [0], threading.Lock()

        def trace_one(number, test):
            directory = trace / str(number)
            directory.mkdir(parents=True)
            log_name = f"trace-{self.slot()}.log"
            try:
                status, seconds, first = curated.run([str(XCTEST_BINARY), test], self.arguments.timeout, log_name,
                                                     False, {"FORCETRACE_MUTANT_TRACE": str(directory)})
            finally:
                self.release()
            # One file per process the test ran (the test itself, the CLI it started).
            ids = {int(i) for ids in directory.glob("*.ids") for i in ids.read_text().split()}
            with lock:
                done[0] += 1
                if status != 0:
                    # It cannot judge a mutant: left out of every covering set, and reported.
                    log(f"  {test} fails with no mutant active ({first}): left out; see {WORK / log_name}")
                    self.flaky.append(f"XCTest {test}")
                else:
                    self.xctest_seconds[test] = round(seconds, 2)
                    for id in ids:
                        self.reached.setdefault(id, []).append(test)
                if done[0] % 25 == 0 or done[0] == len(tests):
                    log(f"  XCTest coverage: {done[0]} of {len(tests)} tests, {time.monotonic() - began:.0f} s")

        with ThreadPoolExecutor(self.arguments.jobs) as pool:
            for future in [pool.submit(trace_one, number, test) for number, test in enumerate(tests)]:
                future.result()
        self.reached = {id: sorted(tests) for id, tests in self.reached.items()}
        cache.write_text(json.dumps({"digest": digest, "reached": self.reached, "seconds": self.xctest_seconds,
                                     "failed": self.flaky, "tests": tests}))
        return True

    def python_coverage(self, files):
        cache = WORK / "coverage-python.json"
        digest = tree_digest(["python/forcetrace", "Tests/python"]) + " ".join(files)
        if cache.exists():
            stored = json.loads(cache.read_text())
            if stored.get("digest") == digest:
                self.py_lines, self.py_seconds = stored["lines"], stored["durations"]
                self.flaky += [f"pytest {t}" for t in stored.get("failed", [])]
                log(f"pytest coverage: reused {cache} (same tree)")
                return True
        out = WORK / "pytest-trace.json"
        out.unlink(missing_ok=True)
        env = {"PYTHONDONTWRITEBYTECODE": "1", "FORCETRACE_TRACE_OUT": str(out),
               "FORCETRACE_TRACE_PACKAGE": str(TREE / "python" / "forcetrace"),
               "PYTHONPATH": os.pathsep.join([str(TREE / "python"), str(TRACE_PLUGIN_DIR)])}
        log(f"pytest coverage: tracing {len(files)} covering file(s)")
        status, seconds, _ = curated.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                          "-p", "pytest_trace"] + files, 3 * self.arguments.timeout, "pytest.log",
                                         False, env)
        if not out.exists():
            log(f"the covering pytest files did not run; see {WORK / 'pytest.log'}")
            return False
        stored = json.loads(out.read_text())
        # A test that fails with no mutant cannot judge one: left out of every covering set, and reported.
        self.flaky += [f"pytest {t}" for t in stored["failed"]]
        if stored["failed"]:
            log(f"  failing with no mutant active, left out: {', '.join(stored['failed'])}")
        stored["lines"] = {path: {line: [t for t in tests if t not in stored["failed"]] for line, tests in lines.items()}
                           for path, lines in stored["lines"].items()}
        prefix = str((TREE / "python").resolve()) + os.sep
        self.py_lines = {path[len(prefix):] if path.startswith(prefix) else path: lines
                         for path, lines in stored["lines"].items()}
        self.py_seconds = stored["durations"]
        log(f"  pytest coverage: {len(self.py_seconds)} tests in {seconds:.0f} s")
        cache.write_text(json.dumps({"digest": digest, "lines": self.py_lines, "durations": self.py_seconds,
                                     "failed": stored["failed"]}))
        return True

    def pytest_swift_coverage(self):
        """The whole pytest suite once, each test with its own FORCETRACE_MUTANT_TRACE folder: which Swift
        sites the CLI processes it starts reach (for --pytest)."""
        cache = WORK / "coverage-swift-pytest.json"
        digest = tree_digest(["Sources", "python/forcetrace", "Tests/python"])
        if cache.exists():
            stored = json.loads(cache.read_text())
            if stored.get("digest") == digest:
                self.pytest_reached = {int(k): v for k, v in stored["reached"].items()}
                self.py_seconds.update(stored["durations"])
                log(f"pytest coverage of the Swift sites: reused {cache} (same tree)")
                return True
        out, root = WORK / "pytest-swift-trace.json", WORK / "pytest-swift-trace"
        out.unlink(missing_ok=True)
        shutil.rmtree(root, ignore_errors=True)
        env = {"PYTHONDONTWRITEBYTECODE": "1", "FORCETRACE_TRACE_OUT": str(out), "FORCETRACE_SWIFT_TRACE_ROOT": str(root),
               "FORCETRACE_TRACE_PACKAGE": str(TREE / "python" / "forcetrace"),
               "PYTHONPATH": os.pathsep.join([str(TREE / "python"), str(TRACE_PLUGIN_DIR)])}
        log("pytest coverage of the Swift sites: the whole pytest suite, traced")
        status, seconds, _ = curated.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                                          "pytest_trace", f"--ignore={SELF_TEST}", "Tests/python"],
                                         4 * self.arguments.timeout, "pytest.log", False, env)
        if status != 0 or not out.exists():
            log(f"pytest fails with no mutant active; see {WORK / 'pytest.log'}")
            return False
        stored = json.loads(out.read_text())
        self.pytest_reached = {}
        for folder, test in stored["swift_folders"].items():
            for id in {int(i) for ids in (root / folder).glob("*.ids") for i in ids.read_text().split()}:
                self.pytest_reached.setdefault(id, []).append(test)
        self.py_seconds.update(stored["durations"])
        log(f"  {len(stored['durations'])} tests in {seconds:.0f} s")
        cache.write_text(json.dumps({"digest": digest, "reached": self.pytest_reached, "durations": stored["durations"]}))
        return True

    def python_reaching(self, site):
        table = self.py_lines.get(str(pathlib.Path(site.path).relative_to("python")), {})
        return sorted({test for line in site.lines for test in table.get(str(line), [])})

    # -- the mutants ---------------------------------------------------------------
    def swift_mutant(self, site):
        tests = self.reached.get(site.id, [])
        if not tests:
            return self.swift_pytest(site, {"status": "SURVIVED", "reached": 0, "note": "no XCTest test reaches it"})
        timeout = int(3 * sum(self.xctest_seconds.get(t, 1) for t in tests) + 30)
        # XCTest logs every test's start and end: silence longer than 3x the slowest test + 30 s is a hang.
        quiet = int(3 * max(self.xctest_seconds.get(t, 1) for t in tests) + 30)
        log_name = f"xctest-{self.slot()}.log"
        try:
            status, _, first = curated.run([str(XCTEST_BINARY), ",".join(tests)], timeout, log_name, True,
                                           {"FORCETRACE_MUTANT": str(site.id)}, quiet_limit=quiet)
            if status != 0:
                return {"status": "killed", "by": "XCTest (reaching tests)", "first": first, "reached": len(tests)}
            if not self.arguments.no_confirm:
                # The test binary itself, not `swift test`: two SwiftPM runs would wait on each other's .build lock.
                whole = full_run_filter(self.xctest_tests, self.flaky)
                if whole == "":
                    raise RuntimeError("no XCTest test passes with no mutant active")
                status, _, first = curated.run([str(XCTEST_BINARY)] + ([whole] if whole else []), self.arguments.timeout, log_name, True,
                                               {"FORCETRACE_MUTANT": str(site.id)})
                if status != 0:
                    return {"status": "killed", "by": "XCTest (full)", "first": first, "reached": len(tests)}
        finally:
            self.release()
        return self.swift_pytest(site, {"status": "SURVIVED", "reached": len(tests)})

    def swift_pytest(self, site, survived):
        """--pytest: a Swift survivor of XCTest faces the pytest tests whose CLI processes reach it."""
        tests = self.pytest_reached.get(site.id, []) if self.arguments.pytest else []
        if tests:
            timeout = int(3 * sum(self.py_seconds.get(t, 1) for t in tests) + 30)
            status, _, _ = self.pytest(site.id, tests, timeout)
            if status != 0:
                return {"status": "killed", "by": "pytest (reaching tests)", "first": self._pytest_first(),
                        "reached": survived.get("reached", 0)}
        return survived | ({"pytest_reached": len(tests)} if self.arguments.pytest else {})

    def python_mutant(self, site, analysed, files):
        target = TREE / site.path
        tests = self.python_reaching(site)
        try:
            target.write_text(analysed.mutated(site))
            if tests:
                timeout = int(3 * sum(self.py_seconds.get(t, 1) for t in tests) + 30)
                status, _, _ = self.pytest(None, tests, timeout)
                if status != 0:
                    return {"status": "killed", "by": "pytest (reaching tests)", "first": self._pytest_first(),
                            "reached": len(tests)}
            confirm = child_process_pytests(files)
            if confirm and not self.arguments.no_confirm:
                # Bounded: the covering files that run the package in a child process (notebooks, python -c).
                status, _, _ = self.pytest(None, confirm, self.arguments.timeout)
                if status != 0:
                    return {"status": "killed", "by": "pytest (child-process files)", "first": self._pytest_first(),
                            "reached": len(tests)}
            return {"status": "SURVIVED", "reached": len(tests)} | ({} if tests else {"note": "no test reaches it in-process"})
        finally:
            target.write_text(analysed.source)

    def pytest(self, mutant, files=None, timeout=None):
        command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                   f"--ignore={SELF_TEST}"] + (files or ["Tests/python"])
        env = {"PYTHONDONTWRITEBYTECODE": "1"} | ({"FORCETRACE_MUTANT": str(mutant)} if mutant else {})
        return curated.run(command, timeout or self.arguments.timeout, "pytest.log", False, env)

    @staticmethod
    def _pytest_first():
        found = curated.PYTEST_FAILURE.search((WORK / "pytest.log").read_text(errors="replace"))
        return found.group(1) if found else "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", help="paths or globs, space- or comma-separated (default: every mutated module)")
    parser.add_argument("--sample", type=int,
                        help=f"run a seeded random sample of this many mutants (default: {DEFAULT_SAMPLE} when every "
                             "module is mutated; 0: all)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--only", help="comma-separated mutant ids of this generation (see --list); "
                                       "with --sample, added to the sample")
    parser.add_argument("--list", action="store_true", help="print the mutants and skipped sites, build nothing")
    parser.add_argument("--no-confirm", action="store_true",
                        help="survivors of the reaching tests are not run again against the whole XCTest suite "
                             "(Swift) or the covering pytest files whole (Python)")
    parser.add_argument("--pytest", action="store_true",
                        help="Swift survivors of XCTest also face the pytest tests whose CLI runs reach them (the whole "
                             "pytest suite is traced once for that); the report then gives both scores")
    parser.add_argument("--recheck-equivalents", action="store_true",
                        help="run the mutants reviewed as equivalent (equivalent.json) too; a killed one then counts as killed")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="Swift mutants (and the coverage pass) run on this many workers at once (default: 2)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the kills of the last run's results (.build/mutation/rules-results.json) for the same "
                             "mutants, and run the rest: its survivors (against the tests added since) and those it did not reach")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per whole-suite run (a timeout is a kill)")
    parser.add_argument("--report-only", action="store_true",
                        help="render the report from .build/mutation/rules-results.json (an interrupted run's results "
                             "so far) without running anything; the same --files/--sample/--seed choose the set")
    parser.add_argument("--results", help="also write the report here (default: Tests/mutation/last-run.md for the "
                                          "default sampled run, else only .build/mutation/last-run.md)")
    arguments = parser.parse_args()

    files = select_files(re.split(r"[\s,]+", arguments.files.strip()) if arguments.files else DEFAULT_FILES)
    if arguments.sample is None and not arguments.files and not arguments.only:
        arguments.sample = DEFAULT_SAMPLE
    mutants = Mutants(files)
    chosen = mutants.all
    ids = {int(i) for i in arguments.only.split(",")} if arguments.only else set()
    if arguments.sample and arguments.sample < len(chosen):
        # The sample, plus any --only ids: the sites whose seeded hash of their key is smallest, so an
        # edit adds or drops only the sites it touches and leaves the rest of the sample as it was.
        # In that (random) order: the mutants run before an interruption are a random sample too.
        ranked = sorted(chosen, key=lambda s: sample_rank(arguments.seed, s))
        sample = {s.id for s in ranked[:arguments.sample]}
        chosen = [s for s in ranked if s.id in sample | ids]
    elif ids:
        chosen = [s for s in chosen if s.id in ids]
    log(f"{len(mutants.all)} rule-made mutants in {len(files)} file(s); running {len(chosen)}"
        + (f" (a sample, seed {arguments.seed})" if len(chosen) < len(mutants.all) else ""))
    if arguments.list:
        for site in chosen:
            print(f"{site.id:5} {site.path}:{site.line} {site.rule}: {site.original} -> {site.mutated}")
        print(json.dumps(mutants.skipped(), indent=1))
        return 0

    if arguments.report_only:
        results = json.loads((WORK / "rules-results.json").read_text())
        equivalent = {e["key"]: e["why"] for e in json.loads(EQUIVALENT.read_text())} if EQUIVALENT.exists() else {}
        for r in results:  # entries reviewed since the run
            if r["status"] == "SURVIVED" and r["key"] in equivalent:
                r["status"], r["why"] = "equivalent", equivalent[r["key"]]
        summary = json.loads((WORK / "rules-run.json").read_text())
        spent = sum(r["seconds"] for r in results)
        report = render_report(results, summary, {"mutants": spent}, arguments, equivalent)
        if len(results) < len(summary["chosen"]):
            report += (f"\n**Interrupted:** {len(results)} of the {len(summary['chosen'])} chosen mutants were run; "
                       f"the scores above are over those.\n")
        print(report)
        target = arguments.results or (None if arguments.files or arguments.only else str(LAST_RUN))
        if target:
            pathlib.Path(target).write_text(report)
        return 0

    wall, cpu = time.monotonic(), children_cpu()
    WORK.mkdir(parents=True, exist_ok=True)
    # Two runs would rebuild and rewrite the same copy under each other's tests.
    # Held (bound to its own name) until the process ends: closing the file would release the lock.
    run_lock = open(WORK / "run.lock", "w")
    try:
        fcntl.flock(run_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log(f"another mutation run is using {WORK}: wait for it to end, or stop it")
        return 2
    summary = run_summary(mutants, chosen, arguments)
    (WORK / "rules-run.json").write_text(json.dumps(summary))
    log(f"syncing the source into {TREE}")
    curated.sync_tree()
    for cache in (TREE / "python").rglob("__pycache__"):
        shutil.rmtree(cache)
    if not mutants.build():
        log(f"the schemata copy does not build (see {WORK / 'build.log'})")
        return 2
    built = time.monotonic()
    runner = Runner(arguments)
    if any(s.path.endswith(".swift") for s in chosen) and not runner.swift_coverage():
        return 2
    if arguments.pytest and any(s.path.endswith(".swift") for s in chosen) and not runner.pytest_swift_coverage():
        return 2
    python_files = sorted({s.path for s in chosen if not s.path.endswith(".swift")})
    covering = {path: covering_pytests(path) for path in python_files}
    if python_files and not runner.python_coverage(sorted({f for fs in covering.values() for f in fs})):
        return 2
    covered = time.monotonic()

    equivalent = {e["key"]: e["why"] for e in json.loads(EQUIVALENT.read_text())} if EQUIVALENT.exists() else {}
    results, started, lock = [], time.monotonic(), threading.Lock()
    if arguments.resume and (WORK / "rules-results.json").exists():
        # Killed mutants of the same generation stay killed (tests were only added since, or the kill
        # would be rechecked with the sources); survivors and mutants not run yet run now.
        sites = {(s.key, s.repeat): s for s in chosen}
        results = []
        for r in json.loads((WORK / "rules-results.json").read_text()):
            site = sites.get((r["key"], r.get("repeat", 0)))
            if r["status"] == "killed" and site:
                results.append(r | {"id": site.id, "line": site.line})  # ids move with edits elsewhere
        log(f"resuming: {len(results)} mutant(s) killed before are kept; the rest run")
    kept = {r["id"] for r in results}
    summary["resumed"] = len(kept)
    (WORK / "rules-run.json").write_text(json.dumps(summary))

    def run_one(number, site):
        log(f"[{number}/{len(chosen)}] #{site.id} {site.path}:{site.line} {site.rule}: {site.original} -> {site.mutated}")
        began = time.monotonic()
        if site.key in equivalent and not arguments.recheck_equivalents:
            # Reviewed as equivalent: running it would only spend the reaching tests and a whole suite on a survivor.
            outcome = {"status": "equivalent", "why": equivalent[site.key]}
        elif site.path.endswith(".swift"):
            outcome = runner.swift_mutant(site)
        else:
            outcome = runner.python_mutant(site, mutants.python[site.path], covering[site.path])
        if outcome["status"] == "SURVIVED" and site.key in equivalent:
            outcome = {"status": "equivalent", "why": equivalent[site.key], "reached": outcome.get("reached")}
        outcome |= {"id": site.id, "key": site.key, "repeat": site.repeat, "file": site.path, "line": site.line, "text": site.text,
                    "rule": site.rule,
                    "original": site.original, "mutated": site.mutated, "seconds": round(time.monotonic() - began, 1),
                    "module": module_of(site.path)}
        with lock:
            log(f"  #{site.id} {outcome['status']}"
                + (f" by {outcome['by']} ({outcome.get('first')})" if "by" in outcome else "")
                + (f" ({outcome['note']})" if "note" in outcome else "") + f" in {outcome['seconds']:.0f} s")
            results.append(outcome)
            (WORK / "rules-results.json").write_text(json.dumps(results, indent=1))

    numbered = [(n, s) for n, s in enumerate(chosen, 1)
                if not getattr(s, "disabled", False) and s.id not in kept]  # rolled back: counted as skipped
    # Swift mutants on --jobs workers (each process reads its own FORCETRACE_MUTANT); the Python ones
    # rewrite the copy's files, so they run after, one at a time.
    with ThreadPoolExecutor(arguments.jobs) as pool:
        for future in [pool.submit(run_one, n, s) for n, s in numbered if s.path.endswith(".swift")]:
            future.result()
    for n, s in numbered:
        if not s.path.endswith(".swift"):
            run_one(n, s)
    timing = {"build": built - wall, "coverage": covered - built, "mutants": time.monotonic() - started,
              "wall": time.monotonic() - wall, "cpu": children_cpu() - cpu}
    report = render_report(results, summary, timing, arguments, equivalent)
    if runner.flaky:
        report += "\n## Tests failing with no mutant active (left out of every covering set)\n\n" + \
            "".join(f"- {t}\n" for t in runner.flaky)
    print(report)
    (WORK / "last-run.md").write_text(report)
    target = arguments.results or (None if arguments.files or arguments.only else str(LAST_RUN))
    if target:
        pathlib.Path(target).write_text(report)
        log(f"report written to {target}")
    return 0


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_summary(mutants, chosen, arguments):
    """What a report needs of the generation, kept beside the results (an interrupted run's report
    must describe the set it ran, whatever the sources are now)."""
    return {"total": len(mutants.all), "chosen": [s.id for s in chosen], "skipped": mutants.skipped(),
            "modules": sorted({module_of(s.path) for s in mutants.all} | set(mutants.skipped())),
            "seed": arguments.seed, "sample": arguments.sample, "no_confirm": arguments.no_confirm}


def render_report(results, summary, timing, arguments, equivalent):
    modules, skipped = summary["modules"], summary["skipped"]
    sampled = len(summary["chosen"]) < summary["total"]
    percent = lambda a, b: f"{100 * a / b:.1f} %" if b else "n/a"
    out = ["# Rule-made mutation run", ""]
    if sampled:
        out += [f"A seeded sample: {len(summary['chosen'])} of the {summary['total']} rule-made mutants, seed "
                f"{summary['seed']} (`--sample {summary['sample']} --seed {summary['seed']}`).", ""]
    else:
        out += [f"{len(summary['chosen'])} of the {summary['total']} rule-made mutants of the chosen files.", ""]
    out += ["Score = killed / (killed + survived); equivalent mutants (equivalent.json) are excluded. "
            "Swift mutants face XCTest alone.", "",
            "| module | mutants | killed | survived | equivalent | not reached | skipped sites | score |",
            "|---|---|---|---|---|---|---|---|"]
    for module in modules:
        rows = [r for r in results if r["module"] == module]
        killed = sum(r["status"] == "killed" for r in rows)
        survived = sum(r["status"] == "SURVIVED" for r in rows)
        unreached = sum(r["status"] == "SURVIVED" and not r.get("reached") for r in rows)
        out.append(f"| {module} | {len(rows)} | {killed} | {survived} | {sum(r['status'] == 'equivalent' for r in rows)} "
                   f"| {unreached} | {sum(skipped.get(module, {}).values())} | {percent(killed, killed + survived)} |")
    killed = sum(r["status"] == "killed" for r in results)
    counted = sum(r["status"] in ("killed", "SURVIVED") for r in results)
    swift = [r for r in results if r["module"] != "python" and r["status"] != "equivalent"]
    swift_xctest = sum(r.get("by", "").startswith("XCTest") for r in swift)
    out += ["", f"Score: {killed} of {counted} killed ({percent(killed, counted)}), "
            f"{sum(r['status'] == 'equivalent' for r in results)} equivalent excluded. "
            f"XCTest alone on the Swift mutants: {swift_xctest} of {len(swift)} ({percent(swift_xctest, len(swift))}).",
            "",
            (f"Time: {timing['wall'] / 60:.1f} min wall (build {timing['build'] / 60:.1f}, coverage "
             f"{timing['coverage'] / 60:.1f}, mutants {timing['mutants'] / 60:.1f}); the child processes used "
             f"{timing['cpu'] / 60:.1f} min of CPU (user + system), load average at the end "
             f"{os.getloadavg()[0]:.1f}." if "wall" in timing else
             f"Time: the mutants took {timing['mutants'] / 60:.1f} min of worker time, summed over the results "
             "(build and coverage not included)."),
            "Survivors of the reaching tests were " + ("not run again against the whole XCTest suite (--no-confirm)."
                                                       if summary["no_confirm"] else "run again against the whole XCTest suite."),
            *([f"Resumed (--resume): {summary['resumed']} kills were kept from the earlier pass over the same mutants; "
               "its survivors ran again with the tests added since."] if summary.get("resumed") else []),
            ""]
    by = {}
    for r in results:
        by[r.get("by", r["status"])] = by.get(r.get("by", r["status"]), 0) + 1
    out += ["Decided by: " + ", ".join(f"{k} {v}" for k, v in sorted(by.items())), ""]
    survivors = [r for r in results if r["status"] == "SURVIVED"]
    if survivors:
        out += ["## Survivors", ""]
        for r in survivors:
            line = r.get("text", "")  # the site's line when generated (it may have moved since)
            out += [f"- {r['file']}:{r['line']} ({r['rule']}, #{r['id']}, reached by {r.get('reached', 0)} test(s)): "
                    f"`{r['original']}` -> `{r['mutated']}` in `{line}`", f"  key: `{r['key']}`"]
        out.append("")
    listed = [r for r in results if r["status"] == "equivalent"]
    if listed:
        out += ["## Equivalent (reviewed in equivalent.json, excluded from the score)", ""]
        out += [f"- {r['file']}:{r['line']} ({r['rule']}): `{r['original']}` -> `{r['mutated']}`: {r['why']}" for r in listed]
        out.append("")
    if any(skipped.values()):
        out += ["## Skipped sites (not rewritten)", ""]
        for module in modules:
            for reason, n in sorted(skipped.get(module, {}).items()):
                out.append(f"- {module}: {n} {reason}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, curated.interrupted)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        log("interrupted; the checkout was never touched (the copy is re-synced by the next run)")
        sys.exit(130)
