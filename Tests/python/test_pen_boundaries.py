"""Boundary fixtures for the pen curve: pen sessions of one
round written here as evemu (the pen of samples/calibration/pen.evemu),
each class's peak chosen to sit on an edge, one step below it and one
above, replayed through `calibrate` and read back from `suggest`."""
import json

import pytest

from conftest import SAMPLES, run

HEADER = b"".join(line for line in (SAMPLES / "calibration" / "pen.evemu").read_bytes().splitlines(keepends=True)
                  if line[:2] in (b"N:", b"I:", b"P:", b"B:", b"A:", b"# EVEMU"[:2]) and not line.startswith(b"# f"))
EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
BTN_TOOL_PEN, BTN_TOUCH, ABS_X, ABS_PRESSURE = 0x140, 0x14A, 0x00, 0x18


def session(peaks, hover=5):
    """hover, stroke-light, stroke-normal, stroke-firm, full-press: each stroke
    rises to its peak over 12 frames 8 ms apart and falls again."""
    lines, t = [], 1_000_000_000

    def frame(*events):
        nonlocal t
        for etype, code, value in events + ((EV_SYN, 0, 0),):
            lines.append(f"E: {t // 1_000_000}.{t % 1_000_000:06d} {etype:04x} {code:04x} {value}\n")
        t += 8_000

    for index, peak in enumerate([hover] + list(peaks)):
        frame((EV_KEY, BTN_TOOL_PEN, 1), (EV_ABS, ABS_X, 1000))
        for i in range(1, 25):
            pressure = max(1, peak * (i if i <= 12 else 24 - i) // 12) if index else i % (hover + 1)
            frame((EV_ABS, ABS_X, 1000 + i), (EV_ABS, ABS_PRESSURE, pressure), *([(EV_KEY, BTN_TOUCH, 1)] if index and i == 1 else []))
        frame((EV_ABS, ABS_X, 2000), (EV_ABS, ABS_PRESSURE, 0), *([(EV_KEY, BTN_TOUCH, 0)] if index else []))
        frame((EV_KEY, BTN_TOOL_PEN, 0))
        t += 300_000
    return HEADER + "".join(lines).encode()


def profile(forcetrace, tmp_path, peaks, *args):
    evemu, trace = tmp_path / "pen.evemu", tmp_path / "pen.h5"
    evemu.write_bytes(session(peaks))
    run(forcetrace, "calibrate", "--replay", evemu, "--protocol", "pen", "--trials", "1", "-o", trace, "--fast", "--force")
    suggestion = json.loads(run(forcetrace, "suggest", trace, "--format", "json", *args).stdout)
    assert [c["median"] for c in suggestion["pen"]["profile"]["classes"]] == list(peaks), "the fixture's peaks reached the file"
    return suggestion["pen"]["profile"]


RULE = "the medians do not rise"


@pytest.mark.parametrize("peaks,rises", [
    ((1000, 1000, 2000, 3000), False),   # light = normal
    ((1000, 1001, 2000, 3000), True),    # one above
    ((1001, 1000, 2000, 3000), False),   # one below
    ((1000, 2000, 2000, 3000), False),   # normal = firm
    ((1000, 2000, 2001, 3000), True),
])
def test_medians_must_rise(forcetrace, tmp_path, peaks, rises):
    result = profile(forcetrace, tmp_path, peaks)
    assert any(note.startswith(RULE) for note in result["notes"]) != rises, result["notes"]
    assert result["range_fit"] is not None, "a curve is fitted all the same, with its errors"


@pytest.mark.parametrize("full,has_range", [(1000, False), (1001, True), (999, False)])
def test_usable_range_needs_a_top_above_the_bottom(forcetrace, tmp_path, full, has_range):
    # The full press's peak against the lowest light stroke (1000): equal, one above, one below.
    result = profile(forcetrace, tmp_path, (1000, 1000, 1000, full))
    assert (result["usable_range"] == [1000, full]) == has_range
    assert (result["range_fit"] is not None) == has_range
    if not has_range:
        assert any("no usable range" in note for note in result["notes"])
        failed = run(forcetrace, "suggest", tmp_path / "pen.h5", "--format", "kwin", check=False)
        assert failed.returncode == 1 and "no pen curve can be fitted" in failed.stderr


def test_targets_at_the_range_ends(forcetrace, tmp_path):
    """With one light stroke it is the range's low end (input 0), where every
    curve gives 0: target 0 is met exactly, target 0.01 misses by 0.01 points."""
    exact = profile(forcetrace, tmp_path, (1000, 2000, 3000, 4000), "--targets", "0,50,100")
    light = exact["range_fit"]["points"][0]
    assert light["input"] == 0 and light["output"] == 0 and light["error_points"] == 0
    off = profile(forcetrace, tmp_path, (1000, 2000, 3000, 4000), "--targets", "0.01,50,100")
    assert off["range_fit"]["points"][0]["error_points"] == pytest.approx(0.01)
