"""The package's version: the one place it is written (pyproject.toml reads it
from here); it follows the forcetrace command's (`forcetrace --version`)."""
__version__ = "0.1.0"
