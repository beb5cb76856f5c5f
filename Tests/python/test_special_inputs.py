"""Inputs that are not regular files, and file names that are not UTF-8.

Opening a FIFO for reading waits for a writer, so every run has a timeout:
a hang fails the test instead of hanging pytest. File names are passed as
bytes, as a shell passes $'a\\xffb.h5'.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time

import h5py
import pytest

from conftest import SAMPLES, flushed_events, signal_while_held, wait_for

SAMPLE = SAMPLES / "touchscreen-mixed.evemu"
TIMEOUT = 60
NOT_UTF8 = b"a\xffb.h5"
CONTROL = b"c\x01d.h5"
SHOWN = {NOT_UTF8: "a\\xffb.h5", CONTROL: "c\\x01d.h5"}
# JSON strings are Unicode: a UTF-8 name is exact, one that is not is its escaped form.
IN_JSON = {NOT_UTF8: "a\\xffb.h5", CONTROL: "c\x01d.h5"}


def ft(forcetrace, *args, timeout=TIMEOUT, cwd=None):
    """Runs the CLI with bytes arguments; a hang fails by timeout."""
    argv = [os.fsencode(forcetrace)] + [a if isinstance(a, bytes) else os.fsencode(str(a)) for a in args]
    result = subprocess.run(argv, capture_output=True, timeout=timeout, cwd=cwd)
    out, err = result.stdout.decode("utf-8"), result.stderr.decode("utf-8")
    # The descriptor a name that is not UTF-8 is opened through never shows.
    assert "/proc/self/fd" not in out + err, out + err
    return result.returncode, out, err


@pytest.fixture(scope="module")
def trace(forcetrace, tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "t.h5"
    code, _, err = ft(forcetrace, "import", SAMPLE, "-o", path, "-q")
    assert code == 0, err
    return path


def error_line(err):
    lines = err.strip().splitlines()
    assert lines and lines[0].startswith("Error: "), err
    return lines[0]


# --- Opens that cannot block -------------------------------------------------

def test_a_fifo_in_a_folder_is_passed_over_and_the_other_files_reported(forcetrace, trace, tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    shutil.copy(trace, folder / "ok.h5")
    os.mkfifo(folder / "f.h5")
    code, out, err = ft(forcetrace, "report", folder, "--contacts", "0", timeout=30)
    assert code == 0, err
    assert "ok.h5: /recordings/touchscreen-mixed" in out
    assert "f.h5: it is a FIFO, not a regular file" in err


def test_a_fifo_in_a_folder_of_saved_reports_is_passed_over(forcetrace, trace, tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    code, _, err = ft(forcetrace, "report", trace, "--save", folder / "part.h5", "--contacts", "0")
    assert code == 0, err
    os.mkfifo(folder / "f.h5")
    code, out, err = ft(forcetrace, "report", "--merge", folder, timeout=30)
    assert code == 0, err
    assert "touchscreen-mixed" in out
    assert "f.h5: it is a FIFO, not a regular file" in err


@pytest.fixture
def special(request, tmp_path):
    """A path of each kind that is not a regular file, and what it is."""
    kind = request.param
    if kind == "fifo":
        path = tmp_path / "f.h5"
        os.mkfifo(path)
        yield path, "is a FIFO, not a trace file"
    elif kind == "zero":
        yield "/dev/zero", "is a character device, not a trace file"
    elif kind == "socket":
        path = tmp_path / "s.h5"
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        yield path, "is a socket, not a trace file"
        server.close()
    else:
        path = tmp_path / "folder.h5"
        path.mkdir()
        yield path, "is a directory, not a trace file"


@pytest.mark.parametrize("special", ["fifo", "zero", "socket", "directory"], indirect=True)
@pytest.mark.parametrize("command", [["info"], ["report"], ["export", "--format", "evemu"], ["report", "--merge"]])
def test_a_trace_open_of_a_special_file_fails_at_once_in_one_line(forcetrace, special, command):
    path, message = special
    if command[0] == "report" and message.startswith("is a directory"):
        pytest.skip("report reads a directory as a folder of trace files (tested below)")
    if "--merge" in command:
        message = message.replace("a trace file", "a saved report")
    code, out, err = ft(forcetrace, *command, path, timeout=20)
    assert code == 1, err
    assert err.strip() == f"Error: {path}: {message}"


def test_report_of_an_empty_folder_and_of_empty_files_says_so(forcetrace, tmp_path):
    empty = tmp_path / "empty.h5"
    empty.touch()
    for command in (["info"], ["report"], ["export", "--format", "evemu"]):
        code, _, err = ft(forcetrace, *command, empty)
        assert code == 1
        assert error_line(err) == f"Error: {empty}: is empty, not a forcetrace HDF5 file"
    folder = tmp_path / "nothing"
    folder.mkdir()
    code, _, err = ft(forcetrace, "report", folder)
    assert code == 1
    assert error_line(err) == f"Error: {folder}: is a folder with no .h5 trace files"


def test_import_refuses_a_socket_by_name(forcetrace, tmp_path):
    path = tmp_path / "s.evemu"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        code, _, err = ft(forcetrace, "import", path, "-o", tmp_path / "out.h5")
    finally:
        server.close()
    assert code == 1
    assert error_line(err) == f"Error: {path}: is a socket; expected a recording file"


def test_import_still_reads_a_fifo_as_a_stream(forcetrace, tmp_path):
    fifo = tmp_path / "in.evemu"
    os.mkfifo(fifo)
    data = SAMPLE.read_bytes()

    def writer():
        with open(fifo, "wb") as f:
            f.write(data)
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    out = tmp_path / "out.h5"
    code, text, err = ft(forcetrace, "import", fifo, "-o", out, timeout=30)
    thread.join(5)
    assert code == 0, err
    assert "6966 events" in text
    with h5py.File(out, "r") as f:
        assert list(f["recordings"]) == ["in"]


def test_import_still_reads_a_process_substitution(forcetrace, tmp_path):
    out = tmp_path / "out.h5"
    result = subprocess.run(["bash", "-c", f'"$0" import <(cat "$1") -o "$2"', forcetrace, SAMPLE, out],
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert "6966 events" in result.stdout


# --- File names are bytes ----------------------------------------------------

@pytest.fixture(params=[NOT_UTF8, CONTROL], ids=["not-utf8", "control-byte"])
def named(request, trace, tmp_path):
    """The trace under an odd name, in tmp_path (the runs' working folder)."""
    name = request.param
    shutil.copy(trace, os.path.join(os.fsencode(tmp_path), name))
    return name


def test_info_opens_a_name_that_is_not_utf8(forcetrace, named, tmp_path):
    code, out, err = ft(forcetrace, "info", named, cwd=tmp_path)
    assert code == 0, err
    assert out.startswith(SHOWN[named] + ": forcetrace format 1")
    code, out, err = ft(forcetrace, "info", "--json", named, cwd=tmp_path)
    assert code == 0, err
    assert json.loads(out)["file"] == IN_JSON[named]


def test_report_opens_a_name_that_is_not_utf8(forcetrace, named, tmp_path):
    code, out, err = ft(forcetrace, "report", named, "--contacts", "0", cwd=tmp_path)
    assert code == 0, err
    assert f"== {SHOWN[named]}: /recordings/touchscreen-mixed ==" in out


def test_report_finds_a_name_that_is_not_utf8_in_a_folder(forcetrace, trace, named, tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    shutil.copy(trace, folder / "ok.h5")
    os.rename(os.path.join(os.fsencode(tmp_path), named), os.path.join(os.fsencode(folder), named))
    code, out, err = ft(forcetrace, "report", "d", "--contacts", "0", cwd=tmp_path)
    assert code == 0, err
    assert err == ""
    headers = [line for line in out.splitlines() if line.startswith("== ") and "/recordings/" in line]
    assert headers == [f"== {tmp_path}/d/{SHOWN[named]}: /recordings/touchscreen-mixed ==",
                       f"== {tmp_path}/d/ok.h5: /recordings/touchscreen-mixed =="]
    code, out, err = ft(forcetrace, "report", "d", "--json", "--contacts", "0", cwd=tmp_path)
    assert code == 0, err
    files = sorted(f["file"] for f in json.loads(out)["files"])
    assert files == sorted([f"{tmp_path}/d/{IN_JSON[named]}", f"{tmp_path}/d/ok.h5"])


def test_a_non_utf8_folder_holds_its_files(forcetrace, trace, tmp_path):
    folder = os.path.join(os.fsencode(tmp_path), b"d\xfe")
    os.mkdir(folder)
    shutil.copy(trace, os.path.join(folder, b"x.h5"))
    code, out, err = ft(forcetrace, "report", b"d\xfe", "--contacts", "0", cwd=tmp_path)
    assert code == 0, err
    # The folder's name as given (relative), escaped.
    assert "\n== d\\xfe/x.h5: /recordings/touchscreen-mixed ==\n" in out


def test_export_and_import_open_a_name_that_is_not_utf8(forcetrace, named, tmp_path):
    code, out, err = ft(forcetrace, "export", named, "--format", "evemu", cwd=tmp_path)
    assert code == 0, err
    assert out.startswith("# EVEMU")
    # The comment goes through evemu's own escaping (docs/FORMAT.md), which doubles a backslash.
    assert "/recordings/touchscreen-mixed" in out.splitlines()[3]
    if named == NOT_UTF8:
        assert "from a\\\\xffb.h5:/recordings/touchscreen-mixed" in out
    code, out, err = ft(forcetrace, "import", named, "-o", "copy.h5", cwd=tmp_path)
    assert code == 0, err
    assert f"(from {SHOWN[named]}:/recordings/touchscreen-mixed)" in out
    evemu = named.replace(b".h5", b".evemu")
    shutil.copy(SAMPLE, os.path.join(os.fsencode(tmp_path), evemu))
    code, out, err = ft(forcetrace, "import", evemu, "-o", "rec.h5", cwd=tmp_path)
    assert code == 0, err
    stem = IN_JSON[named].replace(".h5", "")
    with h5py.File(tmp_path / "rec.h5", "r") as f:
        # Names and sources in the file hold the escaped form, as JSON does.
        assert list(f["recordings"]) == [stem]
        assert f["recordings"][stem].attrs["source"] == f"evemu:{stem}.evemu"


def test_suggest_opens_a_name_that_is_not_utf8(forcetrace, trace, tmp_path):
    # The sample's labels make it an app calibration.
    shutil.copy(trace, os.path.join(os.fsencode(tmp_path), NOT_UTF8))
    code, out, err = ft(forcetrace, "suggest", NOT_UTF8, cwd=tmp_path)
    assert code == 0, err
    assert out.startswith("a\\xffb.h5: /recordings/")
    code, out, err = ft(forcetrace, "suggest", NOT_UTF8, "--format", "json", cwd=tmp_path)
    assert code == 0, err
    assert json.loads(out)["file"] == "a\\xffb.h5"


def test_a_missing_name_that_is_not_utf8_is_named(forcetrace, tmp_path):
    code, _, err = ft(forcetrace, "info", b"nope\xff.h5", cwd=tmp_path)
    assert code == 1
    assert err.strip() == "Error: nope\\xff.h5: no such file"


def test_an_output_name_that_is_not_utf8_is_refused(forcetrace, trace, tmp_path):
    code, _, err = ft(forcetrace, "export", trace, "--format", "evemu", "-o", b"x\xff.evemu", cwd=tmp_path)
    assert code == 2
    assert error_line(err).startswith("Error: --output x\\xff.evemu: forcetrace writes only to names that are UTF-8")
    assert os.listdir(tmp_path) == []


def test_hdf5_locking_works_through_a_name_that_is_not_utf8(forcetrace, trace, tmp_path):
    path = os.path.join(os.fsencode(tmp_path), NOT_UTF8)
    shutil.copy(trace, path)
    with h5py.File(path, "a"):
        code, _, err = ft(forcetrace, "info", NOT_UTF8, cwd=tmp_path)
    assert code == 1
    assert error_line(err) == "Error: a\\xffb.h5: the file is locked by another process that has it open (HDF5 file locking)"


def test_swmr_reading_works_through_a_name_that_is_not_utf8(forcetrace, tmp_path):
    live = tmp_path / "live.h5"
    recorder = subprocess.Popen([forcetrace, "record", "--replay", str(SAMPLE), "--speed", "1", "-o", str(live),
                                 "--flush-ms", "100"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Held at a known point: rows flushed, the replay not yet over.
        wait_for(lambda: flushed_events(live, "recordings/touchscreen-mixed") > 0 or recorder.poll() is not None, 60, "the first flush")
        signal_while_held(recorder, signal.SIGKILL, lambda: recorder.poll() is None)
    finally:
        recorder.kill()
        recorder.wait(10)
    os.rename(live, os.path.join(os.fsencode(tmp_path), NOT_UTF8))
    code, out, err = ft(forcetrace, "info", NOT_UTF8, cwd=tmp_path)
    assert code == 0, err
    assert "still marked open by a writer" in out
    assert out.startswith("a\\xffb.h5: forcetrace format 1")
