#!/usr/bin/env python3
"""Writes hostile trace files: a good trace (one recording, as `forcetrace
import` wrote it) changed with h5py once per rule of docs/FORMAT.md that a
reader enforces, in several variants per damage class, plus valid edge cases
that every reader must accept.

    python3 Tests/hostile/generate.py GOOD.h5 OUT_FOLDER

writes OUT_FOLDER/NAME.h5 for every variant and OUT_FOLDER/manifest.json:
{NAME: {"valid": bool, "expect": {...}}}. `expect` of a valid file holds the
values a reader must return (recordings, rows per table); of a damaged one,
a piece of the message that names the object ("samples/pressure").
Tests/python/test_hostile_matrix.py runs every read command on each file."""
import json
import shutil
import sys
from pathlib import Path

import h5py
import numpy as np

YEAR_NS = 365 * 24 * 3600 * 10**9
ABS_MT_SLOT = 0x2F
LIMIT_NS = 2**62 - 1
TABLES = ("axes", "capabilities", "events", "samples", "contacts", "markers")


def rec(f):
    """The (first) recording's group."""
    group = f["recordings"]
    return group[sorted(group)[0]]


def replace(group, name, data=None, **kwargs):
    """Replaces dataset `name` of `group` by a new one (attributes dropped)."""
    if name in group:
        del group[name]
    if data is None:
        group.create_dataset(name, **kwargs)
    else:
        group.create_dataset(name, data=data, **kwargs)


def column(table, name, convert):
    """Column `table/name` rewritten as convert(its values)."""
    def change(f):
        group = rec(f)[table]
        replace(group, name, convert(group[name][:]))
    return change


def edit(table, name, body):
    """Column `table/name` edited in place by body(values) (same dtype)."""
    def change(f):
        values = rec(f)[table][name][:]
        body(values)
        rec(f)[table][name][...] = values
    return change


def attribute(path, name, value, delete=False):
    def change(f):
        target = f[path] if path == "/" else (rec(f) if path == "REC" else rec(f)[path])
        if delete:
            del target.attrs[name]
        else:
            target.attrs[name] = value
    return change


def both(*changes):
    def change(f):
        for one in changes:
            one(f)
    return change


def delete(path):
    def change(f):
        del rec(f)[path]
    return change


def sparse(table, name, dtype, rows, chunk=2):
    """`rows` declared in `chunk`-row chunks, none written."""
    def change(f):
        replace(rec(f)[table], name, shape=(rows,), maxshape=(None,), chunks=(chunk,), dtype=dtype)
    return change


def rechunk(table, name, chunk_rows):
    """Column `table/name` stored again in `chunk_rows`-row chunks (shuffle + deflate)."""
    def change(f):
        group = rec(f)[table]
        values = group[name][:]
        replace(group, name, values, maxshape=(None,), chunks=(chunk_rows,), compression="gzip", shuffle=True)
    return change


def shorten(table, name, rows=1):
    return column(table, name, lambda values: values[:-rows] if len(values) > rows else values[:0])


def lengthen(table, name):
    """One row more than the table's other columns (a zero row if it has none)."""
    return column(table, name, lambda values: np.concatenate([values, np.zeros(1, values.dtype)]))


ENUM = h5py.enum_dtype({"a": 0, "b": 1}, basetype="i4")
COMPOUND = np.dtype([("a", "<i4"), ("b", "<i4")])


def as_enum(values):
    return np.asarray(values % 2, dtype=ENUM)


def as_compound(values):
    out = np.zeros(len(values), dtype=COMPOUND)
    out["a"] = values
    return out


def as_strings(values):
    return np.array([str(v).encode() for v in values], dtype=h5py.string_dtype())


def nested(depth):
    def change(f):
        group = f
        for level in range(depth):
            group = group.create_group(f"g{level}")
    return change


def soft_link(f):
    rec(f)["soft"] = h5py.SoftLink("/recordings")


def external_link(f):
    rec(f)["outside"] = h5py.ExternalLink("other.h5", "/x")


