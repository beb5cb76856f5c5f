"""Safe to run as root. Every writer, tried as an attacker who can
write the output's folder would: links and files planted at the names the
temporaries could take (by this user and by another), outputs that are links,
modes, and trace files that link outside themselves.

The planting shell `exec`s forcetrace, so the names built from its PID are
exactly the ones the process would choose (versions before the private
folders used `.NAME.partial-PID` and `.NAME.compact-PID`)."""
import os
import pathlib
import shlex
import shutil
import stat
import subprocess
import tempfile

import h5py
import numpy as np
import pytest

from conftest import SAMPLES, run

SAMPLE = SAMPLES / "touchscreen-mixed.evemu"
CALIBRATION = SAMPLES / "calibration" / "touchpad.evemu"
NOBODY = 65534
KINDS = ("partial", "compact")


@pytest.fixture(scope="module")
def inputs(forcetrace, tmp_path_factory):
    directory = tmp_path_factory.mktemp("inputs")
    trace, calibration = directory / "trace.h5", directory / "cal.h5"
    run(forcetrace, "import", SAMPLE, "-o", trace)
    run(forcetrace, "calibrate", "--replay", CALIBRATION, "--protocol", "touchpad", "--fast", "-q", "-o", calibration)
    return {"trace": trace, "calibration": calibration}


def writers(inputs):
    """Every command that writes a file, as arguments with OUT for the output."""
    return {
        "import": ["import", SAMPLE, "-o", "OUT"],
        "export": ["export", inputs["trace"], "--format", "evemu", "-o", "OUT"],
        "report-save": ["report", inputs["trace"], "--save", "OUT"],
        "report-save-part": ["report", inputs["trace"], "--save-part", "OUT"],
        "report-html": ["report", inputs["trace"], "--html", "OUT"],
        "suggest": ["suggest", inputs["calibration"], "--format", "quirks", "-o", "OUT"],
        "simulate": ["simulate", "--presses", "3", "-o", "OUT"],
        "record": ["record", "--replay", SAMPLE, "--fast", "-q", "-o", "OUT"],
        "calibrate": ["calibrate", "--replay", CALIBRATION, "--protocol", "touchpad", "--fast", "-q", "-o", "OUT"],
    }


WRITERS = ["import", "export", "report-save", "report-save-part", "report-html", "suggest", "simulate", "record", "calibrate"]


def command(forcetrace, inputs, name, output):
    return [forcetrace] + [str(output) if a == "OUT" else str(a) for a in writers(inputs)[name]]


def run_planted(argv, plant, umask=0o022, **kwargs):
    """Runs `plant` (shell text; $$ is the PID forcetrace will have), then execs argv."""
    script = f"umask {umask:03o}; {plant}\nexec {shlex.join(argv)}"
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=120, **kwargs)


def snapshot(path):
    info = os.lstat(path)
    return (info.st_ino, info.st_uid, stat.S_IMODE(info.st_mode), pathlib.Path(path).read_bytes())


def as_nobody(shell):
    return f"setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups sh -c {shlex.quote(shell)}"


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="planting files as another user needs root")


@pytest.fixture
def shared_folder():
    """A sticky world-writable folder, as /tmp, that another user can reach
    (pytest's own temporary folders are private to their owner)."""
    outer = pathlib.Path(tempfile.mkdtemp(prefix="forcetrace-shared-", dir="/tmp"))
    os.chmod(outer, 0o755)
    folder = outer / "shared"
    folder.mkdir()
    os.chmod(folder, 0o1777)
    yield folder
    shutil.rmtree(outer)


@pytest.mark.parametrize("writer", WRITERS)
def test_links_planted_at_the_temporaries_names_are_not_followed(forcetrace, inputs, tmp_path, writer):
    folder, victim = tmp_path / "shared", tmp_path / "victim"
    folder.mkdir()
    victim.write_bytes(b"not yours")
    output = folder / "out.file"
    plant = "".join(f'ln -s {shlex.quote(str(victim))} "{folder}/.out.file.{kind}-$$"; ' for kind in KINDS)
    result = run_planted(command(forcetrace, inputs, writer, output), plant)
    assert result.returncode == 0, result.stderr
    assert victim.read_bytes() == b"not yours"
    assert stat.S_ISREG(os.lstat(output).st_mode), "the output must be a regular file, not a link"
    # The planted links are someone else's: left as they were.
    planted = sorted(p.name for p in folder.iterdir() if p.is_symlink())
    assert len(planted) == 2 and all(os.readlink(folder / p) == str(victim) for p in planted), planted
    assert sorted(p.name for p in folder.iterdir() if not p.is_symlink()) == ["out.file"]


