"""Every file a crash or a live recorder leaves can be reported.

A recorder's `contacts` table gets a contact's row only once it has lifted
(in id order), so a file read while recording, or left by SIGKILL, lacks the
contacts down at its last flush. `report` analyses such a recording from the
events it kept, decoded again: its numbers must equal those of the same
events exported and imported afresh."""
import concurrent.futures
import json
import signal
import subprocess
import time

import pytest

from conftest import SAMPLES, run

KILLS = 50


@pytest.fixture(scope="module")
def script(forcetrace, tmp_path_factory):
    """A short simulated session: 12 presses in about 3.6 s."""
    path = tmp_path_factory.mktemp("script") / "presses.evemu"
    run(forcetrace, "simulate", "--seed", "11", "--presses", "12", "-o", path)
    return path


def report_json(forcetrace, path):
    result = run(forcetrace, "report", path, "--json", check=False, timeout=120)
    assert result.returncode == 0, f"report {path} exited {result.returncode}: {result.stderr}"
    return json.loads(result.stdout), result.stderr


def comparable(report):
    """The numbers, without what names the file or says how it was read."""
    recordings = [{k: v for k, v in r.items() if k not in ("file", "warnings")} for r in report["recordings"]]
    return recordings, report["total"]


def killed_at(forcetrace, script, output, delay):
    """Kills the recorder `delay` seconds after its file appears, so that a
    loaded machine, slow to start it, still kills it while it records."""
    process = subprocess.Popen([forcetrace, "record", "--replay", str(script), "--speed", "2", "-q", "--flush-ms", "50",
                                "-o", str(output)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not output.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    return process.returncode


def test_report_of_a_recorder_killed_at_50_moments_equals_the_events_it_kept(forcetrace, script, tmp_path):
    # 50 moments spread over the replay (about 1.8 s at --speed 2) from the file's
    # appearance, ending well before the replay does; five recorders at a time.
    moments = [0.05 + 1.2 * k / (KILLS - 1) for k in range(KILLS)]
    outputs = [tmp_path / f"killed-{k:02d}.h5" for k in range(KILLS)]
    with concurrent.futures.ThreadPoolExecutor(5) as pool:
        codes = list(pool.map(lambda job: killed_at(forcetrace, script, *job), zip(outputs, moments)))
    assert all(code == -signal.SIGKILL for code in codes), codes
    made = [path for path in outputs if path.exists()]
    assert len(made) == KILLS, f"only {len(made)} of {KILLS} recorders made their file"
    still_down = 0
    for path in made:
        killed, stderr = report_json(forcetrace, path)
        kept = path.with_suffix(".evemu")
        run(forcetrace, "export", path, "--format", "evemu", "-o", kept)
        fresh = path.with_name(path.stem + "-fresh.h5")
        run(forcetrace, "import", kept, "-o", fresh, "--name", killed["recordings"][0]["name"])
        reference, _ = report_json(forcetrace, fresh)
        assert comparable(killed) == comparable(reference), path.name
        warnings = [w for r in killed["recordings"] for w in r["warnings"]]
        assert any("not finished (still being recorded, or its recorder was killed)" in w for w in warnings), warnings
        still_down += sum(c["still_down"] for r in killed["recordings"] for c in r["contacts"])
    # The kills caught contacts while down, which the contacts table lacked.
    assert still_down >= 10, still_down


def test_report_while_the_recorder_writes_50_times(forcetrace, tmp_path):
    """The session lasts about 72 s at half speed and is stopped once the 50
    reports are done: a report may take 1.4 s on a loaded machine."""
    script = tmp_path / "long.evemu"
    run(forcetrace, "simulate", "--seed", "11", "--presses", "240", "-o", script)
    output = tmp_path / "live.h5"
    recorder = subprocess.Popen([forcetrace, "record", "--replay", str(script), "--speed", "0.5", "-q",
                                 "--flush-ms", "50", "-o", str(output)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not output.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert output.exists(), "the recorder never made its file"
        failures = []
        for _ in range(50):
            result = run(forcetrace, "report", output, "--json", check=False, timeout=60)
            if result.returncode != 0:
                failures.append(result.stderr)
            else:
                json.loads(result.stdout)
        assert recorder.poll() is None, "the recording ended before the 50 reports: a report took over 1.4 s"
        assert failures == [], failures[:3]
    finally:
        recorder.send_signal(signal.SIGINT)
        recorder.communicate(timeout=60)
    assert recorder.returncode == 0
    # Finished: no rebuild, no warning.
    final, stderr = report_json(forcetrace, output)
    assert "not finished" not in stderr and not any("not finished" in w for w in final["recordings"][0]["warnings"])


def test_a_reader_holding_the_live_file_does_not_stop_the_recorder_finishing(forcetrace, script, tmp_path):
    """A notebook with the live file open (h5py's default file locking takes
    a shared lock) must not make the recorder's clean stop fail: compaction
    replaces the recorder's own file, which readers may hold."""
    import h5py
    output = tmp_path / "live.h5"
    recorder = subprocess.Popen([forcetrace, "record", "--replay", str(script), "--speed", "0.5", "-q",
                                 "--flush-ms", "50", "-o", str(output)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
    deadline = time.monotonic() + 30
    while not output.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    with h5py.File(output, "r", swmr=True) as reader:
        assert "recordings" in reader
        time.sleep(0.5)
        recorder.send_signal(signal.SIGINT)
        _, stderr = recorder.communicate(timeout=60)
    assert recorder.returncode == 0, stderr
    with h5py.File(output, "r") as f:
        assert f["recordings/presses"].attrs["import_status"] == "complete"


def two_fingers(path):
    """Finger A (slot 0) down from 0.00 s to the end; finger B (slot 1) down
    at 0.10 s and lifted at 0.20 s, while A is still down."""
    header = [line for line in (SAMPLES / "touchscreen-mixed.evemu").read_text().splitlines()
              if line.startswith("# EVEMU") or line[:2] in ("N:", "I:", "P:", "B:", "A:")]
    events, t = [], 1764400000.0

    def frame(at, *codes):
        for type_, code, value in codes + ((0, 0, 0),):
            events.append(f"E: {t + at:.6f} {type_:04x} {code:04x} {value}")
    frame(0.00, (3, 0x2f, 0), (3, 0x39, 1), (3, 0x35, 1000), (3, 0x36, 1000), (3, 0x3a, 20), (1, 0x14a, 1))
    for k in range(1, 30):
        at = 0.01 * k
        if k == 10:
            frame(at, (3, 0x2f, 1), (3, 0x39, 2), (3, 0x35, 3000), (3, 0x36, 2000), (3, 0x3a, 40))
        elif 10 < k < 20:
            frame(at, (3, 0x2f, 1), (3, 0x3a, 40 + 15 * (k - 10)))
        elif k == 20:
            frame(at, (3, 0x2f, 1), (3, 0x39, -1))
        else:
            frame(at, (3, 0x2f, 0), (3, 0x3a, 20 + 7 * k))
    path.write_text("\n".join(header + events) + "\n")
    return path


def test_a_contact_lifted_behind_one_still_down_keeps_its_lift(forcetrace, tmp_path):
    """The file as a recorder killed at 0.29 s leaves it: no contacts row yet
    (B ended, but rows go in id order and A is still down), no import_status.
    Decoding the kept events again gives B its lift; a rebuild from the
    samples alone could not."""
    import h5py
    finished = tmp_path / "finished.h5"
    run(forcetrace, "import", two_fingers(tmp_path / "two.evemu"), "-o", finished)
    killed = tmp_path / "killed.h5"
    killed.write_bytes(finished.read_bytes())
    with h5py.File(killed, "a") as f:
        recording = f["recordings/two"]
        del recording.attrs["import_status"]
        for column in recording["contacts"].values():
            if column.maxshape[0] is None and not column.attrs.get("CLASS", b"") == b"DIMENSION_SCALE":
                column.resize((0,))
    with h5py.File(killed, "r") as f:
        assert f["recordings/two/contacts/id"].shape == (0,)
    want, _ = report_json(forcetrace, finished)
    got, _ = report_json(forcetrace, killed)
    assert comparable(got) == comparable(want)
    a, b = got["recordings"][0]["contacts"]
    assert (a["still_down"], b["still_down"]) == (True, False)
    assert abs(b["t_up_s"] - 0.20) < 1e-9 and b["samples"] == 10


def test_info_and_report_count_the_events_every_column_holds(forcetrace, tmp_path):
    """A writer killed between two columns' flushes leaves one events column
    shorter than the others. What all of them hold is what it kept: `info`
    counts those events and their frames, and both `info` and `report` end
    the recording at the last of them."""
    import h5py
    import numpy as np
    path = tmp_path / "torn.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", path)
    with h5py.File(path, "r+") as f:
        recording = f["recordings"][next(iter(f["recordings"]))]
        del recording.attrs["import_status"]
        events = recording["events"]
        kept = len(events["t_ns"]) - 37
        events["value"].resize((kept,))
        frames = int(np.count_nonzero((events["type"][:kept] == 0) & (events["code"][:kept] == 0)))
        end_s = int(events["t_ns"][kept - 1]) / 1e9
        assert frames < int(np.count_nonzero((events["type"][:] == 0) & (events["code"][:] == 0)))
    described = json.loads(run(forcetrace, "info", path, "--json").stdout)["recordings"][0]
    assert described["import_status"] is None
    assert (described["events"], described["frames"]) == (kept, frames)
    assert described["duration_s"] == pytest.approx(end_s, abs=1e-6)
    reported, _ = report_json(forcetrace, path)
    assert reported["recordings"][0]["duration_s"] == pytest.approx(end_s, abs=1e-6)
