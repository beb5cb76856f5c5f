"""h5py opens what forcetrace writes, with no glue: names, dtypes, counts, attributes."""
import h5py
import numpy as np
import pytest

from conftest import SAMPLES, SHARED_NAMES, run, shared_recording

EXPECTED_DTYPES = {
    "events": {"t_ns": "int64", "type": "uint16", "code": "uint16", "value": "int32"},
    "samples": {"t_ns": "int64", "contact": "int32", "slot": "int16", "x": "int32", "y": "int32",
                "pressure": "int32", "flags": "uint8"},
    "contacts": {"id": "int32", "slot": "int16", "tracking_id": "int32", "tool": "uint16", "t_down_ns": "int64",
                 "t_up_ns": "int64", "first_sample": "int64", "last_sample": "int64", "n_samples": "int64"},
    "markers": {"t_ns": "int64", "kind": "uint8", "event_index": "int64"},
    "axes": {"code": "uint16", "min": "int32", "max": "int32", "fuzz": "int32", "flat": "int32",
             "resolution": "int32", "value": "int32"},
    "capabilities": {"type": "uint16", "code": "uint16"},
}


def e_lines(path):
    """(timestamp text, type, code, value) of every E: line."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("E:"):
                fields = line.split("#")[0].split()
                rows.append((fields[1], int(fields[2], 16), int(fields[3], 16), int(fields[4])))
    return rows


def check_recording(group, source_path):
    for table, columns in EXPECTED_DTYPES.items():
        assert set(group[table].keys()) >= set(columns), table
        for column, dtype in columns.items():
            dataset = group[table][column]
            assert dataset.dtype == np.dtype(dtype), f"{table}/{column}"
            assert dataset.ndim == 1
    assert h5py.check_string_dtype(group["axes/name"].dtype) is not None

    # Every E: line is an event row, in order, with the same numbers.
    lines = e_lines(source_path)
    events = group["events"]
    assert len(events["t_ns"]) == len(lines)
    assert events["type"][:].tolist() == [row[1] for row in lines]
    assert events["code"][:].tolist() == [row[2] for row in lines]
    assert events["value"][:].tolist() == [row[3] for row in lines]
    micros = [int(ts.split(".")[0]) * 1_000_000 + int(ts.split(".")[1]) for ts, *_ in lines]
    t0 = group.attrs["t0_ns"]
    assert ((events["t_ns"][:] + t0) // 1000).tolist() == micros
    assert events["t_ns"][0] == 0

    # The big tables are chunked, shuffled and deflated.
    for table in ("events", "samples"):
        dataset = group[table]["t_ns"]
        assert dataset.chunks is not None
        assert dataset.compression == "gzip"
        assert dataset.shuffle
        assert dataset.maxshape == (None,)

    # Contacts point at their own sample rows.
    contacts = group["contacts"]
    samples_contact = group["samples/contact"][:]
    for cid, first, last, count in zip(contacts["id"][:], contacts["first_sample"][:],
                                       contacts["last_sample"][:], contacts["n_samples"][:]):
        rows = np.nonzero(samples_contact == cid)[0]
        assert len(rows) == count
        assert rows[0] == first and rows[-1] == last
        assert group["samples/flags"][first] & 1, "a contact's first row is its down row"

    assert isinstance(group.attrs["device_name"], str)
    assert group.attrs["device_id"].shape == (4,)
    assert group.attrs["clock"] in ("realtime", "monotonic", "relative")
    assert group.attrs["import_status"] == "complete"
    assert group.attrs["source"].startswith("evemu:")


@pytest.mark.parametrize("name", SHARED_NAMES)
def test_shared_recording_opens_in_h5py(forcetrace, tmp_path, name):
    source = shared_recording(name)
    out = tmp_path / "trace.h5"
    run(forcetrace, "import", source, "-o", out)
    with h5py.File(out, "r") as handle:
        assert handle.attrs["format"] == "forcetrace"
        assert handle.attrs["format_version"] == 1
        assert isinstance(handle.attrs["created_utc"], str)
        assert handle.attrs["tool_version"].startswith("forcetrace ")
        (group_name,) = handle["recordings"].keys()
        check_recording(handle["recordings"][group_name], source)


def test_samples_open_in_pandas(forcetrace, tmp_path):
    import pandas as pd

    samples = sorted(SAMPLES.glob("*.evemu"))
    assert samples, "samples/ holds the project's simulated recordings"
    out = tmp_path / "samples.h5"
    run(forcetrace, "import", *samples, "-o", out)
    with h5py.File(out, "r") as handle:
        assert len(handle["recordings"]) == len(samples)
        for path in samples:
            group = handle["recordings"][path.stem]
            check_recording(group, path)
            frame = pd.DataFrame({name: group["samples"][name][:] for name in group["samples"]})
            # Simulated presses press: pressure rises above zero, x/y stay on the panel.
            assert frame["pressure"].max() > 200
            assert frame["x"].between(0, 4095).all()
            assert group["contacts/t_up_ns"][:].min() > 0
