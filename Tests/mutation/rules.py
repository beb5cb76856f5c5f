#!/usr/bin/env python3
"""Rule-made mutation study: generates mutants by operator over the modules that
compute or render results, compiles the Swift ones into ONE build of a private
copy (mutant schemata: each site reads FORCETRACE_MUTANT), rewrites the Python
ones one at a time, and runs for each mutant first the tests that cover its
file, then, if those pass, the full XCTest and pytest suites.
See Tests/mutation/README.md."""
import argparse
import fnmatch
import json
import pathlib
import random
import re
import shutil
import signal
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import python_mutants  # noqa: E402
import run as curated  # noqa: E402  (the tree copy, the environment, running a suite)
import swift_schemata  # noqa: E402

ROOT, WORK, TREE = curated.ROOT, curated.WORK, curated.TREE
MODULES = ["Analysis", "Calibration", "Report", "Formats", "Events", "Support"]
DEFAULT_FILES = [f"Sources/ForceTrace/{m}/*.swift" for m in MODULES] + ["python/forcetrace/*.py"]
EQUIVALENT = ROOT / "Tests" / "mutation" / "equivalent.json"
SELF_TEST = "Tests/python/test_mutation_schemata.py"
COMPILE_ERROR = re.compile(r"^(/\S+\.swift):(\d+):\d+: error:", re.M)
QUICK_SUITES = curated.QUICK_SUITES.split("|")
MUTANT_ID = re.compile(r"Mutant\.on\((\d+)\)")


def log(message):
    print(message, file=sys.stderr, flush=True)


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
        number = 1
        for path in files:
            source = (ROOT / path).read_text()
            analysed = (swift_schemata if path.endswith(".swift") else python_mutants).analyse(path, source)
            (self.swift if path.endswith(".swift") else self.python)[path] = analysed
            for site in analysed.sites:
                site.id, site.path = number, path
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
        """Builds the schemata copy; sites the compiler rejects are rolled back, then it builds again."""
        for round_number in range(1, rounds + 1):
            self.write_schemata()
            status, seconds, _ = curated.build()
            log(f"schemata build {round_number}: {'ok' if status == 0 else 'errors'} in {seconds:.0f} s")
            if status == 0:
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


def covering_xctests(path):
    """The quick boundary suites and the file's own test file (PressClass.swift: PressClassTests.swift), else the
    XCTest classes of the test files that name a type or top-level function the file declares."""
    own = ROOT / "Tests" / "ForceTraceTests" / (pathlib.Path(path).stem + "Tests.swift")
    if own.exists():
        return sorted(set(re.findall(r"class\s+(\w+)\s*:\s*XCTestCase", own.read_text()) + QUICK_SUITES))
    names = declared_names(path, (ROOT / path).read_text())
    if not names:
        return QUICK_SUITES
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names))) + r")\b")
    classes = []
    for test in sorted((ROOT / "Tests" / "ForceTraceTests").glob("*.swift")):
        text = test.read_text()
        if pattern.search(text):
            classes += re.findall(r"class\s+(\w+)\s*:\s*XCTestCase", text)
    return sorted(set(classes + QUICK_SUITES))


def covering_pytests(path):
    """The pytest files that import the module or name something it defines."""
    stem = pathlib.Path(path).stem
    names = declared_names(path, (ROOT / path).read_text()) | {f"forcetrace.{stem}", f"forcetrace import {stem}"}
    pattern = re.compile("|".join(re.escape(n) if "." in n or " " in n else rf"\b{re.escape(n)}\b" for n in names))
    return [str(t.relative_to(ROOT)) for t in sorted((ROOT / "Tests" / "python").glob("test_*.py"))
            if str(t.relative_to(ROOT)) != SELF_TEST and pattern.search(t.read_text())]


