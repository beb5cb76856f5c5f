#!/usr/bin/env python3
"""An independent peer of `forcetrace report`, written with numpy and h5py.

It reads trace format v1 (docs/FORMAT.md) and computes the statistics that
docs/ANALYSIS.md defines, vectorized over whole columns, without sharing any
code with forcetrace. Two uses:
  - Tests/python/test_report_crosscheck.py compares its numbers with
    `forcetrace report --json`;
  - Tests/bench/run_bench.py times it against forcetrace on a large trace.

Usage: peer.py FILE.h5 [--peek X] [--pop X] [--hysteresis X] [--tolerance T[mm]] [--k N] [--json]
Smoothing (--smooth) is not implemented here: it is sequential by nature.
"""
import argparse
import json
import sys

import h5py
import numpy as np

SWEEP_MM = [0.0, 0.1, 0.25, 0.5, 1.0]
QUANTILES = [0.05, 0.25, 0.5, 0.75, 0.95]
CLASSES = ["tap", "peek-press", "pop-press"]
ABS_X, ABS_Y, ABS_MT_POSITION_X, ABS_MT_POSITION_Y = 0x00, 0x01, 0x35, 0x36


def axis_info(group):
    axes = group["axes"]
    codes = axes["code"][:]
    return {int(code): (int(axes["min"][i]), int(axes["max"][i]), int(axes["resolution"][i])) for i, code in enumerate(codes)}


def tolerance_lanes(tolerance, resolution_x, resolution_y):
    """Per-axis tolerances in device units: lane 0 configured, lanes 1-5 the mm sweep (None = not applicable)."""
    lanes = []
    value, unit = tolerance
    if unit == "units":
        lanes.append((value, value))
    elif value == 0 or not (resolution_x > 0 and resolution_y > 0):
        lanes.append((0.0, 0.0))
    else:
        lanes.append((value * resolution_x, value * resolution_y))
    for mm in SWEEP_MM:
        if mm == 0:
            lanes.append((0.0, 0.0))
        elif resolution_x > 0 and resolution_y > 0:
            lanes.append((mm * resolution_x, mm * resolution_y))
        else:
            lanes.append(None)
    return lanes


def first_crossings(norm, contact, starts, threshold, hysteresis):
    """Crossing mask with hysteresis: a sample at or above the threshold while armed.
    The state before a sample is set by the last sample (same contact) that was
    at/above (disarmed) or below threshold - hysteresis (armed); armed at first."""
    up = norm >= threshold
    down = norm < threshold - hysteresis
    index = np.arange(norm.size)
    marked = np.where(up | down, index, -1)
    last = np.maximum.accumulate(marked) if norm.size else marked
    previous = np.empty_like(last)
    if norm.size:
        previous[0] = -1
        previous[1:] = last[:-1]
    valid = previous >= starts[contact]
    previous_up = np.zeros(norm.size, dtype=bool)
    previous_up[valid] = up[previous[valid]]
    return up & ~previous_up


