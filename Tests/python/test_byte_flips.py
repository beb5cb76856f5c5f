"""Every byte of a small trace's metadata (everything but the raw
chunk data) flipped, one at a time, bounded to about a minute: info and
report must end with status 0 or 1, never hang and never trap in Swift.
Faults inside libhdf5 (SIGSEGV, SIGBUS, SIGABRT) are counted and printed;
docs/FORMAT.md ("Damaged trace files") says why some cannot be caught."""
import collections
import concurrent.futures
import os
import signal
import subprocess
import time

import h5py
import pytest

from conftest import run

# A fixed set of flips, the same on every machine: about a minute on two
# idle cores. FORCETRACE_FLIPS=all sweeps every metadata byte. The time cap
# only keeps a wedged machine from holding CI; flips past it are reported.
FLIPS = os.environ.get("FORCETRACE_FLIPS", "400")
CAP_S = float(os.environ.get("FORCETRACE_FLIP_SECONDS", "240"))
SWIFT_TRAPS = {-signal.SIGILL, -signal.SIGTRAP}
HDF5_FAULTS = {-signal.SIGSEGV, -signal.SIGBUS, -signal.SIGABRT}


def data_regions(path):
    """(offset, size) of every dataset's raw data."""
    regions = []

    def visit(_, obj):
        if not isinstance(obj, h5py.Dataset):
            return
        if obj.chunks:
            for index in range(obj.id.get_num_chunks()):
                chunk = obj.id.get_chunk_info(index)
                regions.append((chunk.byte_offset, chunk.size))
        elif obj.id.get_offset() is not None:
            regions.append((obj.id.get_offset(), obj.id.get_storage_size()))

    with h5py.File(path, "r") as f:
        f.visititems(visit)
    return regions


def spread(offsets):
    """`offsets` reordered coarse to fine (bit reversal of the index), so
    that a run cut short by the time budget still covers the whole file."""
    bits = max(1, (len(offsets) - 1).bit_length())
    order = sorted(range(len(offsets)), key=lambda i: int(f"{i:0{bits}b}"[::-1], 2))
    return [offsets[i] for i in order]


def small_trace_metadata(forcetrace, directory):
    """The bytes of a small trace (`simulate --presses 2`, imported) and the
    offsets of its metadata, coarse to fine."""
    evemu, good = directory / "small.evemu", directory / "small.h5"
    run(forcetrace, "simulate", "--presses", "2", "-o", evemu)
    run(forcetrace, "import", evemu, "-o", good)
    data = good.read_bytes()
    in_data = bytearray(len(data))
    for offset, size in data_regions(good):
        in_data[offset:offset + size] = b"\x01" * size
    return data, spread([offset for offset in range(len(data)) if not in_data[offset]])


def test_byte_flips_in_the_metadata(forcetrace, tmp_path):
    data, metadata = small_trace_metadata(forcetrace, tmp_path)
    if FLIPS != "all":
        metadata = metadata[:int(FLIPS)]

    def flip(offset):
        damaged = bytearray(data)
        damaged[offset] ^= 0xFF
        path = tmp_path / f"flip-{offset}.h5"
        path.write_bytes(bytes(damaged))
        outcomes = []
        for arguments in (["info", path, "--json"], ["report", path, "--json"]):
            try:
                result = subprocess.run([forcetrace, *map(str, arguments)], capture_output=True, text=True, timeout=20)
                outcomes.append((arguments[0], result.returncode, result.stderr[-300:]))
            except subprocess.TimeoutExpired:
                outcomes.append((arguments[0], "timeout", ""))
                break
            if result.returncode == 1 and "recording" not in result.stderr:
                break  # the file did not open: report would fail the same way
        path.unlink()
        return offset, outcomes

    counts = collections.Counter()
    faults, problems = [], []
    started = time.monotonic()
    tried = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        pending = set()
        queue = iter(metadata)
        while True:
            while len(pending) < 2 * (os.cpu_count() or 2) and time.monotonic() - started < CAP_S:
                offset = next(queue, None)
                if offset is None:
                    break
                pending.add(pool.submit(flip, offset))
            if not pending:
                break
            done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                offset, outcomes = future.result()
                tried += 1
                for command, status, stderr in outcomes:
                    counts[(command, status)] += 1
                    if status in HDF5_FAULTS:
                        faults.append((offset, command, status))
                    elif status not in (0, 1):
                        problems.append((offset, command, status, stderr))
    summary = ", ".join(f"{command} {status}: {n}" for (command, status), n in sorted(counts.items(), key=str))
    print(f"\nbyte flips: {tried} of {len(metadata)} metadata bytes of a {len(data)}-byte trace in "
          f"{time.monotonic() - started:.0f} s; {summary}; faults inside libhdf5: {len(faults)} {faults[:20]}")
    for offset, command, status, stderr in problems:
        print(f"offset {offset}: {command} exit {status}: {stderr}")
    assert tried >= min(len(metadata), 100), f"only {tried} flips ran in {CAP_S} s"
    assert problems == [], problems[:10]