class Runner:
    def __init__(self, arguments):
        self.arguments = arguments
        self.filter_seconds = {}

    def xctest(self, mutant, only=None, timeout=None):
        command = ["swift", "test", "--skip-build", "--disable-swift-testing"] + (["--filter", only] if only else [])
        env = {"FORCETRACE_MUTANT": str(mutant)} if mutant else {}
        return curated.run(command, timeout or self.arguments.timeout, "xctest.log", bool(mutant), env)

    def pytest(self, mutant, files=None, timeout=None):
        command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                   f"--ignore={SELF_TEST}"] + (files or ["Tests/python"])
        env = {"PYTHONDONTWRITEBYTECODE": "1"} | ({"FORCETRACE_MUTANT": str(mutant)} if mutant else {})
        return curated.run(command, timeout or self.arguments.timeout, "pytest.log", False, env)

    def covering_timeout(self, kind, selection):
        """Times the covering tests once on the unmutated build: a green start, and a timeout of 3× that."""
        key = (kind, tuple(selection))
        if key not in self.filter_seconds:
            status, seconds, first = (self.xctest(None, "|".join(selection)) if kind == "xctest"
                                      else self.pytest(None, list(selection)))
            if status != 0:
                raise SystemExit(f"the covering {kind} tests {selection} fail with no mutant active ({first})")
            self.filter_seconds[key] = seconds
        return int(3 * self.filter_seconds[key] + 30)

    def swift_mutant(self, site, classes):
        result = {"stage": None}
        if classes:
            timeout = self.covering_timeout("xctest", classes)
            status, _, first = self.xctest(site.id, "|".join(classes), timeout)
            if status != 0:
                return {"status": "killed", "by": "XCTest (covering)", "first": first}
        status, _, first = self.xctest(site.id)
        if status != 0:
            return {"status": "killed", "by": "XCTest (full)", "first": first}
        if not self.arguments.no_pytest:
            status, _, first = self.pytest(site.id)
            if status != 0:
                found = curated.PYTEST_FAILURE.search((WORK / "pytest.log").read_text(errors="replace"))
                return {"status": "killed", "by": "pytest (full)", "first": found.group(1) if found else first}
        return result | {"status": "SURVIVED"}

    def python_mutant(self, site, analysed, tests):
        target = TREE / site.path
        # Timed (and checked green) before the mutant is written.
        timeout = self.covering_timeout("pytest", tests) if tests else None
        try:
            target.write_text(analysed.mutated(site))
            if tests:
                status, _, _ = self.pytest(None, tests, timeout)
                if status != 0:
                    return {"status": "killed", "by": "pytest (covering)", "first": self._pytest_first()}
            if not self.arguments.no_pytest:
                status, _, _ = self.pytest(None)
                if status != 0:
                    return {"status": "killed", "by": "pytest (full)", "first": self._pytest_first()}
            return {"status": "SURVIVED"}
        finally:
            target.write_text(analysed.source)

    @staticmethod
    def _pytest_first():
        found = curated.PYTEST_FAILURE.search((WORK / "pytest.log").read_text(errors="replace"))
        return found.group(1) if found else "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", help="paths or globs, space- or comma-separated (default: every mutated module)")
    parser.add_argument("--sample", type=int,
                        help="run a seeded random sample of this many mutants (default: 150 when every module is "
                             "mutated, since the whole set does not fit in 90 minutes; 0: all)")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--only", help="comma-separated mutant ids of this generation (see --list); "
                                       "with --sample, added to the sample")
    parser.add_argument("--list", action="store_true", help="print the mutants and skipped sites, build nothing")
    parser.add_argument("--baseline", choices=["full", "covering"], default="full",
                        help="full: both whole suites on the schemata build with no mutant active (default); "
                             "covering: only the covering tests (quicker, for subsets)")
    parser.add_argument("--no-pytest", action="store_true",
                        help="no whole-pytest confirmation: Swift mutants face XCTest only, Python mutants their "
                             "covering pytest files only (the whole pytest suite takes about 7 minutes)")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per whole-suite run (a timeout is a kill)")
    arguments = parser.parse_args()

    files = select_files(re.split(r"[\s,]+", arguments.files.strip()) if arguments.files else DEFAULT_FILES)
    if arguments.sample is None and not arguments.files and not arguments.only:
        arguments.sample = 150
    mutants = Mutants(files)
    chosen = mutants.all
    ids = {int(i) for i in arguments.only.split(",")} if arguments.only else set()
    if arguments.sample and arguments.sample < len(chosen):
        # The sample, plus any --only ids.
        sample = {s.id for s in random.Random(arguments.seed).sample(chosen, arguments.sample)}
        chosen = [s for s in chosen if s.id in sample | ids]
    elif ids:
        chosen = [s for s in chosen if s.id in ids]
    log(f"{len(mutants.all)} rule-made mutants in {len(files)} file(s); running {len(chosen)}"
        + (f" (a sample, seed {arguments.seed})" if len(chosen) < len(mutants.all) else ""))
    if arguments.list:
        for site in chosen:
            print(f"{site.id:5} {site.path}:{site.line} {site.rule}: {site.original} -> {site.mutated}")
        print(json.dumps(mutants.skipped(), indent=1))
        return 0

    WORK.mkdir(parents=True, exist_ok=True)
    log(f"syncing the source into {TREE}")
    curated.sync_tree()
    for cache in (TREE / "python").rglob("__pycache__"):
        shutil.rmtree(cache)
    if mutants.swift and not mutants.build():
        log(f"the schemata copy does not build (see {WORK / 'build.log'})")
        return 2
    if not mutants.swift:
        status, _, _ = curated.build()
        if status != 0:
            return 2
    runner = Runner(arguments)
    if arguments.baseline == "full":
        status, xc_seconds, first = runner.xctest(None)
        if status != 0:
            log(f"XCTest fails on the schemata build with no mutant active ({first}); see {WORK / 'xctest.log'}")
            return 2
        py_seconds = 0
        if not arguments.no_pytest:
            status, py_seconds, _ = runner.pytest(None)
            if status != 0:
                log(f"pytest fails on the schemata build with no mutant active; see {WORK / 'pytest.log'}")
                return 2
        log(f"baseline green on the schemata build: XCTest {xc_seconds:.0f} s, pytest {py_seconds:.0f} s")

    equivalent = {e["key"]: e["why"] for e in json.loads(EQUIVALENT.read_text())} if EQUIVALENT.exists() else {}
    results, started = [], time.monotonic()
    coverage = {}
    for number, site in enumerate(chosen, 1):
        if getattr(site, "disabled", False):
            continue  # rolled back: counted as skipped
        if site.path not in coverage:
            coverage[site.path] = covering_xctests(site.path) if site.path.endswith(".swift") else covering_pytests(site.path)
            log(f"{site.path}: covering tests {', '.join(coverage[site.path]) or '(none: the full suites)'}")
        log(f"[{number}/{len(chosen)}] #{site.id} {site.path}:{site.line} {site.rule}: {site.original} -> {site.mutated}")
        began = time.monotonic()
        if site.path.endswith(".swift"):
            outcome = runner.swift_mutant(site, coverage[site.path])
        else:
            outcome = runner.python_mutant(site, mutants.python[site.path], coverage[site.path])
        if outcome["status"] == "SURVIVED" and site.key in equivalent:
            outcome = {"status": "equivalent", "why": equivalent[site.key]}
        outcome |= {"id": site.id, "key": site.key, "file": site.path, "line": site.line, "rule": site.rule,
                    "original": site.original, "mutated": site.mutated, "seconds": round(time.monotonic() - began, 1),
                    "module": module_of(site.path)}
        log(f"  {outcome['status']}" + (f" by {outcome['by']} ({outcome.get('first')})" if "by" in outcome else "")
            + f" in {outcome['seconds']:.0f} s")
        results.append(outcome)
        (WORK / "rules-results.json").write_text(json.dumps(results, indent=1))
    report = render_report(results, mutants, time.monotonic() - started, len(chosen) < len(mutants.all), arguments)
    print(report)
    (WORK / "last-run.md").write_text(report)
    return 0


