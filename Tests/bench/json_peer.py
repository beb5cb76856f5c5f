#!/usr/bin/env python3
"""`report --json`'s yardstick: the same document written by orjson.

orjson (a JSON library written in Rust, from PyPI) is among the fastest
JSON writers there are. Given `report --json`'s document, this parses it
once, untimed, then times only orjson's writing of those values back to
text with two-space indents, on one thread, --repeat times. Its layout
differs a little (orjson puts each array element on its own line), so the
byte counts are printed too. Prints one JSON object: the median seconds,
orjson's bytes and the report's.

    json_peer.py REPORT.json [--repeat N]
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import orjson


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="the output of forcetrace report --json")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = args.report.read_bytes()
    document = orjson.loads(text)
    if not isinstance(document, dict) or "recordings" not in document:
        sys.exit(f"json_peer: {args.report}: not a forcetrace report (no 'recordings')")
    seconds, written = [], b""
    for _ in range(max(1, args.repeat)):
        start = time.perf_counter()
        written = orjson.dumps(document, option=orjson.OPT_INDENT_2)
        seconds.append(time.perf_counter() - start)
    print(json.dumps({"seconds": statistics.median(seconds), "bytes": len(written), "report_bytes": len(text)}))


if __name__ == "__main__":
    main()
