"""forcetrace.cli finds the command as the notebooks and Dask workers need it:
FORCETRACE names it, else the platform wheel's own binary, else PATH; missing,
one error saying how to install it."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "python"))
import forcetrace.cli as cli  # noqa: E402


@pytest.fixture
def bare(monkeypatch, tmp_path):
    """No FORCETRACE, and a PATH of one empty folder."""
    monkeypatch.delenv("FORCETRACE", raising=False)
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    return folder


def test_found_on_path(bare, forcetrace):
    (bare / "forcetrace").symlink_to(forcetrace)
    assert cli.command() == str(bare / "forcetrace")
    assert cli.run("--version").startswith("forcetrace ")


def test_forcetrace_names_it_before_path(bare, forcetrace, monkeypatch, tmp_path):
    (bare / "forcetrace").write_text("#!/bin/sh\nexit 3\n")
    (bare / "forcetrace").chmod(0o755)
    monkeypatch.setenv("FORCETRACE", forcetrace)
    assert cli.command() == forcetrace
    assert cli.command(forcetrace=str(bare / "forcetrace")) == str(bare / "forcetrace")


def test_missing_says_how_to_install(bare):
    with pytest.raises(cli.CommandNotFound) as error:
        cli.command()
    message = str(error.value)
    assert message.startswith("the forcetrace command is not on PATH: ")
    for way in ("platform wheel", "install.sh --prefix", "make install", "make deb", "FORCETRACE="):
        assert way in message, way
    assert isinstance(error.value, FileNotFoundError)


def test_a_forcetrace_that_is_no_program_is_named(bare, monkeypatch, tmp_path):
    plain = tmp_path / "not-a-program"
    plain.write_text("")
    for value in (str(tmp_path / "nowhere" / "forcetrace"), str(plain)):
        monkeypatch.setenv("FORCETRACE", value)
        with pytest.raises(cli.CommandNotFound, match="FORCETRACE=" + repr(value).replace("\\", "\\\\")
                           .replace(".", r"\.") + " is not an executable file"):
            cli.command()


def test_a_failure_carries_stderr_and_names_what(bare, forcetrace, tmp_path):
    (bare / "forcetrace").symlink_to(forcetrace)
    missing = tmp_path / "missing.h5"
    with pytest.raises(cli.CommandFailed) as error:
        cli.run("report", missing, what=str(missing))
    assert str(error.value).startswith(f"{missing}: forcetrace report exited ")
    assert error.value.returncode != 0 and "missing.h5" in error.value.stderr


def command_in(package, path_dir, env=None):
    """What forcetrace.cli.command() answers in a Python that imports the package from `package`."""
    script = "import forcetrace.cli as c\ntry:\n    print(c.command())\nexcept c.CommandNotFound as e:\n    print('missing')"
    environment = {"PATH": str(path_dir), "PYTHONPATH": str(package), "HOME": "/nonexistent", **(env or {})}
    result = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_platform_wheels_own_binary_comes_before_path(installed_wheels, bare, forcetrace):
    own = installed_wheels["platform"] / "bin" / "forcetrace"
    assert own.is_file()
    assert command_in(installed_wheels["platform"], bare) == str(own)
    (bare / "forcetrace").symlink_to(forcetrace)
    assert command_in(installed_wheels["platform"], bare) == str(own)
    assert subprocess.run([own, "--version"], capture_output=True, text=True).stdout.startswith("forcetrace ")


def test_forcetrace_names_it_before_the_wheels_own_binary(installed_wheels, bare, forcetrace):
    assert command_in(installed_wheels["platform"], bare, {"FORCETRACE": forcetrace}) == forcetrace


def test_a_binary_of_another_size_is_not_taken_for_the_wheels_own(installed_wheels, bare, tmp_path):
    """Only the file the installation recorded: a forcetrace put in its place later is not the wheel's."""
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(installed_wheels["platform"], copy)
    (copy / "bin" / "forcetrace").write_text("#!/bin/sh\nexit 3\n")
    assert command_in(copy, bare) == "missing"


def test_the_pure_wheel_carries_no_binary_and_looks_on_path(installed_wheels, bare, forcetrace):
    assert not (installed_wheels["pure"] / "bin").exists()
    assert command_in(installed_wheels["pure"], bare) == "missing"
    (bare / "forcetrace").symlink_to(forcetrace)
    assert command_in(installed_wheels["pure"], bare) == str(bare / "forcetrace")


def test_a_failure_names_a_lone_subcommand(forcetrace):
    """argv is [command, ARGS...]: with one argument (len 2) the message
    names it, as with two; only a bare run (len 1) names none."""
    for args, named in [(("bogus",), "forcetrace bogus exited "), (("bogus", "x"), "forcetrace bogus exited ")]:
        with pytest.raises(cli.CommandFailed) as error:
            cli.run(*args, forcetrace=forcetrace)
        assert str(error.value).startswith(named), str(error.value)


def test_bundled_takes_only_a_binary_of_the_recorded_size(tmp_path, monkeypatch):
    """In-process, with an installation record made here: the binary the record
    names is taken at its recorded size and refused at any other."""
    from importlib import metadata
    from pathlib import Path, PurePosixPath
    binary = tmp_path / "bin" / "forcetrace"
    binary.parent.mkdir()
    binary.write_bytes(b"#!/bin/sh\nexit 0\n")
    binary.chmod(0o755)
    here = Path(cli.__file__).resolve()

    class Recorded(PurePosixPath):
        size = None

    def recorded(name, target, size=None):
        entry = Recorded(name)
        entry.size, entry.target = size, target
        return entry

    class Distribution:
        def __init__(self, size):
            self.files = [recorded("forcetrace/cli.py", here), recorded("bin/forcetrace", binary, size)]

        def locate_file(self, entry):
            return entry.target

    for size, found in ((binary.stat().st_size, str(binary.resolve())), (binary.stat().st_size + 1, None)):
        monkeypatch.setattr(metadata, "distribution", lambda name, size=size: Distribution(size))
        cli.bundled.cache_clear()
        assert cli.bundled() == found
    cli.bundled.cache_clear()
