"""Bounded work on any input, and special files read as streams.
Damaged checksums in a killed recorder's file, YAML nested without end,
endless standard input; FIFOs, /dev/fd/N and process substitution. Each
run has a timeout well below what the old code took."""
import os
import resource
import signal
import subprocess
import threading
import time

import h5py
import pytest

from conftest import SAMPLES, run

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
    deadline = time.monotonic() + 30
    while (not output.exists() or output.stat().st_size < 8192) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    recorder.kill()
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
