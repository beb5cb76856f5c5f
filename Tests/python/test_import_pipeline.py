"""`import` compresses full chunks itself (shuffle, then libdeflate) on a second
thread and stores them with H5Dwrite_chunk (Tests/bench/README.md, "Import on two cores").
The file must stay what HDF5's own shuffle+deflate filters write: h5py, h5dump
and h5diff read it, its chunks are plain zlib streams, and its tables equal
those of `record --replay`, which writes through HDF5's filters."""
import subprocess
import zlib

import h5py
import numpy as np
import pytest

from conftest import SHARED_NAMES, run, shared_recording

TABLES = ("events", "samples", "contacts")


@pytest.fixture(scope="module")
def pair(forcetrace, tmp_path_factory):
    """One simulated recording (several 65536-row chunks) imported, and
    recorded by replay through HDF5's filters."""
    directory = tmp_path_factory.mktemp("pipeline")
    recording = directory / "sim.evemu"
    run(forcetrace, "simulate", "--seed", "3", "--presses", "700", "-o", recording)
    imported = directory / "imported.h5"
    replayed = directory / "replayed.h5"
    run(forcetrace, "import", recording, "-o", imported)
    run(forcetrace, "record", "--replay", recording, "--fast", "-q", "-o", replayed)
    return imported, replayed


def columns(handle, table):
    (group,) = handle["recordings"].values()
    return {name: dataset for name, dataset in group[table].items() if dataset.attrs.get("CLASS") != b"DIMENSION_SCALE"}


def test_chunk_written_tables_equal_the_filter_written_ones(pair):
    imported, replayed = pair
    with h5py.File(imported, "r") as ours, h5py.File(replayed, "r") as theirs:
        assert columns(ours, "events")["t_ns"].shape[0] > 3 * 65536, "several whole chunks went through the pipeline"
        for table in TABLES:
            mine, reference = columns(ours, table), columns(theirs, table)
            assert mine.keys() == reference.keys()
            for name, dataset in mine.items():
                other = reference[name]
                where = f"{table}/{name}"
                assert dataset.dtype == other.dtype, where
                # The recorder chunks smaller, for its flushes; import uses the file's 65536
                # (contacts 4096), or the table's length when it is shorter (FORMAT.md).
                configured = 65536 if table != "contacts" else 4096
                assert dataset.chunks == ((configured,) if dataset.shape[0] >= configured else (max(1, dataset.shape[0]),)), where
                assert (dataset.compression, dataset.compression_opts, dataset.shuffle) == ("gzip", 4, True), where
                assert (other.compression, other.compression_opts, other.shuffle) == ("gzip", 4, True), where
                np.testing.assert_array_equal(dataset[:], other[:], err_msg=where)


def test_h5diff_and_h5dump_read_the_chunk_written_file(pair):
    imported, replayed = pair
    with h5py.File(imported, "r") as handle:
        (name,) = handle["recordings"].keys()
    for table in TABLES:
        path = f"/recordings/{name}/{table}"
        # Exit status 0: no differences in the data (dimension lists are not comparable, not different).
        result = subprocess.run(["h5diff", str(imported), str(replayed), path, path], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
    dump = subprocess.run(["h5dump", "-d", f"/recordings/{name}/events/value", str(imported)], capture_output=True, text=True)
    assert dump.returncode == 0 and "DATA" in dump.stdout, dump.stderr


def unshuffle(raw, dtype, rows):
    planes = np.frombuffer(raw, dtype=np.uint8).reshape(dtype.itemsize, rows)
    return planes.T.copy().view(dtype).reshape(rows)


def test_every_stored_chunk_is_a_plain_zlib_stream_of_shuffled_values(pair):
    imported, _ = pair
    with h5py.File(imported, "r") as handle:
        for table in TABLES:
            for name, dataset in columns(handle, table).items():
                rows = dataset.chunks[0]
                for index in range(dataset.shape[0] // rows):  # whole chunks: the pipeline's
                    mask, stored = dataset.id.read_direct_chunk((index * rows,))
                    values = dataset[index * rows:(index + 1) * rows]
                    raw = zlib.decompress(stored) if mask == 0 else stored
                    assert mask in (0, 2), f"{table}/{name} chunk {index}: only deflate may be skipped"
                    got = unshuffle(raw, dataset.dtype, rows) if dataset.dtype.itemsize > 1 else np.frombuffer(raw, dataset.dtype)
                    np.testing.assert_array_equal(got, values, err_msg=f"{table}/{name} chunk {index}")


@pytest.mark.parametrize("name", SHARED_NAMES)
def test_genuine_recordings_import_as_replay_records_them(forcetrace, tmp_path, name):
    source = shared_recording(name)
    imported, replayed = tmp_path / "i.h5", tmp_path / "r.h5"
    run(forcetrace, "import", source, "-o", imported)
    run(forcetrace, "record", "--replay", source, "--fast", "-q", "-o", replayed)
    with h5py.File(imported, "r") as ours, h5py.File(replayed, "r") as theirs:
        for table in TABLES:
            for column, dataset in columns(ours, table).items():
                np.testing.assert_array_equal(dataset[:], columns(theirs, table)[column][:], err_msg=f"{table}/{column}")
