"""Trace files (docs/FORMAT.md, format v1) as pandas DataFrames and xarray Datasets."""
import os
import stat
import warnings
from collections import namedtuple
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import codes
from ._h5 import attr, attrs, column, column_names, open_file

TRACE_FORMAT = "forcetrace"
#: `UITouch.maximumPossibleForce` on the iPhone 6s: force = normalized pressure × this (docs/ANALYSIS.md).
MAXIMUM_POSSIBLE_FORCE = 6.667
SAMPLE_COLUMNS = ("t_ns", "contact", "slot", "x", "y", "pressure", "flags")
TABLES = ("samples", "contacts", "events", "markers", "axes", "capabilities", "labels")

# One row of each table is one of these (the xarray dimension names).
ROW_NAMES = {"samples": "sample", "contacts": "contact", "events": "event", "markers": "marker",
             "axes": "axis", "capabilities": "capability", "labels": "label"}

# Sample flag bits (docs/FORMAT.md, `samples`) and the boolean columns they become.
FLAGS = {"down": 1, "moved": 2, "pressure_changed": 4, "after_syn_dropped": 8}

# Units and descriptions of the columns this package derives; the file's own
# `units`/`long_name` attributes are used for stored columns where present.
COLUMN_INFO = {
    "t": ("", "time since the recording's first event (t0_ns)"),
    "time": ("", "absolute time (the recording's clock is realtime)"),
    "t_down": ("", "touch-down frame time since t0"),
    "t_up": ("", "time of the frame that ended the contact since t0 (NaT while still down)"),
    "duration": ("", "t_up - t_down (NaT while still down)"),
    "contact": ("1", "contact id (row in contacts)"),
    "slot": ("1", "multitouch slot, -1 without slots"),
    "x": ("device units", "x position (ABS_MT_POSITION_X with slots, ABS_X without)"),
    "y": ("device units", "y position (ABS_MT_POSITION_Y with slots, ABS_Y without)"),
    "pressure": ("device units", "raw pressure, -1 without a per-contact pressure axis"),
    "pressure_norm": ("1", "(pressure - min) / (max - min) of the pressure axis"),
    "force": ("UIKit force", f"pressure_norm x {MAXIMUM_POSSIBLE_FORCE} (UITouch.force units)"),
    "x_mm": ("mm", "(x - min) / resolution of the x axis"),
    "y_mm": ("mm", "(y - min) / resolution of the y axis"),
    "down": ("", "the contact's down row (flag bit 0)"),
    "moved": ("", "x or y changed (flag bit 1)"),
    "pressure_changed": ("", "pressure changed (flag bit 2)"),
    "after_syn_dropped": ("", "first frame after a SYN_DROPPED (flag bit 3)"),
    "value": ("1", "event value as the kernel sent it"),
    "event_index": ("1", "row in events of the marked event"),
    "t_end": ("", "time the calibration trial ended since t0"),
}

DeviceID = namedtuple("DeviceID", "bus vendor product version")


@dataclass(frozen=True)
class Device:
    """What the recording says about its device."""
    name: str
    id: DeviceID
    properties: tuple
    slots: int
    contact_protocol: str
    pressure_axis: object  # the axis name, or None without per-contact pressure
    axes: pd.DataFrame = field(repr=False)
    capabilities: pd.DataFrame = field(repr=False)
    # The machine, when the source named it (docs/FORMAT.md, `kernel` and `dmi`).
    kernel: object = None
    dmi: object = None

    def axis(self, name):
        """The `axes` row of an axis (`ABS_MT_PRESSURE`), or None."""
        rows = self.axes[self.axes["name"] == name]
        return None if rows.empty else rows.iloc[0]


