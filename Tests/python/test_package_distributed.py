"""forcetrace.distributed.report on a LocalCluster of two workers equals
`forcetrace report` over the same files, number for number."""
import json
import sys

import pytest

from conftest import ROOT, SAMPLES, SHARED_NAMES, SHARED, run

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402  (`forcetrace` is the CLI fixture)
import forcetrace.distributed  # noqa: E402,F401

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def folder(forcetrace, tmp_path_factory):
    folder = tmp_path_factory.mktemp("many")
    for source in sorted(SAMPLES.glob("*.evemu")):
        run(forcetrace, "import", source, "-o", folder / f"{source.stem}.h5")
    run(forcetrace, "simulate", "--seed", "5", "--presses", "12", "-o", folder / "extra.evemu")
    run(forcetrace, "import", folder / "extra.evemu", "-o", folder / "extra.h5")
    for name in SHARED_NAMES:  # genuine devices too, when ../shared is there
        if (SHARED / name).exists():
            run(forcetrace, "import", SHARED / name, "-o", folder / f"shared-{len(list(folder.glob('shared-*')))}.h5")
    return folder


def local_total(forcetrace, files, *options):
    return json.loads(run(forcetrace, "report", *files, "--json", "--contacts", "0", *options).stdout)["total"]


def test_two_workers_equal_one_report(forcetrace, folder, client):
    files = sorted(folder.glob("*.h5"))
    assert len(files) >= 3
    total = ft.distributed.report(files, client=client, forcetrace=forcetrace)["total"]
    assert len(client.scheduler_info()["workers"]) == 2
    assert total == local_total(forcetrace, files)
    assert total["contacts"] > 0


def test_options_and_batched_merges(forcetrace, folder, client):
    files = sorted(folder.glob("*.h5"))
    options = ["--tolerance", "0.1mm", "--sensitivity", "firm", "--smooth", "ema:0.5"]
    total = ft.distributed.report(files, client=client, forcetrace=forcetrace,
                                                        options=options, batch=2)["total"]
    assert total == local_total(forcetrace, files, *options)


def test_a_bad_file_names_itself(forcetrace, folder, client, tmp_path):
    bad = tmp_path / "bad.h5"
    bad.write_text("not hdf5")
    with pytest.raises(RuntimeError, match="bad.h5"):
        ft.distributed.report([bad], client=client, forcetrace=forcetrace)


def test_without_a_client_a_local_cluster_runs_for_the_call(forcetrace, folder):
    files = sorted(folder.glob("*.h5"))[:2]
    assert ft.distributed.report(files, forcetrace=forcetrace)["total"] == local_total(forcetrace, files)


def test_a_scheduler_address_with_worker_processes(forcetrace, folder, monkeypatch):
    """As on a real cluster: a client connected by address, tasks pickled to worker processes."""
    import os

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    files = sorted(folder.glob("*.h5"))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        with distributed.Client(cluster.scheduler_address) as remote:
            total = ft.distributed.report(files, client=remote, forcetrace=forcetrace)["total"]
            workers = remote.scheduler_info()["workers"]
    assert len(workers) == 2
    assert total == local_total(forcetrace, files)


def test_the_other_failures_are_counted_in_the_plural(forcetrace, client, tmp_path):
    """Bad files fail one each: with two, "1 other file failed too"; with
    three, "2 other files"."""
    bad = []
    for index in range(3):
        bad.append(tmp_path / f"bad{index}.h5")
        bad[-1].write_text("not hdf5")
    for files, more in [(bad[:2], "; 1 other file failed too: "), (bad, "; 2 other files failed too: ")]:
        with pytest.raises(RuntimeError) as error:
            ft.distributed.report(files, client=client, forcetrace=forcetrace, tasks=len(files))
        assert more in str(error.value), str(error.value)
