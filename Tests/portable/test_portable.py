"""The portable binary, the release archive and the platform wheel, run on a
minimal Debian root that has none of forcetrace's libraries.

`make test-portable` sets the environment: FORCETRACE_PORTABLE (make
portable's folder), FORCETRACE_DIST (make dist's and make wheel's),
FORCETRACE_RELEASE (the Debian build, whose results on the host are the
expected ones) and FORCETRACE_BARE_ROOT (Tests/portable/bare-root.sh's root;
where it could not be made, its `.skip` file says why and these tests skip).

Commands run in the root through chroot, in a private mount namespace with
its own /proc (unshare), so nothing is left mounted. Each test works in a
folder whose path is the same on the host and in the root, so that outputs
naming their files compare byte for byte.
"""
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests/bench"))
from compare_outputs import normalized_dump  # noqa: E402

SHIPPED_QUIRKS = Path("/usr/share/libinput")

PORTABLE = Path(os.environ.get("FORCETRACE_PORTABLE", ROOT / "out/portable"))
DIST = Path(os.environ.get("FORCETRACE_DIST", ROOT / "out/dist"))
RELEASE = Path(os.environ.get("FORCETRACE_RELEASE", ROOT / ".build/release/forcetrace"))
BARE_ROOT = Path(os.environ.get("FORCETRACE_BARE_ROOT", Path.home() / ".cache/forcetrace/bare-root"))
REQUIRED = "FORCETRACE_PORTABLE" in os.environ
SAMPLES = ROOT / "samples"
# The root has no libinput and the host may have one: both model the release the shipped quirks belong to.
CLEAN_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "HOME": "/root", "TZ": "UTC",
             "FORCETRACE_LIBINPUT": "1.22.1"}
