"""libinput record YAML and raw input_event streams as h5py and Python see them."""
import json
import struct

import h5py
import numpy as np

from conftest import SAMPLES, run

SAMPLE = SAMPLES / "touchscreen-mixed.evemu"


def evemu_events(path):
    """(t_us, type, code, value) for every E: line, parsed here independently."""
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith("E:"):
            _, stamp, etype, code, value = line.split()[:5]
            seconds, micros = stamp.split(".")
            rows.append((int(seconds) * 1_000_000 + int(micros), int(etype, 16), int(code, 16), int(value)))
    return rows


def test_raw_export_is_24_byte_input_event_records(forcetrace, tmp_path):
    trace = tmp_path / "s.h5"
    run(forcetrace, "import", SAMPLE, "-o", trace)
    raw = tmp_path / "s.raw"
    run(forcetrace, "export", trace, "--format", "raw", "-o", raw)
    data = raw.read_bytes()
    assert len(data) % 24 == 0
    records = [struct.unpack_from("<qqHHi", data, offset) for offset in range(0, len(data), 24)]
    assert [(s * 1_000_000 + us, t, c, v) for s, us, t, c, v in records] == evemu_events(SAMPLE)


def test_libinput_export_reimports_with_same_events_in_h5py(forcetrace, tmp_path):
    trace = tmp_path / "s.h5"
    run(forcetrace, "import", SAMPLE, "-o", trace)
    yml = tmp_path / "s.yml"
    run(forcetrace, "export", trace, "--format", "libinput", "-o", yml)
    text = yml.read_text()
    assert text.splitlines()[2:4] == ["version: 1", "ndevices: 1"]
    back = tmp_path / "back.h5"
    run(forcetrace, "import", yml, "-o", back)
    with h5py.File(trace, "r") as first, h5py.File(back, "r") as second:
        (a,) = first["recordings"].values()
        (b,) = second["recordings"].values()
        for column in ("t_ns", "type", "code", "value"):
            np.testing.assert_array_equal(a["events"][column][:], b["events"][column][:])
        assert a.attrs["t0_ns"] == b.attrs["t0_ns"]
        assert b.attrs["source"].startswith("libinput:")
        assert b.attrs["import_status"] == "complete"


def test_salvaged_recording_is_marked_partial(forcetrace, tmp_path):
    text = SAMPLE.read_text()
    cut = tmp_path / "cut.evemu"
    cut.write_text(text[: len(text) // 2].rsplit("\n", 1)[0] + "\nE: 1764400010.0000")
    out = tmp_path / "cut.h5"
    failed = run(forcetrace, "import", cut, "-o", out, check=False)
    assert failed.returncode == 1 and not out.exists()
    assert "the file ends in the middle of a line" in failed.stderr
    run(forcetrace, "import", cut, "--salvage", "-o", out)
    with h5py.File(out, "r") as f:
        (group,) = f["recordings"].values()
        assert group.attrs["import_status"] == "partial"
        assert "cut.evemu:" in group.attrs["import_error"]
        types, codes = group["events"]["type"][:], group["events"]["code"][:]
        # Ends on a complete frame: the last event is a SYN_REPORT.
        assert (types[-1], codes[-1]) == (0, 0)
    info = json.loads(run(forcetrace, "info", out, "--json").stdout)
    (recording,) = info["recordings"]
    assert recording["import_status"] == "partial"
    assert "the file ends in the middle of a line" in recording["import_error"]
