"""Read forcetrace trace files and reports into pandas and xarray.

    import forcetrace
    trace = forcetrace.open("out/samples.h5")
    samples = trace["touchscreen-mixed"].samples()
    everything = forcetrace.load("out/", table="contacts")
    report = forcetrace.read_report("out/report.h5")

docs/FORMAT.md (the trace format) and docs/ANALYSIS.md (the report) define
every column; python/README.md describes the package. The base package needs
h5py, numpy and pandas only; xarray, the notebooks' and Dask's modules come
with the extras `[xarray]`, `[notebooks]`, `[dask]` (or `[all]`).
"""
from ._extras import Extra, MissingExtra
from ._validate import ForceTraceFileError
from ._version import __version__
from .cli import CommandFailed, CommandNotFound
from .live import follow
from .report import Report, read_report
from .trace import (LABEL, MAXIMUM_POSSIBLE_FORCE, ColumnInfo, Device, DeviceID, Recording, Trace, load, open,
                    trace_files)

__all__ = ["open", "load", "read_report", "follow", "trace_files", "Trace", "Recording", "Device", "DeviceID",
           "ColumnInfo", "Report", "MAXIMUM_POSSIBLE_FORCE", "LABEL", "Extra", "MissingExtra", "CommandNotFound",
           "CommandFailed", "ForceTraceFileError", "__version__"]
