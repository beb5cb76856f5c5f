"""What a reader over many files does with one it cannot read: fail naming
it, as `forcetrace report` does, or leave it out with a warning."""
import os
import warnings
from typing import Literal, Union

Errors = Literal["raise", "skip"]
ERRORS: tuple[Errors, ...] = ("raise", "skip")
PathLike = Union[str, "os.PathLike[str]"]


def check_errors(errors: str) -> None:
    if errors not in ERRORS:
        raise ValueError(f"errors={errors!r}: one of {', '.join(map(repr, ERRORS))}")


def skipped(path: PathLike, error: object) -> None:
    """`errors="skip"`: one warning per file left out, naming it."""
    reason = str(error)
    if reason.startswith(f"{path}: "):
        reason = reason[len(f"{path}: "):]
    warnings.warn(f"{path}: skipped: {reason}", stacklevel=3)


def naming(path: PathLike, error: BaseException) -> BaseException:
    """`error` if its message names `path`, else an OSError that does."""
    if str(path) in str(error):
        return error
    return OSError(f"{path}: cannot read it ({type(error).__name__}: {error})")
