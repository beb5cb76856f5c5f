"""forcetrace.distributed.report returns what `forcetrace report --json`
prints over the same files, per file and per recording beside the total,
whatever the batches; a bad file among good ones is named, alone."""
import json
import sys
import warnings

import pytest

from conftest import ROOT, SAMPLES, run

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402
import forcetrace.distributed  # noqa: E402,F401

pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def folder(forcetrace, tmp_path_factory):
    folder = tmp_path_factory.mktemp("dask-results")
    run(forcetrace, "import", *sorted(SAMPLES.glob("*.evemu")), "-o", folder / "samples.h5")  # two recordings
    for seed in range(3):
        run(forcetrace, "simulate", "--seed", 40 + seed, "--presses", "6", "-o", folder / f"sim-{seed}.evemu")
        run(forcetrace, "import", folder / f"sim-{seed}.evemu", "-o", folder / f"sim-{seed}.h5")
    return folder


def cli_document(forcetrace, files, *options):
    """`report --json`, with each recording's per-contact rows left out as a merge leaves them."""
    document = json.loads(run(forcetrace, "report", *files, "--json", "--contacts", "0", *options).stdout)
    for recording in document["recordings"]:
        assert recording["contacts"], "report --json lists the contacts"
        recording["contacts"] = []
    return document


@pytest.mark.parametrize("tasks", [None, 1, 3, 100], ids=["per-thread", "one", "three", "per-file"])
def test_per_file_and_per_recording_equal_report_json(forcetrace, folder, client, tasks):
    files = sorted(folder.glob("*.h5"))
    document = ft.distributed.report(files, client=client, forcetrace=forcetrace, tasks=tasks)
    expected = cli_document(forcetrace, files)
    assert [f["file"] for f in document["files"]] == [str(f) for f in files]
    assert [(r["file"], r["name"]) for r in document["recordings"]] == \
        [(r["file"], r["name"]) for r in expected["recordings"]]
    assert len(document["recordings"]) == len(files) + 1  # the samples file holds two
    for mine, theirs in zip(document["files"], expected["files"]):
        assert mine == theirs
    for mine, theirs in zip(document["recordings"], expected["recordings"]):
        assert mine == theirs
    assert document["total"] == expected["total"]
    assert document == expected


def test_with_options_and_merge_rounds(forcetrace, folder, client):
    files = sorted(folder.glob("*.h5"))
    options = ["--tolerance", "0.1mm", "--sensitivity", "firm"]
    document = ft.distributed.report(files, client=client, forcetrace=forcetrace, options=options, tasks=100,
                                     batch=2)
    assert document == cli_document(forcetrace, files, *options)


def test_a_bad_file_in_a_batch_of_good_ones_is_named_alone(forcetrace, folder, client, tmp_path):
    bad = folder / "zz-bad.h5"
    bad.write_text("not hdf5")
    try:
        files = sorted(folder.glob("*.h5"))
        with pytest.raises(RuntimeError) as error:
            ft.distributed.report(files, client=client, forcetrace=forcetrace, tasks=1)
        message = str(error.value)
        assert message.startswith(f"{bad}: forcetrace report exited "), message
        assert "failed too" not in message
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            document = ft.distributed.report(files, client=client, forcetrace=forcetrace, tasks=1, errors="skip")
        skipped = [str(w.message) for w in caught if "skipped" in str(w.message)]
        assert len(skipped) == 1 and skipped[0].startswith(f"{bad}: skipped: ")
        good = [f for f in files if f != bad]
        assert document == cli_document(forcetrace, good)
    finally:
        bad.unlink()