def analyze_recording(group, peek, pop, hysteresis, tolerance, k, aligned_step_ns=10_000_000, aligned_points=200):
    attrs = group.attrs
    axes = axis_info(group)
    pressure_code = int(attrs.get("pressure_axis", -1))
    slotted = attrs.get("contact_protocol", "") == "mt-protocol-b"
    x_code, y_code = (ABS_MT_POSITION_X, ABS_MT_POSITION_Y) if slotted else (ABS_X, ABS_Y)
    resolution_x = axes.get(x_code, (0, 0, 0))[2]
    resolution_y = axes.get(y_code, (0, 0, 0))[2]
    lanes = tolerance_lanes(tolerance, resolution_x, resolution_y)

    samples = group["samples"]
    t = samples["t_ns"][:]
    contact = samples["contact"][:].astype(np.int64)
    x = samples["x"][:].astype(np.int64)
    y = samples["y"][:].astype(np.int64)
    pressure = samples["pressure"][:]
    flags = samples["flags"][:]
    contacts = group["contacts"]
    ids = contacts["id"][:]
    t_down = contacts["t_down_ns"][:]
    t_up = contacts["t_up_ns"][:]
    n = ids.size
    events_t = group["events"]["t_ns"]
    last_event = int(events_t[-1]) if events_t.shape[0] else 0
    end = np.where(t_up >= 0, t_up, np.maximum(last_event, t_down))
    duration = end - t_down

    # Group rows by contact; a stable sort keeps each contact's rows in time order.
    order = np.argsort(contact, kind="stable")
    c, t, x, y, pressure, flags = contact[order], t[order], x[order], y[order], pressure[order], flags[order]
    counts = np.bincount(c, minlength=n)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    rows = c.size
    first = np.zeros(rows, dtype=bool)
    first[starts[counts > 0]] = True
    motion = ~first
    previous = np.arange(rows) - 1
    previous[first] = np.arange(rows)[first]
    dx = np.abs(x - x[previous]).astype(np.float64)
    dy = np.abs(y - y[previous]).astype(np.float64)
    pressure_changed = (flags & 4) != 0
    stationary_lanes = []
    for lane in lanes:
        if lane is None:
            stationary_lanes.append(None)
        else:
            stationary_lanes.append(motion & pressure_changed & (dx <= lane[0]) & (dy <= lane[1]))
    motion_events = np.bincount(c, weights=motion, minlength=n).astype(np.int64)
    stationary = np.bincount(c, weights=stationary_lanes[0], minlength=n).astype(np.int64)
    displacement_x = np.zeros(n, dtype=np.int64)
    displacement_y = np.zeros(n, dtype=np.int64)
    nonempty = counts > 0
    if rows:
        displacement_x[nonempty] = np.maximum.reduceat(np.abs(x - x[starts[c]]), starts[nonempty])
        displacement_y[nonempty] = np.maximum.reduceat(np.abs(y - y[starts[c]]), starts[nonempty])

    result = {
        "contacts": n, "t_down": t_down, "t_up": t_up, "duration": duration, "samples": counts,
        "motion_events": motion_events, "stationary": stationary,
        "displacement_units": np.maximum(displacement_x, displacement_y),
        "lanes": lanes,
        "lane_stationary": [None if s is None else int(s.sum()) for s in stationary_lanes],
        "has_pressure": pressure_code >= 0,
    }
    if pressure_code < 0 or pressure_code not in axes or axes[pressure_code][1] <= axes[pressure_code][0] or rows == 0:
        result["has_pressure"] = False
        return result
    minimum, maximum, _ = axes[pressure_code]
    norm = (pressure.astype(np.float64) - float(minimum)) / float(maximum - minimum)
    peak = np.zeros(n, dtype=np.int64)
    peak[nonempty] = np.maximum.reduceat(pressure, starts[nonempty])
    index = np.arange(rows)
    at_peak = pressure == peak[c]
    peak_index = np.full(n, rows, dtype=np.int64)
    peak_index[nonempty] = np.minimum.reduceat(np.where(at_peak, index, rows), starts[nonempty])
    peak_norm = (peak.astype(np.float64) - float(minimum)) / float(maximum - minimum)
    time_to_peak = t[np.minimum(peak_index, rows - 1)] - t_down
    rise = np.bincount(c, weights=stationary_lanes[0] & (index <= peak_index[c]), minlength=n).astype(np.int64)

    never = np.iinfo(np.int64).max
    crossing_times = {}
    crossing_counts = {}
    for name, threshold in (("peek", peek), ("pop", pop)):
        crossed = first_crossings(norm, c, starts, threshold, hysteresis)
        crossing_counts[name] = np.bincount(c, weights=crossed, minlength=n).astype(np.int64)
        first_time = np.full(n, never, dtype=np.int64)
        first_time[nonempty] = np.minimum.reduceat(np.where(crossed, t, never), starts[nonempty])
        crossing_times[name] = np.where(first_time == never, -1, first_time - t_down)

    pressure_class = np.where(peak_norm >= pop, 2, np.where(peak_norm >= peek, 1, 0))

    # Sample-and-hold onto K points over [t_down, end): the last row at or before each grid time.
    relative = t - t_down[c]
    key = (c << 40) | relative
    grid = np.arange(k, dtype=np.int64)
    grid_times = (duration[:, None] * grid[None, :]) // k
    grid_key = (np.arange(n, dtype=np.int64)[:, None] << 40) | grid_times
    curves = norm[np.searchsorted(key, grid_key.ravel(), side="right") - 1].reshape(n, k).astype(np.float32)
    aligned_times = np.arange(aligned_points, dtype=np.int64) * aligned_step_ns
    aligned_key = (np.arange(n, dtype=np.int64)[:, None] << 40) | aligned_times[None, :]
    aligned = norm[np.searchsorted(key, aligned_key.ravel(), side="right") - 1].reshape(n, aligned_points).astype(np.float32)
    aligned[aligned_times[None, :] >= duration[:, None]] = np.nan

    result.update({
        "peak_pressure": peak, "peak_norm": peak_norm, "time_to_peak": time_to_peak, "stationary_rise": rise,
        "t_peek": crossing_times["peek"], "t_pop": crossing_times["pop"],
        "peek_crossings": crossing_counts["peek"], "pop_crossings": crossing_counts["pop"],
        "class": pressure_class, "curves": curves, "aligned": aligned,
    })
    return result


def quantiles(values):
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return None
    return dict(zip(["p5", "p25", "p50", "p75", "p95"], np.quantile(values, QUANTILES).tolist()))