def second_link(f):
    f["recordings"]["again"] = rec(f)


def second_link_dataset(f):
    rec(f)["samples"]["t_ns_again"] = rec(f)["samples"]["t_ns"]


def committed_type(f):
    f["named_type"] = np.dtype("i4")


def no_recordings(f):
    del f["recordings"]


def recordings_dataset(f):
    del f["recordings"]
    f["recordings"] = np.arange(3)


def empty_recordings(f):
    for name in list(f["recordings"]):
        del f["recordings"][name]


def empty_recording(f):
    name = sorted(f["recordings"])[0]
    del f["recordings"][name]
    f["recordings"].create_group(name)


def rank2(table, name):
    return column(table, name, lambda values: np.stack([values, values], axis=1))


def scalar(table, name):
    def change(f):
        group = rec(f)[table]
        first = group[name][0]
        replace(group, name, np.asarray(first))
    return change


def samples_set(name, row, value):
    return edit("samples", name, lambda v: v.__setitem__(row, value))


def swap_rows(table, name, first, second):
    def body(values):
        values[first], values[second] = values[second], values[first]
    return edit(table, name, body)


def labels(extra):
    """The good trace's labels table changed by extra(its group)."""
    def change(f):
        extra(rec(f)["labels"])
    return change


def label_set(name, value):
    def body(group):
        values = group[name][:]
        values[0] = value
        group[name][...] = values
    return body


def label_replace(name, data):
    """Column `name` of the labels replaced by `data` (None: NaN of its length)."""
    def body(group):
        rows = group["contact"].shape[0]
        replace(group, name, np.full(rows, np.nan) if data is None else data)
    return body


def one_marker(t_ns, kind):
    """The markers table as one row: a marker at `t_ns` of `kind`, event 0."""
    def change(f):
        group = rec(f)["markers"]
        for name, dtype, value in (("t_ns", "i8", t_ns), ("kind", "u1", kind), ("event_index", "i8", 0)):
            replace(group, name, np.array([value], dtype=dtype), maxshape=(None,), chunks=True)
    return change


def second_recording(f):
    f["recordings"].copy(rec(f), "second")


def unicode_name(f):
    old = sorted(f["recordings"])[0]
    f["recordings"].move(old, "touch \u00e9cran \u2192 1")


def zero_rows(f):
    """Every table cut to no rows: a recording of nothing (valid)."""
    for table in ("events", "samples", "contacts", "markers", "labels"):
        group = rec(f)[table]
        for name in list(group):
            dataset = group[name]
            if dataset.ndim == 1 and "CLASS" not in dataset.attrs:
                replace(group, name, np.zeros(0, dtype=dataset.dtype), maxshape=(None,), chunks=(1024,))


def huge_uint_attribute(name):
    return attribute("REC", name, np.uint64(2**64 - 1))


