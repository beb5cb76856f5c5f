"""A pen calibration in Python: the fitted pressure curve that
`forcetrace suggest FILE.h5 --format json` writes (its `pen.profile`), and
the person's peaks per intended class from a calibration's labels table.

    from forcetrace import pen
    calibration = pen.read_suggestion("suggestion.json")
    calibration.range_fit.curve.output([0.2, 0.5])      # what applications get
    calibration.range_fit.points                       # error at each target
    pen.person_curve(forcetrace.open("pen.h5")["pen"])  # raw peaks per class

docs/ANALYSIS.md ("Pen curve") defines every figure.
"""
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ._policy import PathLike
from .trace import Recording

# The classes of the person's curve, lightest first (the labels' `label`).
CURVE_CLASSES = ("stroke-light", "stroke-normal", "stroke-firm", "full-press")


def _bezier(t: NDArray[np.float64], a: float, b: float) -> NDArray[np.float64]:
    u = 1 - t
    return 3 * u * u * t * a + 3 * u * t * t * b + t ** 3


@dataclass(frozen=True)
class PressureCurve:
    """xsetwacom's and GNOME's curve: a cubic Bézier from (0, 0) through
    (x1, y1) and (x2, y2) to (100, 100), control points in 0-100."""
    x1: int
    y1: int
    x2: int
    y2: int

    @property
    def points(self) -> list[int]:
        return [self.x1, self.y1, self.x2, self.y2]

    def output(self, inputs: ArrayLike) -> NDArray[np.float64]:
        """Outputs (0-1) for inputs (0-1, clipped): x(t) = input solved by bisection."""
        x = np.clip(np.asarray(inputs, dtype=float), 0, 1)
        low, high = np.zeros_like(x), np.ones_like(x)
        for _ in range(48):
            mid = (low + high) / 2
            below = _bezier(mid, self.x1 / 100, self.x2 / 100) < x
            low, high = np.where(below, mid, low), np.where(below, high, mid)
        return _bezier((low + high) / 2, self.y1 / 100, self.y2 / 100)

    def input(self, outputs: ArrayLike) -> NDArray[np.float64]:
        """The inputs whose outputs are `outputs`: the curve read backwards."""
        return PressureCurve(self.y1, self.x1, self.y2, self.x2).output(outputs)

    @property
    def kwin(self) -> str:
        """KWin's pressureCurve string, "x1,y1;x2,y2;" in 0-1."""
        def value(v: int) -> str:
            return "1" if v == 100 else "0" if v == 0 else f"{v / 100:.2f}"
        return f"{value(self.x1)},{value(self.y1)};{value(self.x2)},{value(self.y2)};"

    @classmethod
    def from_kwin(cls, text: str) -> "PressureCurve":
        """Reads KWin's "x1,y1;x2,y2;" back into control points 0-100."""
        if not text.endswith(";") or text.count(";") != 2:
            raise ValueError(f"not a KWin pressure curve: {text!r}")
        numbers = [float(v) for point in text[:-1].split(";") for v in point.split(",")]
        if len(numbers) != 4 or not all(0 <= v <= 1 for v in numbers):
            raise ValueError(f"not a KWin pressure curve: {text!r}")
        return cls(*(round(v * 100) for v in numbers))


@dataclass(frozen=True)
class CurveFit:
    """A fitted curve and, per point it aimed at (role light, normal, firm;
    range-low and range-high for the whole-axis fit), input, target, output
    and error in percentage points."""
    curve: PressureCurve
    points: pd.DataFrame

    @property
    def max_error_points(self) -> float:
        return float(self.points["error_points"].max())


@dataclass(frozen=True)
class PenCalibration:
    """`pen.profile` of a pen suggestion (docs/ANALYSIS.md, "Pen curve")."""
    targets: tuple[float, ...]
    usable_range: Optional[tuple[int, int]]
    activation: Optional[float]
    hover_noise: Optional[int]
    classes: pd.DataFrame
    range_fit: Optional[CurveFit]
    axis_fit: Optional[CurveFit]
    notes: tuple[str, ...]


def _fit(value: Optional[Mapping[str, Any]]) -> Optional[CurveFit]:
    if value is None:
        return None
    return CurveFit(PressureCurve(*value["curve"]), pd.DataFrame(value["points"], columns=["role", "input", "target", "output", "error_points"]))


def read_suggestion(source: Union[PathLike, Mapping[str, Any]]) -> PenCalibration:
    """A pen calibration from `suggest --format json`: a path to its output,
    its text, or the parsed object. Raises ValueError for another protocol's."""
    parsed: Mapping[str, Any]
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not source.lstrip().startswith("{")):
        with open(source, encoding="utf-8") as file:
            parsed = json.load(file)
    elif isinstance(source, str):
        parsed = json.loads(source)
    else:
        parsed = source
    profile = (parsed.get("pen") or {}).get("profile")
    if profile is None:
        raise ValueError(f"not a pen suggestion (protocol {parsed.get('protocol')!r}): run 'forcetrace suggest' on a pen calibration")
    usable = profile["usable_range"]
    return PenCalibration(
        targets=tuple(profile["targets"]), usable_range=tuple(usable) if usable else None,
        activation=profile["activation"], hover_noise=profile["hover_noise"],
        classes=pd.DataFrame(profile["classes"], columns=["class", "count", "min", "median", "max"]),
        range_fit=_fit(profile["range_fit"]), axis_fit=_fit(profile["axis_fit"]), notes=tuple(profile["notes"]))


def person_curve(recording: Recording) -> pd.DataFrame:
    """Raw peaks per intended class from a pen calibration's labels table
    (`forcetrace.open(path)[name]`): count, min, median, max, lightest first."""
    labels = recording.labels()
    if labels.empty or "peak" not in labels:
        raise ValueError(f"recording {recording.name!r} has no calibration labels with peaks")
    labels = labels[labels["label"].astype(str).isin(CURVE_CLASSES)]
    grouped = labels.groupby(labels["label"].astype(str))["peak"]
    table = pd.DataFrame({"count": grouped.count(), "min": grouped.min(), "median": grouped.median(), "max": grouped.max()})
    return table.reindex([c for c in CURVE_CLASSES if c in table.index]).rename_axis("class").reset_index()