@needs_root
@pytest.mark.parametrize("writer", WRITERS)
def test_files_another_user_made_at_those_names_are_not_reused(forcetrace, inputs, shared_folder, writer):
    folder = shared_folder
    output = folder / "out.file"
    # $1 in the planter's script is the PID forcetrace will have.
    plant = as_nobody("umask 0; " + "; ".join(f'echo attacker > "{folder}/.out.file.{kind}-$1"' for kind in KINDS)) + " x $$;"
    result = run_planted(command(forcetrace, inputs, writer, output), plant)
    assert result.returncode == 0, result.stderr
    made = sorted(p for p in folder.iterdir() if p.name != "out.file")
    assert len(made) == 2, made
    for path in made:
        assert os.lstat(path).st_uid == NOBODY and path.read_bytes() == b"attacker\n"
    info = os.lstat(output)
    assert info.st_uid == 0, f"the output is owned by uid {info.st_uid}, not by the user who ran forcetrace"
    assert stat.S_IMODE(info.st_mode) == 0o644
    assert all(os.lstat(path).st_ino != info.st_ino for path in made)


def test_an_output_that_is_a_link_is_written_through_and_the_link_stays(forcetrace, tmp_path):
    real, link = tmp_path / "real.h5", tmp_path / "link.h5"
    run(forcetrace, "simulate", "--presses", "2", "-o", tmp_path / "a.evemu")
    run(forcetrace, "import", tmp_path / "a.evemu", "-o", real)
    link.symlink_to("real.h5")
    result = run(forcetrace, "import", SAMPLE, "-o", link, check=False)
    assert result.returncode == 1 and "already exists" in result.stderr, result.stderr
    run(forcetrace, "import", SAMPLE, "-o", link, "--force")
    assert os.readlink(link) == "real.h5"
    with h5py.File(real, "r") as f:
        assert list(f["recordings"]) == ["touchscreen-mixed"]
    # A chain of links, the last relative to its own folder.
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "hop").symlink_to("../link.h5")
    other = tmp_path / "other.h5"
    run(forcetrace, "import", SAMPLE, "-o", other)
    run(forcetrace, "export", other, "--format", "evemu", "-o", tmp_path / "sub" / "hop", "--force")
    assert os.readlink(link) == "real.h5" and os.readlink(tmp_path / "sub" / "hop") == "../link.h5"
    assert real.read_bytes().startswith(b"# EVEMU")


def test_a_dangling_link_is_a_clear_error(forcetrace, tmp_path):
    link = tmp_path / "out.h5"
    link.symlink_to(tmp_path / "missing" / "target.h5")
    result = run(forcetrace, "import", SAMPLE, "-o", link, check=False)
    assert result.returncode == 1
    assert f"{link}: is a symbolic link to {tmp_path}/missing/target.h5, which does not exist" in result.stderr, result.stderr
    assert os.readlink(link) == str(tmp_path / "missing" / "target.h5")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.h5"]


def test_a_link_to_a_device_or_pipe_is_refused_and_kept(forcetrace, tmp_path):
    # As /dev/stdout: a link through /proc/self/fd to a pipe.
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    result = run(forcetrace, "import", SAMPLE, "-o", link, "--force", check=False)
    assert result.returncode == 1 and "is not a regular file" in result.stderr, result.stderr
    assert os.readlink(link) == "/proc/self/fd/1"
    # Standard output redirected to a file (the issue's `-o /dev/stdout --force`
    # as root replaced /dev/stdout itself): the link stays a link.
    with open(tmp_path / "redirected", "wb") as out:
        result = subprocess.run([forcetrace, "import", str(SAMPLE), "-o", str(link), "--force"], stdout=out,
                                stderr=subprocess.PIPE, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert os.readlink(link) == "/proc/self/fd/1"
    assert (tmp_path / "redirected").read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"
    null = tmp_path / "null"
    null.symlink_to("/dev/null")
    result = run(forcetrace, "export", SAMPLE, "--format", "evemu", "-o", null, "--force", check=False)
    assert result.returncode == 1 and os.readlink(null) == "/dev/null"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@needs_root
def test_another_users_link_in_a_shared_folder_is_not_followed(forcetrace, tmp_path, shared_folder):
    folder, victim = shared_folder, tmp_path / "victim.h5"
    victim.write_bytes(b"root's")
    subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                    "ln", "-s", str(victim), str(folder / "out.h5")], check=True)
    result = run(forcetrace, "import", SAMPLE, "-o", folder / "out.h5", "--force", check=False)
    assert result.returncode == 1 and "owned by another user (uid 65534)" in result.stderr, result.stderr
    assert victim.read_bytes() == b"root's"
    # The same link made by the user who runs forcetrace is followed.
    (folder / "out.h5").unlink()
    (folder / "out.h5").symlink_to(victim)
    run(forcetrace, "import", SAMPLE, "-o", folder / "out.h5", "--force")
    assert victim.read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
