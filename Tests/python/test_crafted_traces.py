"""Crafted trace files, table-driven. Each variant is a good import
changed with h5py the way a damaged or hand-made file could be; info, export
and report must end with the expected status and message, never a trap
(exit >= 128) or an allocation without bound. Every run is bounded in time."""
import shutil

import h5py
import numpy as np
import pytest

from conftest import SAMPLES, run

SAMPLE = SAMPLES / "touchscreen-mixed.evemu"
NAME = "touchscreen-mixed"
YEAR_NS = 365 * 24 * 3600 * 10**9
ABS_MT_SLOT, ABS_MT_PRESSURE = 0x2F, 0x3A


def recording(f):
    return f["recordings"][NAME]


def set_column(f, table, column, values):
    group = recording(f)[table]
    del group[column]
    group.create_dataset(column, data=values)


def axis_row(f, code):
    return int(np.nonzero(recording(f)["axes"]["code"][:] == code)[0][0])


def hold_across_clock_jump(years):
    def change(f):
        contacts = recording(f)["contacts"]
        up = contacts["t_up_ns"][:]
        up[0] = contacts["t_down_ns"][0] + int(years * YEAR_NS)
        contacts["t_up_ns"][...] = up
    return change


def wide_pressure_axis(f):
    axes = recording(f)["axes"]
    row = axis_row(f, ABS_MT_PRESSURE)
    low, high = axes["min"][:], axes["max"][:]
    low[row], high[row] = -1, 2**31 - 1
    axes["min"][...], axes["max"][...] = low, high


def extreme_t0(f):
    recording(f).attrs["t0_ns"] = np.int64(2**63 - 1)


def extreme_t_down(f):
    contacts = recording(f)["contacts"]
    down = contacts["t_down_ns"][:]
    down[0] = -(2**63)
    contacts["t_down_ns"][...] = down


def huge_slot_axis(f):
    axes = recording(f)["axes"]
    row = axis_row(f, ABS_MT_SLOT)
    high = axes["max"][:]
    high[row] = 2**31 - 1
    axes["max"][...] = high


def declared_rows(table, rows):
    def change(f):
        group = recording(f)[table]
        del group["t_ns"]
        group.create_dataset("t_ns", shape=(rows,), maxshape=(None,), chunks=(16384,), dtype="i8", compression="gzip")
    return change


def sparse_extent(table, column, dtype, rows):
    """An extent of `rows` in 2-row chunks none of which is written, as one
    flipped byte in a small trace declared: reading it visits every chunk."""
    def change(f):
        group = recording(f)[table]
        del group[column]
        group.create_dataset(column, shape=(rows,), maxshape=(None,), chunks=(2,), dtype=dtype)
    return change


def nan_pressure(f):
    pressure = recording(f)["samples"]["pressure"][:].astype("f8")
    pressure[::3] = np.nan
    set_column(f, "samples", "pressure", pressure)


def up_before_down(f):
    contacts = recording(f)["contacts"]
    up = contacts["t_up_ns"][:]
    up[2] = contacts["t_down_ns"][2] - 1000
    contacts["t_up_ns"][...] = up


def t0_as_string(f):
    recording(f).attrs["t0_ns"] = "1764400000000000000"


def ids_out_of_order(f):
    contacts = recording(f)["contacts"]
    ids = contacts["id"][:]
    ids[3], ids[4] = ids[4], ids[3]
    contacts["id"][...] = ids


OK = (0, None)
# variant: (change, {command: (status, message in stderr)}); commands missing use the "*" entry.
VARIANTS = {
    "clock-jump-5y": (hold_across_clock_jump(5), {"*": OK}),
    "clock-jump-35d-k4096": (hold_across_clock_jump(35 / 365), {"*": OK}),
    "pressure-axis-int32-wide": (wide_pressure_axis, {"*": OK}),
    "t0-extreme": (extreme_t0, {"*": (1, "attribute t0_ns: 9223372036854775807 is beyond ±2^62 ns")}),
    "t-down-extreme": (extreme_t_down, {"report": (1, "contacts row 0: t_down_ns -9223372036854775808 is beyond ±2^62 ns"),
                                        "*": OK}),
    "slot-max-2^31-1": (huge_slot_axis, {"*": (1, "ABS_MT_SLOT's range 0..2147483647 is not a slot count")}),
    "events-2^33-rows": (declared_rows("events", 2**33), {"*": (1, "events/t_ns: declares 8589934592 rows")}),
    "samples-2^40-rows": (declared_rows("samples", 2**40), {"*": (1, "samples/t_ns: declares 1099511627776 rows")}),
    # 64 MiB of int64: below the byte bound of even a small good trace, so the chunk count is what fails.
    "events-2^23-rows-in-2-row-chunks": (sparse_extent("events", "t_ns", "i8", 8_388_610),
                                         {"*": (1, "events/t_ns: declares 8388610 rows in 4194305 chunks of 2")}),
    # The axes are read when the recording opens: checked before that.
    "axes-2^24-rows-in-2-row-chunks": (sparse_extent("axes", "fuzz", "i4", 16_711_688),
                                       {"*": (1, "axes/fuzz: declares 16711688 rows in 8355844 chunks of 2")}),
    "nan-pressure": (nan_pressure, {"*": (1, "samples/pressure: holds float64 values; trace format 1 stores int32 values here")}),
    "t-up-before-t-down": (up_before_down, {"report": (1, "contacts row 2: t_up_ns"), "*": OK}),
    "t0-as-string": (t0_as_string, {"*": (1, "attribute t0_ns: is the string \"1764400000000000000\", expected int64")}),
    "ids-out-of-order": (ids_out_of_order, {"report": (1, "contacts row 3: id is 4"), "*": OK}),
}

COMMANDS = {
    "info": lambda path, out: ["info", path, "--json"],
    "export": lambda path, out: ["export", path, "--format", "evemu", "-o", out, "--force"],
    "report": lambda path, out: ["report", path, "--json"],
}


@pytest.fixture(scope="module")
def good_trace(forcetrace, tmp_path_factory):
    path = tmp_path_factory.mktemp("crafted") / "good.h5"
    run(forcetrace, "import", SAMPLE, "-o", path)
    return path


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_crafted_variant(forcetrace, tmp_path, good_trace, variant):
    change, expected = VARIANTS[variant]
    path = tmp_path / f"{variant}.h5"
    shutil.copy(good_trace, path)
    with h5py.File(path, "r+") as f:
        change(f)
    for command, arguments in COMMANDS.items():
        status, message = expected.get(command, expected["*"])
        extra = ["--k", "4096"] if command == "report" and "k4096" in variant else []
        result = run(forcetrace, *arguments(path, tmp_path / "out.evemu"), *extra, check=False, timeout=60)
        assert result.returncode == status, f"{command}: exit {result.returncode}: {result.stderr[-2000:]}"
        if message:
            assert message in result.stderr, f"{command}: {result.stderr}"
            assert result.stderr.startswith(f"Error: {path}: recording '{NAME}'"), result.stderr
        else:
            assert "Error" not in result.stderr, result.stderr
