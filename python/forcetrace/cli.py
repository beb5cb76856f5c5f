"""The `forcetrace` command, found and run from Python (the notebooks and
`forcetrace.distributed` use it): FORCETRACE names it, else the binary that
the platform wheel installed with this package, else it is looked up on PATH."""
import functools
import json
import os
import shutil
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Optional, Union

Argument = Union[str, int, float, "os.PathLike[str]"]

HOW_TO_INSTALL = ("install the platform wheel, which carries it (pip install forcetrace-VERSION-py3-none-"
                  "manylinux_2_36_x86_64.whl), or the release archive (./install.sh --prefix ~/.local), or from a "
                  "checkout `make install PREFIX=~/.local` or the Debian package `make deb` builds; "
                  "or set FORCETRACE=/path/to/forcetrace")


class CommandNotFound(FileNotFoundError):
    """The forcetrace command is neither named by FORCETRACE nor on PATH."""


class CommandFailed(RuntimeError):
    """forcetrace exited non-zero; the message holds what it printed to stderr."""

    def __init__(self, message: str, returncode: int, stderr: str) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


@functools.lru_cache(maxsize=1)
def bundled() -> Optional[str]:
    """The binary the platform wheel installed with this package, or None (an
    editable or pure-Python install carries none). It is found through the
    files the installation recorded: where the record points, or, for
    `pip install --target`, whose record is written before the move,
    `TARGET/bin`; either must have the recorded size."""
    try:
        distribution = metadata.distribution("forcetrace")
    except metadata.PackageNotFoundError:
        return None
    files = distribution.files or []
    here = Path(__file__).resolve()
    # Only the record of the installation this module belongs to.
    if not any(f.name == "cli.py" and Path(str(distribution.locate_file(f))).resolve() == here for f in files):
        return None
    for file in files:
        if file.name != "forcetrace" or file.parent.name not in ("bin", "Scripts") or file.size is None:
            continue
        for candidate in (Path(str(distribution.locate_file(file))), here.parents[1] / "bin" / file.name):
            if candidate.is_file() and os.access(candidate, os.X_OK) and candidate.stat().st_size == file.size:
                return str(candidate.resolve())
    return None


def command(forcetrace: Optional[str] = None) -> str:
    """The command to run: `forcetrace` if given, else $FORCETRACE, else the
    binary the platform wheel installed with this package, else `forcetrace`
    on PATH. Raises CommandNotFound saying how to install it."""
    named = forcetrace or os.environ.get("FORCETRACE")
    if named:
        found = shutil.which(named)  # a path is checked to be an executable file, a bare name looked up
        if found is None:
            source = "forcetrace=" if forcetrace else "FORCETRACE="
            raise CommandNotFound(f"{source}{named!r} is not an executable file: {HOW_TO_INSTALL}")
        return found
    found = bundled() or shutil.which("forcetrace")
    if found is None:
        raise CommandNotFound(f"the forcetrace command is not on PATH: {HOW_TO_INSTALL}")
    return found


def run(*args: Argument, forcetrace: Optional[str] = None, what: Optional[str] = None) -> str:
    """Runs `forcetrace ARGS` and returns what it printed to stdout; raises
    CommandFailed with its stderr (`what` prefixes the message: a file's name)."""
    argv = [command(forcetrace), *map(str, args)]
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        prefix = f"{what}: " if what else ""
        raise CommandFailed(f"{prefix}forcetrace {argv[1] if len(argv) > 1 else ''} exited {result.returncode}: "
                            f"{result.stderr.strip()}", result.returncode, result.stderr)
    return result.stdout


def run_json(*args: Argument, forcetrace: Optional[str] = None, what: Optional[str] = None) -> Any:
    """`run` with `--json` appended, parsed."""
    return json.loads(run(*args, "--json", forcetrace=forcetrace, what=what))


__all__ = ["command", "bundled", "run", "run_json", "CommandNotFound", "CommandFailed"]