# name: (change, valid, expected). A damaged file's `expected` is a piece of
# the one message every reader gives; a valid one's is filled in by `expect`.
DAMAGED = {
    # Root attributes.
    "version-0": (attribute("/", "format_version", np.int64(0)), "format_version 0"),
    "version-2": (attribute("/", "format_version", np.int64(2)), "format_version 2"),
    "version-negative": (attribute("/", "format_version", np.int64(-1)), "format_version -1"),
    "version-huge": (attribute("/", "format_version", np.int64(2**40)), "format_version"),
    "version-missing": (attribute("/", "format_version", None, delete=True), "format_version"),
    "version-string": (attribute("/", "format_version", "1"), "format_version"),
    "version-float": (attribute("/", "format_version", 1.0), "format_version"),
    "version-array": (attribute("/", "format_version", np.array([1, 1], dtype="i8")), "format_version"),
    "version-uint64-max": (attribute("/", "format_version", np.uint64(2**64 - 1)), "format_version"),
    "format-missing": (attribute("/", "format", None, delete=True), "not a forcetrace file"),
    "format-other": (attribute("/", "format", "forcetrace-report"), "written by 'report --save'"),
    "format-bytes-array": (attribute("/", "format", np.array([b"forcetrace", b"x"])), "not a forcetrace file"),
    # Objects.
    "no-recordings-group": (no_recordings, "/recordings"),
    "recordings-is-dataset": (recordings_dataset, "recordings"),
    "soft-link": (soft_link, "soft link"),
    "external-link": (external_link, "external link"),
    "second-hard-link-recording": (second_link, "second hard link"),
    "second-hard-link-dataset": (second_link_dataset, "second hard link"),
    "committed-datatype": (committed_type, "named_type"),
    "nested-groups-20": (nested(20), "levels of groups"),
    "nested-groups-200": (nested(200), "levels of groups"),
    "empty-recording": (empty_recording, "missing the axes table"),
    # Tables and columns missing.
    **{f"missing-table-{table}": (delete(table), f"missing the {table} table") for table in TABLES},
    "missing-column-samples-pressure": (delete("samples/pressure"), "samples: missing column pressure"),
    "missing-column-samples-t_ns": (delete("samples/t_ns"), "samples: missing column t_ns"),
    "missing-column-contacts-id": (delete("contacts/id"), "contacts: missing column id"),
    "missing-column-events-value": (delete("events/value"), "events: missing column value"),
    "missing-column-axes-min": (delete("axes/min"), "axes: missing column min"),
    "missing-column-axes-name": (delete("axes/name"), "axes: missing column name"),
    "missing-column-capabilities-code": (delete("capabilities/code"), "capabilities: missing column code"),
    "missing-column-markers-kind": (delete("markers/kind"), "markers: missing column kind"),
    "missing-column-labels-class": (labels(lambda g: g.__delitem__("class")), "labels: missing column class"),
    # Column classes, widths and ranks.
    "float-samples-pressure-nan": (column("samples", "pressure", lambda v: np.where(np.arange(len(v)) % 3, v, np.nan)),
                                   "samples/pressure"),
    "float-samples-x-inf": (column("samples", "x", lambda v: np.where(np.arange(len(v)) % 5, v, np.inf)), "samples/x"),
    "float-contacts-id": (column("contacts", "id", lambda v: v.astype("f8")), "contacts/id"),
    "float32-events-t_ns": (column("events", "t_ns", lambda v: v.astype("f4")), "events/t_ns"),
    "string-samples-pressure": (column("samples", "pressure", as_strings), "samples/pressure"),
    "string-axes-code": (column("axes", "code", as_strings), "axes/code"),
    "enum-samples-contact": (column("samples", "contact", as_enum), "samples/contact"),
    "compound-samples-x": (column("samples", "x", as_compound), "samples/x"),
    "int64-samples-flags": (column("samples", "flags", lambda v: v.astype("i8")), "samples/flags"),
    "int8-samples-slot": (column("samples", "slot", lambda v: v.astype("i1")), "samples/slot"),
    "uint32-samples-pressure": (column("samples", "pressure", lambda v: v.astype("u4")), "samples/pressure"),
    "int32-events-t_ns": (column("events", "t_ns", lambda v: v.astype("i4")), "events/t_ns"),
    "int-axes-name": (column("axes", "name", lambda v: np.arange(len(v), dtype="i4")), "axes/name"),
    "int-labels-class": (labels(label_replace("class", np.array([1], "i4"))), "labels/class"),
    "int-labels-intended-peak": (labels(label_replace("intended_peak", np.array([1], "i8"))), "labels/intended_peak"),
    "rank2-samples-x": (rank2("samples", "x"), "samples/x"),
    "rank2-contacts-t_up_ns": (rank2("contacts", "t_up_ns"), "contacts/t_up_ns"),
    "scalar-events-code": (scalar("events", "code"), "events/code"),
    # Column lengths.
    "short-samples-y": (shorten("samples", "y"), "samples"),
    "long-samples-flags": (lengthen("samples", "flags"), "samples"),
    "short-contacts-tool": (shorten("contacts", "tool"), "contacts"),
    "short-events-code": (shorten("events", "code"), "events"),
    "short-axes-max": (shorten("axes", "max"), "axes"),
    "short-capabilities-type": (shorten("capabilities", "type"), "capabilities"),
    "short-markers-event_index": (lengthen("markers", "event_index"), "markers"),
    # Declared extents.
    "extent-samples-2^40": (sparse("samples", "t_ns", "i8", 2**40, 16384), "samples/t_ns: declares 1099511627776 rows"),
    "extent-events-2^23-chunks-2": (sparse("events", "t_ns", "i8", 8_388_610), "events/t_ns: declares 8388610 rows"),
    "extent-axes-2^24-chunks-2": (sparse("axes", "fuzz", "i4", 16_711_688), "axes/fuzz: declares 16711688 rows"),
    "extent-contacts-2^30": (sparse("contacts", "n_samples", "i8", 2**30, 4096), "contacts/n_samples: declares"),
    "unknown-column-longer": (sparse("samples", "extra", "i4", 2**27, 2), "samples/extra"),
    # A chunk is inflated whole for any part of it: 16 MiB at most.
    "chunks-events-t_ns-over-16MiB": (rechunk("events", "t_ns", 2**21 + 1), "events/t_ns: has chunks of 2097153 rows"),
    "unknown-column-more-rows": (lambda f: rec(f)["contacts"].create_dataset("extra", data=np.zeros(10**5, "i4")),
                                 "contacts/extra"),
    # Recording attributes.
    "t0-string": (attribute("REC", "t0_ns", "1764400000000000000"), "attribute t0_ns"),
    "t0-float": (attribute("REC", "t0_ns", 1.5e18), "attribute t0_ns"),
    "t0-beyond-limit": (attribute("REC", "t0_ns", np.int64(2**63 - 1)), "attribute t0_ns"),
    "t0-uint64-max": (huge_uint_attribute("t0_ns"), "attribute t0_ns"),
    "slots-uint64-max": (huge_uint_attribute("slots"), "attribute slots"),
    "pressure-axis-uint64-max": (huge_uint_attribute("pressure_axis"), "attribute pressure_axis"),
    "pressure-axis-string": (attribute("REC", "pressure_axis", "ABS_MT_PRESSURE"), "attribute pressure_axis"),
    "source-empty": (attribute("REC", "source", ""), "attribute source"),
    "clock-empty": (attribute("REC", "clock", ""), "attribute clock"),
    "slot-axis-2^31": (edit("axes", "max", lambda v: None), "ABS_MT_SLOT"),  # filled in below
    # Contacts.
    "contacts-ids-swapped": (swap_rows("contacts", "id", 3, 4), "contacts row 3"),
    "contacts-up-before-down": (edit("contacts", "t_up_ns", lambda v: v.__setitem__(2, -5)), "contacts row 2"),
    "contacts-down-out-of-order": (swap_rows("contacts", "t_down_ns", 1, 2), "contacts row"),
    "contacts-down-beyond-limit": (edit("contacts", "t_down_ns", lambda v: v.__setitem__(0, -(2**63))), "contacts row 0"),
    "contacts-samples-outside": (edit("contacts", "last_sample", lambda v: v.__setitem__(1, 10**9)), "contacts row 1"),
    "contacts-first-sample-negative": (edit("contacts", "first_sample", lambda v: v.__setitem__(0, -1)), "contacts row 0"),
    # Samples.
    "samples-contact-nonexistent": (samples_set("contact", 3, 99999), "samples row 3"),
    "samples-contact-negative": (samples_set("contact", 4, -7), "samples row 4"),
    "samples-time-backwards": (swap_rows("samples", "t_ns", 5, 40), "samples row"),
    "samples-time-beyond-limit": (samples_set("t_ns", 6, 2**62 + 5), "samples row 6"),
    # Events and markers.
    "events-time-backwards": (swap_rows("events", "t_ns", 10, 200), "events row"),
    "events-time-beyond-limit": (edit("events", "t_ns", lambda v: v.__setitem__(len(v) - 1, -(2**63))), "events row"),
    "markers-time-beyond-limit": (one_marker(2**63 - 1, 1), "markers row 0"),
    # Labels.
    "labels-class-unknown": (labels(label_set("class", b"bogus")), "labels/class"),
    "labels-contact-outside": (labels(label_set("contact", 99999)), "labels row 0"),
    "labels-time-beyond-limit": (labels(label_set("t_ns", 2**62 + 1)), "labels row 0"),
    "labels-peek-string": (labels(lambda g: g.attrs.__setitem__("peek", "high")), "labels attribute peek"),
    "labels-peek-inf": (labels(lambda g: g.attrs.__setitem__("peek", np.inf)), "labels attribute peek"),
    "labels-contact-below-none": (labels(label_set("contact", -2)), "labels row 0"),
    "slots-string": (attribute("REC", "slots", "10"), "attribute slots"),
    "pressure-axis-beyond-abs-max": (attribute("REC", "pressure_axis", np.int64(64)), "attribute pressure_axis"),
    # Where nothing can be read.
    "empty-recordings-group": (empty_recordings, "no recordings"),
}

