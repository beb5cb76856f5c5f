"""Trace files (docs/FORMAT.md, format v1) as pandas DataFrames and xarray Datasets."""
import io
import os
import stat
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Optional, Union

import h5py
import numpy as np
import pandas as pd

from . import cli, codes
from ._extras import Extra, require
from ._h5 import attr, attrs, column, column_names, open_file, refuse_foreign_objects
from ._policy import PathLike, check_errors, naming, skipped
from ._validate import SCHEMA, TABLES as SCHEMA_TABLES, ForceTraceFileError, check_recording, check_rows

# (table, column) of the columns that came within version 1, which older files lack or hold fewer rows of.
OPTIONAL_COLUMNS = {(table["name"], c["name"]) for table in SCHEMA_TABLES for c in table["columns"]
                    if not c["required"]}

if TYPE_CHECKING:
    import xarray

TRACE_FORMAT = "forcetrace"
#: `UITouch.maximumPossibleForce` on the iPhone 6s: force = normalized pressure × this (docs/ANALYSIS.md).
MAXIMUM_POSSIBLE_FORCE = 6.667
#: The samples columns every trace has (docs/FORMAT.md, `samples`); `samples()`
#: also keeps any other column the file holds, with its own units and long name.
SAMPLE_COLUMNS = ("t_ns", "contact", "slot", "x", "y", "pressure", "flags")
#: Likewise for `events()` and `markers()`.
EVENT_COLUMNS = ("t_ns", "type", "code", "value")
MARKER_COLUMNS = ("t_ns", "kind", "event_index")
TABLES = ("samples", "contacts", "events", "markers", "axes", "capabilities", "labels", "force")

# One row of each table is one of these (the xarray dimension names).
ROW_NAMES = {"samples": "sample", "contacts": "contact", "events": "event", "markers": "marker",
             "axes": "axis", "capabilities": "capability", "labels": "label", "force": "force_reading"}

#: Standard gravity: 1 gram-force in millinewtons (docs/FORMAT.md, `force`).
GRAM_FORCE_MN = 9.80665
#: The force table's status bits (docs/FORMAT.md, `force`) and the boolean columns they become.
FORCE_STATUS = {"stable": 1, "in_motion": 2, "overload": 4, "under_zero": 8, "fault": 16, "stable_at_zero": 32,
                "requires_calibration": 64, "requires_rezeroing": 128, "net": 256, "unreadable": 512}
FORCE_COLUMNS = ("t_ns", "grams", "status", "raw_value", "raw_unit")

# Sample flag bits (docs/FORMAT.md, `samples`) and the boolean columns they become.
FLAGS = {"down": 1, "moved": 2, "pressure_changed": 4, "after_syn_dropped": 8}

#: The ground-truth class of a labelled press is `label` in every table of
#: this package and of the report; the class a report found is `found`.
#: The file's own column is `labels/class` (docs/FORMAT.md).
LABEL = "label"
STORED_LABEL = "class"

Table = pd.DataFrame
Columns = dict[str, np.ndarray]
Rows = Union[slice, range]


class ColumnInfo(NamedTuple):
    """What a column holds: its units (udunits spelling, "1" for counts and
    ids, "" where the dtype says it: times, booleans, names) and a long name."""
    units: str
    long_name: str


# Columns this package derives; stored columns carry their own (docs/FORMAT.md, "units").
COLUMN_INFO = {
    "t": ColumnInfo("", "time since the recording's first event (t0_ns)"),
    "time": ColumnInfo("", "absolute time (the recording's clock is realtime)"),
    "t_down": ColumnInfo("", "touch-down frame time since t0"),
    "t_up": ColumnInfo("", "time of the frame that ended the contact since t0 (NaT while still down)"),
    "duration": ColumnInfo("", "t_up - t_down (NaT while still down)"),
    "still_down": ColumnInfo("", "the contact had not lifted when the recording ended"),
    "rebuilt": ColumnInfo("", "the row was rebuilt from the samples (an unfinished recording)"),
    "tool": ColumnInfo("", "the tool (BTN_TOOL_* name), unknown when none was reported"),
    "contact": ColumnInfo("1", "contact id (row in contacts)"),
    "slot": ColumnInfo("1", "multitouch slot, -1 without slots"),
    "x": ColumnInfo("device units", "x position (ABS_MT_POSITION_X with slots, ABS_X without)"),
    "y": ColumnInfo("device units", "y position (ABS_MT_POSITION_Y with slots, ABS_Y without)"),
    "pressure": ColumnInfo("device units", "raw pressure, -1 without a per-contact pressure axis"),
    "pressure_norm": ColumnInfo("1", "(pressure - min) / (max - min) of the pressure axis"),
    "force": ColumnInfo("UIKit force", f"pressure_norm x {MAXIMUM_POSSIBLE_FORCE} (UITouch.force units)"),
    "x_mm": ColumnInfo("mm", "(x - min) / resolution of the x axis"),
    "y_mm": ColumnInfo("mm", "(y - min) / resolution of the y axis"),
    "pressure_gf": ColumnInfo("gf", "pressure / resolution of the pressure axis (units per gram), NaN without one"),
    "down": ColumnInfo("", "the contact's down row (flag bit 0)"),
    "moved": ColumnInfo("", "x or y changed (flag bit 1)"),
    "pressure_changed": ColumnInfo("", "pressure changed (flag bit 2)"),
    "after_syn_dropped": ColumnInfo("", "first frame after a SYN_DROPPED (flag bit 3)"),
    "type": ColumnInfo("", "event type (EV_* name)"),
    "code": ColumnInfo("", "event code (kernel name)"),
    "type_id": ColumnInfo("1", "event type as the kernel numbers it"),
    "code_id": ColumnInfo("1", "event code as the kernel numbers it"),
    "value": ColumnInfo("1", "event value as the kernel sent it"),
    "kind": ColumnInfo("", "what the row is (a name)"),
    "kind_id": ColumnInfo("1", "the kind as stored"),
    LABEL: ColumnInfo("", "ground-truth class of the press (labels/class)"),
    "event_index": ColumnInfo("1", "row in events of the marked event"),
    "t_end": ColumnInfo("", "time the calibration trial ended since t0"),
    "t_scale": ColumnInfo("", "time the scale's reading arrived since t0, as stored (force/t_ns)"),
    "force_mN": ColumnInfo("mN", f"grams x {GRAM_FORCE_MN} (standard gravity)"),
    **{name: ColumnInfo("", f"status bit {bit} of the scale's reading") for name, bit in FORCE_STATUS.items()},
    "type_name": ColumnInfo("", "event type (EV_* name)"),
    "code_name": ColumnInfo("", "event code (kernel name)"),
}
# Columns whose stored namesake is a number they are made from (names from codes): never the stored info.
DERIVED = {("events", "type"), ("events", "code"), ("markers", "kind"), ("contacts", "tool")}


