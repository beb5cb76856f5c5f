"""forcetrace report's numbers against an independent numpy peer (Tests/bench/peer.py).

The peer shares no code with forcetrace: it reads the trace file with h5py
and computes every statistic with whole-column numpy operations. Any
disagreement in a definition (crossing, hysteresis, stationary event,
sample-and-hold, quantiles, sweep) fails here.
"""
import glob
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "recordings"
sys.path.insert(0, str(ROOT / "Tests" / "bench"))
import peer  # noqa: E402
from conftest import ragged_rows  # noqa: E402

FORCETRACE = os.environ.get("FORCETRACE", str(ROOT / ".build" / "debug" / "forcetrace"))

SHARED_RECORDINGS = [
    "CyPS2 Cypress Trackpad.three_finger_press.events",
    "SynPS2 Synaptics TouchPad.leftmove.events",
    "bcm5974.three-finger-click.events",
    "dell_canvas_pen.evemu",
]

OPTION_SETS = [
    [],
    ["--tolerance", "0.5mm"],
    ["--peek", "0.3", "--pop", "0.45", "--hysteresis", "0.02", "--tolerance", "3"],
    ["--hysteresis", "0"],
]


def run(*args, check=True):
    result = subprocess.run([FORCETRACE, *args], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"forcetrace {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    directory = tmp_path_factory.mktemp("traces")
    paths = []
    samples = directory / "samples.h5"
    run("import", *sorted(glob.glob(str(ROOT / "samples" / "*.evemu"))), "-o", str(samples))
    paths.append(samples)
    # Noisy pressure makes the crossings chatter, so re-crossings get compared too.
    noisy = directory / "noisy.evemu"
    run("simulate", "--seed", "5", "--presses", "40", "--pressure-noise", "6", "-o", str(noisy))
    run("import", str(noisy), "-o", str(directory / "noisy.h5"))
    paths.append(directory / "noisy.h5")
    if SHARED.exists():
        for name in SHARED_RECORDINGS:
            target = directory / (name.replace(" ", "_") + ".h5")
            run("import", str(SHARED / name), "-o", str(target))
            paths.append(target)
    return paths


def peer_options(args):
    values = {"peek": 0.6, "pop": 0.8, "hysteresis": 0.05, "tolerance": (0.0, "units")}
    for flag, value in zip(args[::2], args[1::2]):
        key = flag.lstrip("-")
        values[key] = peer.parse_tolerance(value) if key == "tolerance" else float(value)
    return values


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, dict):
        return a.keys() <= b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return a == pytest.approx(b, rel=1e-9, abs=1e-12)
    return a == b


@pytest.mark.parametrize("options", OPTION_SETS, ids=["defaults", "tolerance-mm", "custom", "no-hysteresis"])
def test_report_matches_numpy_peer(traces, options):
    values = peer_options(options)
    compared = 0
    recrossings = 0
    for path in traces:
        report = json.loads(run("report", str(path), "--json", *options).stdout)
        results = peer.analyze_file(str(path), values["peek"], values["pop"], values["hysteresis"], values["tolerance"], 64)
        assert [r["name"] for r in report["recordings"]] == list(results.keys())
        for recording in report["recordings"]:
            result = results[recording["name"]]
            expected_rows = peer.contact_rows(result)
            assert len(recording["contacts"]) == len(expected_rows)
            for found, expected in zip(recording["contacts"], expected_rows):
                for key, value in expected.items():
                    assert close(value, found[key]), f"{path.name} {recording['name']} contact {expected['id']} {key}: peer {value}, forcetrace {found[key]}"
                compared += 1
            expected_summary = peer.summarize([result])
            for key, value in expected_summary.items():
                assert close(value, recording["summary"][key]), f"{path.name} {recording['name']} summary {key}: peer {value}, forcetrace {recording['summary'][key]}"
        total = peer.summarize(list(results.values()))
        recrossings += sum(int((r.get("peek_crossings", np.zeros(0)) > 1).sum()) for r in results.values())
        for key in ["contacts", "motion_events", "stationary_pressure_events", "inflation", "reached_peek", "reached_pop"]:
            assert close(total[key], report["total"][key]), key
    assert compared > 50
    if options == ["--hysteresis", "0"]:
        assert recrossings > 0, "the noisy trace should make crossings chatter"


