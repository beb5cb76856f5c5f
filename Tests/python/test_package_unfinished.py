"""The Python package reads what a live or killed recorder leaves.

A recorder writes a contact's `contacts` row only once it has lifted, in id
order, so a file read while recording, or left by SIGKILL, lacks contacts
whose `samples` rows are there. `samples()` and `contacts()` must not raise,
and `contacts()` rebuilds the missing rows from the samples; they must agree
with what `forcetrace report` (which decodes the kept events again) says
about the same contacts, except that where a kill left the events flushed
further than the samples, the package has at most the report's samples."""
import concurrent.futures
import json
import shutil
import signal
import subprocess
import sys
import time
import warnings

import h5py
import numpy as np
import pytest

from conftest import ROOT, SAMPLES, flushed_events, run, signal_while_held, wait_for

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402  (`forcetrace` is the CLI fixture)

MIXED = SAMPLES / "touchscreen-mixed.evemu"
NAME = "touchscreen-mixed"
KILLS = 20
EV_ABS = 3
SAMPLE_COLUMNS = ("t_ns", "contact", "slot", "x", "y", "pressure", "flags")


def recorder(forcetrace, output, speed):
    return subprocess.Popen([forcetrace, "record", "--replay", str(MIXED), "--speed", str(speed), "-q",
                             "--flush-ms", "50", "-o", str(output)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def killed_at(forcetrace, output, fraction):
    """SIGKILLs a recorder held (SIGSTOP) once it has flushed `fraction` of
    the replay's events (0: once its file exists): a known point, whatever
    the machine's speed."""
    process = recorder(forcetrace, output, 2)
    total = sum(line.startswith("E:") for line in MIXED.read_text().splitlines())
    wanted = int(total * fraction)
    wait_for(lambda: process.poll() is not None or (output.exists() and (wanted == 0 or flushed_events(output, f"recordings/{NAME}") >= wanted)),
             120, f"{wanted} flushed events")
    signal_while_held(process, signal.SIGKILL, lambda: process.poll() is None)
    process.communicate(timeout=60)
    return process.returncode


def read(path):
    """samples() and contacts() of the file's recording, and the warnings they gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ft.open(path) as trace:
            recording = trace[NAME]
            samples, contacts = recording.samples(), recording.contacts()
    return samples, contacts, [str(w.message) for w in caught]


@pytest.fixture(scope="module")
def killed(forcetrace, tmp_path_factory):
    """Recorders SIGKILLed at 20 points spread over the replay (about 12 s at --speed 2), five at a time."""
    folder = tmp_path_factory.mktemp("killed")
    moments = [0.85 * k / (KILLS - 1) for k in range(KILLS)]
    outputs = [folder / f"killed-{k:02d}.h5" for k in range(KILLS)]
    with concurrent.futures.ThreadPoolExecutor(5) as pool:
        codes = list(pool.map(lambda job: killed_at(forcetrace, *job), zip(outputs, moments)))
    assert all(code == -signal.SIGKILL for code in codes), codes
    made = [path for path in outputs if path.exists()]
    assert len(made) >= KILLS - 2, f"only {len(made)} of {KILLS} recorders made their file"
    return made


def test_killed_recordings_read_with_every_sample_contact(forcetrace, killed):
    rebuilt_total = 0
    for path in killed:
        samples, contacts, messages = read(path)
        with h5py.File(path, "r", swmr=True) as raw:
            group = raw["recordings"][NAME]
            assert "import_status" not in group.attrs
            stored_ids = group["contacts/id"][:]
            stored_samples = min(group["samples"][c].shape[0] for c in ("t_ns", "contact", "x", "pressure"))
        assert len(samples) == stored_samples, path.name
        assert contacts["id"].is_unique and contacts["id"].is_monotonic_increasing, path.name
        assert set(samples["contact"]) <= set(contacts["id"]), path.name
        # The table's own rows are kept as stored; only the ids it lacks are rebuilt.
        rebuilt = contacts[contacts["rebuilt"]]
        assert sorted(contacts.loc[~contacts["rebuilt"], "id"]) == sorted(stored_ids.tolist()), path.name
        assert not set(rebuilt["id"]) & set(stored_ids.tolist()), path.name
        for row in rebuilt.itertuples():
            mine = samples[samples["contact"] == row.id]
            assert (row.first_sample, row.last_sample, row.n_samples) == (mine.index[0], mine.index[-1], len(mine))
            assert row.slot == mine["slot"].iloc[0] and row.t_down == mine["t"].iloc[0]
            assert row.still_down and row.tracking_id == -1 and row.tool == "unknown"
        rebuilt_total += len(rebuilt)
        # One warning, naming the file and the recording.
        unfinished = [m for m in messages if "not finished" in m]
        assert len(unfinished) == 1 and str(path) in unfinished[0] and NAME in unfinished[0], messages
    # The kills caught contacts while down, which the contacts table lacked.
    assert rebuilt_total >= 10, rebuilt_total


def samples_behind_events(path):
    """Whether a killed file's `samples` may lack rows its `events` imply.
    A flush writes the events' columns, then the samples' (docs/FORMAT.md,
    "Crash recovery"), so a kill between them leaves the events ahead: the
    report, which decodes the events, then counts samples the package, which
    reads `samples`, cannot see. Said conservatively: columns of a table cut
    to different lengths (a kill inside a table's flush), or an EV_ABS event
    after the last sample's time."""
    with h5py.File(path, "r", swmr=True) as raw:
        group = raw["recordings"][NAME]
        lengths = {table: {group[table][column].shape[0] for column in columns}
                   for table, columns in (("events", ("t_ns", "type", "code", "value")), ("samples", SAMPLE_COLUMNS))}
        if any(len(found) > 1 for found in lengths.values()):
            return True
        (samples,), (events,) = lengths["samples"], lengths["events"]
        last = int(group["samples/t_ns"][samples - 1]) if samples else -1
        times, types = group["events/t_ns"][:events], group["events/type"][:events]
        return bool(((types == EV_ABS) & (times > last)).any())


def package_and_report(forcetrace, path):
    """The package's `contacts()` of the file, and the report's contacts by id."""
    _, contacts, _ = read(path)
    report = json.loads(run(forcetrace, "report", path, "--json").stdout)
    return contacts, {c["id"]: c for c in report["recordings"][0]["contacts"]}


def check_rebuilt_against_the_report(path, contacts, by_id):
    """Each contact `contacts()` rebuilds has the report's slot and samples;
    where the samples may lag the events, at most the report's samples.
    Returns the contacts compared exactly and those compared as at most."""
    rebuilt = contacts[contacts["rebuilt"]]
    # Every contact the report shows still down is one the table lacked.
    assert {i for i, c in by_id.items() if c["still_down"]} <= set(rebuilt["id"]), path.name
    behind = samples_behind_events(path)
    for row in rebuilt.itertuples():
        assert row.id in by_id, (path.name, row.id)
        assert row.slot == by_id[row.id]["slot"], (path.name, row.id)
        if behind:
            assert row.n_samples <= by_id[row.id]["samples"], (path.name, row.id)
        else:
            assert row.n_samples == by_id[row.id]["samples"], (path.name, row.id)
    return (0, len(rebuilt)) if behind else (len(rebuilt), 0)


def test_rebuilt_contacts_agree_with_the_report(forcetrace, killed):
    """The report decodes the kept events again: it knows each contact the
    table lacks, with its slot and samples; the rebuilt rows must say the same."""
    exact = at_most = 0
    for path in killed:
        counts = check_rebuilt_against_the_report(path, *package_and_report(forcetrace, path))
        exact, at_most = exact + counts[0], at_most + counts[1]
    assert exact + at_most >= 10 and exact >= 1, (exact, at_most)


def lagging_cut(path):
    """Where to cut a killed file's samples as a kill between the events'
    flush and the samples' leaves them: back by their last 20 ms, but only
    rows of contacts the `contacts` table lacks (its rows are flushed after
    the samples'). None when the file has no such rows."""
    with h5py.File(path, "r", swmr=True) as raw:
        group = raw["recordings"][NAME]
        rows = min(group["samples"][column].shape[0] for column in SAMPLE_COLUMNS)
        stored = group["contacts/last_sample"][:]
        times = group["samples/t_ns"][:rows]
    if rows == 0:
        return None
    keep = max(int(np.searchsorted(times, times[-1] - 20_000_000, side="right")), int(stored.max(initial=-1)) + 1)
    return keep if keep < rows else None


def test_samples_that_lag_the_events_are_fewer_than_the_report_counts(forcetrace, killed, tmp_path):
    """A kill between the events' flush and the samples': made from a killed
    file by cutting its samples columns back. The report counts the cut
    samples from the events; the package cannot, and has fewer for the
    contacts they belong to."""
    source, keep = next((path, cut) for path in sorted(killed, key=lambda p: -p.stat().st_size)
                        if (cut := lagging_cut(path)) is not None)
    path = tmp_path / "lagging.h5"
    shutil.copy(source, path)
    subprocess.run(["h5clear", "-s", "--increment=0", str(path)], check=True)
    with h5py.File(path, "r+") as raw:
        samples = raw["recordings"][NAME]["samples"]
        cut = set(samples["contact"][keep:].tolist())
        for column in SAMPLE_COLUMNS:
            samples[column].resize((keep,))
    assert samples_behind_events(path)
    contacts, by_id = package_and_report(forcetrace, path)
    lagging = contacts[contacts["rebuilt"] & contacts["id"].isin(cut)]
    assert len(lagging) >= 1 and all(row.n_samples < by_id[row.id]["samples"] for row in lagging.itertuples())
    assert check_rebuilt_against_the_report(path, contacts, by_id) == (0, int(contacts["rebuilt"].sum()))


def test_a_live_file_opened_20_times_while_the_recorder_writes(forcetrace, tmp_path):
    output = tmp_path / "live.h5"
    process = recorder(forcetrace, output, 1)
    try:
        deadline = time.monotonic() + 30
        while not output.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert output.exists(), "the recorder never made its file"
        rows = []
        for _ in range(20):
            samples, contacts, _ = read(output)
            assert set(samples["contact"]) <= set(contacts["id"])
            rows.append(len(samples))
            time.sleep(0.2)
        assert process.poll() is None, "the recording ended before the 20 reads"
        assert rows[-1] > rows[0], rows  # it was growing
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)
    assert process.returncode == 0


def test_columns_flushed_to_different_lengths_are_cut_to_the_common_length(killed, tmp_path):
    """A kill between two columns' flushes: made from a killed file by
    shortening one samples and one events column, as such a kill leaves them."""
    path = tmp_path / "uneven.h5"
    shutil.copy(max(killed, key=lambda p: p.stat().st_size), path)
    subprocess.run(["h5clear", "-s", "--increment=0", str(path)], check=True)
    with h5py.File(path, "r+") as raw:
        group = raw["recordings"][NAME]
        samples, events = group["samples/x"].shape[0], group["events/value"].shape[0]
        last = int(group["samples/contact"][samples - 1])
        group["samples/x"].resize((samples - 3,))
        group["events/value"].resize((events - 2,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ft.open(path) as trace:
            recording = trace[NAME]
            frame, contacts, event_frame = recording.samples(), recording.contacts(), recording.events()
    assert len(frame) == samples - 3 and len(event_frame) == events - 2
    assert set(frame["contact"]) <= set(contacts["id"])
    row = contacts[contacts["id"] == last].iloc[0]
    if row.rebuilt:  # counted over the rows every column holds
        assert row.n_samples == int((frame["contact"] == last).sum())


def test_a_finished_recording_has_nothing_rebuilt(forcetrace, tmp_path):
    path = tmp_path / "done.h5"
    run(forcetrace, "import", MIXED, "-o", path)
    samples, contacts, messages = read(path)
    assert not contacts["rebuilt"].any() and len(contacts) == 28
    assert set(samples["contact"]) <= set(contacts["id"])
    assert messages == []


def test_a_rebuilt_contact_has_every_column_the_table_holds(forcetrace, tmp_path):
    """Every column the contacts table holds has a value in a rebuilt row:
    a new contacts column fails here until `_rebuilt_contacts` (trace.py)
    gives it one (docs/ARCHITECTURE.md, "A trace-file column")."""
    out = tmp_path / "mixed.h5"
    run(forcetrace, "import", MIXED, "-o", out)
    with ft.open(out) as trace:
        recording = trace[NAME]
        stored = recording._columns("contacts")
        rebuilt = recording._rebuilt_contacts(np.array([], dtype=np.int32))
    assert len(rebuilt["id"]) == len(stored["id"]), "every contact is rebuilt when none is stored"
    assert set(rebuilt) == set(stored), set(rebuilt) ^ set(stored)
