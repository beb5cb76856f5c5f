"""Read forcetrace trace files and reports into pandas and xarray.

    import forcetrace
    trace = forcetrace.open("out/samples.h5")
    samples = trace["touchscreen-mixed"].samples()
    everything = forcetrace.load("out/", table="contacts")
    report = forcetrace.read_report("out/report.h5")

docs/FORMAT.md (the trace format) and docs/ANALYSIS.md (the report) define
every column; python/README.md describes the package.
"""
from .live import follow
from .report import Report, read_report
from .trace import MAXIMUM_POSSIBLE_FORCE, Device, DeviceID, Recording, Trace, load, open, trace_files

__version__ = "0.1.0"
__all__ = ["open", "load", "read_report", "follow", "trace_files", "Trace", "Recording", "Device", "DeviceID",
           "Report", "MAXIMUM_POSSIBLE_FORCE"]