def test_saved_curves_match_numpy_sample_and_hold(traces, tmp_path):
    path = traces[1]
    out = tmp_path / "report.h5"
    run("report", str(path), "--save", str(out), "--k", "32")
    results = peer.analyze_file(str(path), k=32)
    with h5py.File(out, "r") as saved:
        assert saved.attrs["format"] == "forcetrace-report"
        for name, result in results.items():
            group = saved["recordings"][name]
            assert group["curves"].shape == (result["contacts"], 32)
            np.testing.assert_array_equal(group["curves"][:], result["curves"])
            # Each contact's stored points are the peer's row up to its NaN tail.
            rows = ragged_rows(group)
            assert len(rows) == len(result["aligned"])
            for row, expected in zip(rows, result["aligned"]):
                tail = np.flatnonzero(~np.isnan(expected))
                np.testing.assert_array_equal(row, expected[:tail[-1] + 1 if len(tail) else 0])
                assert np.isnan(expected[len(row):]).all()
            np.testing.assert_array_equal(group["contacts/peak_norm"][:], result["peak_norm"])
            np.testing.assert_array_equal(group["sweep/reached"][:], peer.summarize([result])["sweep"]["reached"])


def test_cypress_three_finger_press_is_mostly_pressure_only(traces):
    cypress = [p for p in traces if p.name.startswith("CyPS2")]
    if not cypress:
        pytest.skip("../shared/recordings is absent")
    with h5py.File(cypress[0], "r") as handle:
        group = next(iter(handle["recordings"].values()))
        flags = group["samples/flags"][:]
        motion = int(((flags & 1) == 0).sum())
        pressure_only = int((((flags & 1) == 0) & ((flags & 2) == 0) & ((flags & 4) != 0)).sum())
    report = json.loads(run("report", str(cypress[0]), "--json").stdout)
    summary = report["recordings"][0]["summary"]
    assert summary["contacts"] == 3
    assert summary["motion_events"] == motion
    assert summary["stationary_pressure_events"] == pressure_only
    assert pressure_only / motion > 0.5
    assert summary["inflation"] == pytest.approx(motion / (motion - pressure_only))
    # Its fingers barely move: at 0.5 mm every motion event is stationary, so
    # inflation is undefined (null in JSON, ∞ in text), not "no motion".
    lane = next(lane for lane in summary["inflation_sweep"] if lane["tolerance_mm"] == 0.5)
    assert lane["stationary_pressure_events"] == lane["motion_events"] == motion
    assert lane["inflation"] is None
    text = run("report", str(cypress[0])).stdout
    assert "0.5 mm ∞" in text


def test_json_has_the_documented_names(traces):
    report = json.loads(run("report", str(traces[0]), "--json").stdout)
    assert {"thresholds", "recordings", "total"} <= report.keys()
    summary_keys = {"contacts", "motion_events", "stationary_pressure_events", "inflation", "reached_peek", "reached_pop"}
    assert summary_keys <= report["total"].keys()
    recording = report["recordings"][0]
    assert {"file", "name", "device", "pressure_axis", "summary", "contacts"} <= recording.keys()
    assert summary_keys <= recording["summary"].keys()
    contact_keys = {"id", "slot", "tracking_id", "t_down_s", "t_up_s", "samples", "peak_pressure", "peak_norm",
                    "t_peek_s", "t_pop_s", "motion_events", "stationary_pressure_events", "class"}
    assert contact_keys <= recording["contacts"][0].keys()
    assert recording["scripted_thresholds"] == {"peek": 0.6, "pop": 0.8}
    labelled = report["total"]["suggested_thresholds"]["with_labels"]
    assert labelled["balanced_accuracy"] == 1.0
    assert 0.6 > labelled["peek"] > max(c["peak_norm"] for r in report["recordings"] for c in r["contacts"] if c["label"] == "tap")
    assert "suggestion" in report["total"]["suggested_thresholds"]["without_labels"]["note"]


