"""The `forcetrace report --save` file (docs/ANALYSIS.md, "The --save file")."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._report_layout import Layout as L
from ._h5 import attr, attrs, column, column_names, is_dimension_only, is_scale, open_file

if TYPE_CHECKING:
    import h5py
    import xarray as xr

REPORT_FORMAT = L.FORMAT
CATEGORICAL = ("class", "label")
#: The scalar string dataset holding a group's summary as `report --json` prints it.
SUMMARY = L.SUMMARY
#: The summary keys whose figures have datasets of their own, and the key they are read into.
FIGURE_KEYS = (L.CLASSES, L.QUANTILES, L.SUGGESTED_THRESHOLDS)
FIGURES = "figures"
#: The levels of `quantiles/*` (its `level` coordinate).
QUANTILE_LEVELS = (0.05, 0.25, 0.5, 0.75, 0.95)


class Report:
    """A saved report, read whole into memory (it is small: per contact, not per sample)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        with open_file(path, REPORT_FORMAT) as handle:
            self.attrs = attrs(handle)
            self._groups: dict[str, dict[str, Any]] = {}
            for name, group in handle.get(L.RECORDINGS, {}).items():
                self._groups[name] = _read_group(group)
            self._total = _read_group(handle[L.TOTAL]) if L.TOTAL in handle else {}
        self.recordings = list(self._groups)
        self.peek, self.pop = self.attrs.get(L.PEEK), self.attrs.get(L.POP)

    def __repr__(self) -> str:
        return f"<forcetrace.Report {str(self.path)!r}: {len(self.recordings)} recordings>"

    def _group(self, recording: str | None) -> dict[str, Any]:
        if recording is None:
            return self._total
        if recording not in self._groups:
            raise KeyError(f"{self.path}: no recording {recording!r}; it has {self.recordings}")
        return self._groups[recording]

    def summary(self, recording: str | None = None) -> dict[str, Any]:
        """The summary of one recording, or the total without one, as
        `report --json` has it: the same keys and values (null as None).
        Files saved before the summary was stored give their few scalar
        attributes instead."""
        group = self._group(recording)
        if SUMMARY in group:
            result: dict[str, Any] = json.loads(group[SUMMARY])
            return result
        return dict(group["attrs"])

    def figures(self, recording: str | None = None) -> dict[str, Any]:
        """The summary's derived figures, read from their own datasets
        (`classes/`, `quantiles/`, `suggested_thresholds/`; docs/ANALYSIS.md):
        `{"classes": ..., "quantiles": ..., "suggested_thresholds": ...}` with
        the keys and values `report --json` gives them (null as None). Files
        saved before these datasets take them from the stored summary."""
        group = self._group(recording)
        if FIGURES in group:
            return dict(group[FIGURES])
        if SUMMARY in group:
            summary = json.loads(group[SUMMARY])
            return {key: summary[key] for key in FIGURE_KEYS}
        raise KeyError(f"{self.path}: saved without the summary's figures; run report --save again")

    def state(self, recording: str | None = None) -> dict[str, np.ndarray]:
        """The mergeable aggregate as saved (`state/`, docs/ANALYSIS.md): field name → numpy array."""
        return dict(self._group(recording).get(L.STATE, {}))

    def contacts(self, recording: str | None = None) -> pd.DataFrame:
        """The per-contact numbers, one column per dataset of `contacts/`
        (the names `report --json` uses; a per-lane field such as
        `stationary_sweep` holds an array per contact); every recording
        (with `file` and `recording` columns) without one."""
        names = [recording] if recording is not None else self.recordings
        frames = []
        for name in names:
            group = self._group(name)
            frame = pd.DataFrame(group[L.CONTACTS])
            frame.insert(0, "recording", name)
            frame.insert(0, "file", group["attrs"].get(L.FILE, ""))
            frames.append(frame)
        frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        for name in ("file", "recording") + CATEGORICAL:
            if name in frame:
                frame[name] = frame[name].astype("category")
        return frame

    def _matrix(self, key: str, recording: str | None) -> tuple[np.ndarray, dict[str, Any], list[str]]:
        """A curve matrix over one or every recording, with per-contact coordinates."""
        names = [recording] if recording is not None else self.recordings
        blocks, ids, owners, classes = [], [], [], []
        for name in names:
            group = self._group(name)
            matrix = group[key]
            blocks.append(matrix)
            ids.extend(group[L.CONTACTS].get("id", np.arange(len(matrix))))
            classes.extend(group[L.CONTACTS].get("class", [""] * len(matrix)))
            owners.extend([name] * len(matrix))
        width = blocks[0].shape[1] if blocks else 0
        data = np.concatenate(blocks) if blocks else np.zeros((0, width), np.float32)
        coords = {"recording": (L.CONTACT_DIMENSION, np.asarray(owners, dtype=object)),
                  "id": (L.CONTACT_DIMENSION, np.asarray(ids)),
                  "class": (L.CONTACT_DIMENSION, np.asarray(classes, dtype=object))}
        return data, coords, names

    def _axis(self, names: list[str], dimension: str, width: int,
              computed: tuple[np.ndarray, dict[str, str]]) -> tuple[Any, ...]:
        """The curve matrices' second coordinate: the file's scale (`fraction`,
        `t_ms`) when it has one, else `computed` (files saved before the scales)."""
        saved: tuple[np.ndarray, dict[str, str]] | None = self._group(names[0])["coords"].get(dimension) if names else None
        if saved is not None and len(saved[0]) == width:
            return (dimension,) + saved
        return (dimension,) + computed

    def curves(self, recording: str | None = None) -> xr.DataArray:
        """Duration-normalized curves: DataArray (contact, fraction), fraction i/K of the duration."""
        import xarray as xr

        data, coords, names = self._matrix(L.CURVES, recording)
        k = data.shape[1]
        coords[L.FRACTION] = self._axis(names, L.FRACTION, k, (np.arange(k) / k,
                                        {"long_name": "fraction of the contact's duration since touch-down, i/K", "units": "1"}))
        return xr.DataArray(data, dims=(L.CONTACT_DIMENSION, L.FRACTION), coords=coords, name="pressure_norm",
                            attrs={"long_name": "normalized pressure, sample-and-hold", "units": "1"})

    def aligned_curves(self, recording: str | None = None) -> xr.DataArray:
        """Touch-down-aligned curves: DataArray (contact, t_ms), ms since touch-down; NaN after the end.
        The file stores them as a ragged array (format_version 2: each contact's
        points up to its end, `aligned_curve_values` and `aligned_curve_counts`)
        or as this matrix (`aligned_curves`, format_version 1); both read the same."""
        import xarray as xr

        data, coords, names = self._matrix(L.ALIGNED_CURVES, recording)
        step = self._group(names[0])["attrs"].get(L.ALIGNED_STEP_S, 0.01) if names else 0.01
        coords[L.T_MS] = self._axis(names, L.T_MS, data.shape[1], (np.arange(data.shape[1]) * step * 1000.0,
                                    {"long_name": "time since touch-down", "units": "milliseconds"}))
        return xr.DataArray(data, dims=(L.CONTACT_DIMENSION, L.T_MS), coords=coords, name="pressure_norm",
                            attrs={"long_name": "normalized pressure, sample-and-hold", "units": "1"})

    def sweep(self, recording: str | None = None) -> pd.DataFrame:
        """The threshold sweep: threshold, reached, fraction (101 rows)."""
        return pd.DataFrame(self._group(recording)[L.SWEEP])

    def inflation_sweep(self, recording: str | None = None) -> pd.DataFrame:
        """Inflation at 0, 0.1, 0.25, 0.5 and 1 mm."""
        return pd.DataFrame(self._group(recording)[L.INFLATION_SWEEP])

    def histograms(self, recording: str | None = None) -> dict[str, pd.Series]:
        """Each histogram as a Series of counts indexed by the bin's lower edge
        (normalized pressure for `peak_norm`, seconds for the times)."""
        group = self._group(recording)
        meta = group.get(L.HISTOGRAMS + "_attrs", {})
        result: dict[str, pd.Series] = {}
        for name, counts in group[L.HISTOGRAMS].items():
            if name in group.get(L.HISTOGRAMS + "_scales", ()):
                continue  # a bin coordinate (peak_norm_bin, time_bin), not a histogram
            width = meta.get(L.PEAK_BIN_WIDTH, 0.01) if name == L.PEAK_HISTOGRAM else meta.get(L.TIME_BIN_S, 0.01)
            edges = np.round(np.arange(len(counts)) * width, 10)
            result[name] = pd.Series(counts, index=pd.Index(edges, name="bin_start"), name=name)
        return result