@pytest.mark.parametrize("writer", ["import", "export", "simulate", "report-html", "suggest"])
def test_new_outputs_are_0666_minus_the_umask(forcetrace, inputs, tmp_path, writer, umask, mode):
    output = tmp_path / "out.file"
    result = run_planted(command(forcetrace, inputs, writer, output), "", umask=umask)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(os.stat(output).st_mode) == mode


@pytest.mark.parametrize("writer", ["import", "export", "report-save", "record"])
def test_force_keeps_the_replaced_files_mode(forcetrace, inputs, tmp_path, writer):
    output = tmp_path / "out.file"
    output.write_bytes(b"old")
    os.chmod(output, 0o600)
    result = run_planted(command(forcetrace, inputs, writer, output) + ["--force"], "")
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(os.stat(output).st_mode) == 0o600 and output.read_bytes() != b"old"


@needs_root
def test_force_keeps_the_replaced_files_owner(forcetrace, tmp_path):
    output = tmp_path / "out.h5"
    output.write_bytes(b"old")
    os.chown(output, NOBODY, NOBODY)
    os.chmod(output, 0o640)
    run(forcetrace, "import", SAMPLE, "-o", output, "--force")
    info = os.stat(output)
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (NOBODY, NOBODY, 0o640)


TYPED = """# EVEMU 1.3
# Input device name: "typing pad"
N: typing pad
I: 0011 0001 0001 ab41
P: 00 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
B: 01 fe ff ff ff ff ff ff ff
B: 01 ff ff ff ff ff ff ff ff
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 02 00 00 00 00 00 00 00 00
B: 03 00 00 00 00 00 00 00 00
B: 03 00 00 00 00 00 00 00 00
B: 03 00 00 00 00 00 00 00 00
B: 03 00 00 00 00 00 00 00 00
B: 04 10 00 00 00 00 00 00 00
B: 05 00 00 00 00 00 00 00 00
B: 11 00 00 00 00 00 00 00 00
B: 12 00 00 00 00 00 00 00 00
B: 14 00 00 00 00 00 00 00 00
B: 15 00 00 00 00 00 00 00 00
B: 15 00 00 00 00 00 00 00 00
E: 0.000000 0004 0004 0019
E: 0.000000 0001 0019 0001
E: 0.000000 0000 0000 0000
E: 0.050000 0004 0004 0019
E: 0.050000 0001 0019 0000
E: 0.050000 0000 0000 0000
"""


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_an_import_holding_key_presses_as_typed_is_its_owners_alone(forcetrace, tmp_path, umask):
    typed = tmp_path / "typed.evemu"
    typed.write_text(TYPED)
    output = tmp_path / "typed.h5"
    result = run_planted([forcetrace, "import", str(typed), "-o", str(output)], "", umask=umask)
    assert result.returncode == 0, result.stderr
    info = run(forcetrace, "info", output)
    assert "holds 1 key presses" in info.stderr, info.stderr
    assert stat.S_IMODE(os.stat(output).st_mode) == 0o600
    # Touch recordings are not affected.
    plain = tmp_path / "plain.h5"
    run_planted([forcetrace, "import", str(SAMPLE), "-o", str(plain)], "", umask=umask)
    assert stat.S_IMODE(os.stat(plain).st_mode) == 0o666 & ~umask