class Trace:
    """An open trace file. Use as a context manager, or call `close()`."""

    def __init__(self, path):
        self.path = Path(path)
        self._file = open_file(path, TRACE_FORMAT)
        self.attrs = attrs(self._file)
        group = self._file.get("recordings")
        self.recordings = sorted(group.keys()) if group is not None else []
        self._warned_unfinished = set()  # recordings whose warning was given

    def _handle(self):
        """The open h5py file; a clear error instead of h5py's once closed."""
        if not self._file.id.valid:
            raise ValueError(f"{self.path}: the trace is closed; use it inside 'with forcetrace.open(...)'")
        return self._file

    def __getitem__(self, name):
        if name not in self.recordings:
            raise KeyError(f"{self.path}: no recording {name!r}; it has {self.recordings}")
        self._handle()
        return Recording(self, name)

    def __iter__(self):
        return (self[name] for name in self.recordings)

    def __len__(self):
        return len(self.recordings)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._file.close()

    def __repr__(self):
        return f"<forcetrace.Trace {str(self.path)!r}: {len(self.recordings)} recordings {self.recordings}>"


class Recording:
    """One recording of one device: `/recordings/<name>/`."""

    def __init__(self, trace, name):
        self.trace = trace  # keeps the file open
        self.name = name
        self.attrs = attrs(self._group)
        self.source = self.attrs.get("source")
        self.clock = self.attrs.get("clock")
        self.t0_ns = int(self.attrs.get("t0_ns", 0))
        self.import_status = self.attrs.get("import_status")
        self._device = None

    @property
    def _group(self):
        return self.trace._handle()["recordings"][self.name]

    def __repr__(self):
        return f"<forcetrace.Recording {self.name!r} of {self.trace.path.name}: {self.attrs.get('device_name')!r}>"

    @property
    def t0(self):
        """The first event's time: a UTC Timestamp when the clock is realtime, else None."""
        return pd.Timestamp(self.t0_ns, unit="ns", tz="UTC") if self.clock == "realtime" else None

    @property
    def complete(self):
        return self.import_status == "complete"

    @property
    def unfinished(self):
        """Still being recorded, or left by a killed recorder: no `import_status`
        (docs/FORMAT.md, "Crash recovery")."""
        return self.import_status is None

    def _note_unfinished(self):
        """Warns, once per recording of an open trace, that it is read as its writer left it."""
        if self.unfinished and self.name not in self.trace._warned_unfinished:
            self.trace._warned_unfinished.add(self.name)
            warnings.warn(f"{self.trace.path}: recording {self.name!r} is not finished (still being recorded, or its "
                          "recorder was killed): read up to what every column holds; contacts missing from its "
                          "contacts table are rebuilt from the samples (column 'rebuilt')", stacklevel=3)

    @property
    def has_labels(self):
        return "labels" in self._group

    @property
    def keycodes(self):
        """How a live recording stored keyboard key codes: "obfuscated" or
        "as-is" (docs/FORMAT.md, `keycodes`); None for imports and replays."""
        return self.attrs.get("keycodes")

    @property
    def calibration_protocol(self):
        """"app", "touchpad" or "pen" for a `forcetrace calibrate` session
        (the labels' `protocol` attribute), else None."""
        return self.attrs_of("labels").get("protocol")

    # Raw tables -----------------------------------------------------------

    def table(self, name, rows=slice(None)):
        """A table's stored columns as they are in the file (strings as str);
        an unfinished recording's up to the rows every column holds."""
        return pd.DataFrame(self._columns(name, rows))

    def _columns(self, table, rows=slice(None), names=None):
        """Columns of a table (`names`, or all) as numpy. An unfinished
        recording's are first cut to the rows every column of the table holds:
        a killed writer may have flushed some columns further than others."""
        group = self._group.get(table)
        if group is None:
            return {}
        every = column_names(group)
        if self.unfinished and every:
            common = min(group[key].shape[0] for key in every)
            rows = range(common)[rows]
            rows = slice(rows.start, rows.stop, rows.step)
        return {key: column(group[key], rows) for key in (names or every)}

    def _axes_frame(self):
        axes = self.table("axes")
        if not axes.empty:
            axes.insert(1, "name", axes.pop("name"))
        return axes

    @property
    def device(self):
        if self._device is None:
            ids = [int(v) for v in self.attrs.get("device_id", [0, 0, 0, 0])]
            pressure = int(self.attrs.get("pressure_axis", -1))
            caps = self.table("capabilities")
            if not caps.empty:
                caps["type_name"] = [codes.type_name(t) for t in caps["type"]]
                caps["code_name"] = [codes.type_name(c) if t == 0 else codes.code_name(t, c)
                                     for t, c in zip(caps["type"], caps["code"])]
            self._device = Device(
                name=self.attrs.get("device_name", ""),
                id=DeviceID(*ids),
                properties=tuple(codes.property_name(p) for p in self.attrs.get("properties", [])),
                slots=int(self.attrs.get("slots", 0)),
                contact_protocol=self.attrs.get("contact_protocol", ""),
                pressure_axis=codes.code_name(3, pressure) if pressure >= 0 else None,
                axes=self._axes_frame(),
                capabilities=caps,
                kernel=self.attrs.get("kernel"),
                dmi=self.attrs.get("dmi"))
        return self._device

    # Analysis-ready tables -------------------------------------------------

    def _times(self, t_ns):
        """(timedelta since t0, absolute times or NaT) for an int64 ns column."""
        t = pd.to_timedelta(np.asarray(t_ns, dtype=np.int64), unit="ns")
        if self.clock == "realtime":
            absolute = pd.to_datetime(np.asarray(t_ns, dtype=np.int64) + self.t0_ns, unit="ns", utc=True)
        else:
            absolute = pd.DatetimeIndex(np.full(len(t_ns), np.datetime64("NaT", "ns")), tz="UTC")
        return t, absolute

    def _axis_row(self, code):
        axes = self.device.axes
        rows = axes[axes["code"] == code] if not axes.empty else axes
        return None if rows.empty else rows.iloc[0]

    def _position_axes(self):
        with_slots = self.attrs.get("contact_protocol") == "mt-protocol-b"
        x, y = (codes.code_value("ABS_MT_POSITION_X")[1], codes.code_value("ABS_MT_POSITION_Y")[1]) if with_slots \
            else (codes.code_value("ABS_X")[1], codes.code_value("ABS_Y")[1])
        return self._axis_row(x), self._axis_row(y)

    def _samples_frame(self, raw):
        """The samples DataFrame from raw columns (shared with `follow`)."""
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
        for name, axis in zip(("x_mm", "y_mm"), self._position_axes()):
            values = np.full(len(t_ns), np.nan)
            if axis is not None and int(axis["resolution"]) > 0:
                values = (np.asarray(raw[name[0]], dtype=np.float64) - float(axis["min"])) / float(axis["resolution"])
            frame[name] = values
        flags = np.asarray(raw["flags"])
        for name, bit in FLAGS.items():
            frame[name] = (flags & bit) != 0
        return frame

    def samples(self):
        """One row per frame in which a contact's x, y or pressure changed, with
        times (`t` since t0, `time` when the clock is realtime), normalized
        pressure, UIKit force, millimetres where the resolution is known, and
        the flags as booleans."""
        self._note_unfinished()
        return self._samples_frame(self._columns("samples", names=SAMPLE_COLUMNS))

    def labels(self):
        """The ground-truth labels table (empty without one). A calibration
        session's also has `peak` (raw pressure) and `t_end` (when the trial ended)."""
        labels = self.table("labels")
        if not labels.empty:
            labels.insert(0, "t", pd.to_timedelta(labels.pop("t_ns"), unit="ns"))
            if "t_end_ns" in labels:
                labels.insert(1, "t_end", pd.to_timedelta(labels.pop("t_end_ns"), unit="ns"))
            for name in ("class", "kind"):
                labels[name] = pd.Categorical(labels[name])
        return labels

    def contacts(self):
        """One row per contact; `class`, `kind` and `intended_peak` (and a
        calibration's `peak`) from the labels table where the file has one
        (NaN for unlabelled contacts).

        An unfinished recording's table lacks the contacts still down at its
        last flush (and those that lifted after a lower id still down): they
        are rebuilt from the samples, with `rebuilt` True, `still_down` True
        and `t_up` NaT (whether they had lifted is in the events, which this
        package does not decode), `tracking_id` -1 and `tool` "unknown"."""
        self._note_unfinished()
        raw = self.table("contacts")
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
        if self.has_labels:
            labels = self.table("labels")
            labels = labels[labels["contact"] >= 0].drop_duplicates("contact")
            wanted = ["contact", "class", "kind", "intended_peak"] + (["peak"] if "peak" in labels else [])
            labels = labels[wanted].rename(columns={"contact": "id"})
            frame = frame.merge(labels, on="id", how="left")
            for name in ("class", "kind"):
                frame[name] = pd.Categorical(frame[name])
        return frame

    def _rebuilt_contacts(self, stored_ids):
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

    def events(self):
        """Every raw event, with `type` and `code` names as categoricals
        (`type_id`, `code_id` keep the numbers)."""
        self._note_unfinished()
        raw = self.table("events")
        types, codes_ = raw["type"].to_numpy(), raw["code"].to_numpy()
        keys = types.astype(np.int64) * 65536 + codes_
        unique, inverse = np.unique(keys, return_inverse=True)
        type_ids, inverse_t = np.unique(types, return_inverse=True)
        frame = pd.DataFrame({"t": pd.to_timedelta(raw["t_ns"], unit="ns")})
        frame["type"] = pd.Categorical.from_codes(inverse_t, [codes.type_name(v) for v in type_ids])
        frame["code"] = pd.Categorical.from_codes(inverse, [codes.code_name(k // 65536, k % 65536) for k in unique])
        frame["value"] = raw["value"]
        frame["type_id"] = types
        frame["code_id"] = codes_
        return frame

    def markers(self):
        """Gaps in the stream (`syn_dropped`, `resync`, `initial_state`)."""
        raw = self.table("markers")
        names = dict(item.split("=", 1) for item in self.attrs_of("markers").get("kinds", []))
        kinds = [names.get(str(k), f"kind {k}") for k in raw.get("kind", [])]
        return pd.DataFrame({"t": pd.to_timedelta(raw.get("t_ns", []), unit="ns"),
                             "kind": pd.Categorical(kinds, categories=sorted(set(names.values()) | set(kinds))),
                             "kind_id": raw.get("kind", pd.Series([], dtype=np.uint8)),
                             "event_index": raw.get("event_index", pd.Series([], dtype=np.int64))})

    def attrs_of(self, table):
        group = self._group.get(table)
        return attrs(group) if group is not None else {}

    def frame(self, table):
        """`samples()`, `contacts()`, … by table name."""
        readers = {"samples": self.samples, "contacts": self.contacts, "events": self.events,
                   "markers": self.markers, "labels": self.labels, "axes": lambda: self.device.axes.copy(),
                   "capabilities": lambda: self.device.capabilities.copy()}
        if table not in readers:
            raise ValueError(f"unknown table {table!r}: one of {', '.join(readers)}")
        return readers[table]()

    def column_info(self, table, name):
        """(units, long_name) of a column: the file's attributes where it has them."""
        group = self._group.get(table)
        if group is not None and name in group:
            stored = attrs(group[name])
            if "units" in stored or "long_name" in stored:
                return stored.get("units", ""), stored.get("long_name", "")
        return COLUMN_INFO.get(name, ("", ""))

    def to_xarray(self, table="samples"):
        """A table as an xarray Dataset: dimension named after a row (`sample`,
        `contact`, `event`, …), `t` as a coordinate, units in attributes."""
        import xarray as xr

        frame = self.frame(table)
        dim = ROW_NAMES[table]
        variables, coords = {}, {}
        for name in frame.columns:
            values = frame[name]
            if isinstance(values.dtype, pd.CategoricalDtype):
                values = values.astype(object).where(values.notna(), "")
            values = values.to_numpy()
            if isinstance(frame[name].dtype, pd.DatetimeTZDtype):
                values = frame[name].dt.tz_convert(None).to_numpy()
            units, long_name = self.column_info(table, name)
            info = {"long_name": long_name} if long_name else {}
            if units and values.dtype.kind not in "mMb":
                info["units"] = units
            target = coords if name in ("t", "time") else variables
            target[name] = xr.Variable(dim, values, info)
        meta = {key: (value if not isinstance(value, list) else np.asarray(value))
                for key, value in self.attrs.items()}
        return xr.Dataset(variables, coords=coords, attrs={"recording": self.name, **meta})


def open(path):  # noqa: A001 - the package's entry point, like h5py.File
    """Opens a trace file: `forcetrace.open("out/samples.h5")["touchscreen-mixed"].samples()`."""
    return Trace(path)


ERRORS = ("raise", "skip")


def _check_errors(errors):
    if errors not in ERRORS:
        raise ValueError(f"errors={errors!r}: one of {', '.join(map(repr, ERRORS))}")


def _skipped(path, error):
    """`errors="skip"`: one warning per file left out, naming it."""
    reason = str(error)
    if reason.startswith(f"{path}: "):
        reason = reason[len(f"{path}: "):]
    warnings.warn(f"{path}: skipped: {reason}", stacklevel=3)


def _naming(path, error):
    """`error` if its message names `path`, else an OSError that does."""
    if str(path) in str(error):
        return error
    return OSError(f"{path}: cannot read it ({type(error).__name__}: {error})")


def trace_files(paths_or_folder, errors="raise"):
    """The files `forcetrace report` would read: paths as given, folders as
    every *.h5 and *.hdf5 regular file below them whose name does not start
    with a dot, leaving out `report --save` files. A path that does not exist
    raises FileNotFoundError, or with `errors="skip"` warns and is left out.
    A damaged file is kept: reading it is what fails."""
    _check_errors(errors)
    if isinstance(paths_or_folder, (str, os.PathLike)):
        paths_or_folder = [paths_or_folder]
    found = []
    for item in paths_or_folder:
        item = Path(item)
        if item.is_dir():
            for path in sorted(item.rglob("*")):
                if path.suffix in (".h5", ".hdf5") and not path.name.startswith(".") and _readable(path) \
                        and not _is_saved_report(path):
                    found.append(path)
        elif os.path.lexists(item):
            found.append(item)
        elif errors == "skip":
            _skipped(item, "no such file or folder")
        else:
            raise FileNotFoundError(f"{item}: no such file or folder")
    return found


def _readable(path):
    """A regular file, or a link to none (which then fails, naming itself);
    not a FIFO or device, whose open could block."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True


def _is_saved_report(path):
    import h5py
    for swmr in (False, True):
        try:
            with h5py.File(path, "r", swmr=swmr) as handle:
                return attr(handle, "format") == "forcetrace-report"
        except OSError:
            continue
    return False


def load(paths_or_folder, table="samples", errors="raise"):
    """One DataFrame of `table` over every recording of every file, with
    `file` and `recording` columns first.

    A file that is missing or cannot be read raises an error naming it, as
    `forcetrace report` fails on it; `errors="skip"` leaves such files out
    with one warning each, naming the file."""
    _check_errors(errors)
    frames = []
    for path in trace_files(paths_or_folder, errors=errors):
        try:
            with Trace(path) as trace:
                mine = []
                for recording in trace:
                    frame = recording.frame(table)
                    frame.insert(0, "recording", recording.name)
                    frame.insert(0, "file", str(path))
                    mine.append(frame)
        except Exception as error:  # noqa: BLE001  (any failure is this file's; it is named)
            if errors == "skip":
                _skipped(path, error)
                continue
            named = _naming(path, error)
            if named is error:
                raise
            raise named from error
        frames.extend(mine)
    if not frames:
        raise FileNotFoundError(f"no trace files in {paths_or_folder!r}")
    result = pd.concat(frames, ignore_index=True)
    for name in ("file", "recording") + tuple(c for c in result.columns if c in ("type", "code", "kind", "class", "tool")):
        result[name] = result[name].astype("category")
    return result
