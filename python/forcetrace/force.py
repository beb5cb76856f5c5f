"""Force in grams in Python: a pen's pressure beside the scale's readings,
and what `forcetrace suggest FILE.h5 --format json` finds of a force
session (docs/ANALYSIS.md, "Force").

    from forcetrace import force
    session = force.read_suggestion("suggestion.json")
    session.activation_gf, session.saturation_gf
    session.curve                                  # press and release gf at 5 pressures
    pairs = force.pressure_at_readings(forcetrace.open("force.h5")["force"], lag_ms=session.lag_ms)

A pressure pad's own grams (its pressure axis's resolution, in units per
gram) are the samples' `pressure_gf` column and a saved report's
`contacts()["peak_gf"]`.
"""
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ._policy import PathLike
from .trace import Recording

#: The curve's columns, as `suggest --format json` names them.
CURVE_COLUMNS = ("fraction", "pressure", "press_gf", "release_gf", "hysteresis_gf")


@dataclass(frozen=True)
class ForceSession:
    """`force` of a force suggestion, in gram-force; None where the session did not show it."""
    lag_ms: float
    lag_uncertainty_ms: Optional[float]
    lag_estimated: bool
    activation_gf: Optional[float]
    activation_interval_gf: Optional[tuple[float, float]]
    activation_per_press_gf: tuple[float, ...]
    curve: pd.DataFrame
    hysteresis_gf: Optional[float]
    saturation_gf: Optional[float]
    tip_down_gf: Optional[float]
    tip_down_pressure: int
    tip_up_gf: Optional[float]
    tip_up_pressure: int
    presses: int
    readings: int
    notes: tuple[str, ...]


def _parsed(source: Union[PathLike, Mapping[str, Any]]) -> Mapping[str, Any]:
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not source.lstrip().startswith("{")):
        with open(source, encoding="utf-8") as file:
            loaded: Mapping[str, Any] = json.load(file)
            return loaded
    if isinstance(source, str):
        text: Mapping[str, Any] = json.loads(source)
        return text
    return source


def read_suggestion(source: Union[PathLike, Mapping[str, Any]]) -> ForceSession:
    """A force session from `suggest --format json`: a path to its output, its
    text, or the parsed object. Raises ValueError for another protocol's, or
    for a force calibration recorded without a scale."""
    parsed = _parsed(source)
    found = parsed.get("force")
    if found is None:
        raise ValueError(f"not a force suggestion with a scale (protocol {parsed.get('protocol')!r}): "
                         "run 'forcetrace suggest' on a 'calibrate --protocol force --scale DEVICE' recording")
    activation = found["activation"]
    lag, tip = found["lag"], found["tip"]
    curve = pd.DataFrame([{name: point[name] for name in CURVE_COLUMNS} for point in found["curve"]],
                         columns=list(CURVE_COLUMNS)).astype({"fraction": float, "pressure": int, "press_gf": float,
                                                              "release_gf": float, "hysteresis_gf": float})
    return ForceSession(
        lag_ms=float(lag["ms"]), lag_uncertainty_ms=lag["uncertainty_ms"], lag_estimated=bool(lag["estimated"]),
        activation_gf=activation["gf"] if activation else None,
        activation_interval_gf=(activation["low_gf"], activation["high_gf"]) if activation else None,
        activation_per_press_gf=tuple(activation["per_press_gf"]) if activation else (),
        curve=curve, hysteresis_gf=found["hysteresis_gf"], saturation_gf=found["saturation_gf"],
        tip_down_gf=tip["down_gf"], tip_down_pressure=int(tip["down_pressure"]),
        tip_up_gf=tip["up_gf"], tip_up_pressure=int(tip["up_pressure"]),
        presses=int(found["presses"]), readings=int(found["readings"]), notes=tuple(found["notes"]))


def pressure_at_readings(recording: Recording, *, lag_ms: Optional[float] = None) -> pd.DataFrame:
    """Each scale reading of `recording` beside the device's pressure at the
    moment it weighed: `recording.force()` (its `t` already without the
    table's stored lag, or without `lag_ms` when given) with `pressure` (raw,
    0 while no contact is down) and `pressure_norm`, the last sample at or
    before the reading's time, a contact's pressure ending at its lift."""
    readings = recording.force()
    if lag_ms is not None:
        readings["t"] = readings["t_scale"] - pd.to_timedelta(round(lag_ms * 1e6), unit="ns")
    samples = recording.samples()
    contacts = recording.contacts()
    lifted = contacts.dropna(subset=["t_up"])
    timeline = pd.concat([
        pd.DataFrame({"t": samples["t"].to_numpy(), "pressure": samples["pressure"].to_numpy(np.int64),
                      "pressure_norm": samples["pressure_norm"].to_numpy(np.float64), "order": 0}),
        pd.DataFrame({"t": lifted["t_up"].to_numpy(), "pressure": np.zeros(len(lifted), np.int64),
                      "pressure_norm": np.zeros(len(lifted)), "order": 1}),
    ], ignore_index=True).sort_values(["t", "order"], kind="stable").drop(columns="order")
    ordered = readings.reset_index(drop=True).assign(_row=lambda f: np.arange(len(f))).sort_values("t", kind="stable")
    merged = pd.merge_asof(ordered, timeline, on="t", direction="backward").sort_values("_row").drop(columns="_row")
    merged["pressure"] = merged["pressure"].fillna(0).astype(np.int64)
    merged["pressure_norm"] = merged["pressure_norm"].fillna(0.0)
    merged.attrs = dict(readings.attrs)
    merged.attrs["units"] = {**readings.attrs.get("units", {}), "pressure": "device units", "pressure_norm": "1"}
    return merged.reset_index(drop=True)