def summarize(results):
    """Totals over recordings, with the same names as forcetrace's JSON summary."""
    motion = sum(int(r["motion_events"].sum()) for r in results)
    stationary = sum(int(r["stationary"].sum()) for r in results)
    pressured = [r for r in results if r["has_pressure"]]
    peaks = np.concatenate([r["peak_norm"] for r in pressured]) if pressured else np.zeros(0)

    def times(name):
        parts = [r[name][r[name] >= 0] for r in pressured]
        return (np.concatenate(parts) / 1e9) if parts else np.zeros(0)

    peek_to_pop = []
    for r in pressured:
        both = (r["t_peek"] >= 0) & (r["t_pop"] >= 0)
        peek_to_pop.append((r["t_pop"][both] - r["t_peek"][both]) / 1e9)
    peek_to_pop = np.concatenate(peek_to_pop) if peek_to_pop else np.zeros(0)
    thresholds = np.arange(101) / 100
    reached = (peaks[:, None] >= thresholds[None, :]).sum(axis=0) if peaks.size else np.zeros(101, dtype=np.int64)
    classes = np.concatenate([r["class"] for r in pressured]) if pressured else np.zeros(0, dtype=np.int64)
    sweep = []
    for lane in range(1, 6):
        applicable = [r for r in results if r["lane_stationary"][lane] is not None]
        lane_motion = sum(int(r["motion_events"].sum()) for r in applicable)
        lane_stationary = sum(r["lane_stationary"][lane] for r in applicable)
        sweep.append({"tolerance_mm": SWEEP_MM[lane - 1], "motion_events": lane_motion,
                      "stationary_pressure_events": lane_stationary if applicable or motion == 0 else None,
                      "inflation": inflation(lane_motion, lane_stationary) if applicable else None})
    return {
        "contacts": sum(r["contacts"] for r in results),
        "motion_events": motion,
        "stationary_pressure_events": stationary,
        "inflation": inflation(motion, stationary),
        "reached_peek": int(sum((r["t_peek"] >= 0).sum() for r in pressured)),
        "reached_pop": int(sum((r["t_pop"] >= 0).sum() for r in pressured)),
        "classes": {name: int((classes == index).sum()) for index, name in enumerate(CLASSES)},
        "quantiles": {"peak_norm": quantiles(peaks), "t_peek_s": quantiles(times("t_peek")),
                      "t_pop_s": quantiles(times("t_pop")), "peek_to_pop_s": quantiles(peek_to_pop),
                      "time_to_peak_s": quantiles(times("time_to_peak"))},
        "sweep": {"reached": reached.tolist()},
        "inflation_sweep": sweep,
    }


def inflation(motion, stationary):
    return motion / (motion - stationary) if motion > 0 and motion > stationary else None


def contact_rows(result):
    rows = []
    for i in range(result["contacts"]):
        row = {
            "id": i, "samples": int(result["samples"][i]),
            "t_down_s": result["t_down"][i] / 1e9,
            "t_up_s": None if result["t_up"][i] < 0 else result["t_up"][i] / 1e9,
            "motion_events": int(result["motion_events"][i]),
            "stationary_pressure_events": int(result["stationary"][i]),
            "displacement_units": int(result["displacement_units"][i]),
        }
        if result["has_pressure"]:
            row.update({
                "peak_pressure": int(result["peak_pressure"][i]), "peak_norm": float(result["peak_norm"][i]),
                "time_to_peak_s": result["time_to_peak"][i] / 1e9,
                "t_peek_s": None if result["t_peek"][i] < 0 else result["t_peek"][i] / 1e9,
                "t_pop_s": None if result["t_pop"][i] < 0 else result["t_pop"][i] / 1e9,
                "peek_crossings": int(result["peek_crossings"][i]), "pop_crossings": int(result["pop_crossings"][i]),
                "stationary_rise": int(result["stationary_rise"][i]),
                "class": CLASSES[int(result["class"][i])],
            })
        else:
            row["class"] = "no-pressure"
        rows.append(row)
    return rows


def analyze_file(path, peek=0.6, pop=0.8, hysteresis=0.05, tolerance=(0.0, "units"), k=64):
    with h5py.File(path, "r") as handle:
        names = sorted(handle["recordings"].keys())
        return {name: analyze_recording(handle["recordings"][name], peek, pop, hysteresis, tolerance, k) for name in names}


def parse_tolerance(text):
    return (float(text[:-2]), "mm") if text.endswith("mm") else (float(text), "units")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--peek", type=float, default=0.6)
    parser.add_argument("--pop", type=float, default=0.8)
    parser.add_argument("--hysteresis", type=float, default=0.05)
    parser.add_argument("--tolerance", default="0")
    parser.add_argument("--k", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    everything = []
    document = {"recordings": []}
    for path in args.files:
        results = analyze_file(path, args.peek, args.pop, args.hysteresis, parse_tolerance(args.tolerance), args.k)
        for name, result in results.items():
            everything.append(result)
            document["recordings"].append({"file": path, "name": name, "summary": summarize([result]),
                                           "contacts": contact_rows(result)})
    document["total"] = summarize(everything)
    if args.json:
        json.dump(document, sys.stdout, indent=1)
        print()
    else:
        total = document["total"]
        print(f"contacts {total['contacts']}, motion {total['motion_events']}, "
              f"stationary {total['stationary_pressure_events']}, inflation {total['inflation']}")


if __name__ == "__main__":
    main(sys.argv[1:])