def _number(dataset: h5py.Dataset) -> Any:
    """A scalar dataset as a Python number, NaN as None (null in JSON)."""
    value = dataset[()].item()
    return None if isinstance(value, float) and math.isnan(value) else value


def _read_suggestion(group: h5py.Group) -> dict[str, Any]:
    found: dict[str, Any] = {"method": attr(group, L.METHOD), "peek": _number(group[L.SUGGESTED_PEEK]),
                             "pop": _number(group[L.SUGGESTED_POP])}
    if L.NOTE in group.attrs:
        found["note"] = attr(group, L.NOTE)
    if L.CONFUSION in group:
        confusion = group[L.CONFUSION]
        found["confusion"] = {"classes": attr(confusion, L.CONFUSION_CLASSES), "columns": L.FOUND, "rows": L.LABEL,
                              "matrix": confusion[...].tolist()}
        found["balanced_accuracy"] = _number(group[L.BALANCED_ACCURACY])
        found["tied_pairs"] = _number(group[L.TIED_PAIRS])
    return found


def _read_figures(group: h5py.Group) -> dict[str, Any]:
    """`classes/`, `quantiles/` and `suggested_thresholds/` in the shape of the JSON summary's keys."""
    quantiles = group[L.QUANTILES]
    levels = quantiles[L.QUANTILE_LEVEL][...] if L.QUANTILE_LEVEL in quantiles else QUANTILE_LEVELS
    figures: dict[str, Any] = {
        "classes": {name: _number(dataset) for name, dataset in group[L.CLASSES].items()},
        # p5, p25, ... from the levels; all NaN: no values (null in JSON).
        "quantiles": {name: None if np.isnan(values).all()
                      else {f"p{round(level * 100)}": float(value) for level, value in zip(levels, values)}
                      for name in column_names(quantiles) if name != L.QUANTILE_LEVEL for values in [quantiles[name][...]]},
    }
    suggested = group[L.SUGGESTED_THRESHOLDS]
    figures["suggested_thresholds"] = {kind: _read_suggestion(suggested[kind]) if kind in suggested else None
                                       for kind in (L.WITH_LABELS, L.WITHOUT_LABELS)}
    return figures