def test_report_warns_once_for_each_recording_holding_key_presses_as_typed(forcetrace, tmp_path):
    """`report` names each recording whose key presses are as typed, once, on
    stderr after the report; a touch recording beside it gets no warning."""
    typed, plain = tmp_path / "typed.evemu", tmp_path / "plain.h5"
    typed.write_text(TYPED)
    run(forcetrace, "import", typed, "-o", tmp_path / "typed.h5")
    run(forcetrace, "import", SAMPLE, "-o", plain)
    warning = (f"warning: {tmp_path / 'typed.h5'}: typed: holds 1 key presses of letters, digits or other common keys, "
               "not obfuscated (an import keeps what its input said): it may hold what was typed, passwords included; "
               "share it only if that is fine\n")
    for extra in ([], ["--json"]):
        result = run(forcetrace, "report", plain, tmp_path / "typed.h5", *extra)
        assert result.stderr.count("warning: ") == 1 and result.stderr.endswith(warning), (extra, result.stderr)
    assert "warning" not in run(forcetrace, "report", plain).stderr


def test_empty_and_dash_outputs(forcetrace, tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    result = subprocess.run([forcetrace, "import", str(SAMPLE), "-o", ""], capture_output=True, text=True, cwd=folder)
    assert result.returncode == 1 and "the output path is empty" in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == [folder] and list(folder.iterdir()) == []
    result = subprocess.run([forcetrace, "import", str(SAMPLE), "-o", "-"], capture_output=True, cwd=folder)
    assert result.returncode == 1 and b"standard output cannot take this output" in result.stderr
    assert list(folder.iterdir()) == []
    result = subprocess.run([forcetrace, "simulate", "--presses", "2", "-o", "-"], capture_output=True, cwd=folder)
    assert result.returncode == 0 and result.stdout.startswith(b"# EVEMU 1.3\n")
    assert b"standard output: 2 contacts" in result.stderr and list(folder.iterdir()) == []


def test_leftovers_are_removed_only_when_provably_ours(forcetrace, tmp_path):
    """A killed run's folder is emptied without following links in it, and
    nothing that is a link, or another user's, is touched."""
    dead = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True).stdout.strip()
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    ours = tmp_path / f".out.h5.partial-{dead}-AbCdEf"
    ours.mkdir(mode=0o700)
    (ours / "out.h5").write_bytes(b"half")
    (ours / "link").symlink_to(victim)
    link_folder = tmp_path / f".out.h5.partial-{dead}-LnKdIr"
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "precious").write_bytes(b"keep")
    link_folder.symlink_to(tmp_path / "elsewhere")
    run(forcetrace, "import", SAMPLE, "-o", tmp_path / "out.h5")
    assert not ours.exists()
    assert victim.read_bytes() == b"keep"
    assert link_folder.is_symlink() and (tmp_path / "elsewhere" / "precious").read_bytes() == b"keep"


@needs_root
def test_another_users_leftover_is_not_removed(forcetrace, tmp_path):
    dead = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True).stdout.strip()
    theirs = tmp_path / f".out.h5.partial-{dead}-XyZxYz"
    theirs.mkdir()
    (theirs / "out.h5").write_bytes(b"theirs")
    os.chown(theirs, NOBODY, NOBODY)
    run(forcetrace, "import", SAMPLE, "-o", tmp_path / "out.h5")
    assert (theirs / "out.h5").read_bytes() == b"theirs"


# --- Trace files that point outside themselves ---------------------------------

def linked_trace(forcetrace, folder, how):
    trace = folder / "linked.h5"
    run(forcetrace, "import", SAMPLE, "-o", trace)
    other = folder / "other.h5"
    with h5py.File(other, "w") as f:
        f["secret"] = np.arange(5)
    with h5py.File(trace, "a") as f:
        recording = f["recordings/touchscreen-mixed"]
        if how == "external":
            recording["extra"] = h5py.ExternalLink(str(other), "/secret")
        elif how == "external-table":
            del recording["markers"]
            recording["markers"] = h5py.ExternalLink(str(other), "/")
        elif how == "soft":
            recording["extra"] = h5py.SoftLink("/recordings/touchscreen-mixed/events")
        elif how == "datatype":
            recording["kind"] = np.dtype("int32")
    return trace


@pytest.mark.parametrize("how, says", [
    ("external", "touchscreen-mixed/extra is an external link to"),
    ("external-table", "touchscreen-mixed/markers is an external link to"),
    ("soft", "touchscreen-mixed/extra is a soft link to /recordings/touchscreen-mixed/events"),
    ("datatype", "touchscreen-mixed/kind is neither a group nor a dataset"),
])
def test_objects_the_format_does_not_define_are_refused(forcetrace, tmp_path, how, says):
    trace = linked_trace(forcetrace, tmp_path, how)
    for args in (["info", trace], ["report", trace], ["export", trace, "--format", "evemu"],
                 ["import", trace, "-o", tmp_path / "copy.h5"]):
        result = run(forcetrace, *args, check=False, timeout=60)
        assert result.returncode == 1, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0], (args, result.stderr)
        assert "follows no link out of it" in lines[0]
    assert not (tmp_path / "copy.h5").exists()