class DeviceID(NamedTuple):
    bus: int
    vendor: int
    product: int
    version: int


@dataclass(frozen=True)
class Device:
    """What the recording says about its device."""
    name: str
    id: DeviceID
    properties: tuple[str, ...]
    slots: int
    contact_protocol: str
    pressure_axis: Optional[str]  # the axis name, or None without per-contact pressure
    axes: pd.DataFrame = field(repr=False)
    capabilities: pd.DataFrame = field(repr=False)
    # The machine, when the source named it (docs/FORMAT.md, `kernel` and `dmi`).
    kernel: Optional[str] = None
    dmi: Optional[str] = None

    def axis(self, name: str) -> Optional["pd.Series"]:
        """The `axes` row of an axis (`ABS_MT_PRESSURE`), or None."""
        rows = self.axes[self.axes["name"] == name]
        return None if rows.empty else rows.iloc[0]

    @property
    def units_per_gram(self) -> Optional[int]:
        """The pressure axis's resolution where it has one: the kernel's units
        per gram (a pressure pad's), which `samples()["pressure_gf"]` divides by."""
        row = self.axis(self.pressure_axis) if self.pressure_axis else None
        return int(row["resolution"]) if row is not None and int(row["resolution"]) > 0 else None

    @property
    def is_pressure_pad(self) -> bool:
        """Whether the kernel says its pressure is a force (INPUT_PROP_PRESSUREPAD,
        0x07, which headers before Linux 6.16 leave unnamed)."""
        return "INPUT_PROP_PRESSUREPAD" in self.properties or "INPUT_PROP_0x07" in self.properties


class Trace:
    """An open trace file. Use as a context manager, or call `close()`.

    `live=True` opens it as `follow` does: always as an HDF5 SWMR reader, and
    without HDF5's file lock (which would hide a recorder's going)."""

    def __init__(self, path: PathLike, *, live: bool = False) -> None:
        self.path = Path(path)
        self._warned_unfinished: set[str] = set()  # recordings whose warning was given
        if live:
            self._file = h5py.File(path, "r", swmr=True, locking=False)
            try:
                refuse_foreign_objects(self._file, path)
            except Exception:
                self._file.close()
                raise
            self.attrs: dict[str, Any] = {}
        else:
            self._file = open_file(path, TRACE_FORMAT)
            self.attrs = attrs(self._file)
        group = self._file.get("recordings")
        self.recordings: list[str] = sorted(group.keys()) if group is not None else []
        if not live:
            try:  # every recording as the CLI opens it (forcetrace info)
                for name in self.recordings:
                    check_recording(group[name], self.path, name)
            except Exception:
                self._file.close()
                raise

    @property
    def h5file(self) -> h5py.File:
        """The open h5py file; a clear error instead of h5py's once closed."""
        if not self._file.id.valid:
            raise ValueError(f"{self.path}: the trace is closed; use it inside 'with forcetrace.open(...)'")
        return self._file

    def __getitem__(self, name: str) -> "Recording":
        if name not in self.recordings:
            raise KeyError(f"{self.path}: no recording {name!r}; it has {self.recordings}")
        self.h5file
        return Recording(self, name)

    def __iter__(self) -> Iterator["Recording"]:
        return (self[name] for name in self.recordings)

    def __len__(self) -> int:
        return len(self.recordings)

    def __enter__(self) -> "Trace":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()

    def __repr__(self) -> str:
        return f"<forcetrace.Trace {str(self.path)!r}: {len(self.recordings)} recordings {self.recordings}>"


