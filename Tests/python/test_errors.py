"""User-facing errors for file-system failures: each cause its own message.

A full disk, a permission problem and a locked file are not damage, and the
message must say which it is and where.
"""
import os
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import SAMPLES, run


@pytest.fixture
def tiny_disk(tmp_path):
    """A 192 KiB tmpfs: room for a trace file's start, not for a whole import."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=192k", "tmpfs", str(mount)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs (needs root): {result.stderr.strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_full_disk_during_import_says_no_space(forcetrace, tmp_path, tiny_disk):
    big = tmp_path / "big.evemu"
    run(forcetrace, "simulate", "--seed", "2", "--presses", "400", "-o", big)
    out = tiny_disk / "out.h5"
    result = run(forcetrace, "import", big, "-o", out, check=False)
    assert result.returncode == 1, result.stderr
    assert "no space left on the device holding" in result.stderr, result.stderr
    assert str(tiny_disk) in result.stderr
    assert "damaged" not in result.stderr, result.stderr
    assert "hint:" in result.stderr
    assert result.stderr.count("\n") <= 3, "one message and a hint, not a stack dump"
    # Nothing half-made is left behind.
    assert not out.exists()


def test_locked_file_says_locked(forcetrace, tmp_path):
    trace = tmp_path / "t.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", trace)
    if shutil.which("flock") is None:
        pytest.skip("flock(1) (util-linux) is not installed")
    # HDF5 takes flock() on open; an exclusive lock held elsewhere blocks it.
    holder = subprocess.Popen(["flock", "--exclusive", "--no-fork", str(trace), "sleep", "30"])
    try:
        time.sleep(0.3)
        # export opens for reading like info, but here the SWMR fallback is locked out too.
        result = run(forcetrace, "export", trace, "--format", "evemu", "-o", tmp_path / "x.evemu", check=False)
    finally:
        holder.kill()
        holder.wait()
    assert result.returncode == 1
    assert f"{trace}: the file is locked by another process" in result.stderr, result.stderr
    assert "fuser -v" in result.stderr


def test_permission_denied_says_so(forcetrace):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv(1) to run as another user")
    # tmp_path's parents are private to root; this directory is searchable by all.
    directory = tempfile.mkdtemp(prefix="forcetrace-perm-", dir="/tmp")
    try:
        os.chmod(directory, 0o755)
        trace = os.path.join(directory, "t.h5")
        run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", trace)
        os.chmod(trace, 0o600)
        result = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", forcetrace, "info", trace],
                                capture_output=True, text=True)
        if result.returncode == 126 or (result.returncode != 1 and "forcetrace" not in result.stderr):
            pytest.skip(f"the forcetrace binary does not run as another user: {result.stderr.strip()}")
        assert result.returncode == 1, result.stderr
        assert f"{trace}: permission denied" in result.stderr, result.stderr
        assert "hint:" in result.stderr
    finally:
        shutil.rmtree(directory, ignore_errors=True)
