"""A `forcetrace levels` session's results: how many pressure levels a person
holds reliably (docs/ANALYSIS.md, "Levels"; docs/FORMAT.md, `labels`).

    from forcetrace import levels
    with forcetrace.open("levels.h5") as trace:
        recording = trace["levels"]
        levels.trials(recording)      # one row per kept trial
        levels.summary(recording)     # one row per (level_count, level)
        levels.confusion(recording, 4)
        levels.capacity(recording)

The bands and the rule are computed here from the labels table, in the same
integers as the CLI, so the two can be checked against each other.
"""
import math
from typing import Any

import numpy as np
import pandas as pd

from .trace import MAXIMUM_POSSIBLE_FORCE, Recording

PROTOCOL = "levels"
#: A level is held reliably when at least 9 in 10 of its trials land in its band.
RELIABLE_INSIDE, RELIABLE_OF = 9, 10
#: A normalized pressure this little below an edge still reaches it, so that
#: 0.2 + 2 * 0.6 / 3 = 0.6000000000000001 leaves 153/255 = 0.6 in the upper band.
EDGE_TOLERANCE = 1e-12


def is_levels(recording: Recording) -> bool:
    """True when the recording's labels come from a `forcetrace levels` session."""
    return recording.has_labels and recording.calibration_protocol == PROTOCOL


def _require(recording: Recording) -> None:
    if not is_levels(recording):
        protocol = recording.calibration_protocol if recording.has_labels else None
        raise ValueError(f"{recording.trace.path}: recording {recording.name!r} holds no levels session "
                         f"(its labels' protocol is {protocol!r}); record one with 'forcetrace levels'")


def _axis(recording: Recording) -> tuple[int, int]:
    axis = recording.device.axis(recording.device.pressure_axis) if recording.device.pressure_axis else None
    if axis is None:
        raise ValueError(f"recording {recording.name!r}: the device has no per-contact pressure axis")
    return int(axis["min"]), int(axis["max"])


def level_range(recording: Recording) -> tuple[float, float]:
    """The normalized (low, high) the bands divide: the `level_range` attribute, (0, 1) when absent."""
    ends = recording.attrs_of("labels").get("level_range")
    return (0.0, 1.0) if ends is None else (float(ends[0]), float(ends[1]))


def band_edges(count: int, low: float, high: float, minimum: int, maximum: int) -> list[int]:
    """The `count + 1` raw edges: level k is edges[k-1] <= raw < edges[k]. Each
    edge is the least raw value whose (raw - min) / (max - min) reaches the
    band's normalized edge (less EDGE_TOLERANCE); a range ending at 1 ends at max + 1."""
    span = maximum - minimum
    edges: list[int] = []
    for index in range(count + 1):
        if index == count and high >= 1:
            edges.append(maximum + 1)
            continue
        wanted = low + index * (high - low) / count - EDGE_TOLERANCE
        value = math.ceil(minimum + wanted * span)
        while value > minimum and (value - 1 - minimum) / span >= wanted:
            value -= 1
        while value <= maximum and (value - minimum) / span < wanted:
            value += 1
        edges.append(value)
    return edges


def trials(recording: Recording) -> pd.DataFrame:
    """One row per kept trial: `t`, `level_count`, `level` (asked for), `held`
    (raw), `held_norm`, `force` (UIKit force units), `held_in` (0 below the
    range, 1..level_count a level, level_count + 1 above) and `inside`."""
    _require(recording)
    labels = recording.labels()
    minimum, maximum = _axis(recording)
    low, high = level_range(recording)
    frame = pd.DataFrame({
        "t": labels["t"],
        "level_count": labels["level_count"].astype(int),
        "level": labels["level"].astype(int),
        "held": labels["held"].astype(int),
    })
    frame["held_norm"] = (frame["held"] - minimum) / (maximum - minimum)
    frame["force"] = frame["held_norm"] * MAXIMUM_POSSIBLE_FORCE
    held_in: list[int] = []
    for count, held in zip(frame["level_count"], frame["held"]):
        edges = band_edges(count, low, high, minimum, maximum)
        held_in.append(int(np.searchsorted(edges, held, side="right")))
    frame["held_in"] = held_in
    frame["inside"] = frame["held_in"] == frame["level"]
    return frame


def tested_counts(recording: Recording) -> list[int]:
    """The level counts the session tested (`level_counts`), with any the trials hold."""
    stored = recording.attrs_of("labels").get("level_counts")
    counts = set() if stored is None else {int(c) for c in np.atleast_1d(stored)}
    return sorted(counts | set(trials(recording)["level_count"]))


def confusion(recording: Recording, count: int) -> pd.DataFrame:
    """Rows: the level asked for (1..count); columns: where it was held
    (`below`, 1..count, `above`)."""
    frame = trials(recording)
    frame = frame[frame["level_count"] == count]
    columns = ["below", *range(1, count + 1), "above"]
    table = pd.DataFrame(0, index=pd.Index(range(1, count + 1), name="asked"), columns=columns)
    for level, held_in in zip(frame["level"], frame["held_in"]):
        table.iloc[level - 1, held_in] += 1
    return table


def summary(recording: Recording) -> pd.DataFrame:
    """One row per tested (level_count, level): `trials`, `inside`, `share`,
    `reliable` (10 x inside >= 9 x trials), and `set_reliable` for the count."""
    frame = trials(recording)
    rows: list[dict[str, Any]] = []
    for count in tested_counts(recording):
        for level in range(1, count + 1):
            mine = frame[(frame["level_count"] == count) & (frame["level"] == level)]
            total, inside = len(mine), int(mine["inside"].sum())
            rows.append({"level_count": count, "level": level, "trials": total, "inside": inside,
                         "share": inside / total if total else np.nan,
                         "reliable": total > 0 and RELIABLE_OF * inside >= RELIABLE_INSIDE * total})
    table = pd.DataFrame(rows)
    table["set_reliable"] = table.groupby("level_count")["reliable"].transform("all")
    return table


def capacity(recording: Recording) -> int:
    """The largest tested count that is reliable along with every smaller
    tested count; 1 when none is."""
    result = 1
    table = summary(recording)
    for count, reliable in table.groupby("level_count")["set_reliable"].first().items():
        if not reliable:
            break
        result = int(count)
    return result
