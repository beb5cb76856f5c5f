#!/usr/bin/env python3
"""The lean numpy peer: the headline numbers of `forcetrace report` in the
page of numpy a notebook user writes. Reads contact, x, y and
pressure; sorts rows by contact (stable, so each contact stays in time order);
a contact's first row is its touch-down, every later row a motion event, and
a motion event with x and y unchanged a stationary pressure event.

Usage: lean_peer.py FILE.h5 [--peek X] [--pop X] [--json]
"""
import argparse
import json

import h5py
import numpy as np


def lean(group, peek, pop):
    samples, axes = group["samples"], group["axes"]
    contact, x, y, p = (samples[name][:] for name in ("contact", "x", "y", "pressure"))
    row = list(axes["code"][:]).index(int(group.attrs["pressure_axis"]))
    low, high = float(axes["min"][row]), float(axes["max"][row])
    order = np.argsort(contact, kind="stable")
    c, x, y, p = contact[order], x[order], y[order], p[order]
    first = np.ones(c.size, dtype=bool)
    first[1:] = c[1:] != c[:-1]
    still = ~first
    still[1:] &= (x[1:] == x[:-1]) & (y[1:] == y[:-1])
    peak = (np.maximum.reduceat(p, np.flatnonzero(first)).astype(np.float64) - low) / (high - low) if c.size else np.zeros(0)
    return {"contacts": int(group["contacts"]["id"].shape[0]), "motion_events": int(c.size - first.sum()),
            "stationary_pressure_events": int(still.sum()),
            "reached_peek": int((peak >= peek).sum()), "reached_pop": int((peak >= pop).sum())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--peek", type=float, default=0.6)
    parser.add_argument("--pop", type=float, default=0.8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    total = {}
    with h5py.File(args.file, "r") as handle:
        for name in sorted(handle["recordings"]):
            for key, value in lean(handle["recordings"][name], args.peek, args.pop).items():
                total[key] = total.get(key, 0) + value
    motion, stationary = total["motion_events"], total["stationary_pressure_events"]
    total["inflation"] = motion / (motion - stationary) if motion > stationary else None
    print(json.dumps(total) if args.json else " ".join(f"{key} {value}" for key, value in total.items()))


if __name__ == "__main__":
    main()