VALID = {
    "good": None,
    "unknown-column-equal-length": lambda f: rec(f)["samples"].create_dataset(
        "extra", data=np.arange(len(rec(f)["samples"]["t_ns"]), dtype="i4")),
    "labels-absent": delete("labels"),
    "labels-all-nan-peak": labels(label_replace("intended_peak", None)),
    "second-recording": second_recording,
    "unicode-recording-name": unicode_name,
    "zero-rows": zero_rows,
    "extra-root-attribute": attribute("/", "comment", "hand-added"),
    "extra-group-outside-recordings": lambda f: f.create_group("notes"),
    "marker-kind-unknown": one_marker(0, 200),
    "t0-at-limit": attribute("REC", "t0_ns", np.int64(LIMIT_NS)),
    "chunks-events-t_ns-16MiB": rechunk("events", "t_ns", 2**21),
    # HDF5 converts any byte order exactly: the schema's type is class, width and sign.
    "bigendian-samples-x": column("samples", "x", lambda v: v.astype(">i4")),
    # Optional columns came within version 1: older files hold fewer rows of them (read as unknown).
    "short-labels-kind": labels(label_replace("kind", np.array([], dtype=h5py.string_dtype()))),
    # Contact -1: a label matched to no contact.
    "labels-contact-none": labels(label_set("contact", -1)),
}


