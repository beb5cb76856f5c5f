"""Figures the notebooks share (matplotlib: `pip install "forcetrace[notebooks]"`)."""
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._extras import Extra, require


def label(text: object) -> str:
    """Text from a file (a recording, device or file name) as matplotlib
    shows it literally: `$` escaped, so that mathtext never parses it (an
    unknown command between two `$` fails the whole figure)."""
    return str(text).replace("$", r"\$")


@dataclass(frozen=True)
class PathArtists:
    """What `paths` drew: the lines (one segment per pair of consecutive
    samples, in time order) and the peak markers above them."""
    lines: Any  # matplotlib.collections.LineCollection
    peaks: Any  # matplotlib.collections.PathCollection
    contacts: int
    samples: int


def paths(ax: Any, samples: pd.DataFrame, *, x: str = "x_mm", y: str = "y_mm", cmap: str = "viridis") -> PathArtists:
    """Draws each contact's path of `samples` (a `samples()` frame) on `ax`:
    a line through its samples in time order, each segment coloured by the
    normalized pressure it reached, and the contact's peak as a marker drawn
    above every line, so that the light samples a press ends with (it lifts
    where it pressed) do not hide it. The legend gives n."""
    collections = require("matplotlib.collections", Extra.NOTEBOOKS, "forcetrace.plot.paths")
    rows = samples.sort_values(["t", "contact"], kind="stable")
    segments: list[np.ndarray] = []
    levels: list[float] = []
    peaks: list[tuple[float, float, float]] = []
    for _, curve in rows.groupby("contact", sort=True):
        points = curve[[x, y]].to_numpy(dtype=float)
        pressure = curve["pressure_norm"].to_numpy(dtype=float)
        if len(points) > 1:
            segments.extend(np.stack([points[:-1], points[1:]], axis=1))
            levels.extend(np.fmax(pressure[:-1], pressure[1:]))
        if np.isfinite(pressure).any():
            peak = int(np.nanargmax(pressure))
            peaks.append((points[peak][0], points[peak][1], pressure[peak]))
    contacts = int(rows["contact"].nunique())
    lines = collections.LineCollection(segments, cmap=cmap, linewidths=1.2, zorder=2,
                                       label=f"paths in time order ({contacts} contacts, n={len(rows)} samples)")
    lines.set_array(np.asarray(levels, dtype=float))
    lines.set_clim(0, 1)
    ax.add_collection(lines)
    spots = np.asarray(peaks, dtype=float).reshape(-1, 3)
    marks = ax.scatter(spots[:, 0], spots[:, 1], c=spots[:, 2], cmap=cmap, vmin=0, vmax=1, s=28,
                       edgecolors="black", linewidths=0.6, zorder=3, label=f"each contact's peak (n={len(spots)})")
    ax.autoscale_view()
    ax.legend(fontsize="small", loc="best")
    return PathArtists(lines, marks, contacts, len(rows))


__all__ = ["paths", "label", "PathArtists"]
