"""The checks the CLI's reader makes (Sources/ForceTrace/TraceFile/TraceReader.swift
and Validation.swift), in its order and with its words, driven by schema.json:
the registry (`TraceSchema`) as the package ships it, which a Swift test
(SchemaExportTests) holds equal to the registry."""
import json
import os
from importlib import resources
from typing import Any, Callable, Optional

import h5py
import numpy as np

SCHEMA: dict[str, Any] = json.loads(resources.files(__package__).joinpath("schema.json").read_text())
LIMITS: dict[str, int] = SCHEMA["limits"]
VERSION: int = SCHEMA["format_version"]
TABLES: list[dict[str, Any]] = SCHEMA["tables"]
DAMAGED_HINT = "the file is damaged or was not written by forcetrace; re-import the recording from its source"


class ForceTraceFileError(OSError, ValueError):
    """A trace file that forcetrace cannot read: the message starts with the
    file, names the object, and is the CLI's (`forcetrace info`) first line;
    `hint` says what to do. An OSError and a ValueError, as the package's
    errors were before."""

    def __init__(self, path: Any, message: str, hint: Optional[str] = None) -> None:
        super().__init__(f"{path}: {message}")
        self.path, self.detail, self.hint = str(path), message, hint

    def __str__(self) -> str:
        return str(self.args[0])


def recording_error(path: Any, recording: str, lines: list[str], total: Optional[int] = None) -> ForceTraceFileError:
    """One violation, or "has N problems" with up to `shown_violations` of
    them (TraceValidation.error); `total` counts those not in `lines`."""
    shown, total = LIMITS["shown_violations"], total or len(lines)
    listed = lines[:shown] + ([f"and {total - shown} more"] if total > shown else [])
    message = f"recording '{recording}': {listed[0]}" if total == 1 \
        else f"recording '{recording}' has {total} problems:\n  " + "\n  ".join(listed)
    return ForceTraceFileError(path, message, DAMAGED_HINT)


def _exact_integer(value: Any) -> Optional[int]:
    """An integer attribute (AttributeValue.int, clamped to int64), or None for anything else."""
    if isinstance(value, np.ndarray) and value.size == 1 and value.ndim == 0:
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return max(-(2**63), min(2**63 - 1, int(value)))


def check_file(handle: h5py.File, path: Any) -> None:
    """Root attributes, foreign objects and /recordings, as TraceReader.init."""
    from ._h5 import decode, refuse_foreign_objects
    found = decode(handle.attrs["format"]) if "format" in handle.attrs else None
    if found == SCHEMA["report_format"]:
        raise ForceTraceFileError(path, "is a report written by 'report --save', not a trace file",
                                  f"merge saved reports with 'forcetrace report --merge {path} ...'")
    if found != SCHEMA["format"]:
        raise ForceTraceFileError(path, "is an HDF5 file but not a forcetrace file (no format = \"forcetrace\" attribute)")
    if "format_version" not in handle.attrs:
        raise ForceTraceFileError(path, "has no format_version attribute")
    version = _exact_integer(handle.attrs["format_version"])
    if version is None:
        raise ForceTraceFileError(path, f"format_version is {_kind(handle.attrs['format_version'])}, expected int64: "
                                        "the file is damaged or was not written by forcetrace")
    if version < 1:
        raise ForceTraceFileError(path, f"format_version {version} is not a forcetrace format version (versions count "
                                        f"from 1; this forcetrace reads up to {VERSION}): the file is damaged or was "
                                        "not written by forcetrace")
    if version > VERSION:
        raise ForceTraceFileError(path, f"format_version {version} is newer than this forcetrace (reads {VERSION})",
                                  "upgrade the package (pip install ./python)")
    refuse_foreign_objects(handle, path)
    if SCHEMA["recordings_group"] not in handle or not isinstance(handle[SCHEMA["recordings_group"]], h5py.Group):
        raise ForceTraceFileError(path, f"has no /{SCHEMA['recordings_group']} group")


