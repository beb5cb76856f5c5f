#!/usr/bin/env python3
"""Mutation study: plants each mutation of mutations.json, one at a time, in a
private copy of the source tree, builds it, runs the test suites and records
whether the tests noticed (killed) or not (survived).

The checkout itself is never modified: the copy lives in .build/mutation/tree
and is re-synced from the checkout before the run and restored after every
mutation, also on Ctrl-C. See Tests/mutation/README.md.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORK = ROOT / ".build" / "mutation"
TREE = WORK / "tree"
LIST = ROOT / "Tests" / "mutation" / "mutations.json"
SWIFT_PATH = "/opt/swift/usr/bin"
# What is copied: the package, never build products or VCS data.
SKIP = {".build", ".git", "out", "__pycache__", ".pytest_cache", ".ipynb_checkpoints", "work"}


def log(message):
    print(message, file=sys.stderr, flush=True)


def sync_tree():
    """Mirrors the checkout into TREE (keeping TREE/.build for incremental builds)."""
    TREE.mkdir(parents=True, exist_ok=True)
    wanted = set()
    for dirpath, dirnames, filenames in os.walk(ROOT):
        here = pathlib.Path(dirpath)
        if here == ROOT:
            dirnames[:] = [d for d in dirnames if d not in SKIP]
        else:
            dirnames[:] = [d for d in dirnames if d not in {"__pycache__", ".pytest_cache", ".ipynb_checkpoints"}
                           and not (here == ROOT / "Tests" / "kernel" and d == "work")]
        relative = here.relative_to(ROOT)
        for name in filenames:
            source = here / name
            target = TREE / relative / name
            wanted.add(relative / name)
            if target.exists() and target.stat().st_size == source.stat().st_size \
                    and target.read_bytes() == source.read_bytes():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    for dirpath, dirnames, filenames in os.walk(TREE):
        here = pathlib.Path(dirpath)
        if here == TREE:
            dirnames[:] = [d for d in dirnames if d != ".build"]
        for name in filenames:
            relative = (here / name).relative_to(TREE)
            if relative not in wanted:
                (here / name).unlink()
    # Tests find the genuine recordings at ../shared/recordings from the package root.
    shared = ROOT.parent / "shared"
    link = WORK / "shared"
    if shared.exists() and not link.exists():
        link.symlink_to(shared)


def environment(extra=None):
    env = dict(os.environ)
    env.pop("FORCETRACE_MUTANT", None)
    env.update(extra or {})
    env["PATH"] = SWIFT_PATH + os.pathsep + env.get("PATH", "")
    env["FORCETRACE"] = str(TREE / ".build" / "debug" / "forcetrace")
    # The copy's Python package, not the editable install of the checkout.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TREE / "python"), env.get("PYTHONPATH")]))
    return env


# An XCTest failure line ("FILE:LINE: error: Class.test : ...") or a trap.
FIRST_FAILURE = re.compile(r"^(.*: error: (\S+) : .*|.*Fatal error.*|.*Test Case '(\S+)' failed.*)$", re.M)


def run(command, timeout, log_name, stop_at_first_failure=False, env=None, quiet_limit=None):
    """Runs `command` in TREE; returns (status, seconds, first failure or None).
    With `stop_at_first_failure` the run ends as soon as the log shows a failing
    test: the mutant is killed, and the rest of the suite would not change that.
    With `quiet_limit` a run whose log has not grown for that many seconds is a
    hang (a mutant that deadlocks) and ends as a timeout then."""
    started = time.monotonic()
    last_size, last_growth = -1, started
    log_path = WORK / log_name
    first = None
    with open(log_path, "w") as output:
        process = subprocess.Popen(command, cwd=TREE, env=environment(env), stdout=output, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            while True:
                try:
                    status = process.wait(timeout=0.5)
                    break
                except subprocess.TimeoutExpired:
                    pass
                if time.monotonic() - started > timeout:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
                    status, first = "timeout", f"timed out after {timeout} s"
                    break
                if quiet_limit is not None:
                    size = log_path.stat().st_size
                    if size != last_size:
                        last_size, last_growth = size, time.monotonic()
                    elif time.monotonic() - last_growth > quiet_limit:
                        os.killpg(process.pid, signal.SIGKILL)
                        process.wait()
                        status, first = "timeout", f"no output for {quiet_limit} s (a hang)"
                        break
                if stop_at_first_failure:
                    match = FIRST_FAILURE.search(log_path.read_text(errors="replace"))
                    if match:
                        os.killpg(process.pid, signal.SIGKILL)
                        process.wait()
                        status = "failed"
                        break
        except BaseException:
            # Ctrl-C: stop the child's whole group before passing it on.
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
    if status != 0 and first is None:
        match = FIRST_FAILURE.search(log_path.read_text(errors="replace"))
        if match:
            first = match.group(2) or match.group(3) or match.group(1).strip()[:120]
    return status, time.monotonic() - started, first


def build():
    return run(["swift", "build", "--build-tests"], 1800, "build.log")


def xctest(timeout, stop_early=False, only=None):
    command = ["swift", "test", "--skip-build", "--disable-swift-testing"] + (["--filter", only] if only else [])
    return run(command, timeout, "xctest.log", stop_early)


# Suites tried first on every mutant, because they are quick and aimed at
# boundaries; when they pass, the whole XCTest suite runs. Either way a
# failure is an XCTest kill.
QUICK_SUITES = "BoundaryFixtureTests|OracleTests"


def pytest(timeout):
    return run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "Tests/python"], timeout, "pytest.log")


# pytest -x stops by itself; its failure line names the test.
PYTEST_FAILURE = re.compile(r"^FAILED (\S+)", re.M)


def load(ids):
    mutations = json.loads(LIST.read_text())
    seen = set()
    for mutation in mutations:
        for key in ("id", "file", "original", "replacement", "description"):
            if key not in mutation:
                raise SystemExit(f"{LIST}: mutation {mutation.get('id', '?')} lacks '{key}'")
        if mutation["id"] in seen:
            raise SystemExit(f"{LIST}: mutation id {mutation['id']} appears twice")
        seen.add(mutation["id"])
        mutation.setdefault("swift_logic", mutation["file"].endswith(".swift"))
    if ids:
        unknown = set(ids) - seen
        if unknown:
            raise SystemExit(f"unknown mutation ids: {', '.join(sorted(unknown))}")
        mutations = [m for m in mutations if m["id"] in ids]
    return mutations


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated mutation ids to run")
    parser.add_argument("--both", action="store_true",
                        help="run pytest even when XCTest already killed the mutant (slower; shows pytest's own score)")
    parser.add_argument("--no-pytest", action="store_true", help="XCTest only")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per suite run (a timeout counts as killed)")
    parser.add_argument("--check", action="store_true", help="only check that every snippet is found, then stop")
    arguments = parser.parse_args()
    mutations = load(set(arguments.only.split(",")) if arguments.only else None)

    # Snippets are checked against the checkout first: a stale one is an error of the list.
    problems = []
    for mutation in mutations:
        path = ROOT / mutation["file"]
        text = path.read_text() if path.exists() else ""
        count = text.count(mutation["original"])
        mutation["status"] = None if count == 1 else ("STALE" if count == 0 else f"AMBIGUOUS ({count} matches)")
        if mutation["status"]:
            problems.append(mutation)
    for mutation in problems:
        # Say where the snippet went, if a file move is all that happened.
        elsewhere = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "Sources").rglob("*.swift"))
                     if mutation["original"] in path.read_text()]
        hint = f" (found in {', '.join(elsewhere)})" if elsewhere else ""
        log(f"{mutation['id']}: {mutation['status']}: snippet not found exactly once in {mutation['file']}{hint}")
    if arguments.check:
        print(f"{len(mutations) - len(problems)} of {len(mutations)} snippets found exactly once")
        return 1 if problems else 0

    WORK.mkdir(parents=True, exist_ok=True)
    log(f"syncing the source into {TREE}")
    sync_tree()
    log("baseline: build and run the unmutated copy")
    status, seconds, _ = build()
    if status != 0:
        log(f"the unmutated copy does not build (see {WORK / 'build.log'})")
        return 2
    status, xc_seconds, first = xctest(arguments.timeout)
    if status != 0:
        log(f"XCTest fails on the unmutated copy (see {WORK / 'xctest.log'}): a red baseline makes every mutant look killed ({first})")
        return 2
    py_seconds = 0
    if not arguments.no_pytest:
        status, py_seconds, _ = pytest(arguments.timeout)
        if status != 0:
            log(f"pytest fails on the unmutated copy (see {WORK / 'pytest.log'})")
            return 2
    log(f"baseline green: XCTest {xc_seconds:.0f} s, pytest {py_seconds:.0f} s")

    results = []
    started = time.monotonic()
    for number, mutation in enumerate(mutations, 1):
        if mutation["status"]:
            results.append(mutation)
            continue
        target = TREE / mutation["file"]
        original = target.read_text()
        log(f"[{number}/{len(mutations)}] {mutation['id']}: {mutation['description']}")
        try:
            target.write_text(original.replace(mutation["original"], mutation["replacement"], 1))
            status, _, _ = build()
            if status != 0:
                mutation["status"] = "BUILD-FAIL"
                shutil.copy(WORK / "build.log", WORK / f"{mutation['id']}.build.log")
                log(f"  does not build: fix the mutation (log: {WORK / (mutation['id'] + '.build.log')})")
            else:
                status, seconds, first = xctest(arguments.timeout, stop_early=True,
                                                only=mutation.get("xctest_first", QUICK_SUITES))
                if status == 0:
                    status, seconds, first = xctest(arguments.timeout, stop_early=True)
                mutation["xctest"] = "killed" if status != 0 else "survived"
                if status != 0:
                    mutation["killed_by"] = first or "?"
                    shutil.copy(WORK / "xctest.log", WORK / f"{mutation['id']}.xctest.log")
                if not arguments.no_pytest and (status == 0 or arguments.both):
                    status, _, _ = pytest(arguments.timeout)
                    mutation["pytest"] = "killed" if status != 0 else "survived"
                    if status != 0:
                        found = PYTEST_FAILURE.search((WORK / "pytest.log").read_text(errors="replace"))
                        mutation.setdefault("killed_by", found.group(1) if found else "pytest")
                killed = "killed" in (mutation.get("xctest"), mutation.get("pytest"))
                mutation["status"] = "killed" if killed else "SURVIVED"
                log(f"  XCTest {mutation['xctest']}, pytest {mutation.get('pytest', 'not run')}"
                    + (f" (first: {mutation['killed_by']})" if "killed_by" in mutation else ""))
        finally:
            # Always restore, also on Ctrl-C or a crash of this script.
            target.write_text(original)
        results.append(mutation)
        (WORK / "results.json").write_text(json.dumps(results, indent=1))

    # Leave the copy's build matching the checkout again.
    build()
    elapsed = time.monotonic() - started
    print_table(results, elapsed)
    errors = [m for m in results if m["status"] not in ("killed", "SURVIVED")]
    return 1 if errors else 0


def print_table(results, elapsed):
    width = max(len(m["id"]) for m in results)
    print(f"{'id':<{width}}  {'result':<10} {'XCTest':<9} {'pytest':<9} file: description [first failing test]")
    for m in results:
        print(f"{m['id']:<{width}}  {m['status']:<10} {m.get('xctest', '-'):<9} {m.get('pytest', '-'):<9} "
              f"{pathlib.Path(m['file']).name}: {m['description']}" + (f" [{m['killed_by']}]" if "killed_by" in m else ""))
    valid = [m for m in results if m["status"] in ("killed", "SURVIVED")]
    errors = len(results) - len(valid)
    killed = sum(m["status"] == "killed" for m in valid)
    xc_killed = sum(m.get("xctest") == "killed" for m in valid)
    logic = [m for m in valid if m["swift_logic"]]
    logic_killed = sum(m.get("xctest") == "killed" for m in logic)
    percent = lambda a, b: f"{100 * a / b:.1f} %" if b else "n/a"
    print()
    print(f"score: {killed} of {len(valid)} killed ({percent(killed, len(valid))}) by XCTest and pytest together")
    print(f"XCTest alone: {xc_killed} of {len(valid)} ({percent(xc_killed, len(valid))}); "
          f"Swift-logic mutations: {logic_killed} of {len(logic)} ({percent(logic_killed, len(logic))})")
    if errors:
        print(f"{errors} mutation(s) could not run (STALE, AMBIGUOUS or BUILD-FAIL): the list needs fixing")
    print(f"{len(valid)} mutations in {elapsed / 60:.1f} min")


def interrupted(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    # Ctrl-C, kill and a closed terminal all end the run the same way: restored.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, interrupted)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        log("interrupted; the copy in .build/mutation/tree was restored, the checkout was never touched")
        sys.exit(130)
