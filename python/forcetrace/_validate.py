"""The checks the CLI's reader makes (Sources/ForceTrace/TraceFile/TraceReader.swift
and Validation.swift), in its order and with its words, driven by schema.json:
the registry (`TraceSchema`) as the package ships it, which a Swift test
(SchemaExportTests) holds equal to the registry."""
import json
import os
from importlib import resources
from typing import Any, Optional

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


def recording_error(path: Any, recording: str, lines: list[str]) -> ForceTraceFileError:
    """One violation, or "has N problems" with up to `shown_violations` of them (TraceValidation.error)."""
    shown = LIMITS["shown_violations"]
    listed = lines[:shown] + ([f"and {len(lines) - shown} more"] if len(lines) > shown else [])
    message = f"recording '{recording}': {listed[0]}" if len(lines) == 1 \
        else f"recording '{recording}' has {len(lines)} problems:\n  " + "\n  ".join(listed)
    return ForceTraceFileError(path, message, DAMAGED_HINT)


def _integer(value: Any) -> Optional[int]:
    """An attribute's integer as the CLI reads it (AttributeValue.intValue), or None."""
    if isinstance(value, np.ndarray):
        if value.size != 1:
            return None
        value = value.reshape(()).item()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float):
        if not value.is_integer():
            return None
        value = int(value)
    return max(-(2**63), min(2**63 - 1, value))


def check_file(handle: h5py.File, path: Any) -> None:
    """Root attributes, foreign objects and /recordings, as TraceReader.init."""
    from ._h5 import decode, refuse_foreign_objects
    found = decode(handle.attrs["format"]) if "format" in handle.attrs else None
    if found != SCHEMA["format"]:
        raise ForceTraceFileError(path, "is an HDF5 file but not a forcetrace file (no format = \"forcetrace\" attribute)")
    version = _integer(handle.attrs["format_version"]) if "format_version" in handle.attrs else None
    if version is None:
        raise ForceTraceFileError(path, "has no format_version attribute")
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
    axes = group["axes"]
    codes, minimum, maximum = axes["code"][:], axes["min"][:], axes["max"][:]
    slot = np.nonzero(codes == 0x2F)[0]
    if len(slot) and len(minimum) == len(codes) and len(maximum) == len(codes):
        low, high = int(minimum[slot[0]]), int(maximum[slot[0]])
        if not (low >= 0 and high >= low and high - low < 1024):
            lines.append(f"axes: ABS_MT_SLOT's range {low}..{high} is not a slot count; expected 0..N-1 with at most 1024 slots")
    if lines:
        raise recording_error(path, name, lines)