def test_an_external_link_to_a_fifo_does_not_hang(forcetrace, tmp_path):
    trace = tmp_path / "fifo-linked.h5"
    run(forcetrace, "import", SAMPLE, "-o", trace)
    fifo = tmp_path / "pipe.h5"
    os.mkfifo(fifo)
    with h5py.File(trace, "a") as f:
        f["recordings/touchscreen-mixed/extra"] = h5py.ExternalLink(str(fifo), "/x")
    result = run(forcetrace, "info", trace, check=False, timeout=30)
    assert result.returncode == 1 and "is an external link to" in result.stderr, result.stderr


def test_a_saved_report_with_an_external_link_is_refused_by_merge(forcetrace, tmp_path):
    trace, part = tmp_path / "t.h5", tmp_path / "part.h5"
    run(forcetrace, "import", SAMPLE, "-o", trace)
    run(forcetrace, "report", trace, "--save", part)
    with h5py.File(part, "a") as f:
        f["elsewhere"] = h5py.ExternalLink(str(trace), "/recordings")
    result = run(forcetrace, "report", "--merge", part, check=False)
    assert result.returncode == 1 and "/elsewhere is an external link to" in result.stderr, result.stderr


@pytest.mark.parametrize("how, says", [
    ("external", "/recordings/touchscreen-mixed/extra is an external link"),
    ("soft", "/recordings/touchscreen-mixed/extra is a soft link"),
    ("datatype", "/recordings/touchscreen-mixed/kind is neither a group nor a dataset"),
])
def test_the_python_package_refuses_them_too(forcetrace, tmp_path, how, says):
    import forcetrace as package
    trace = linked_trace(forcetrace, tmp_path, how)
    with pytest.raises(ValueError, match=says):
        package.open(trace)
    with pytest.raises(ValueError, match=says):
        next(package.follow(trace, idle_timeout=1))


def link_as(owner, target, link):
    """`link` → `target`, made by the user `owner` (root's own links by root)."""
    if owner == 0:
        os.symlink(target, link)
    else:
        subprocess.run(["setpriv", f"--reuid={owner}", f"--regid={owner}", "--clear-groups",
                        "ln", "-s", str(target), str(link)], check=True)


@needs_root
@pytest.mark.parametrize("writer", WRITERS)
def test_another_users_link_to_a_folder_in_a_shared_folder_is_not_followed(forcetrace, inputs, shared_folder, writer):
    # The folder behind the link is the other user's; with fs.protected_symlinks=0
    # the kernel would follow the link, and root would write there.
    behind = shared_folder.parent / "behind"
    behind.mkdir()
    os.chown(behind, NOBODY, NOBODY)
    link_as(NOBODY, behind, shared_folder / "LINK")
    result = run(*command(forcetrace, inputs, writer, shared_folder / "LINK" / "out.file"), check=False)
    assert result.returncode == 1, result.stderr
    assert f"symbolic link ({shared_folder}/LINK) owned by another user (uid {NOBODY})" in result.stderr, result.stderr
    assert list(behind.iterdir()) == []


@needs_root
def test_own_links_and_links_outside_shared_folders_are_followed_to_a_folder(forcetrace, shared_folder):
    behind = shared_folder.parent / "behind"
    behind.mkdir()
    os.chown(behind, NOBODY, NOBODY)
    # Root's own link in the shared folder.
    link_as(0, behind, shared_folder / "MINE")
    run(forcetrace, "import", SAMPLE, "-o", shared_folder / "MINE" / "a.h5")
    # Another user's link in a folder that is not sticky and world-writable.
    private = shared_folder.parent / "private"
    private.mkdir()
    os.chown(private, NOBODY, NOBODY)
    link_as(NOBODY, behind, private / "THEIRS")
    run(forcetrace, "import", SAMPLE, "-o", private / "THEIRS" / "b.h5")
    # A link owned by the shared folder's owner (nobody owns this one).
    os.chown(shared_folder, NOBODY, NOBODY)
    link_as(NOBODY, behind, shared_folder / "OWNERS")
    run(forcetrace, "import", SAMPLE, "-o", shared_folder / "OWNERS" / "c.h5")
    assert sorted(p.name for p in behind.iterdir()) == ["a.h5", "b.h5", "c.h5"]
