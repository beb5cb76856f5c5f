"""How trace files are stored: every table chunked and compressed with plain
shuffle + deflate that h5py reads without plugins (docs/FORMAT.md, "Chunks and
compression"), and forcetrace's fast reader agrees with h5py on the values."""
import json

import h5py
import numpy as np
import pytest

from conftest import SAMPLES, SHARED_NAMES, run, shared_recording

TABLES = ("events", "samples", "contacts", "markers", "labels", "axes", "capabilities")


def assert_plain_deflate(trace):
    with h5py.File(trace, "r") as handle:
        for name, group in handle["recordings"].items():
            for table in TABLES:
                if table not in group:
                    continue
                for column, dataset in group[table].items():
                    if dataset.attrs.get("CLASS") == b"DIMENSION_SCALE":
                        assert dataset.id.get_storage_size() == 0, f"{name}/{table}/{column}: a scale holds no data"
                        continue
                    where = f"{name}/{table}/{column}"
                    assert dataset.chunks is not None, f"{where} is contiguous"
                    assert dataset.compression == "gzip" and dataset.shuffle, f"{where}: {dataset.compression}, shuffle {dataset.shuffle}"
                    assert dataset.scaleoffset is None and not dataset.fletcher32, where
                    dataset[:]  # h5py decodes it without plugins


def test_imported_sample_is_plain_shuffle_deflate_with_compressed_labels(forcetrace, tmp_path):
    trace = tmp_path / "mixed.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", trace)
    assert_plain_deflate(trace)
    with h5py.File(trace, "r") as handle:
        (group,) = handle["recordings"].values()
        classes = group["labels/class"].asstr()[:]
        kinds = group["labels/kind"].asstr()[:]
    assert set(classes) == {"tap", "peek-press", "pop-press"}
    assert set(kinds) <= {"tap", "peek", "deep", "moving", "two-finger", ""}
    # forcetrace reads the fixed-length strings back: the report's confusion matrix uses them.
    report = json.loads(run(forcetrace, "report", trace, "--json").stdout)
    assert report["total"]["suggested_thresholds"]["with_labels"] is not None


@pytest.mark.parametrize("name", SHARED_NAMES)
def test_shared_recordings_are_plain_shuffle_deflate(forcetrace, tmp_path, name):
    trace = tmp_path / "shared.h5"
    run(forcetrace, "import", shared_recording(name), "-o", trace)
    assert_plain_deflate(trace)


def test_recorded_file_is_plain_shuffle_deflate(forcetrace, tmp_path):
    trace = tmp_path / "recorded.h5"
    run(forcetrace, "record", "--replay", SAMPLES / "touchscreen-deep-presses.evemu", "--fast", "-o", trace, "--quiet")
    assert_plain_deflate(trace)