# What the binary may need at run time: the C library (libm and the loader are part of glibc).
C_LIBRARY = {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"}
# Libraries forcetrace uses, none of which the root may have.
NOT_IN_ROOT = ("libhdf5", "libevdev", "libyaml", "libdeflate", "libswiftCore", "libFoundation")


def need(path):
    if not Path(path).exists():
        if REQUIRED:
            pytest.fail(f"{path} is missing: make test-portable makes it")
        pytest.skip(f"{path} not built (make test-portable)")
    return Path(path)


def run(args, **kwargs):
    kwargs.setdefault("capture_output", True)
    return subprocess.run([str(a) for a in args], **kwargs)


@pytest.fixture(scope="module")
def bare_root():
    skip_file = Path(f"{BARE_ROOT}.skip")
    if not (BARE_ROOT / ".complete").exists():
        reason = skip_file.read_text().strip() if skip_file.exists() else "no bare root (make bare-root)"
        pytest.skip(f"bare root: {reason}")
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("running commands in the bare root needs root and unshare")
    return BARE_ROOT


def in_root(root, argv, cwd="/"):
    """Runs argv inside root: a private mount namespace with /proc mounted, then chroot."""
    script = 'root=$1; dir=$2; shift 2; mount -t proc proc "$root/proc" && exec chroot "$root" /bin/sh -c \'cd "$0" && exec "$@"\' "$dir" "$@"'
    return run(["unshare", "--mount", "--fork", "--propagation", "private", "sh", "-c", script, "sh", root, cwd, *argv],
               env=CLEAN_ENV)


@pytest.fixture
def shared_dir(bare_root, tmp_path):
    """A work folder at the same path on the host and in the root, holding the
    samples and, where the host has them, libinput's shipped quirks."""
    inside = bare_root / str(tmp_path).lstrip("/")
    inside.mkdir(parents=True)
    for where in (tmp_path, inside):
        shutil.copytree(SAMPLES, where / "samples")
        if SHIPPED_QUIRKS.is_dir():
            shutil.copytree(SHIPPED_QUIRKS, where / "shipped-quirks")
    yield tmp_path, inside
    shutil.rmtree(inside, ignore_errors=True)


def needed_libraries(binary):
    dump = run(["objdump", "-p", binary], check=True, text=True).stdout
    return {line.split()[1] for line in dump.splitlines() if line.split()[:1] == ["NEEDED"]}


def test_the_portable_binary_needs_only_the_c_library():
    binary = need(PORTABLE / "forcetrace")
    assert needed_libraries(binary) <= C_LIBRARY, needed_libraries(binary)
    # The Debian build is the contrast: it needs Debian's HDF5, whose soname is Debian's own.
    assert any(lib.startswith("libhdf5_serial") for lib in needed_libraries(need(RELEASE)))


def test_the_glibc_floor_is_the_newest_version_the_binary_asks_for():
    binary = need(PORTABLE / "forcetrace")
    versions = set()
    for line in run(["objdump", "-T", binary], check=True, text=True).stdout.splitlines():
        if "GLIBC_" in line:
            version = line[line.index("GLIBC_") + 6:].split()[0].rstrip(")")
            versions.add(tuple(int(part) for part in version.split(".")))
    floor = (PORTABLE / "glibc-floor").read_text().strip()
    assert ".".join(map(str, max(versions))) == floor


def test_the_root_has_none_of_forcetraces_libraries(bare_root, shared_dir):
    found = [str(path) for library in NOT_IN_ROOT for path in bare_root.glob(f"usr/lib/**/{library}*")]
    assert found == []
    # The Debian build cannot even start there, which is what makes the root a test.
    host_dir, root_dir = shared_dir
    shutil.copy2(need(RELEASE), root_dir / "debian-build")
    refused = in_root(bare_root, [host_dir / "debian-build", "--version"])
    # The loader names the first of forcetrace's libraries it misses.
    assert refused.returncode == 127 and b"error while loading shared libraries" in refused.stderr \
        and any(name.encode() in refused.stderr for name in ("libhdf5_serial", "libevdev", "libyaml", "libdeflate")), refused.stderr


# The main loop, as make demo runs it: (name, argv, files it writes).
def loop(work):
    samples = sorted(str(p) for p in (work / "samples").glob("*.evemu"))
    # The shipped quirks come from the same folder on both sides: the root has no libinput.
    shipped = ["--no-shipped"]
    if (work / "shipped-quirks").is_dir():
        shipped = ["--quirks-dir", work / "shipped-quirks"]
    steps = [
        ("import", ["import", *samples, "-o", work / "samples.h5"], ["samples.h5"]),
        ("info", ["info", work / "samples.h5"], []),
        ("report", ["report", work / "samples.h5", "--contacts", "all"], []),
        ("report --json", ["report", work / "samples.h5", "--json"], []),
        ("report --html", ["report", work / "samples.h5", "--html", work / "samples.html"], ["samples.html"]),
        ("report --save", ["report", work / "samples.h5", "--save", work / "report.h5"], ["report.h5"]),
        ("calibrate touchpad", ["calibrate", "--replay", work / "samples/calibration/touchpad.evemu", "--protocol",
                                "touchpad", "-o", work / "touchpad.h5", "--fast", "--quiet"], ["touchpad.h5"]),
        ("suggest quirks", ["suggest", work / "touchpad.h5", "--format", "quirks", "-o", work / "local.quirks"],
         ["local.quirks"]),
        ("suggest json", ["suggest", work / "touchpad.h5", "--format", "json"], []),
        ("whatif", ["whatif", work / "touchpad.h5", *shipped, "--quirks", work / "local.quirks"], []),
        ("whatif --json", ["whatif", work / "touchpad.h5", *shipped, "--quirks", work / "local.quirks", "--json"],
         []),
        ("calibrate pen", ["calibrate", "--replay", work / "samples/calibration/pen.evemu", "--protocol", "pen",
                           "-o", work / "pen.h5", "--fast", "--quiet"], ["pen.h5"]),
    ]
    steps += [(f"suggest pen {f}", ["suggest", work / "pen.h5", "--format", f], [])
              for f in ("json", "xsetwacom", "gsettings", "kwin", "libinput-range", "hyprland", "libinput-plugin", "quirks")]
    steps.append(("export", ["export", work / "samples.h5", "--format", "libinput", "-o", work / "back.yml"],
                  ["back.yml"]))
    return steps


# Outputs say when they were written ("Written by forcetrace ... on 2026-...Z"): two runs may straddle a second.
WRITTEN_AT = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def comparable(data, path=None):
    """What must be equal between two runs: h5dump's normalized text of an HDF5 file, else the bytes, times masked."""
    if path is not None and path.suffix == ".h5":
        return normalized_dump(run(["h5dump", path], check=True).stdout, path)
    return WRITTEN_AT.sub(b"(time)", path.read_bytes() if path is not None else data)


def run_loop_both(bare_root, shared_dir, binary_in_root):
    """Runs the loop with the Debian build on the host and binary_in_root in
    the root; returns the number of outputs compared, asserting each equal."""
    host_dir, root_dir = shared_dir
    compared = 0
    for name, args, files in loop(host_dir):
        expected = run([RELEASE, *args], env=CLEAN_ENV)
        found = in_root(bare_root, [binary_in_root, *args])
        assert found.returncode == expected.returncode == 0, (name, found.stderr.decode(errors="replace"))
        assert comparable(found.stdout) == comparable(expected.stdout), name
        assert comparable(found.stderr) == comparable(expected.stderr), name
        for file in files:
            assert comparable(None, root_dir / file) == comparable(None, host_dir / file), f"{name}: {file}"
        compared += 2 + len(files)
    return compared


def test_the_portable_binary_runs_the_loop_in_the_bare_root_as_the_debian_build_does_on_the_host(bare_root,
                                                                                                 shared_dir):
    host_dir, root_dir = shared_dir
    shutil.copy2(need(PORTABLE / "forcetrace"), root_dir / "forcetrace")
    compared = run_loop_both(bare_root, shared_dir, host_dir / "forcetrace")
    print(f"bare root: {compared} outputs of the portable binary equal the Debian build's")


def archive():
    found = sorted(DIST.glob("forcetrace-*-linux-*.tar.gz"))
    if not found:
        need(DIST / "forcetrace-VERSION-linux-ARCH.tar.gz")
    return found[-1]


def test_the_archive_holds_what_its_readme_names():
    with tarfile.open(archive()) as tar:
        names = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
        modes = {m.name.split("/", 1)[1]: m.mode for m in tar.getmembers() if "/" in m.name}
        owners = {(m.uid, m.gid) for m in tar.getmembers()}
    for required in ("bin/forcetrace", "install.sh", "README", "70-forcetrace.rules", "glibc-floor",
                     "man/forcetrace.1", "man/forcetrace-report.1", "completions/forcetrace.bash",
                     "completions/_forcetrace", "completions/forcetrace.fish", "licences/forcetrace",
                     "licences/libhdf5-103-1", "licences/libstdc++6"):
        assert required in names, required
    assert modes["bin/forcetrace"] == 0o755 and modes["install.sh"] == 0o755
    assert owners == {(0, 0)}


def tree(root):
    return {p.relative_to(root).as_posix() + ("/" if p.is_dir() else "") for p in root.rglob("*")}


def test_the_archives_install_sh_installs_and_uninstalls_exactly_what_it_lists_in_the_bare_root(bare_root,
                                                                                                shared_dir):
    host_dir, root_dir = shared_dir
    with tarfile.open(archive()) as tar:
        tar.extractall(root_dir, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(root_dir)
    top = next(p for p in root_dir.iterdir() if p.name.startswith("forcetrace-"))
    unpacked = host_dir / top.name  # its path inside the root
    prefix = root_dir / "prefix"
    prefix.mkdir()
    listed = in_root(bare_root, [unpacked / "install.sh", "--prefix", host_dir / "prefix", "--list"])
    assert listed.returncode == 0, listed.stderr
    listed = {line[len(str(host_dir / "prefix")) + 1:] for line in listed.stdout.decode().split()}
    installed = in_root(bare_root, [unpacked / "install.sh", "--prefix", host_dir / "prefix"])
    assert installed.returncode == 0, installed.stderr
    files = {p for p in tree(prefix) if not p.endswith("/")}
    assert files == listed
    version = in_root(bare_root, [host_dir / "prefix/bin/forcetrace", "--version"])
    assert version.returncode == 0 and version.stdout.startswith(b"forcetrace "), version.stderr
    removed = in_root(bare_root, [unpacked / "install.sh", "--prefix", host_dir / "prefix", "--uninstall"])
    assert removed.returncode == 0, removed.stderr
    assert tree(prefix) == set()


def platform_wheel():
    found = sorted(DIST.glob("forcetrace-*-py3-none-manylinux_*.whl"))
    if not found:
        need(DIST / "forcetrace-VERSION-py3-none-manylinux_X_Y_ARCH.whl")
    return found[-1]


def test_the_wheel_is_tagged_with_the_binarys_glibc_floor_and_auditwheel_agrees():
    wheel = platform_wheel()
    floor = (PORTABLE / "glibc-floor").read_text().strip().replace(".", "_")
    assert wheel.name.endswith(f"-py3-none-manylinux_{floor}_x86_64.whl")
    with zipfile.ZipFile(wheel) as zipped:
        names = zipped.namelist()
        wheel_meta = next(n for n in names if n.endswith(".dist-info/WHEEL"))
        text = zipped.read(wheel_meta).decode()
        script = next(n for n in names if n.endswith(".data/scripts/forcetrace"))
        assert (zipped.getinfo(script).external_attr >> 16) & 0o777 == 0o755
        assert zipped.read(script) == (PORTABLE / "forcetrace").read_bytes()
    assert "Root-Is-Purelib: false" in text and f"Tag: py3-none-manylinux_{floor}_x86_64" in text
    shown = run([sys.executable, "-m", "auditwheel", "show", wheel], text=True)
    if shown.returncode != 0 and "No module named auditwheel" in shown.stderr:
        pytest.fail("auditwheel is not installed (Tests/python/requirements.txt lists it)")
    assert f'consistent with\nthe following platform tag: "manylinux_{floor}_x86_64"' in shown.stdout, shown.stdout


def test_the_wheel_gives_the_command_and_the_package_in_the_bare_roots_python(bare_root, shared_dir):
    host_dir, root_dir = shared_dir
    shutil.copy2(platform_wheel(), root_dir / platform_wheel().name)
    venv = host_dir / "venv"
    made = in_root(bare_root, ["python3", "-m", "venv", venv])
    assert made.returncode == 0, made.stderr
    pip = in_root(bare_root, [venv / "bin/pip", "install", "-q", "--no-index", "--find-links",
                              "/var/cache/forcetrace-wheels", host_dir / platform_wheel().name])
    assert pip.returncode == 0, pip.stderr.decode(errors="replace")
    # forcetrace on the venv's PATH is the binary itself, and the package finds it with no variable set.
    which = in_root(bare_root, ["env", f"PATH={venv}/bin:/usr/bin:/bin", "sh", "-c", "command -v forcetrace"])
    assert which.stdout.decode().strip() == f"{venv}/bin/forcetrace"
    found = in_root(bare_root, [venv / "bin/python", "-c", "import forcetrace.cli as c; print(c.command())"])
    assert found.returncode == 0, found.stderr
    assert found.stdout.decode().strip() == f"{venv}/bin/forcetrace"
    compared = run_loop_both(bare_root, shared_dir, venv / "bin/forcetrace")
    # The package reads what the wheel's binary wrote, as the host's package reads the host's.
    script = ("import forcetrace, sys; t = forcetrace.open(sys.argv[1]); "
              "print(sorted((r.name, len(r.samples()), len(r.contacts()), int(r.samples()['pressure'].sum())) "
              "for r in t))")
    inside = in_root(bare_root, [venv / "bin/python", "-c", script, host_dir / "samples.h5"])
    assert inside.returncode == 0, inside.stderr.decode(errors="replace")
    outside = run([sys.executable, "-c", script, host_dir / "samples.h5"])
    assert outside.returncode == 0, outside.stderr
    assert inside.stdout == outside.stdout
    print(f"bare root: the wheel's {compared} outputs equal the Debian build's; Python reads {inside.stdout!r}")
