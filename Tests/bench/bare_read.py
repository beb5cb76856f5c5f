#!/usr/bin/env python3
"""The yardstick for `report`: h5py reading the seven samples columns the
report reads, and nothing else. Usage: bare_read.py FILE.h5"""
import sys

import h5py

COLUMNS = ("t_ns", "contact", "slot", "x", "y", "pressure", "flags")

with h5py.File(sys.argv[1], "r") as handle:
    for name in handle["recordings"]:
        samples = handle["recordings"][name]["samples"]
        columns = [samples[column][:] for column in COLUMNS]
