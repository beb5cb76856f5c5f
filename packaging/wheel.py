#!/usr/bin/env python3
"""The Python package's wheels (make wheel): a platform wheel that carries the
portable forcetrace binary, and the pure-Python wheel for people who bring
their own.

    python3 packaging/wheel.py BINDIR OUTDIR

BINDIR is `make portable`'s folder: `forcetrace` and `glibc-floor`. The pure
wheel is built by setuptools from a copy of python/ (the checkout is left as
it is). The platform wheel is that wheel with the binary added as
`forcetrace-VERSION.data/scripts/forcetrace`, which pip installs as an
executable beside the environment's python (so `forcetrace` on PATH is the
binary itself, with no Python start-up), `Root-Is-Purelib: false`, and the
tag `py3-none-manylinux_X_Y_ARCH` from the binary's glibc floor (PEP 600).
RECORD is written anew with every file's hash and size (PEP 376/427).
Entries are sorted and dated SOURCE_DATE_EPOCH (default: the last commit's
time), so the same inputs give the same bytes.
"""
import base64
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Wheels cannot date an entry before 1980 (the zip format's epoch).
ZIP_EPOCH = 315532800


def fail(message):
    sys.exit(f"wheel.py: {message}")


def source_date():
    if "SOURCE_DATE_EPOCH" in os.environ:
        return int(os.environ["SOURCE_DATE_EPOCH"])
    result = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%ct"], capture_output=True, text=True)
    return int(result.stdout.strip()) if result.returncode == 0 and result.stdout.strip() else int(time.time())


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def pure_wheel(scratch):
    """Builds the pure-Python wheel from a copy of python/ and returns its path."""
    source = scratch / "python"
    shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    built = scratch / "pure"
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                             "-w", str(built), str(source)], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"pip wheel python/ failed:\n{result.stderr}")
    wheels = sorted(built.glob("forcetrace-*-py3-none-any.whl"))
    if len(wheels) != 1:
        fail(f"expected one pure wheel in {built}, found {[w.name for w in wheels]}")
    return wheels[0]


def rewrite(entries, path, date):
    """Writes entries (name -> (bytes, mode)) sorted, with RECORD last."""
    stamp = time.gmtime(max(date, ZIP_EPOCH))[:6]
    partial = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as wheel:
        record_name = next(name for name in entries if name.endswith(".dist-info/RECORD"))
        lines = []
        for name in sorted(n for n in entries if n != record_name):
            data, mode = entries[name]
            info = zipfile.ZipInfo(name, stamp)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data, compresslevel=9)
            lines.append(f"{name},{record_hash(data)},{len(data)}")
        lines.append(f"{record_name},,")
        info = zipfile.ZipInfo(record_name, stamp)
        info.external_attr = 0o100644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        wheel.writestr(info, "\n".join(lines) + "\n")
    partial.replace(path)


def platform_wheel(pure, bindir, outdir, date):
    binary = bindir / "forcetrace"
    floor_file = bindir / "glibc-floor"
    for path in (binary, floor_file):
        if not path.is_file():
            fail(f"{path} not found (make portable makes it)")
    major, _, minor = floor_file.read_text().strip().partition(".")
    if not (major.isdigit() and minor.isdigit()):
        fail(f"{floor_file}: expected a glibc version such as 2.36, found {floor_file.read_text()!r}")
    machine = platform.machine()
    tag = f"py3-none-manylinux_{major}_{minor}_{machine}"
    name, version = pure.name.split("-")[:2]
    dist_info = f"{name}-{version}.dist-info"
    entries = {}
    with zipfile.ZipFile(pure) as wheel:
        for info in wheel.infolist():
            mode = (info.external_attr >> 16) & 0o777 or 0o644
            entries[info.filename] = (wheel.read(info), mode)
    wheel_file = f"{dist_info}/WHEEL"
    if wheel_file not in entries:
        fail(f"{pure.name} has no {wheel_file}")
    lines = [line for line in entries[wheel_file][0].decode().splitlines()
             if not line.startswith(("Root-Is-Purelib:", "Tag:"))]
    lines += ["Root-Is-Purelib: false", f"Tag: {tag}"]
    entries[wheel_file] = (("\n".join(lines) + "\n").encode(), 0o644)
    entries[f"{name}-{version}.data/scripts/forcetrace"] = (binary.read_bytes(), 0o755)
    out = outdir / f"{name}-{version}-{tag}.whl"
    rewrite(entries, out, date)
    return out


def main():
    if len(sys.argv) != 3:
        fail("usage: wheel.py BINDIR OUTDIR")
    bindir, outdir = Path(sys.argv[1]), Path(sys.argv[2])
    outdir.mkdir(parents=True, exist_ok=True)
    date = source_date()
    with tempfile.TemporaryDirectory(prefix=".wheel.", dir=outdir) as scratch:
        pure = pure_wheel(Path(scratch))
        carried = platform_wheel(pure, bindir, outdir, date)
        pure_out = outdir / pure.name
        entries = {}
        with zipfile.ZipFile(pure) as wheel:
            for info in wheel.infolist():
                entries[info.filename] = (wheel.read(info), (info.external_attr >> 16) & 0o777 or 0o644)
        rewrite(entries, pure_out, date)
    for path in (carried, pure_out):
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
