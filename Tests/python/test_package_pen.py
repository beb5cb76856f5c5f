"""forcetrace.pen: the fitted curve from `suggest --format json`,
its outputs computed independently of the CLI and compared with the CLI's,
and the person's peaks per class from the labels table."""
import json

import numpy as np
import pytest

import forcetrace
from conftest import SAMPLES, run
from forcetrace import pen


@pytest.fixture(scope="module")
def calibration(forcetrace_cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pen")
    trace = folder / "pen.h5"
    run(forcetrace_cli, "calibrate", "--replay", SAMPLES / "calibration" / "pen.evemu", "--protocol", "pen", "-o", trace, "--fast")
    suggestion = folder / "suggestion.json"
    run(forcetrace_cli, "suggest", trace, "--format", "json", "-o", suggestion)
    return trace, suggestion


@pytest.fixture(scope="module")
def forcetrace_cli(forcetrace):
    return forcetrace


def test_reads_the_fitted_curve(calibration):
    _, path = calibration
    result = pen.read_suggestion(path)
    assert result.range_fit.curve == pen.PressureCurve(40, 10, 80, 60)
    assert result.usable_range == (300, 3700)
    assert result.targets == (25, 50, 85)
    assert list(result.range_fit.points["role"]) == ["light", "normal", "firm"]
    assert list(result.axis_fit.points["role"]) == ["range-low", "light", "normal", "firm", "range-high"]
    # The curve evaluated here, apart from the CLI, gives the outputs the CLI reported.
    for fit in [result.range_fit, result.axis_fit]:
        points = fit.points
        np.testing.assert_allclose(fit.curve.output(points["input"]), points["output"], atol=1e-6)
        np.testing.assert_allclose(np.abs(points["output"] - points["target"]) * 100, points["error_points"], atol=1e-9)
    assert result.range_fit.max_error_points < 0.5
    # The same reading from the text and from the parsed object.
    text = path.read_text()
    assert pen.read_suggestion(text).range_fit.curve == pen.read_suggestion(json.loads(text)).range_fit.curve


def test_curve_maths():
    linear = pen.PressureCurve(0, 0, 100, 100)
    xs = np.linspace(0, 1, 21)
    np.testing.assert_allclose(linear.output(xs), xs, atol=1e-9)
    assert pen.PressureCurve(5, 0, 100, 95).output(0.5) < 0.5 < pen.PressureCurve(0, 5, 95, 100).output(0.5)
    curve = pen.PressureCurve(40, 10, 80, 60)
    np.testing.assert_allclose(curve.output(curve.input([0.25, 0.5, 0.85])), [0.25, 0.5, 0.85], atol=1e-6)
    assert curve.kwin == "0.40,0.10;0.80,0.60;"
    assert pen.PressureCurve.from_kwin(curve.kwin) == curve
    assert pen.PressureCurve.from_kwin("0,0;1,1;") == linear
    for bad in ["0,0;1,1", "0,0;1;", "0,0;1,2;", "0,0;1,1;0,0;"]:
        with pytest.raises(ValueError):
            pen.PressureCurve.from_kwin(bad)


def test_person_curve_matches_the_cli(calibration):
    trace, path = calibration
    with forcetrace.open(trace) as opened:
        table = pen.person_curve(next(iter(opened)))
    cli = pen.read_suggestion(path).classes
    assert list(table["class"]) == list(cli["class"]) == list(pen.CURVE_CLASSES)
    for column in ["count", "min", "median", "max"]:
        np.testing.assert_allclose(table[column].astype(float), cli[column].astype(float))


def test_refuses_another_protocol(forcetrace_cli, tmp_path):
    trace = tmp_path / "pad.h5"
    run(forcetrace_cli, "calibrate", "--replay", SAMPLES / "calibration" / "touchpad.evemu", "--protocol", "touchpad", "-o", trace, "--fast")
    text = run(forcetrace_cli, "suggest", trace, "--format", "json").stdout
    with pytest.raises(ValueError, match="not a pen suggestion"):
        pen.read_suggestion(text)