def _element(dtype: np.dtype) -> str:
    """A dataset's element as StoredElement names it."""
    if h5py.check_string_dtype(dtype) is not None or dtype.kind == "S":
        return "string"
    if h5py.check_enum_dtype(dtype) is not None:
        return "enum"
    if dtype.names is not None:
        return "compound"
    if dtype.kind in "iu":
        return f"{'int' if dtype.kind == 'i' else 'uint'}{dtype.itemsize * 8}"
    if dtype.kind == "f":
        return f"float{dtype.itemsize * 8}"
    if dtype.subdtype is not None:
        return "array"
    if h5py.check_vlen_dtype(dtype) is not None:
        return "variable-length sequence"
    return {"V": "opaque", "b": "bitfield", "O": "reference"}.get(dtype.kind, "unknown")


def _values(element: str) -> str:
    return "strings" if element == "string" else f"{element} values"


def _extent_problem(dataset: h5py.Dataset, file_size: int) -> Optional[str]:
    """TraceValidation.extentProblem."""
    rows = int(np.prod(dataset.shape, dtype=object)) if dataset.shape is not None else 0
    logical = rows * dataset.dtype.itemsize
    byte_limit = min(file_size * LIMITS["maximum_compression_ratio"], 2**64 - 1) + (16 << 20)
    if logical > byte_limit:
        return f"declares {rows} rows ({logical} bytes), more than a {file_size}-byte file can hold even compressed"
    chunk = dataset.chunks[0] if dataset.chunks and len(dataset.chunks) == 1 else None
    chunks = (rows - 1) // chunk + 1 if chunk and rows > 0 else 0
    if chunks > file_size // LIMITS["minimum_chunk_bytes"] + 16:
        return f"declares {rows} rows in {chunks} chunks of {chunk}, more chunks than a {file_size}-byte file can index"
    if chunk and chunk * dataset.dtype.itemsize > LIMITS["maximum_chunk_bytes"]:
        return (f"has chunks of {chunk} rows ({chunk * dataset.dtype.itemsize} bytes), "
                f"more than the {LIMITS['maximum_chunk_bytes']} bytes (16 MiB) a chunk may hold")
    return None


def _element_problem(dataset: h5py.Dataset, expected: str) -> Optional[str]:
    """TraceValidation.elementProblem."""
    if dataset.ndim != 1:
        shape = "a scalar" if dataset.ndim == 0 else f"{dataset.ndim}-dimensional"
        return f"is {shape}, not a column; trace format {VERSION} stores one-dimensional columns"
    found = _element(dataset.dtype)
    return None if found == expected else f"holds {_values(found)}; trace format {VERSION} stores {_values(expected)} here"


def check_recording(group: h5py.Group, path: Any, name: str) -> None:
    """TraceRecording.init: tables, declared sizes and element types, then attributes."""
    for table in TABLES:
        if table["required"] and table["name"] not in group:
            raise ForceTraceFileError(path, f"recording '{name}': missing the {table['name']} table")
    file_size = os.stat(path).st_size if os.path.exists(path) else 0
    problems: list[str] = []
    for table in TABLES:
        if table["name"] not in group:
            continue
        tablegroup = group[table["name"]]
        rows = 0
        for column in table["columns"]:
            if column["name"] not in tablegroup:
                if column["required"]:
                    problems.append(f"{table['name']}: missing column {column['name']}")
                continue
            dataset = tablegroup[column["name"]]
            rows = max(rows, int(np.prod(dataset.shape, dtype=object)) if dataset.shape is not None else 0)
            problem = _extent_problem(dataset, file_size) or _element_problem(dataset, column["element"])
            if problem:
                problems.append(f"{table['name']}/{column['name']}: {problem}")
        known = {column["name"] for column in table["columns"]} | {table["dimension"]}
        for other in sorted(set(tablegroup) - known):
            dataset = tablegroup.get(other)
            if not isinstance(dataset, h5py.Dataset):
                continue
            declared = int(np.prod(dataset.shape, dtype=object)) if dataset.shape is not None else 0
            problem = _extent_problem(dataset, file_size)
            if problem is None and declared > rows:
                problem = f"declares {declared} rows, more than the table's {rows} (a table's columns are of equal length)"
            if problem:
                problems.append(f"{table['name']}/{other}: {problem}")
    if problems:
        raise recording_error(path, name, problems)
    _check_attributes(group, path, name)