def render_report(results, mutants, elapsed, sampled, arguments):
    modules = sorted({module_of(s.path) for s in mutants.all} | set(mutants.skipped()))
    skipped = mutants.skipped()
    percent = lambda a, b: f"{100 * a / b:.1f} %" if b else "n/a"
    out = ["# Rule-made mutation run", ""]
    if sampled:
        out += [f"A seeded sample (seed {arguments.seed}) of {len(results)} of {len(mutants.all)} mutants.", ""]
    out += ["| module | mutants | killed | survived | equivalent | skipped sites | score | XCTest alone |",
            "|---|---|---|---|---|---|---|---|"]
    for module in modules:
        rows = [r for r in results if r["module"] == module]
        killed = sum(r["status"] == "killed" for r in rows)
        survived = sum(r["status"] == "SURVIVED" for r in rows)
        by_xctest = sum(r.get("by", "").startswith("XCTest") for r in rows)
        xctest = percent(by_xctest, killed + survived) if module != "python" else "-"
        out.append(f"| {module} | {len(rows)} | {killed} | {survived} | {sum(r['status'] == 'equivalent' for r in rows)} "
                   f"| {sum(skipped.get(module, {}).values())} | {percent(killed, killed + survived)} | {xctest} |")
    swift = [r for r in results if r["module"] != "python" and r["status"] != "equivalent"]
    swift_xctest = sum(r.get("by", "").startswith("XCTest") for r in swift)
    killed = sum(r["status"] == "killed" for r in results)
    counted = sum(r["status"] in ("killed", "SURVIVED") for r in results)
    out += ["", f"score: {killed} of {counted} killed ({percent(killed, counted)}), equivalent ones excluded; "
            f"XCTest alone on the Swift logic mutants: {swift_xctest} of {len(swift)} ({percent(swift_xctest, len(swift))})",
            f"{len(results)} mutants in {elapsed / 60:.1f} min ({elapsed / max(1, len(results)):.0f} s each)", ""]
    survivors = [r for r in results if r["status"] == "SURVIVED"]
    if survivors:
        out += ["## Survivors", ""]
        for r in survivors:
            line = (ROOT / r["file"]).read_text().split("\n")[r["line"] - 1].strip()
            out += [f"- {r['file']}:{r['line']} ({r['rule']}, #{r['id']}): `{r['original']}` -> `{r['mutated']}` in `{line}`",
                    f"  key: `{r['key']}`"]
        out.append("")
    if any(skipped.values()):
        out += ["## Skipped sites", ""]
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
