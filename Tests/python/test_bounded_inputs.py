"""Bounded work on any input, and special files read as streams.
Damaged checksums in a killed recorder's file, YAML nested without end,
endless standard input; FIFOs, /dev/fd/N and process substitution. Each
run has a timeout well below what the old code took."""
import os
import resource
import signal
import subprocess
import sys
import threading
import time

import h5py
import pytest

from conftest import ROOT, SAMPLES, flushed_events, run, signal_while_held, wait_for

sys.path.insert(0, str(ROOT / "Tests" / "hostile"))
import generate  # noqa: E402  (the hostile files' edits)

SAMPLE = SAMPLES / "touchscreen-mixed.evemu"
DEEP = SAMPLES / "touchscreen-deep-presses.evemu"
LIBINPUT_HEAD = """version: 1
ndevices: 1
libinput:
  version: "1.23.0"
system:
  kernel: "6.1.0"
"""


def event_count(path):
    with h5py.File(path, "r") as f:
        (name,) = f["recordings"]
        return f["recordings"][name]["events"]["t_ns"].shape[0]


def test_a_damaged_checksum_in_a_killed_recording_fails_at_once(forcetrace, tmp_path):
    """The SWMR fallback open used to retry the damaged read with doubling
    sleeps: `info` took over 100 s. Now it gives up after a few attempts."""
    output = tmp_path / "killed.h5"
    recorder = subprocess.Popen([forcetrace, "record", "--replay", DEEP, "-q", "--flush-ms", "50", "-o", output],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Held at a known point: its tables are made and an events chunk is flushed.
    wait_for(lambda: flushed_events(output, "recordings/touchscreen-deep-presses") > 0 or recorder.poll() is not None,
             60, "the recorder's first flush")
    signal_while_held(recorder, signal.SIGKILL, lambda: recorder.poll() is None)
    recorder.wait()
    data = bytearray(output.read_bytes())
    headers = [index for index in range(len(data)) if data.startswith(b"OHDR", index)]
    assert len(headers) >= 4, headers
    data[headers[3] + 12] ^= 0xFF
    damaged = tmp_path / "damaged.h5"
    damaged.write_bytes(bytes(data))
    for arguments in (["info", damaged], ["report", damaged], ["export", damaged, "--format", "evemu"]):
        started = time.monotonic()
        result = run(forcetrace, *arguments, check=False, timeout=60)
        elapsed = time.monotonic() - started
        assert result.returncode == 1, f"{arguments[0]}: {result.returncode} {result.stderr}"
        assert elapsed < 15, f"{arguments[0]} took {elapsed:.1f} s"
        assert f"Error: {damaged}" in result.stderr, result.stderr


def test_deep_yaml_nesting_is_refused_quickly(forcetrace, tmp_path):
    """100 000 levels in an ignored key took 57 s (libyaml's cost grows with the depth)."""
    path = tmp_path / "deep.yml"
    path.write_text(LIBINPUT_HEAD + "  ignored: " + "[" * 100_000 + "]" * 100_000 + "\ndevices: []\n")
    started = time.monotonic()
    result = run(forcetrace, "import", path, "-o", tmp_path / "out.h5", check=False, timeout=60)
    assert result.returncode == 1, result.stderr
    assert "nested deeper than 64 levels" in result.stderr
    assert f"{path}:7:" in result.stderr
    assert time.monotonic() - started < 10
    assert not (tmp_path / "out.h5").exists()


def peak_rss_mib_of(arguments, **kwargs):
    """Runs `arguments` in a child and returns (result, its peak RSS in MiB)."""
    script = ("import resource, subprocess, sys\n"
              "r = subprocess.run(sys.argv[1:], stdin=sys.stdin, capture_output=True, text=True, timeout=60)\n"
              "sys.stderr.write(r.stderr)\n"
              "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n")
    result = subprocess.run(["python3", "-c", script, *map(str, arguments)], capture_output=True, text=True, timeout=90, **kwargs)
    status, rss = result.stdout.split()
    return int(status), int(rss), result.stderr


def test_endless_standard_input_is_bounded(forcetrace, tmp_path):
    with open("/dev/zero", "rb") as zero:
        status, rss, stderr = peak_rss_mib_of([forcetrace, "import", "-", "-o", tmp_path / "out.h5"], stdin=zero)
    assert status == 1, stderr
    assert "standard input" in stderr and "--desc" in stderr, stderr
    assert rss < 256, f"peak RSS {rss} MiB"
    assert not (tmp_path / "out.h5").exists()


def test_a_fifo_is_read_as_a_stream(forcetrace, tmp_path):
    reference = tmp_path / "reference.h5"
    run(forcetrace, "import", SAMPLE, "-o", reference)
    fifo = tmp_path / "recording.fifo"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as writer:
            writer.write(SAMPLE.read_bytes())

    feeder = threading.Thread(target=feed)
    feeder.start()
    output = tmp_path / "fifo.h5"
    result = run(forcetrace, "import", fifo, "-o", output, check=False, timeout=60)
    feeder.join(timeout=30)
    assert result.returncode == 0, result.stderr
    assert event_count(output) == event_count(reference)


def test_dev_fd_and_process_substitution_are_read_as_streams(forcetrace, tmp_path):
    reference = tmp_path / "reference.h5"
    run(forcetrace, "import", SAMPLE, "-o", reference)
    read_end, write_end = os.pipe()
    output = tmp_path / "fd.h5"
    process = subprocess.Popen([forcetrace, "import", f"/dev/fd/{read_end}", "-o", output], pass_fds=(read_end,),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(read_end)
    with os.fdopen(write_end, "wb") as writer:
        writer.write(SAMPLE.read_bytes())
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert event_count(output) == event_count(reference)
    substituted = tmp_path / "substituted.h5"
    result = subprocess.run(["bash", "-c", f'"$0" import <(cat "$1") -o "$2"', forcetrace, SAMPLE, substituted],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert event_count(substituted) == event_count(reference)


# --- Trace files whose object tree costs more than its size ---------------------

PACKAGE = SAMPLES.parent / "python"


def cpu_limited(seconds):
    """A preexec_fn: the child gets `seconds` of CPU, then SIGXCPU. Generous:
    the bounded walk needs well under a second here."""
    return lambda: resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))


def hostile_copy(forcetrace, folder, name, change):
    """An imported trace with `change(h5py.File)` applied."""
    path = folder / name
    run(forcetrace, "import", SAMPLE, "-o", path)
    with h5py.File(path, "a") as f:
        change(f)
    return path


def nest(f, depth=5000):
    group = f
    for _ in range(depth):
        group = group.create_group("x")


def relink(f, count=1000):
    recordings = f["recordings"]
    for index in range(count):
        recordings[f"again-{index}"] = recordings["touchscreen-mixed"]


def package_opens(path):
    """forcetrace.open(path) in a CPU-limited child: (status, stderr)."""
    result = subprocess.run(["python3", "-c", "import forcetrace, sys; forcetrace.open(sys.argv[1])", str(path)],
                            capture_output=True, text=True, timeout=120, preexec_fn=cpu_limited(20),
                            env={**os.environ, "PYTHONPATH": str(PACKAGE)})
    return result.returncode, result.stderr


def test_deeply_nested_groups_are_refused_without_walking_them_all(forcetrace, tmp_path):
    """5 000 nested groups (5 MB) took `info` past 60 s: HDF5's visits grow
    with the cube of the depth. The walk stops below 16 levels."""
    path = hostile_copy(forcetrace, tmp_path, "nested.h5", nest)
    for arguments in (["info", path], ["report", path], ["import", path, "-o", tmp_path / "copy.h5"]):
        result = run(forcetrace, *arguments, check=False, timeout=120, preexec_fn=cpu_limited(20))
        assert result.returncode == 1, (arguments, result.returncode, result.stderr)
        assert f"Error: {path}: /x/x/" in result.stderr and "more than 16 levels of groups" in result.stderr, result.stderr
    status, stderr = package_opens(path)
    assert status == 1 and "more than 16 levels of groups" in stderr, (status, stderr[-500:])


def test_a_recording_linked_twice_is_refused_not_read_twice(forcetrace, tmp_path):
    """One recording hard-linked 1 000 times was analysed 1 000 times."""
    path = hostile_copy(forcetrace, tmp_path, "relinked.h5", relink)
    says = "/recordings/again-1 is a second hard link to /recordings/again-0"
    for arguments in (["info", path], ["report", path], ["export", path, "--format", "evemu"]):
        result = run(forcetrace, *arguments, check=False, timeout=120, preexec_fn=cpu_limited(20))
        assert result.returncode == 1 and says in result.stderr, (arguments, result.returncode, result.stderr)
    status, stderr = package_opens(path)
    assert status == 1 and says in stderr, (status, stderr[-500:])


def test_a_saved_part_with_a_recording_linked_many_times_is_refused_by_merge(forcetrace, tmp_path):
    """A --save-part with 20 000 links to one recording took 37 s to merge."""
    trace, part = tmp_path / "t.h5", tmp_path / "part.h5"
    run(forcetrace, "import", SAMPLE, "-o", trace)
    run(forcetrace, "report", trace, "--save-part", part)
    with h5py.File(part, "a") as f:
        recordings = f["recordings"]
        [name] = list(recordings)
        for index in range(20_000):
            recordings[f"again-{index}"] = recordings[name]
    result = run(forcetrace, "report", "--merge", part, check=False, timeout=120, preexec_fn=cpu_limited(20))
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "is a second hard link to /recordings/" in result.stderr, result.stderr


def unwritten_column(f, rows=2**27):
    f["recordings/touchscreen-mixed/samples"].create_dataset("extra", shape=(rows,), maxshape=(None,), dtype="int64", chunks=(16,))


def long_column(f):
    f["recordings/touchscreen-mixed/samples/extra"] = list(range(100_000))


def output_limited(cpu_seconds, file_bytes):
    def apply():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    return apply


@pytest.mark.parametrize("change, says", [
    (unwritten_column, "samples/extra: declares 134217728 rows (1073741824 bytes), more than a"),
    (long_column, "samples/extra: declares 100000 rows, more than the table's 1630"),
])
def test_a_column_the_schema_does_not_know_is_bounded_too(forcetrace, tmp_path, change, says):
    """2^27 declared rows in unwritten 16-row chunks of a 100 KB file made
    `import` write 1.5 GB in 50 s; the extent check covered only the
    schema's columns. An unknown column is bounded by the file's size and
    by its table's rows."""
    path = hostile_copy(forcetrace, tmp_path, "extra.h5", change)
    output = tmp_path / "copy.h5"
    for arguments in (["import", path, "-o", output], ["info", path], ["report", path]):
        result = run(forcetrace, *arguments, check=False, timeout=120, preexec_fn=output_limited(20, 64 << 20))
        assert result.returncode == 1, (arguments, result.returncode, result.stderr)
        assert f"Error: {path}: recording 'touchscreen-mixed': {says}" in result.stderr, result.stderr
    assert not output.exists()


def test_the_python_package_refuses_a_column_longer_than_its_table(forcetrace, tmp_path):
    """samples() allocated every declared row of an unwritten column (gigabytes)."""
    path = hostile_copy(forcetrace, tmp_path, "extra.h5", unwritten_column)
    script = ("import resource, sys\n"
              "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
              "import forcetrace\n"
              "recording = forcetrace.open(sys.argv[1])['touchscreen-mixed']\n"
              "assert len(recording.contacts()) == 28\n"
              "recording.samples()\n")
    result = subprocess.run(["python3", "-c", script, str(path)], capture_output=True, text=True, timeout=120,
                            preexec_fn=cpu_limited(30), env={**os.environ, "PYTHONPATH": str(PACKAGE)})
    assert result.returncode == 1, (result.returncode, result.stderr[-800:])
    # Refused on open, before any row is read, in the words `forcetrace info` uses.
    said = f"{path}: recording 'touchscreen-mixed': samples/extra: declares 134217728 rows (1073741824 bytes), more than a "
    assert "ForceTraceFileError: " + said in result.stderr, result.stderr[-800:]
    assert said in run(forcetrace, "info", path, check=False).stderr


@pytest.mark.parametrize("past, says", [
    (0, "samples/extra: declares {rows} rows, more than the table's 1630"),
    (1, "samples/extra: declares {rows} rows ({rows} bytes), more than a {size}-byte file can hold even compressed"),
])
def test_a_column_is_bounded_at_exactly_the_bytes_the_file_could_hold(forcetrace, tmp_path, past, says):
    """The bound is the file's size times the largest compression ratio, plus
    16 MiB: a one-byte column of exactly that many rows passes the size check
    (and is then refused as longer than its table); one row more is refused by
    size, by `info` and by the Python package in the same words."""
    path = hostile_copy(forcetrace, tmp_path, "extra.h5", lambda f: f["recordings/touchscreen-mixed/samples"].create_dataset(
        "extra", shape=(1,), maxshape=(None,), dtype="int8", chunks=(1 << 16,)))
    size = None
    while size != path.stat().st_size:  # the extent lives in the header: resizing leaves the size as it was
        size = path.stat().st_size
        rows = size * 1100 + (16 << 20) + past
        with h5py.File(path, "a") as f:
            f["recordings/touchscreen-mixed/samples/extra"].resize((rows,))
    said = f"{path}: recording 'touchscreen-mixed': " + says.format(rows=rows, size=size)
    assert said in run(forcetrace, "info", path, check=False).stderr
    # In this process, so that coverage (and the mutation study) sees the package's check.
    import forcetrace as package
    with pytest.raises(package.ForceTraceFileError) as refused:
        package.open(path)["touchscreen-mixed"]
    assert said in str(refused.value)


@pytest.mark.parametrize("past", [0, 1])
def test_a_column_is_bounded_at_chunks_of_16_mib(forcetrace, tmp_path, past):
    """A chunk is inflated whole for a read of any part of it: a 4 MB file
    whose samples/t_ns (2 099 rows) was stored in 2^28-row chunks took
    `report` 43 s and 4.2 GB. A chunk of exactly 16 MiB reads; one row more
    is refused on open, by the commands and the Python package in the same
    words. events/t_ns is read on open (the recording's duration)."""
    rows = (16 << 20) // 8 + past
    path = hostile_copy(forcetrace, tmp_path, "chunked.h5", generate.rechunk("events", "t_ns", rows))
    said = (f"{path}: recording 'touchscreen-mixed': events/t_ns: has chunks of {rows} rows ({rows * 8} bytes), "
            "more than the 16777216 bytes (16 MiB) a chunk may hold")
    import forcetrace as package
    if past == 0:
        for arguments in (["info", path], ["report", path]):
            result = run(forcetrace, *arguments, check=False, timeout=120, preexec_fn=cpu_limited(30))
            assert result.returncode == 0, (arguments, result.returncode, result.stderr)
        assert len(package.open(path)["touchscreen-mixed"].contacts()) == 28
        return
    for arguments in (["info", path], ["report", path], ["export", path, "--format", "evemu"]):
        result = run(forcetrace, *arguments, check=False, timeout=120, preexec_fn=cpu_limited(20))
        assert result.returncode == 1 and said in result.stderr, (arguments, result.returncode, result.stderr)
    with pytest.raises(package.ForceTraceFileError) as refused:
        package.open(path)["touchscreen-mixed"]
    assert said in str(refused.value)
