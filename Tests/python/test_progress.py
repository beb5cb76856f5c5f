"""Progress lines: on a terminal, import, simulate, export and record --replay
show the events done (report: the samples analysed), their rate and the time left on one updating stderr line
(ProgressLine); with --quiet, or off a terminal, they print nothing there.
The terminal is a real pseudo-terminal (pty), as a user's shell gives."""
import os
import pty
import re
import select
import subprocess
import time

import pytest

from conftest import SAMPLES, run

# Big enough that each command runs for well over the 0.2 s between updates,
# with the release build (make test's) as well as the debug build.
PRESSES = "8000"


def on_terminal(command, cwd):
    """Runs `command` with stderr on a pty (stdout to a file); returns its exit status and what reached the terminal."""
    leader, follower = pty.openpty()
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=follower, stdin=subprocess.DEVNULL, cwd=cwd)
    os.close(follower)
    output = b""
    # A bound on the whole run, not on a silence: with --quiet nothing is printed until the end.
    deadline = time.monotonic() + 900
    while True:
        ready, _, _ = select.select([leader], [], [], max(0, deadline - time.monotonic()))
        if not ready:
            process.kill()
            pytest.fail(f"{command} did not finish in 900 s")
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        output += data
    os.close(leader)
    return process.wait(), output.decode("utf-8", "replace")


def off_terminal(command, cwd):
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    return result.returncode, result.stderr


@pytest.fixture(scope="module")
def recording(forcetrace, tmp_path_factory):
    directory = tmp_path_factory.mktemp("progress")
    path = directory / "big.evemu"
    run(forcetrace, "simulate", "--seed", "5", "--presses", PRESSES, "-o", path)
    trace = directory / "big.h5"
    run(forcetrace, "import", path, "-o", trace)
    # Eight copies: report analyses about 0.5 M samples, well over 0.2 s.
    many = directory / "many.h5"
    run(forcetrace, "import", *[trace] * 8, "-o", many)
    return path, trace, many


def commands(forcetrace, recording, tmp_path):
    path, trace, many = recording
    return {
        "import": [forcetrace, "import", str(path), "-o", str(tmp_path / "i.h5")],
        "simulate": [forcetrace, "simulate", "--seed", "5", "--presses", PRESSES, "-o", str(tmp_path / "s.evemu")],
        "export": [forcetrace, "export", str(trace), "--format", "evemu", "-o", str(tmp_path / "e.evemu")],
        "record --replay": [forcetrace, "record", "--replay", str(path), "--fast", "-o", str(tmp_path / "r.h5")],
        "report": [forcetrace, "report", str(many), "--contacts", "0"],
    }


LINE = {
    # "importing big.evemu: 1.20 M events, 1.95 M events/s, 3 s left"
    "import": r"importing \S*big\.evemu: [\d.]+ (M |k )?events, [\d.]+ (M |k )?events/s, (\d+ min )?\d+ s left",
    "simulate": r"simulating \S*s\.evemu: [\d.]+ (M |k )?events, [\d.]+ (M |k )?events/s, (\d+ min )?\d+ s left",
    "export": r"exporting \S+: [\d.]+ (M |k )?events, [\d.]+ (M |k )?events/s, (\d+ min )?\d+ s left",
    # The recorder's status line, with the replay's time left.
    "record --replay": r"\d+ events\s+\d+ ev/s .*\d+ s left",
    # Over all the file's recordings: "analysing many.h5: 204 k samples, 672 k samples/s, 1 s left"
    "report": r"analysing \S*many\.h5: [\d.]+ (M |k )?samples, [\d.]+ (M |k )?samples/s, (\d+ min )?\d+ s left",
}


@pytest.mark.parametrize("name", list(LINE))
def test_progress_line_on_a_terminal(forcetrace, recording, tmp_path, name):
    status, shown = on_terminal(commands(forcetrace, recording, tmp_path)[name], tmp_path)
    assert status == 0, shown
    assert re.search(LINE[name], shown), f"{name} showed no progress with numbers on a terminal:\n{shown!r}"
    # One updating line: each update returns to the line's start and clears it.
    assert "\r\x1b[K" in shown
    updates = shown.count("\r\x1b[K")
    assert updates >= 2, shown


@pytest.mark.parametrize("name", list(LINE))
def test_quiet_silences_the_progress_line(forcetrace, recording, tmp_path, name):
    status, shown = on_terminal(commands(forcetrace, recording, tmp_path)[name] + ["--quiet"], tmp_path)
    assert status == 0, shown
    assert "\r" not in shown and not re.search(LINE[name], shown), shown


@pytest.mark.parametrize("name", list(LINE))
def test_no_progress_off_a_terminal(forcetrace, recording, tmp_path, name):
    status, stderr = off_terminal(commands(forcetrace, recording, tmp_path)[name], tmp_path)
    assert status == 0, stderr
    assert "\r" not in stderr and "\x1b" not in stderr and not re.search(LINE[name], stderr), stderr
