"""Small h5py helpers shared by the readers."""
import os
from typing import Any, Union

import h5py
import numpy as np

PathLike = Union[str, "os.PathLike[str]"]


def open_file(path: PathLike, expected_format: str) -> h5py.File:
    """Opens `path` for reading; a file still held by a SWMR writer (or left
    open by a crash) is opened as a SWMR reader, as forcetrace itself does."""
    try:
        handle = h5py.File(path, "r")
    except OSError as plain_error:
        try:
            handle = h5py.File(path, "r", swmr=True)
        except OSError:
            raise OSError(f"{path}: cannot open as HDF5 ({plain_error})") from plain_error
    from ._validate import SCHEMA, check_file
    try:
        if expected_format == SCHEMA["format"]:
            check_file(handle, path)
        else:  # a saved report (forcetrace.read_report)
            found = attr(handle, "format")
            if found != expected_format:
                raise ValueError(f"{path}: not a {expected_format} file (its root attribute 'format' is {found!r})")
            refuse_foreign_objects(handle, path)
            from ._report_layout import Layout
            version = int(handle.attrs.get("format_version", 0))
            if version > Layout.FORMAT_VERSION:
                raise ValueError(f"{path}: format_version {version} is newer than this forcetrace package "
                                 f"({Layout.FORMAT_VERSION}): upgrade the package (pip install ./python)")
    except Exception:
        handle.close()
        raise
    return handle


# Groups may nest this deep; forcetrace's own files nest at most 5.
MAXIMUM_DEPTH = 16


def refuse_foreign_objects(handle: h5py.File, path: PathLike) -> None:
    """Raises ForceTraceFileError for anything docs/FORMAT.md ("Objects") does not
    define: a link other than a hard link (an external one would open another
    file, or block on a FIFO), an object other than a group or dataset, a
    second hard link to an object (it would be read twice) or groups nested
    deeper than MAXIMUM_DEPTH. Nothing is followed: link messages are read,
    each object once (by its address). Its own walk, linear in the links:
    HDF5's visits (h5py's visit) grow with the cube of the depth."""
    from ._validate import ForceTraceFileError
    file_id = handle.id
    seen = {h5py.h5o.get_info(file_id).addr: b"/"}
    pending = [(b"", 0)]
    while pending:
        group, depth = pending.pop()
        links: list[tuple[bytes, int, int]] = []
        # h5py hands every call the same LinkInfo: copy its fields.
        file_id.links.iterate(lambda name, info: links.append((name, info.type, info.u)), info=True, obj_name=group or b"/")
        subgroups = []
        for name, link_type, address in links:
            child = group + b"/" + name
            shown = child.decode("utf-8", "replace")
            if link_type == h5py.h5l.TYPE_SOFT:
                target = file_id.links.get_val(child).split(b"\0")[0].decode("utf-8", "replace")
                problem = f"{shown} is a soft link to {target}"
            elif link_type == h5py.h5l.TYPE_EXTERNAL:
                external_file, external_object = (part.decode("utf-8", "replace") for part in file_id.links.get_val(child))
                problem = f"{shown} is an external link to {external_file}:{external_object}"
            elif link_type != h5py.h5l.TYPE_HARD:
                problem = f"{shown} is a user-defined link"
            elif address in seen:
                original = seen[address].decode("utf-8", "replace")
                raise ForceTraceFileError(path, f"{shown} is a second hard link to {original}, which would be read twice; "
                                          "forcetrace writes each object once",
                                          f"delete the second link (h5py: del f[\"{shown}\"]), or re-import the recording from its source")
            else:
                seen[address] = child
                kind = h5py.h5o.get_info(file_id, child).type
                if kind == h5py.h5o.TYPE_GROUP:
                    subgroups.append(child)
                    continue
                if kind == h5py.h5o.TYPE_DATASET:
                    continue
                problem = f"{shown} is neither a group nor a dataset"
            raise ForceTraceFileError(path, f"{problem}; forcetrace reads only hard links to groups and datasets "
                                      "in the file itself, and follows no link out of it")
        if subgroups and depth + 1 > MAXIMUM_DEPTH:
            raise ForceTraceFileError(path, f"{subgroups[0].decode('utf-8', 'replace')} lies below more than {MAXIMUM_DEPTH} "
                                      "levels of groups; forcetrace's own files nest at most 5",
                                      "the file was not written by forcetrace; copy the recordings you need into a new file")
        pending.extend((child, depth + 1) for child in reversed(subgroups))


def decode(value: Any) -> Any:
    """Attribute value with strings as `str` and one-element arrays kept as arrays."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray) and value.dtype.kind in "OS":
        return [decode(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    return value


def attr(obj: Any, name: str, default: Any = None) -> Any:
    return decode(obj.attrs[name]) if name in obj.attrs else default


def attrs(obj: Any) -> dict[str, Any]:
    return {key: decode(value) for key, value in obj.attrs.items()}


def column(dataset: h5py.Dataset, rows: Any = slice(None)) -> np.ndarray:
    """A column as numpy; string columns as an object array of `str`
    (h5py returns variable-length strings in datasets as bytes)."""
    if h5py.check_string_dtype(dataset.dtype) is not None:
        return np.asarray(dataset.asstr()[rows], dtype=object)
    values: np.ndarray = dataset[rows]
    if values.dtype.kind == "S":
        return np.array([v.decode("utf-8") for v in values], dtype=object)
    return values


NOT_A_VARIABLE = "This is a netCDF dimension but not a netCDF variable."


def is_scale(dataset: h5py.Dataset) -> bool:
    """An HDF5 dimension scale (docs/FORMAT.md, "Dimensions")."""
    return bool(decode(dataset.attrs.get("CLASS", b"")) == "DIMENSION_SCALE")


def is_dimension_only(dataset: h5py.Dataset) -> bool:
    """A scale that stores no data, only a dimension's name and length; a
    scale with values (a coordinate, such as the report's `sweep/threshold`) is data."""
    return is_scale(dataset) and decode(dataset.attrs.get("NAME", b"")).startswith(NOT_A_VARIABLE)


def is_column(dataset: Any) -> bool:
    """A table column: one-dimensional, not a dimension-only scale of the table."""
    return isinstance(dataset, h5py.Dataset) and dataset.ndim == 1 and not is_dimension_only(dataset)


def column_names(group: h5py.Group) -> list[str]:
    return [name for name, obj in group.items() if is_column(obj)]
