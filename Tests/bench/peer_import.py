#!/usr/bin/env python3
"""Import peer for `make bench`: an evemu recording's E: lines into an HDF5
events table with pandas and h5py, laid out as forcetrace lays it out
(t_ns/type/code/value columns, 16384-row chunks, shuffle + deflate 4).

It does less than `forcetrace import`: no header parsing beyond skipping it,
no decoding into samples and contacts. The benchmark says so next to the ratio.
"""
import argparse
import io

import h5py
import numpy as np
import pandas as pd


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recording")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    with open(args.recording, "rb") as handle:
        lines = [line[3:] for line in handle if line.startswith(b"E: ")]
    table = pd.read_csv(io.BytesIO(b"".join(lines)), sep=r"\s+", header=None, comment="#",
                        names=["time", "type", "code", "value"], dtype={"time": str, "type": str, "code": str, "value": np.int32},
                        engine="c")
    seconds = table["time"].str.split(".", expand=True)
    ns = seconds[0].astype(np.int64) * 1_000_000_000 + seconds[1].str.ljust(9, "0").astype(np.int64)
    columns = {
        "t_ns": (ns - ns.iloc[0]).to_numpy(np.int64),
        "type": table["type"].map(lambda text: int(text, 16)).to_numpy(np.uint16),
        "code": table["code"].map(lambda text: int(text, 16)).to_numpy(np.uint16),
        "value": table["value"].to_numpy(np.int32),
    }
    with h5py.File(args.output, "w") as out:
        events = out.create_group("recordings/peer/events")
        for name, values in columns.items():
            events.create_dataset(name, data=values, chunks=(16384,), maxshape=(None,), shuffle=True,
                                  compression="gzip", compression_opts=4)


if __name__ == "__main__":
    main()