def _kind(value: Any) -> str:
    """TraceValidation.kind: what an attribute holds."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        return f"the string \"{value[:40]}\""
    if isinstance(value, np.ndarray) and value.size != 1:
        return "a string array" if value.dtype.kind in "OSU" else \
            ("a float array" if value.dtype.kind == "f" else "an integer array")
    if isinstance(value, (float, np.floating)):
        return f"the float {float(value)!r}".replace("e+", "e+")
    return "an integer"


def _check_attributes(group: h5py.Group, path: Any, name: str) -> None:
    """The t0_ns attribute's type, then TraceValidation.checkStructure's checks."""
    t0 = 0
    if "t0_ns" in group.attrs:
        value = group.attrs["t0_ns"]
        number = value.item() if isinstance(value, np.generic) else value
        if not isinstance(number, (int, np.integer)) or isinstance(number, bool):
            raise recording_error(path, name, [f"attribute t0_ns: is {_kind(value)}, expected int64"])
        t0 = max(-(2**63), min(2**63 - 1, int(number)))
    lengths = {column: group["capabilities"][column].shape[0] for column in ("type", "code")}
    if lengths["type"] != lengths["code"]:
        raise ForceTraceFileError(path, f"recording '{name}': capabilities/type and capabilities/code differ in length")
    axes_columns = [c["name"] for c in TABLES[0]["columns"] if c["name"] != "name" and c["name"] in group["axes"]]
    if len({group["axes"][column].shape[0] for column in axes_columns}) > 1:
        raise ForceTraceFileError(path, f"recording '{name}': the axes table's columns differ in length")
    lines = []
    if abs(t0) > LIMITS["time_ns"]:
        lines.append(f"attribute t0_ns: {t0} is beyond ±2^62 ns (146 years)")
    for attribute in ("source", "clock", "contact_protocol", "import_status", "stop_reason"):
        value = group.attrs.get(attribute)
        if isinstance(value, (str, bytes)) and len(value) == 0:
            lines.append(f"attribute {attribute}: is empty (its string in the file is damaged)")
    # Not read by forcetrace (it takes both from the axes), but documented as int64: other readers use them.
    for attribute, low, high, expected in (("slots", 0, LIMITS["maximum_slots"], f"a slot count; expected 0 to {LIMITS['maximum_slots']}"),
                                           ("pressure_axis", -1, LIMITS["maximum_axis_code"],
                                            f"an axis code; expected -1 (none) or 0 to {LIMITS['maximum_axis_code']}")):
        if attribute in group.attrs:
            number = _exact_integer(group.attrs[attribute])
            if number is None:
                raise recording_error(path, name, [f"attribute {attribute}: is {_kind(group.attrs[attribute])}, expected int64"])
            if not low <= number <= high:
                lines.append(f"attribute {attribute}: {number} is not {expected}")
    axes = group["axes"]
    codes, minimum, maximum = axes["code"][:], axes["min"][:], axes["max"][:]
    slot = np.nonzero(codes == 0x2F)[0]
    if len(slot) and len(minimum) == len(codes) and len(maximum) == len(codes):
        low, high = int(minimum[slot[0]]), int(maximum[slot[0]])
        if not (low >= 0 and high >= low and high - low < 1024):
            lines.append(f"axes: ABS_MT_SLOT's range {low}..{high} is not a slot count; expected 0..N-1 with at most "
                         f"{LIMITS['maximum_slots']} slots")
    if lines:
        raise recording_error(path, name, lines)
    if _import_status(group) is not None:
        check_lengths(group, path, name)
    events = group["events"]["t_ns"]
    if events.shape[0]:  # the recording's duration (TraceRecording.lastEventTimeNs, which info shows)
        last = events[-1:].astype(np.int64)
        if _first_beyond(last) is not None:
            raise recording_error(path, name, [f"events row {events.shape[0] - 1}: t_ns {int(last[0])} is beyond ±2^62 ns (146 years)"])


def _import_status(group: h5py.Group) -> Optional[str]:
    """`import_status` when it is one forcetrace knows; None marks an unfinished recording."""
    from ._h5 import decode
    value = group.attrs.get("import_status")
    value = decode(value) if isinstance(value, (bytes, str)) else None
    return value if value in ("complete", "partial") else None


def check_lengths(group: h5py.Group, path: Any, name: str) -> None:
    """TraceValidation.checkLengths: a finished recording's tables have
    columns of equal length, optional ones at most as long."""
    for table in TABLES:
        if table["name"] in ("axes", "capabilities") or table["name"] not in group:
            continue
        columns = group[table["name"]]
        required = {columns[c["name"]].shape[0] for c in table["columns"] if c["required"] and c["name"] in columns}
        optional = [columns[c["name"]].shape[0] for c in table["columns"] if not c["required"] and c["name"] in columns]
        rows = next(iter(required), 0)
        if len(required) > 1 or any(length > rows for length in optional):
            raise _fail(path, name, f"the {table['name']} columns differ in length", DAMAGED_HINT)


# Row checks: what `forcetrace report` checks as it reads the tables
# (TraceReader.contacts and TraceValidation.checkContacts, the labels'
# LabelClasses, PressureAnalyzer's samples loop with checkTimes and
# RowChecks), in its order and words. Each is a vectorised pass over whole
# columns: the cost is linear in the rows the file stores.

DOWN_FLAG = 1  # SampleFlags.down
BLOCK_ROWS = 65536  # AnalysisOptions.chunkRows: report checks times a block before the block's rows


def _stored(group: h5py.Group, table: str) -> dict[str, np.ndarray]:
    """A table's schema columns the file holds, read whole (their sizes were bounded on open)."""
    from ._h5 import column
    names = next(t for t in TABLES if t["name"] == table)["columns"]
    return {c["name"]: column(group[table][c["name"]]) for c in names if c["name"] in group[table]}