def slot_axis_wide(f):
    axes = rec(f)["axes"]
    row = int(np.nonzero(axes["code"][:] == ABS_MT_SLOT)[0][0])
    high = axes["max"][:]
    high[row] = 2**31 - 1
    axes["max"][...] = high


DAMAGED["slot-axis-2^31"] = (slot_axis_wide, "ABS_MT_SLOT")


def expect(path):
    """What a reader must return for a valid file: recordings and rows per table."""
    with h5py.File(path, "r") as f:
        return {name: {table: int(group[table][next(iter(_columns(group[table])))].shape[0])
                       for table in (*TABLES, "labels") if table in group}
                for name, group in f["recordings"].items()}


def _columns(group):
    return [name for name, obj in group.items() if isinstance(obj, h5py.Dataset) and "CLASS" not in obj.attrs]


def generate(good, folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for name, entry in [*((n, (c, False, m)) for n, (c, m) in DAMAGED.items()),
                        *((n, (c, True, None)) for n, c in VALID.items())]:
        change, valid, message = entry
        path = folder / f"{name}.h5"
        shutil.copy(good, path)
        if change is not None:
            with h5py.File(path, "r+") as f:
                change(f)
        manifest[name] = {"valid": valid, "expect": expect(path) if valid else message}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return manifest


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(f"{len(generate(sys.argv[1], sys.argv[2]))} files in {sys.argv[2]}")
