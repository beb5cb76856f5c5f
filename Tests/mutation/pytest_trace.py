"""pytest plugin (loaded with `-p pytest_trace`) for the rule-made mutation run:
records, per test, which lines of the package under FORCETRACE_TRACE_PACKAGE it
executes in this process, and writes {file: {line: [nodeid, ...]}} plus each
test's duration to FORCETRACE_TRACE_OUT at the end of the session. A mutant then
faces only the tests that reach its line. Code run in child processes (the CLI,
notebook kernels) is not seen here; the runner confirms survivors with the
covering test files that start such processes.

With FORCETRACE_SWIFT_TRACE_ROOT set, each test also gets its own
FORCETRACE_MUTANT_TRACE folder (ROOT/N), so the CLI processes it starts record
the Swift sites they reach; the output maps N to the test."""
import json
import os
import sys
import threading
import time

import pytest

PACKAGE = os.path.realpath(os.environ.get("FORCETRACE_TRACE_PACKAGE", "")) + os.sep
OUT = os.environ.get("FORCETRACE_TRACE_OUT")
SWIFT_ROOT = os.environ.get("FORCETRACE_SWIFT_TRACE_ROOT")
swift_folders = {}  # N -> nodeid
failed = set()      # tests that fail with no mutant: the runner does not judge mutants by them
lines = {}       # (file, line) -> set of nodeids
durations = {}   # nodeid -> seconds
current = [None]
real_paths = {}


def _in_package(filename):
    path = real_paths.get(filename)
    if path is None:
        path = real_paths[filename] = os.path.realpath(filename)
    return path.startswith(PACKAGE)


def _local(frame, event, arg):
    if event == "line":
        lines.setdefault((real_paths[frame.f_code.co_filename], frame.f_lineno), set()).add(current[0])
    return _local


def _global(frame, event, arg):
    # Only frames of the package are traced line by line; everything else costs one check per call.
    if current[0] is None or not _in_package(frame.f_code.co_filename):
        return None
    lines.setdefault((real_paths[frame.f_code.co_filename], frame.f_lineno), set()).add(current[0])
    return _local


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    current[0] = item.nodeid
    if SWIFT_ROOT:
        folder = os.path.join(SWIFT_ROOT, str(len(swift_folders)))
        os.makedirs(folder, exist_ok=True)
        swift_folders[os.path.basename(folder)] = item.nodeid
        os.environ["FORCETRACE_MUTANT_TRACE"] = folder
    began = time.monotonic()
    sys.settrace(_global)
    threading.settrace(_global)
    try:
        yield
    finally:
        sys.settrace(None)
        threading.settrace(None)
        durations[item.nodeid] = round(time.monotonic() - began, 3)
        current[0] = None


def pytest_runtest_logreport(report):
    if report.failed:
        failed.add(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    if not OUT:
        return
    table = {}
    for (path, line), tests in lines.items():
        table.setdefault(path, {})[str(line)] = sorted(tests)
    with open(OUT, "w") as out:
        json.dump({"lines": table, "durations": durations, "swift_folders": swift_folders, "failed": sorted(failed),
                   "exitstatus": int(exitstatus)}, out)