def _first_beyond(times: np.ndarray) -> Optional[int]:
    """The first row whose time lies beyond ±2^62 ns (TraceValidation.checkTimes), or None."""
    limit = LIMITS["time_ns"]
    outside = np.flatnonzero((times > limit) | (times < -limit))
    return int(outside[0]) if len(outside) else None


def _fail(path: Any, name: str, message: str, hint: Optional[str] = None) -> ForceTraceFileError:
    return ForceTraceFileError(path, f"recording '{name}': {message}", hint)


def _check_times(path: Any, name: str, table: str, times: np.ndarray) -> None:
    row = _first_beyond(times)
    if row is not None:
        raise recording_error(path, name, [f"{table} row {row}: t_ns {int(times[row])} is beyond ±2^62 ns (146 years)"])


def _equal_lengths(path: Any, name: str, table: str, columns: dict[str, np.ndarray]) -> None:
    if len({len(values) for values in columns.values()}) > 1:
        raise _fail(path, name, f"the {table} columns differ in length")


def check_contacts(path: Any, name: str, contacts: dict[str, np.ndarray], sample_rows: int) -> None:
    """TraceValidation.checkContacts: ids 0, 1, 2, … in row order, touch-downs
    in order, t_up ≥ t_down (or −1), times within ±2^62 ns, sample rows within
    the samples table; up to 10 lines listed, counting stops past 1000."""
    limit = LIMITS["time_ns"]
    ids, down, up = (contacts[c].astype(np.int64) for c in ("id", "t_down_ns", "t_up_ns"))
    first, last = contacts["first_sample"].astype(np.int64), contacts["last_sample"].astype(np.int64)
    rows = np.arange(len(ids))
    previous = np.concatenate([[np.iinfo(np.int64).min], np.maximum.accumulate(down)[:-1]]) if len(down) else down
    wrong_id = ids != rows.astype(np.int32).astype(np.int64)  # Int32(truncatingIfNeeded: row)
    rules: list[tuple[np.ndarray, Callable[[int], str]]] = [
        (wrong_id, lambda r: f"id is {ids[r]}; ids must be 0, 1, 2, … in row order"),
        ((down > limit) | (down < -limit), lambda r: f"t_down_ns {down[r]} is beyond ±2^62 ns"),
        ((up != -1) & ((up > limit) | (up < -limit)), lambda r: f"t_up_ns {up[r]} is beyond ±2^62 ns"),
        ((up != -1) & (up < down), lambda r: f"t_up_ns {up[r]} is before t_down_ns {down[r]}"),
        (down < previous, lambda r: f"t_down_ns {down[r]} is before the previous contact's {previous[r]}; "
                                    "contacts are in touch-down order"),
        ((first < 0) | (last < first) | (last >= sample_rows),
         lambda r: f"samples {first[r]}...{last[r]} are not rows of the {sample_rows}-row samples table"),
    ]
    masks = np.stack([mask for mask, _ in rules]) if len(ids) else np.zeros((len(rules), 0), dtype=bool)
    per_row = masks.sum(axis=0)
    if not per_row.any():
        return
    # Swift stops after the row at which more than 1000 lines were found.
    over = np.flatnonzero(np.cumsum(per_row) > 1000)
    counted = per_row[: over[0] + 1] if len(over) else per_row
    lines = []
    for row in np.flatnonzero(counted):
        lines += [f"contacts row {row}: {message(int(row))}" for mask, message in rules if mask[row]]
        if len(lines) > LIMITS["shown_violations"]:
            break
    raise recording_error(path, name, lines, int(counted.sum()))


