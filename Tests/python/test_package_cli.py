"""forcetrace.cli finds the command as the notebooks and Dask workers need it:
FORCETRACE names it, else PATH; missing, one error saying how to install it."""
import os
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
    assert "make install" in message and "make deb" in message and "FORCETRACE=" in message
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
