"""Optional dependencies, each installed by an extra of the package
(python/pyproject.toml): a missing one is one ImportError naming the extra."""
import importlib
from enum import Enum
from types import ModuleType


class Extra(Enum):
    """`pip install "forcetrace[NAME]"` installs what each needs."""
    XARRAY = "xarray"
    NOTEBOOKS = "notebooks"
    DASK = "dask"


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message says which extra installs it."""


def require(module: str, extra: Extra, what: str) -> ModuleType:
    """Imports `module`, or raises MissingExtra saying that `what` needs it
    and which extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtra(
            f"{what} needs the Python module {module!r}, which is not installed: "
            f'pip install "forcetrace[{extra.value}]" (or "./python[{extra.value}]" from a checkout)') from error