SCHEMA_LABELS = next(t for t in TABLES if t["name"] == "labels")


def check_labels(path: Any, name: str, labels: dict[str, np.ndarray], attributes: Any, contacts: int) -> None:
    """Recording.contactLabels, then groundTruth: equal columns, label times
    within ±2^62 ns, every class one of docs/FORMAT.md's."""
    classes = SCHEMA["label_classes"]
    press, calibration = set(classes["press"]), set(classes["calibration_only"])

    def unknown(value: Any) -> bool:  # PressClass(label:) lowercases; TrialClass(rawValue:) does not
        return str(value).lower() not in press and str(value) not in calibration
    hint = "use tap, peek-press or pop-press, or a calibration class (docs/FORMAT.md)"
    contact, label = labels["contact"].astype(np.int64), labels["class"]
    if len(contact) != len(label):
        raise _fail(path, name, "labels/contact and labels/class differ in length")
    # Row by row: a contact of the table (or -1), then a class of a labelled contact.
    outside = (contact < -1) | (contact >= contacts)
    classes = {value: unknown(value) for value in set(label[contact >= 0].tolist())}
    wrong = outside | np.array([value in classes and classes[value] and c >= 0 for value, c in zip(label, contact)], dtype=bool)
    if wrong.any():
        row = int(np.flatnonzero(wrong)[0])
        if outside[row]:
            raise recording_error(path, name, [f"labels row {row}: contact {contact[row]} is not a row of the "
                                               f"{contacts}-row contacts table (-1: none)"])
        raise _fail(path, name, f"labels/class has '{label[row]}'", hint)
    for threshold in ("peek", "pop"):
        if threshold in attributes:
            value = attributes[threshold]
            number = value.item() if isinstance(value, np.generic) else value
            if not isinstance(number, float) or not np.isfinite(number):
                what = f"{number!r}, not a finite number" if isinstance(number, float) else _kind(value)
                raise recording_error(path, name, [f"labels attribute {threshold}: is {what}, expected float64"])
    required = {key: values for key, values in labels.items()
                if next(c for c in SCHEMA_LABELS["columns"] if c["name"] == key)["required"]}
    _equal_lengths(path, name, "labels", required)
    if "t_ns" in labels:
        _check_times(path, name, "labels", labels["t_ns"].astype(np.int64))
    for value in label if label is not None else []:
        if unknown(value):
            raise _fail(path, name, f"labels/class has '{value}'", hint)


