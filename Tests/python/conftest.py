"""Shared fixtures: the forcetrace binary, the shared recordings, temp dirs."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "recordings"
SAMPLES = ROOT / "samples"


# make wheel's folder (out/dist); make test-python sets it, and then the wheels must be there.
WHEELS = os.environ.get("FORCETRACE_WHEELS")


@pytest.fixture(scope="session")
def installed_wheels(tmp_path_factory):
    """{"platform": folder, "pure": folder}: each wheel of make wheel installed
    with `pip install --target`, as a user's Python would import it."""
    folder = pathlib.Path(WHEELS or ROOT / "out" / "dist")
    found = {"platform": sorted(folder.glob("forcetrace-*-py3-none-manylinux_*.whl")),
             "pure": sorted(folder.glob("forcetrace-*-py3-none-any.whl"))}
    if not all(found.values()):
        if WHEELS:
            pytest.fail(f"{folder} lacks a wheel ({ {k: [p.name for p in v] for k, v in found.items()} }): make wheel")
        pytest.skip("no wheels in out/dist (make wheel)")
    installed = {}
    for kind, wheels in found.items():
        target = tmp_path_factory.mktemp(f"wheel-{kind}")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                        str(wheels[-1])], check=True, capture_output=True)
        installed[kind] = target
    return installed


@pytest.fixture(scope="session")
def forcetrace():
    """Path to the built CLI; `make test` builds it and sets FORCETRACE."""
    path = pathlib.Path(os.environ.get("FORCETRACE", ROOT / ".build" / "debug" / "forcetrace"))
    if not path.exists():
        pytest.fail(f"{path} does not exist: run 'make test' (it builds first)")
    return str(path)


@pytest.fixture(autouse=True)
def working_folder(tmp_path_factory, monkeypatch):
    """Each test runs in a folder of its own (not its tmp_path, which some
    list): a relative output never lands in the checkout."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


def run(forcetrace, *args, check=True, **kwargs):
    result = subprocess.run([forcetrace, *map(str, args)], capture_output=True, text=True, **kwargs)
    if check and result.returncode != 0:
        raise AssertionError(f"forcetrace {' '.join(map(str, args))} exited {result.returncode}:\n{result.stderr}")
    return result


@pytest.fixture(scope="module")
def good(forcetrace, tmp_path_factory):
    """samples/touchscreen-mixed.evemu imported once per module: the valid
    trace the damage tests change copies of."""
    path = tmp_path_factory.mktemp("good") / "good.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", path)
    return path


def changed_copy(source, folder, change, name="changed.h5"):
    """A copy of `source` in `folder`, opened with h5py and handed to `change`."""
    import shutil

    import h5py
    path = folder / name
    shutil.copy(source, path)
    with h5py.File(path, "r+") as f:
        change(f)
    return path


def shared_recording(name):
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared only exists beside the project's own checkouts)")
    return path


SHARED_NAMES = [
    "CyPS2 Cypress Trackpad.three_finger_press.events",
    "SynPS2 Synaptics TouchPad.leftmove.events",
    "bcm5974.three-finger-click.events",
    "dell_canvas_pen.evemu",
]


@pytest.fixture(scope="module")
def client():
    """A dask LocalCluster of two in-process workers, one per core, for a test module."""
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0")
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def wait_for(predicate, timeout, what):
    """Polls `predicate` until it holds; fails naming `what` after `timeout` s."""
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.005)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def signal_while_held(process, signum, still_there=lambda: True):
    """Stops `process` (SIGSTOP) and waits until it is stopped; checks with
    `still_there` that it has not got past the point the test wants; sends
    `signum`, which stays pending while it is stopped, and lets it continue:
    the signal lands at that point however fast or slow the machine is."""
    import signal
    process.send_signal(signal.SIGSTOP)
    wait_for(lambda: pathlib.Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "tT", 30,
             "the process to stop")
    assert still_there(), "the process got past the point before it was held: make its input longer"
    process.send_signal(signum)
    process.send_signal(signal.SIGCONT)


def flushed_events(path, recording):
    """Events a live recorder has flushed to `path` so far in `recording`
    ("recordings/NAME"), 0 before its first flush."""
    import h5py
    try:
        with h5py.File(path, "r", swmr=True) as live:
            return live[recording]["events"]["t_ns"].shape[0]
    except (OSError, KeyError):
        return 0


def ragged_rows(group):
    """A `--save` recording group's aligned curves as stored from format_version 2
    (a CF contiguous ragged array): one array per contact, its points up to its end."""
    counts = group["aligned_curve_counts"][:]
    values = group["aligned_curve_values"][:]
    rows, start = [], 0
    for count in counts:
        rows.append(values[start:start + count])
        start += count
    assert start == len(values)
    return rows


def save_as_version_1(path):
    """Rewrites a `--save` file in place as a version-1 forcetrace saved it:
    each recording's aligned curves as the n x 200 float32 matrix
    `aligned_curves` (NaN from each contact's end, chunked by 1024 rows and
    deflated at level 1 without shuffle from 1024 values on), on the `contact`
    and `t_ms` dimensions; `format_version` 1."""
    import h5py
    import numpy as np

    with h5py.File(path, "r+") as f:
        width = int(f.attrs["aligned_points"])
        for group in f["recordings"].values():
            rows = ragged_rows(group)
            matrix = np.full((len(rows), width), np.nan, dtype=np.float32)
            for index, row in enumerate(rows):
                matrix[index, :len(row)] = row
            counts, values = group["aligned_curve_counts"], group["aligned_curve_values"]
            counts.dims[0].detach_scale(group["contact"])
            values.dims[0].detach_scale(group["aligned_sample"])
            del group["aligned_curve_counts"], group["aligned_curve_values"], group["aligned_sample"]
            layout = {"chunks": (min(len(rows), 1024), width), "compression": "gzip", "compression_opts": 1} if matrix.size >= 1024 else {}
            dense = group.create_dataset("aligned_curves", data=matrix, **layout)
            dense.attrs["units"] = "1"
            dense.attrs["long_name"] = "normalized pressure after touch-down, sample-and-hold; NaN from the contact's end"
            dense.dims[0].attach_scale(group["contact"])
            dense.dims[1].attach_scale(group["t_ms"])
        f.attrs["format_version"] = np.int64(1)