def _read_group(group: h5py.Group) -> dict[str, Any]:
    import h5py

    result: dict[str, Any] = {"attrs": attrs(group), "coords": {}}
    if all(key in group for key in FIGURE_KEYS):
        result[FIGURES] = _read_figures(group)
    for name, obj in group.items():
        if isinstance(obj, h5py.Group):
            result[name] = {key: column(obj[key]) for key in column_names(obj)}
            if name == L.CONTACTS:
                # A per-lane field (contact x lane): one array per contact, under the field's name.
                for key, member in obj.items():
                    if isinstance(member, h5py.Dataset) and member.ndim == 2:
                        result[name][key] = list(member[...])
            result[name + "_attrs"] = attrs(obj)
            result[name + "_scales"] = {key for key in result[name] if is_scale(obj[key])}
        elif obj.ndim == 0 and name == SUMMARY:
            result[name] = obj.asstr()[()]
        elif obj.ndim == 2:
            result[name] = obj[...]
        elif obj.ndim == 1 and is_scale(obj) and not is_dimension_only(obj):
            # A coordinate of the curve matrices (`fraction`, `t_ms`): values and what they are.
            result["coords"][name] = (obj[...], {key: attr(obj, key) for key in ("long_name", "units") if key in obj.attrs})
    if L.ALIGNED_CURVE_COUNTS in group:
        result[L.ALIGNED_CURVES] = _dense_aligned_curves(group, result["coords"])
    if L.CONTACTS in result:
        for name in CATEGORICAL:
            if name in result[L.CONTACTS]:
                result[L.CONTACTS][name] = result[L.CONTACTS][name].astype(object)
    return result


def _dense_aligned_curves(group: h5py.Group, coords: dict[str, Any]) -> np.ndarray:
    """The contiguous ragged array of the aligned curves (`aligned_curve_values`,
    `aligned_curve_counts`; CF conventions 1.x, section 9.3.3) as the n x 200
    matrix format_version 1 stored: row c holds its count of values, then NaN.
    Contact c's values start at the sum of the counts before it."""
    from ._validate import ForceTraceFileError

    counts = group[L.ALIGNED_CURVE_COUNTS][...].astype(np.int64)
    values = group[L.ALIGNED_CURVE_VALUES]
    width = len(coords[L.T_MS][0]) if L.T_MS in coords else int(group.file.attrs.get("aligned_points", 0))
    where = f"{group.name}/{L.ALIGNED_CURVE_COUNTS}"
    if counts.ndim != 1 or values.ndim != 1 or (len(counts) and (counts.min() < 0 or counts.max() > width)):
        raise ForceTraceFileError(group.file.filename, f"{where} holds a count outside 0 … {width} (the {L.T_MS} points)",
                                  "the file is damaged; save the report again from its inputs")
    if int(counts.sum()) != values.shape[0]:
        raise ForceTraceFileError(group.file.filename, f"{where} adds up to {int(counts.sum())} points, but "
                                  f"{L.ALIGNED_CURVE_VALUES} holds {values.shape[0]}",
                                  "the file is damaged; save the report again from its inputs")
    dense = np.full((len(counts), width), np.nan, dtype=np.float32)
    rows = np.repeat(np.arange(len(counts)), counts)
    starts = np.cumsum(counts) - counts
    dense[rows, np.arange(len(rows)) - np.repeat(starts, counts)] = values[...]
    return dense


def read_report(path: str | os.PathLike[str]) -> Report:
    """Reads a `forcetrace report --save` file."""
    return Report(path)