def check_samples(path: Any, name: str, samples: dict[str, np.ndarray], last_sample: np.ndarray) -> None:
    """PressureAnalyzer's samples loop: equal columns, then block by block
    the times (checkTimes), then each row (RowChecks): a contact of the
    table, a slot of −1…32766, a touch-down in a free slot, a continuation
    in the slot its contact holds; a contact's slot frees at its last_sample."""
    _equal_lengths(path, name, "samples", samples)
    times = samples["t_ns"].astype(np.int64)
    ids, slots, flags = samples["contact"].astype(np.int64), samples["slot"].astype(np.int64), samples["flags"]
    rows = len(ids)
    time_row = _first_beyond(times)
    backwards = np.flatnonzero(times[1:] < times[:-1])
    order_row = int(backwards[0]) + 1 if len(backwards) else None
    known = (ids >= 0) & (ids < len(last_sample))
    bad = ~known | (slots < -1) | (slots >= (1 << 15) - 1)
    # The row before each one in the same slot, and who holds the slot after it.
    order = np.argsort(slots, kind="stable")
    same = np.zeros(rows, dtype=bool)
    previous = np.full(rows, -1, dtype=np.int64)
    if rows:
        same[order[1:]] = slots[order[1:]] == slots[order[:-1]]
        previous[order[1:]] = order[:-1]
    previous[~same] = -1
    safe_ids = np.where(known, ids, 0)
    closes = known & (np.arange(rows) == (last_sample[safe_ids] if len(last_sample) else -1))
    holder = np.where(previous >= 0, np.where(closes[np.maximum(previous, 0)], -1, ids[np.maximum(previous, 0)]), -1)
    down = (flags & DOWN_FLAG) != 0
    bad |= (down & (holder >= 0)) | (~down & (holder != ids))
    bad_rows = np.flatnonzero(bad)
    row = int(bad_rows[0]) if len(bad_rows) else None
    # Block by block: the block's times, then its order, then its rows.
    found = [(r // BLOCK_ROWS, rank, r) for rank, r in enumerate((time_row, order_row, row)) if r is not None]
    if not found:
        return
    _, rank, first = min(found)
    if rank == 0:
        _check_times(path, name, "samples", times)
    if rank == 1:
        raise recording_error(path, name, [f"samples row {first}: t_ns {times[first]} is before the previous row's "
                                           f"{times[first - 1]}; rows are in time order"])
    if not known[row]:
        raise _fail(path, name, f"samples row {row} names contact {ids[row]}, which the contacts table lacks")
    if not -1 <= slots[row] < (1 << 15) - 1:
        raise _fail(path, name, f"samples row {row} has slot {slots[row]}")
    if down[row]:
        raise _fail(path, name, f"samples row {row}: contact {ids[row]} goes down in slot {slots[row]} "
                                f"while contact {holder[row]} is still open there")
    raise _fail(path, name, f"samples row {row} continues contact {ids[row]} in slot {slots[row]}, "
                            "which has no open contact with that id")


def check_rows(group: h5py.Group, path: Any, name: str) -> None:
    """Every row check `forcetrace report` makes on a finished recording, in its order."""
    contacts = _stored(group, "contacts")
    _equal_lengths(path, name, "contacts", contacts)
    samples = next(t for t in TABLES if t["name"] == "samples")
    sample_rows = group["samples"][samples["columns"][0]["name"]].shape[0]  # TraceRecording.rowCount
    check_contacts(path, name, contacts, sample_rows)
    if "labels" in group:
        check_labels(path, name, _stored(group, "labels"), group["labels"].attrs, len(contacts["id"]))

    check_samples(path, name, _stored(group, "samples"), contacts["last_sample"].astype(np.int64))