def test_folder_input_equals_the_file_list(traces, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    for path in traces[:2]:
        os.symlink(path, folder / path.name)
    from_folder = json.loads(run("report", str(folder), "--json").stdout)["total"]
    from_files = json.loads(run("report", *sorted(str(folder / p.name) for p in traces[:2]), "--json").stdout)["total"]
    assert from_folder == from_files


def test_one_file_named_twice_is_reported_once_with_a_note(traces, tmp_path):
    """`report a.h5 ./a.h5`, or a folder holding a hard link or a symbolic
    link to another file in it, counted the contacts twice."""
    folder = tmp_path / "twice"
    folder.mkdir()
    original = folder / "a.h5"
    original.write_bytes(traces[0].read_bytes())
    os.link(original, folder / "b.h5")
    os.symlink("a.h5", folder / "c.h5")
    once = json.loads(run("report", str(original), "--json").stdout)
    for arguments, notes in (([str(original), f"{folder}/./a.h5"], 1), ([str(folder)], 2)):
        result = run("report", *arguments, "--json")
        report = json.loads(result.stdout)
        assert [f["file"] for f in report["files"]] == [str(original)], arguments
        assert report["total"] == once["total"], arguments
        skipped = [line for line in result.stderr.splitlines() if line.startswith("note: skipping")]
        assert len(skipped) == notes, result.stderr
        assert all(line.endswith(f"the same file as {original} (counted once)") for line in skipped), result.stderr


def test_an_unreadable_folder_below_is_an_error_naming_it(traces):
    """A subfolder report could not list was left out without a word. Root
    reads any folder, so the report runs as nobody."""
    import shutil
    import tempfile
    outer = Path(tempfile.mkdtemp(prefix="forcetrace-unreadable-", dir="/tmp"))
    try:
        os.chmod(outer, 0o755)
        shutil.copy(traces[0], outer / "a.h5")
        closed = outer / "closed"
        closed.mkdir(mode=0o700)
        shutil.copy(traces[0], closed / "b.h5")
        for path in (outer / "a.h5", closed / "b.h5"):
            os.chmod(path, 0o644)
        result = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", FORCETRACE, "report", str(outer)],
                                capture_output=True, text=True)
        assert result.returncode == 1, (result.returncode, result.stderr)
        assert f"Error: {closed}: is a folder that cannot be read (Permission denied)" in result.stderr, result.stderr
        assert result.stdout == ""
    finally:
        shutil.rmtree(outer)

def test_usage_errors_and_inputs_untouched(traces, tmp_path):
    path = traces[0]
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    bad = run("report", str(path), "--smooth", "ema:2", check=False)
    assert bad.returncode == 2 and "--smooth" in bad.stderr and bad.stdout == ""
    same = run("report", str(path), "--save", str(path), check=False)
    assert same.returncode == 2 and "never modify" in same.stderr
    inverted = run("report", str(path), "--peek", "0.9", "--pop", "0.5", check=False)
    assert inverted.returncode == 2
    missing = run("report", str(tmp_path / "nope.h5"), check=False)
    assert missing.returncode == 1 and "nope.h5" in missing.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = run("report", str(empty), check=False)
    assert nothing.returncode == 1 and "no .h5 trace files" in nothing.stderr
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    text = run("report", str(path), "--contacts", "3").stdout
    assert "contacts shown; --contacts all shows every one" in text
    assert text.rstrip().splitlines()[-1].startswith("  suggestion without labels")