class Recording:
    """One recording of one device: `/recordings/<name>/`."""

    def __init__(self, trace: Trace, name: str) -> None:
        self.trace = trace  # keeps the file open
        self.name = name
        self.attrs: dict[str, Any] = attrs(self.group)
        self.source: Optional[str] = self.attrs.get("source")
        self.clock: Optional[str] = self.attrs.get("clock")
        self.t0_ns = int(self.attrs.get("t0_ns", 0))
        self.import_status: Optional[str] = self.attrs.get("import_status")
        self._device: Optional[Device] = None

    @property
    def group(self) -> h5py.Group:
        """The recording's h5py group, for what the package does not read."""
        return self.trace.h5file["recordings"][self.name]

    def __repr__(self) -> str:
        return f"<forcetrace.Recording {self.name!r} of {self.trace.path.name}: {self.attrs.get('device_name')!r}>"

    @property
    def t0(self) -> Optional[pd.Timestamp]:
        """The first event's time: a UTC Timestamp when the clock is realtime, else None."""
        return pd.Timestamp(self.t0_ns, unit="ns", tz="UTC") if self.clock == "realtime" else None

    @property
    def complete(self) -> bool:
        return self.import_status == "complete"

    @property
    def unfinished(self) -> bool:
        """Still being recorded, or left by a killed recorder: no `import_status`
        (docs/FORMAT.md, "Crash recovery")."""
        return self.import_status is None

    def _note_unfinished(self) -> None:
        """Warns, once per recording of an open trace, that it is read as its writer left it."""
        if self.unfinished and self.name not in self.trace._warned_unfinished:
            self.trace._warned_unfinished.add(self.name)
            warnings.warn(f"{self.trace.path}: recording {self.name!r} is not finished (still being recorded, or its "
                          "recorder was killed): read up to what every column holds; contacts missing from its "
                          "contacts table are rebuilt from the samples (column 'rebuilt')", stacklevel=3)

    @property
    def has_labels(self) -> bool:
        return "labels" in self.group

    @property
    def keycodes(self) -> Optional[str]:
        """How a live recording stored keyboard key codes: "obfuscated" or
        "as-is" (docs/FORMAT.md, `keycodes`); None for imports and replays."""
        return self.attrs.get("keycodes")

    @property
    def calibration_protocol(self) -> Optional[str]:
        """"app", "touchpad" or "pen" for a `forcetrace calibrate` session
        (the labels' `protocol` attribute), else None."""
        return self.attrs_of("labels").get("protocol")

    # Raw tables -----------------------------------------------------------

    def table(self, name: str, rows: Rows = slice(None)) -> pd.DataFrame:
        """A table's stored columns as they are in the file (strings as str);
        an unfinished recording's up to the rows every column holds."""
        return self._described(pd.DataFrame(self._columns(name, rows)), name)

    def stored_columns(self, table: str) -> list[str]:
        """The names of a table's column datasets, as the file has them."""
        group = self.group.get(table)
        return column_names(group) if group is not None else []

    def _columns(self, table: str, rows: Rows = slice(None), names: Optional[Sequence[str]] = None) -> Columns:
        """Columns of a table (`names`, or all) as numpy. An unfinished
        recording's are first cut to the rows every column of the table holds:
        a killed writer may have flushed some columns further than others."""
        group = self.group.get(table)
        if group is None:
            return {}
        every = column_names(group)
        lengths = {key: group[key].shape[0] for key in every}
        short = {key for key in every if (table, key) in OPTIONAL_COLUMNS} if not self.unfinished else set()
        if short and len({lengths[key] for key in every if key not in short}) == 1:
            # Optional columns, which older files hold fewer rows of (checked on open): the rest read as unknown.
            rows_ = next(lengths[key] for key in every if key not in short)
            read = {key: column(group[key], rows) for key in (names or every)}
            for key in short & set(read):
                if lengths[key] < rows_:
                    full = column(group[key]) if len(read[key]) else read[key]
                    blank = "" if full.dtype == object else (np.nan if full.dtype.kind == "f" else 0)
                    padded = np.concatenate([full, np.full(rows_ - len(full), blank, dtype=full.dtype)])
                    read[key] = padded[rows]
            return read
        if not self.unfinished and len(set(lengths.values())) > 1:
            # Before any read: a column declaring more rows than it stores
            # (unwritten chunks) would make numpy and pandas allocate them all.
            longest, shortest = max(lengths, key=lengths.__getitem__), min(lengths, key=lengths.__getitem__)
            raise ForceTraceFileError(self.trace.path, f"recording '{self.name}': {table}/{longest} declares {lengths[longest]} rows, "
                             f"{table}/{shortest} {lengths[shortest]}; a table's columns are of equal length "
                             "(the file is damaged or was not written by forcetrace)")
        if self.unfinished and every:
            common = min(lengths.values())
            cut = range(common)[rows if isinstance(rows, slice) else slice(rows.start, rows.stop, rows.step)]
            rows = slice(cut.start, cut.stop, cut.step)
        return {key: column(group[key], rows) for key in (names or every)}

    # Units and long names ------------------------------------------------

    def _stored_info(self, table: str) -> dict[str, ColumnInfo]:
        """(units, long_name) of each column dataset that has them."""
        group = self.group.get(table)
        found: dict[str, ColumnInfo] = {}
        if group is None:
            return found
        for name in column_names(group):
            dataset = group[name]
            if "units" in dataset.attrs or "long_name" in dataset.attrs:
                found[name] = ColumnInfo(str(attr(dataset, "units", "")), str(attr(dataset, "long_name", "")))
        return found

    def column_info(self, table: str, name: str) -> ColumnInfo:
        """(units, long_name) of a column of `frame(table)`: the file's own
        attributes for a stored column, else this package's description."""
        return self._infos(table, [name])[name]

    def _infos(self, table: str, names: Iterable[str]) -> dict[str, ColumnInfo]:
        stored = self._stored_info(table)
        if table == "contacts":  # the columns joined from the labels table
            for name, info in self._stored_info("labels").items():
                stored.setdefault(LABEL if name == STORED_LABEL else name, info)
        if table == "labels" and STORED_LABEL in stored:
            stored[LABEL] = stored.pop(STORED_LABEL)
        result = {}
        for name in names:
            if name in stored and (table, name) not in DERIVED:
                result[name] = stored[name]
            else:
                result[name] = COLUMN_INFO.get(name, ColumnInfo("", ""))
        return result

    def _described(self, frame: pd.DataFrame, table: str) -> pd.DataFrame:
        """`frame` with its `attrs`: the file, recording, device, table, and
        each column's units and long name (they survive a parquet round trip)."""
        infos = self._infos(table, [str(name) for name in frame.columns])
        frame.attrs = {"file": str(self.trace.path), "recording": self.name,
                       "device": str(self.attrs.get("device_name", "")), "table": table,
                       "units": {name: info.units for name, info in infos.items()},
                       "long_name": {name: info.long_name for name, info in infos.items()}}
        return frame

    # The device ----------------------------------------------------------

    def _axes_frame(self) -> pd.DataFrame:
        axes = self.table("axes")
        if not axes.empty:
            axes.insert(1, "name", axes.pop("name"))
        return axes

    @property
    def device(self) -> Device:
        if self._device is None:
            ids = [int(v) for v in self.attrs.get("device_id", [0, 0, 0, 0])]
            pressure = int(self.attrs.get("pressure_axis", -1))
            caps = self.table("capabilities")
            if not caps.empty:
                caps["type_name"] = [codes.type_name(t) for t in caps["type"]]
                caps["code_name"] = [codes.type_name(c) if t == 0 else codes.code_name(t, c)
                                     for t, c in zip(caps["type"], caps["code"])]
                self._described(caps, "capabilities")
            self._device = Device(
                name=str(self.attrs.get("device_name", "")),
                id=DeviceID(*ids),
                properties=tuple(codes.property_name(p) for p in self.attrs.get("properties", [])),
                slots=int(self.attrs.get("slots", 0)),
                contact_protocol=str(self.attrs.get("contact_protocol", "")),
                pressure_axis=codes.code_name(3, pressure) if pressure >= 0 else None,
                axes=self._axes_frame(),
                capabilities=caps,
                kernel=self.attrs.get("kernel"),
                dmi=self.attrs.get("dmi"))
        return self._device

    # Analysis-ready tables -------------------------------------------------

    def _times(self, t_ns: np.ndarray) -> tuple[pd.TimedeltaIndex, pd.DatetimeIndex]:
        """(timedelta since t0, absolute times or NaT) for an int64 ns column."""
        t = pd.to_timedelta(np.asarray(t_ns, dtype=np.int64), unit="ns")
        if self.clock == "realtime":
            absolute = pd.to_datetime(np.asarray(t_ns, dtype=np.int64) + self.t0_ns, unit="ns", utc=True)
        else:
            absolute = pd.DatetimeIndex(np.full(len(t_ns), np.datetime64("NaT", "ns")), tz="UTC")
        return t, absolute

    def _axis_row(self, code: int) -> Optional["pd.Series"]:
        axes = self.device.axes
        rows = axes[axes["code"] == code] if not axes.empty else axes
        return None if rows.empty else rows.iloc[0]

    def _position_axes(self) -> tuple[Optional["pd.Series"], Optional["pd.Series"]]:
        with_slots = self.attrs.get("contact_protocol") == "mt-protocol-b"
        x, y = (codes.code_value("ABS_MT_POSITION_X")[1], codes.code_value("ABS_MT_POSITION_Y")[1]) if with_slots \
            else (codes.code_value("ABS_X")[1], codes.code_value("ABS_Y")[1])
        return self._axis_row(x), self._axis_row(y)

    def samples_frame(self, raw: Mapping[str, np.ndarray]) -> pd.DataFrame:
        """The samples DataFrame from raw columns (`follow` reads them in
        batches): the SAMPLE_COLUMNS made analysis-ready, then any other column as stored."""
        t_ns = raw["t_ns"]
        t, absolute = self._times(t_ns)
        frame = pd.DataFrame({"t": t, "time": absolute})
        for name in ("contact", "slot", "x", "y", "pressure"):
            frame[name] = raw[name]
        pressure = np.asarray(raw["pressure"], dtype=np.float64)
        code = int(self.attrs.get("pressure_axis", -1))
        axis = self._axis_row(code) if code >= 0 else None
        norm = np.full(len(pressure), np.nan)
        if axis is not None and int(axis["max"]) > int(axis["min"]):
            low, span = float(axis["min"]), float(int(axis["max"]) - int(axis["min"]))
            valid = raw["pressure"] >= 0
            norm[valid] = (pressure[valid] - low) / span
        frame["pressure_norm"] = norm
        frame["force"] = norm * MAXIMUM_POSSIBLE_FORCE
        # The kernel's unit for a pressure axis with a resolution: units per gram, no offset.
        grams = np.full(len(pressure), np.nan)
        if axis is not None and int(axis["resolution"]) > 0:
            valid = raw["pressure"] >= 0
            grams[valid] = pressure[valid] / float(axis["resolution"])
        frame["pressure_gf"] = grams
        for name, position in zip(("x_mm", "y_mm"), self._position_axes()):
            values = np.full(len(t_ns), np.nan)
            if position is not None and int(position["resolution"]) > 0:
                values = (np.asarray(raw[name[0]], dtype=np.float64) - float(position["min"])) \
                    / float(position["resolution"])
            frame[name] = values
        flags = np.asarray(raw["flags"])
        for name, bit in FLAGS.items():
            frame[name] = (flags & bit) != 0
        for name, values in raw.items():  # a column this package does not know: as stored
            if name not in SAMPLE_COLUMNS and name not in frame:
                frame[name] = values
        return self._described(frame, "samples")

    def samples(self) -> pd.DataFrame:
        """One row per frame in which a contact's x, y or pressure changed, with
        times (`t` since t0, `time` when the clock is realtime), normalized
        pressure, UIKit force, millimetres where the resolution is known, and
        the flags as booleans; then any further column the file holds, as
        stored. `.attrs` holds each column's units and long name."""
        self._note_unfinished()
        return self.samples_frame(self._columns("samples"))

    def labels(self) -> pd.DataFrame:
        """The ground-truth labels table (empty without one), its class as
        `label`. A calibration session's also has `peak` (raw pressure) and
        `t_end` (when the trial ended)."""
        labels = pd.DataFrame(self._columns("labels"))
        if not labels.empty:
            labels.insert(0, "t", pd.to_timedelta(labels.pop("t_ns"), unit="ns"))
            if "t_end_ns" in labels:
                labels.insert(1, "t_end", pd.to_timedelta(labels.pop("t_end_ns"), unit="ns"))
            labels = labels.rename(columns={STORED_LABEL: LABEL})
            for name in (LABEL, "kind"):
                labels[name] = pd.Categorical(labels[name])
        return self._described(labels, "labels")

    def contacts(self) -> pd.DataFrame:
        """One row per contact; `label` (the ground-truth class), `kind` and
        `intended_peak` (and a calibration's `peak`) from the labels table
        where the file has one (NaN for unlabelled contacts).

        An unfinished recording's table lacks the contacts still down at its
        last flush (and those that lifted after a lower id still down): they
        are rebuilt from the samples, with `rebuilt` True, `still_down` True
        and `t_up` NaT (whether they had lifted is in the events, which this
        package does not decode), `tracking_id` -1 and `tool` "unknown"."""
        self._note_unfinished()
        raw = pd.DataFrame(self._columns("contacts"))
        rebuilt = np.zeros(len(raw), dtype=bool)
        if self.unfinished:
            missing = self._rebuilt_contacts(raw["id"].to_numpy())
            if missing and len(missing["id"]):
                raw = pd.concat([raw, pd.DataFrame(missing).astype(raw.dtypes.to_dict())], ignore_index=True)
                rebuilt = np.concatenate([rebuilt, np.ones(len(missing["id"]), dtype=bool)])
                order = np.argsort(raw["id"].to_numpy(), kind="stable")
                raw, rebuilt = raw.iloc[order].reset_index(drop=True), rebuilt[order]
        frame = pd.DataFrame({"id": raw["id"], "slot": raw["slot"], "tracking_id": raw["tracking_id"]})
        frame["tool"] = pd.Categorical([codes.code_name(1, v) if v else "unknown" for v in raw["tool"]])
        still_down = raw["t_up_ns"].to_numpy() < 0
        frame["t_down"] = pd.to_timedelta(raw["t_down_ns"], unit="ns")
        frame["t_up"] = pd.to_timedelta(raw["t_up_ns"], unit="ns").where(~still_down)
        frame["duration"] = frame["t_up"] - frame["t_down"]
        frame["still_down"] = still_down
        for name in ("first_sample", "last_sample", "n_samples"):
            frame[name] = raw[name]
        frame["rebuilt"] = rebuilt
        known = {"id", "slot", "tracking_id", "tool", "t_down_ns", "t_up_ns", "first_sample", "last_sample",
                 "n_samples"}
        for name in raw.columns:  # a column this package does not know: as stored
            if name not in known and name not in frame:
                frame[name] = raw[name]
        if self.has_labels:
            labels = pd.DataFrame(self._columns("labels")).rename(columns={STORED_LABEL: LABEL})
            labels = labels[labels["contact"] >= 0].drop_duplicates("contact")
            wanted = ["contact", LABEL, "kind", "intended_peak"] + (["peak"] if "peak" in labels else [])
            labels = labels[wanted].rename(columns={"contact": "id"})
            frame = frame.merge(labels, on="id", how="left")
            for name in (LABEL, "kind"):
                frame[name] = pd.Categorical(frame[name])
        return self._described(frame, "contacts")

    def _rebuilt_contacts(self, stored_ids: np.ndarray) -> Columns:
        """`contacts` columns for the contacts the samples name but the table
        lacks, from their samples rows (those every samples column holds)."""
        samples = self._columns("samples", names=("t_ns", "contact", "slot"))
        if not samples:
            return {}
        ids = samples["contact"]
        rows = np.flatnonzero(~np.isin(ids, stored_ids) & (ids >= 0))
        found, first, counts = np.unique(ids[rows], return_index=True, return_counts=True)
        _, from_end = np.unique(ids[rows][::-1], return_index=True)
        first_rows, last_rows = rows[first], rows[len(rows) - 1 - from_end]
        unknown = np.full(len(found), -1)
        return {"id": found, "slot": samples["slot"][first_rows], "tracking_id": unknown,
                "tool": np.zeros(len(found), dtype=np.int64), "t_down_ns": samples["t_ns"][first_rows],
                "t_up_ns": unknown, "first_sample": first_rows, "last_sample": last_rows, "n_samples": counts}

    def events(self) -> pd.DataFrame:
        """Every raw event, with `type` and `code` names as categoricals
        (`type_id`, `code_id` keep the numbers)."""
        self._note_unfinished()
        raw = self._columns("events")
        types, codes_ = np.asarray(raw["type"]), np.asarray(raw["code"])
        keys = types.astype(np.int64) * 65536 + codes_
        unique, inverse = np.unique(keys, return_inverse=True)
        type_ids, inverse_t = np.unique(types, return_inverse=True)
        frame = pd.DataFrame({"t": pd.to_timedelta(raw["t_ns"], unit="ns")})
        frame["type"] = pd.Categorical.from_codes(inverse_t, [codes.type_name(v) for v in type_ids])
        frame["code"] = pd.Categorical.from_codes(inverse, [codes.code_name(k // 65536, k % 65536) for k in unique])
        frame["value"] = raw["value"]
        frame["type_id"] = types
        frame["code_id"] = codes_
        self._add_unknown(frame, raw, EVENT_COLUMNS)
        return self._described(frame, "events")

    def markers(self) -> pd.DataFrame:
        """Gaps in the stream (`syn_dropped`, `resync`, `initial_state`)."""
        raw = self._columns("markers")
        names = dict(item.split("=", 1) for item in self.attrs_of("markers").get("kinds", []))
        kinds = [names.get(str(k), f"kind {k}") for k in raw.get("kind", [])]
        frame = pd.DataFrame({"t": pd.to_timedelta(raw.get("t_ns", np.zeros(0, np.int64)), unit="ns"),
                              "kind": pd.Categorical(kinds, categories=sorted(set(names.values()) | set(kinds))),
                              "kind_id": raw.get("kind", np.zeros(0, np.uint8)),
                              "event_index": raw.get("event_index", np.zeros(0, np.int64))})
        self._add_unknown(frame, raw, MARKER_COLUMNS)
        return self._described(frame, "markers")

    @staticmethod
    def _add_unknown(frame: pd.DataFrame, raw: Mapping[str, np.ndarray], known: Iterable[str]) -> None:
        """Appends to `frame` each column of `raw` this package does not know, as stored."""
        for name, values in raw.items():
            if name not in known and name not in frame:
                frame[name] = values

    @property
    def has_force(self) -> bool:
        """Whether a scale was recorded beside the device (`--scale`)."""
        return "force" in self.group

    def force(self) -> pd.DataFrame:
        """The scale's readings (docs/FORMAT.md, `force`; empty without one):
        `t` since t0 on the events' time line (the scale's lag taken off when
        the table holds `lag_ns`), `t_scale` as stored, `grams` (gram-force,
        NaN where the scale gave no weight), `force_mN`, the status bits as
        booleans (`stable`, `in_motion`, `overload`, ...), `status` as stored,
        `raw_value` and `raw_unit`. `.attrs["scale"]` holds the table's
        attributes (scale kind, device, unit, lag and its uncertainty)."""
        raw = self._columns("force")
        info = self.attrs_of("force")
        n = len(raw.get("t_ns", ()))
        t_ns = np.asarray(raw.get("t_ns", np.zeros(0, np.int64)), dtype=np.int64)
        lag = int(info["lag_ns"]) if "lag_ns" in info else 0
        frame = pd.DataFrame({"t": pd.to_timedelta(t_ns - lag, unit="ns"), "t_scale": pd.to_timedelta(t_ns, unit="ns")})
        grams = np.asarray(raw.get("grams", np.full(n, np.nan)), dtype=np.float64)
        frame["grams"] = grams
        frame["force_mN"] = grams * GRAM_FORCE_MN
        status = np.asarray(raw.get("status", np.zeros(n, np.uint16)), dtype=np.uint16)
        for name, bit in FORCE_STATUS.items():
            frame[name] = (status & bit) != 0
        frame["status"] = status
        frame["raw_value"] = np.asarray(raw.get("raw_value", np.full(n, np.nan)), dtype=np.float64)
        frame["raw_unit"] = pd.Categorical(list(raw.get("raw_unit", [""] * n)))
        self._add_unknown(frame, raw, FORCE_COLUMNS)
        described = self._described(frame, "force")
        described.attrs["scale"] = dict(info)
        return described

    def attrs_of(self, table: str) -> dict[str, Any]:
        group = self.group.get(table)
        return attrs(group) if group is not None else {}

    def frame(self, table: str) -> pd.DataFrame:
        """`samples()`, `contacts()`, … by table name."""
        readers: dict[str, Callable[[], pd.DataFrame]] = {
            "samples": self.samples, "contacts": self.contacts, "events": self.events,
            "markers": self.markers, "labels": self.labels, "force": self.force,
            "axes": lambda: self._copy(self.device.axes), "capabilities": lambda: self._copy(self.device.capabilities)}
        if table not in readers:
            raise ValueError(f"unknown table {table!r}: one of {', '.join(readers)}")
        return readers[table]()

    @staticmethod
    def _copy(frame: pd.DataFrame) -> pd.DataFrame:
        copy = frame.copy()
        copy.attrs = {key: (dict(value) if isinstance(value, dict) else value) for key, value in frame.attrs.items()}
        return copy

    def to_xarray(self, table: str = "samples") -> "xarray.Dataset":
        """A table as an xarray Dataset: dimension named after a row (`sample`,
        `contact`, `event`, …), `t` as a coordinate, units in attributes."""
        xr = require("xarray", Extra.XARRAY, "Recording.to_xarray")
        frame = self.frame(table)
        dim = ROW_NAMES[table]
        units, long_names = frame.attrs["units"], frame.attrs["long_name"]
        variables: dict[str, xarray.Variable] = {}
        coords: dict[str, xarray.Variable] = {}
        for name in frame.columns:
            series = frame[name]
            if isinstance(series.dtype, pd.DatetimeTZDtype):
                # Straight to naive UTC datetime64: to_numpy() on tz-aware times builds a Timestamp per row.
                values = series.dt.tz_convert(None).to_numpy()
            elif isinstance(series.dtype, pd.CategoricalDtype):
                values = series.astype(object).where(series.notna(), "").to_numpy()
            else:
                values = series.to_numpy()
            info = {"long_name": long_names[name]} if long_names.get(name) else {}
            if units.get(name) and values.dtype.kind not in "mMb":
                info["units"] = units[name]
            target = coords if name in ("t", "time") else variables
            target[name] = xr.Variable(dim, values, info)
        meta = {key: (value if not isinstance(value, list) else np.asarray(value))
                for key, value in self.attrs.items()}
        dataset: xarray.Dataset = xr.Dataset(variables, coords=coords, attrs={"recording": self.name, **meta})
        return dataset


#: What every HDF5 file (so every trace file) starts with; anything else is
#: a recording for `forcetrace import`, by import's own rule.
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def open(path: PathLike, *, format: Optional[str] = None, desc: Optional[PathLike] = None,  # noqa: A001,A002
         forcetrace: Optional[str] = None) -> Trace:
    """Opens a trace file: `forcetrace.open("out/samples.h5")["touchscreen-mixed"].samples()`.

    Any other file (not named *.h5 or *.hdf5) is a recording in a format
    `forcetrace import` reads
    (evemu, libinput record YAML, raw input_event, Android getevent, InkML,
    SVC2004, ...): the command imports it into a temporary trace file, which
    is opened and its name removed at once, so nothing is left behind. The
    trace's `path` (and every table's `file`) is then the recording's.
    `format` and `desc` are import's `--format` and `--desc` (raw streams
    need `desc`); `forcetrace` names the command (`forcetrace.cli.command`).
    A failed import raises `forcetrace.CommandFailed` naming the file."""
    if not _is_recording(Path(path)):
        if format is not None or desc is not None:
            raise ValueError(f"{path}: is a trace file; format= and desc= apply only to recordings to import")
        return Trace(path)
    return _imported(Path(path), format, desc, forcetrace)


def _is_recording(path: Path) -> bool:
    """Whether `path` names something other than a trace file that import
    can read: a file not starting with HDF5's signature, or a pipe. A path
    named like a trace file (*.h5, *.hdf5, what a folder gives) or that is
    missing, a folder or unreadable is left to `Trace`, which names the
    problem ("cannot open as HDF5"), as `forcetrace report` does."""
    if path.suffix in (".h5", ".hdf5"):
        return False
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            return False
        if not stat.S_ISREG(mode):
            return True  # a FIFO or /dev/fd/N: import reads it as a stream
        with io.open(path, "rb") as handle:
            return handle.read(len(HDF5_SIGNATURE)) != HDF5_SIGNATURE
    except OSError:
        return False


def _imported(path: Path, format: Optional[str], desc: Optional[PathLike],  # noqa: A002
              forcetrace: Optional[str]) -> Trace:
    try:
        command = cli.command(forcetrace)
    except cli.CommandNotFound as error:
        raise cli.CommandNotFound(f"{path}: is not a trace file, and reading it takes the forcetrace command "
                                  f"to import it: {error}") from error
    with tempfile.TemporaryDirectory(prefix="forcetrace-import-") as folder:
        output = Path(folder) / "imported.h5"
        options: list[cli.Argument] = ["--format", format] if format is not None else []
        if desc is not None:
            options += ["--desc", desc]
        cli.run("import", path, "-o", output, "--quiet", *options, forcetrace=command, what=str(path))
        trace = Trace(output)
    # The open file outlives its name; messages and tables name the recording.
    trace.path = path
    return trace


Paths = Union[PathLike, Iterable[PathLike]]


def trace_files(paths_or_folder: Paths, errors: str = "raise") -> list[Path]:
    """The files `forcetrace report` would read: paths as given, folders as
    every *.h5 and *.hdf5 regular file below them whose name does not start
    with a dot, leaving out `report --save` files. A path that does not exist
    raises FileNotFoundError, or with `errors="skip"` warns and is left out.
    A damaged file is kept: reading it is what fails."""
    check_errors(errors)
    items: Iterable[PathLike] = [paths_or_folder] if isinstance(paths_or_folder, (str, os.PathLike)) \
        else paths_or_folder
    found = []
    for item in map(Path, items):
        if item.is_dir():
            for path in sorted(item.rglob("*")):
                if path.suffix in (".h5", ".hdf5") and not path.name.startswith(".") and _readable(path) \
                        and not _is_saved_report(path):
                    found.append(path)
        elif os.path.lexists(item):
            found.append(item)
        elif errors == "skip":
            skipped(item, "no such file or folder")
        else:
            raise FileNotFoundError(f"{item}: no such file or folder")
    return found


def _readable(path: Path) -> bool:
    """A regular file, or a link to none (which then fails, naming itself);
    not a FIFO or device, whose open could block."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True


def _is_saved_report(path: Path) -> bool:
    for swmr in (False, True):
        try:
            with h5py.File(path, "r", swmr=swmr) as handle:
                return bool(attr(handle, "format") == "forcetrace-report")
        except OSError:
            continue
    return False


def load(paths_or_folder: Paths, table: str = "samples", errors: str = "raise") -> pd.DataFrame:
    """One DataFrame of `table` over every recording of every file, with
    `file` and `recording` columns first; `.attrs` holds each column's units
    and long name, and the files, recordings and devices read. A path that
    is not a trace file is a recording, imported as `open` does (a folder
    gives only its trace files, as `forcetrace report DIR` reads them).

    A file that is missing or cannot be read raises an error naming it, as
    `forcetrace report` fails on it; `errors="skip"` leaves such files out
    with one warning each, naming the file."""
    check_errors(errors)
    frames = []
    for path in trace_files(paths_or_folder, errors=errors):
        try:
            with open(path) as trace:
                if not trace.recordings:  # as `forcetrace report` refuses it
                    raise ForceTraceFileError(path, f"holds no recordings (its /{SCHEMA['recordings_group']} group is empty), "
                                                    "so there is nothing to read", "import or record into it, or leave it out")
                mine = []
                for recording in trace:
                    if not recording.unfinished:  # the rows `forcetrace report` would refuse
                        check_rows(recording.group, trace.path, recording.name)
                    frame = recording.frame(table)
                    frame.insert(0, "recording", recording.name)
                    frame.insert(0, "file", str(path))
                    frame.attrs["file"] = str(path)  # the recording's path, not the temporary import's
                    mine.append(frame)
        except Exception as error:  # noqa: BLE001  (any failure is this file's; it is named)
            if errors == "skip":
                skipped(path, error)
                continue
            named = naming(path, error)
            if named is error:
                raise
            raise named from error
        frames.extend(mine)
    if not frames:
        raise FileNotFoundError(f"no trace files in {paths_or_folder!r}")
    result = pd.concat(frames, ignore_index=True)
    for name in ("file", "recording") + tuple(c for c in result.columns if c in ("type", "code", "kind", LABEL, "tool")):
        result[name] = result[name].astype("category")
    units: dict[str, str] = {"file": "", "recording": ""}
    long_names: dict[str, str] = {"file": "the trace file", "recording": "the recording in it"}
    for frame in frames:  # the first file that describes a column names its units
        for name, unit in frame.attrs["units"].items():
            units.setdefault(name, unit)
            long_names.setdefault(name, frame.attrs["long_name"][name])
    result.attrs = {"files": sorted({frame.attrs["file"] for frame in frames}),
                    "recordings": [f"{frame.attrs['file']}:{frame.attrs['recording']}" for frame in frames],
                    "devices": sorted({frame.attrs["device"] for frame in frames}),
                    "table": table, "units": units, "long_name": long_names}
    return result
