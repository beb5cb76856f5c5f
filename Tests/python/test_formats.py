"""libinput record YAML and raw input_event streams as h5py and Python see them."""
import json
import struct

import h5py
import pytest
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



def stepped_back(text, is_event, seconds_field, cut_fraction=0.8):
    """`text` with every event line after the frame at `cut_fraction` of the
    recording moved 5 s back: a clock that steps back between frames."""
    lines = text.splitlines(keepends=True)
    events = [i for i, line in enumerate(lines) if is_event(line)]
    reports = [i for i in events if line_is_syn_report(lines[i])]
    step = reports[int(len(reports) * cut_fraction)] + 1
    for i in events:
        if i > step:
            lines[i] = seconds_field(lines[i])
    return "".join(lines)


def line_is_syn_report(line):
    return "SYN_REPORT" in line or line.split()[2:5] == ["0000", "0000", "0000"]


def evemu_back(line):
    parts = line.split(" ")
    parts[1] = f"{float(parts[1]) - 5:.6f}"
    return " ".join(parts)


def libinput_back(line):
    head, rest = line.split("[", 1)
    seconds, rest = rest.split(",", 1)
    return f"{head}[{int(seconds) - 5:3d},{rest}"


def stepped_source(forcetrace, folder, kind):
    """The sample, its clock stepping back 5 s late in it, as evemu, libinput
    YAML or an unfinished trace file (a killed recorder's: no import_status,
    no contacts or samples flushed; readers decode its events again)."""
    if kind == "evemu":
        path = folder / "stepped.evemu"
        path.write_text(stepped_back(SAMPLE.read_text(), lambda l: l.startswith("E:"), evemu_back))
        return path
    clean = folder / "clean.h5"
    run(forcetrace, "import", SAMPLE, "-o", clean)
    exported = folder / "clean.yml"
    run(forcetrace, "export", clean, "--format", "libinput", "-o", exported)
    path = folder / "stepped.yml"
    path.write_text(stepped_back(exported.read_text(), lambda l: l.lstrip().startswith("- [") and "#" in l, libinput_back))
    if kind == "libinput":
        return path
    trace = folder / "stepped.h5"
    with h5py.File(clean, "r") as f, h5py.File(trace, "w") as g:
        for key, value in f.attrs.items():
            g.attrs[key] = value
        f.copy("recordings", g)
        recording = g["recordings/touchscreen-mixed"]
        del recording.attrs["import_status"]
        # The events of the stepped recording, read from a salvage-free export.
        times = recording["events/t_ns"][:]
        reports = np.flatnonzero((recording["events/type"][:] == 0) & (recording["events/code"][:] == 0))
        step = reports[int(len(reports) * 0.8)] + 1
        times[step + 1:] -= 5_000_000_000
        recording["events/t_ns"][:] = times
        for table in ("contacts", "samples"):
            for column in recording[table].values():
                if "CLASS" not in column.attrs:
                    column.resize((0,))
    return trace


@pytest.mark.parametrize("kind", ["evemu", "libinput", "unfinished"])
def test_a_clock_that_steps_back_is_refused_by_import_and_salvaged_readable(forcetrace, tmp_path, kind):
    """import kept frames out of time order with a warning and exit 0; then its
    own report and re-import refused the result (contacts out of touch-down
    order). Now import refuses the step, and --salvage keeps the frames
    before it, which every command reads."""
    source = stepped_source(forcetrace, tmp_path, kind)
    out = tmp_path / "out.h5"
    result = run(forcetrace, "import", source, "-o", out, check=False)
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "the clock steps back at event" in result.stderr and "forcetrace keeps frames in time order" in result.stderr, result.stderr
    assert not out.exists()
    if kind == "unfinished":
        result = run(forcetrace, "report", source, check=False)
        assert result.returncode == 1 and "the clock steps back at event" in result.stderr, result.stderr
        return
    assert "pass --salvage" in result.stderr, result.stderr
    result = run(forcetrace, "import", "--salvage", source, "-o", out)
    assert "the clock steps back at event" in result.stderr, result.stderr
    with h5py.File(out, "r") as f:
        assert len(f["recordings"]) == 1, list(f["recordings"])
        [recording] = f["recordings"].values()
        assert recording.attrs["import_status"] == "partial"
    for arguments in (["report", out], ["info", out], ["export", out, "--format", "evemu"],
                      ["import", out, "-o", tmp_path / "again.h5"]):
        run(forcetrace, *arguments)
