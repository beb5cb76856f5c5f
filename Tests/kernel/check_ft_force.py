"""Host checker for ft-force: what calibrate --protocol force found against
the script forceplayer played (guest-ft-force.sh), within the tolerances
docs/ANALYSIS.md ("Force") states for the guest, and what the unplugged,
unstable and overloading scales left in the force table."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
import forcetrace as ft  # noqa: E402

#: Tolerances in the guest, per scale (docs/ANALYSIS.md, "Force", "In the kernel test"): the HID scale's
#: reports reach forcetrace at once; the pty's lines go through the tty layer's deferred work, whose delay
#: under emulation varies by tens of ms between readings, and the hysteresis doubles it (press and
#: release err in opposite directions: its tolerance is the lag's times the full presses' press and
#: release speeds added).
#: The saturation is one crossing at the axis's end per press, not a level the curve passes through.
TOLERANCES = {"hid": {"lag_ms": 15.0, "curve_gf": 6.0, "activation_gf": 6.0, "saturation_gf": 12.0},
              "serial": {"lag_ms": 20.0, "curve_gf": 8.0, "activation_gf": 6.0, "saturation_gf": 12.0}}


def press_gf(script, pressure):
    return script["activation_g"] + (pressure / script["axis_max"]) ** (1 / script["gamma"]) * (script["saturation_g"] - script["activation_g"])


def release_gf(script, pressure):
    felt, h = press_gf(script, pressure), script["hysteresis_g"]
    return felt - h if felt >= 5 + h else felt / (1 + h / 5)


def check_calibration(out, name, failures):
    script = json.loads((out / f"{name}.expect.json").read_text())
    tolerance = TOLERANCES[name]
    LAG_MS, CURVE_GF, ACTIVATION_GF = (tolerance[key] for key in ("lag_ms", "curve_gf", "activation_gf"))
    speeds = script["peak_g"] / (script["ramp_up_ms"] / 1000) + script["peak_g"] / (script["ramp_down_ms"] / 1000)
    HYSTERESIS_GF = LAG_MS / 1000 * speeds
    force = json.loads((out / f"{name}.json").read_text())["force"]
    lag = force["lag"]
    print(f"{name}: lag {lag['ms']:.1f} ± {lag['uncertainty_ms']:.1f} ms (scripted {script['lag_ms']})")
    if lag["uncertainty_ms"] is None or abs(lag["ms"] - script["lag_ms"]) > LAG_MS:
        failures.append(f"{name}: lag {lag['ms']} ms, scripted {script['lag_ms']} ms (±{LAG_MS})")
    activation = force["activation"]
    print(f"{name}: activation {activation['gf']:.1f} gf [{activation['low_gf']:.1f}, {activation['high_gf']:.1f}], per press "
          f"{[round(g, 1) for g in activation['per_press_gf']]} (scripted {script['activation_g']})")
    if abs(activation["gf"] - script["activation_g"]) > ACTIVATION_GF:
        failures.append(f"{name}: activation {activation['gf']} gf, scripted {script['activation_g']}")
    for point in force["curve"]:
        truth_press, truth_release = press_gf(script, point["pressure"]), release_gf(script, point["pressure"])
        print(f"{name}: pressure {point['pressure']}: press {point['press_gf']} gf (scripted {truth_press:.1f}), "
              f"release {point['release_gf']} gf (scripted {truth_release:.1f}), hysteresis {point['hysteresis_gf']}")
        for found, truth, what in ((point["press_gf"], truth_press, "press"), (point["release_gf"], truth_release, "release")):
            if found is None or abs(found - truth) > CURVE_GF:
                failures.append(f"{name}: {what} at pressure {point['pressure']}: {found} gf, scripted {truth:.1f}")
        if point["hysteresis_gf"] is None or abs(point["hysteresis_gf"] - (truth_press - truth_release)) > HYSTERESIS_GF:
            failures.append(f"{name}: hysteresis at {point['pressure']}: {point['hysteresis_gf']}, scripted {truth_press - truth_release:.1f}")
    print(f"{name}: saturation {force['saturation_gf']} gf (scripted {script['saturation_g']}), tip down {force['tip']['down_gf']} gf")
    if force["saturation_gf"] is None or abs(force["saturation_gf"] - script["saturation_g"]) > tolerance["saturation_gf"]:
        failures.append(f"{name}: saturation {force['saturation_gf']} gf, scripted {script['saturation_g']}")
    tip = force["tip"]
    if tip["down_gf"] is None or abs(tip["down_gf"] - press_gf(script, tip["down_pressure"])) > CURVE_GF:
        failures.append(f"{name}: libinput tip down {tip['down_gf']} gf, scripted {press_gf(script, tip['down_pressure']):.1f}")
    stored = ft.open(out / f"{name}.h5")
    recording = next(iter(stored))
    attrs = recording.force().attrs["scale"]
    if round(attrs.get("lag_ns", -1) / 1e6, 3) != round(lag["ms"], 3):
        failures.append(f"{name}: the file's lag_ns {attrs.get('lag_ns')} is not the one suggest used ({lag['ms']} ms)")


def main(out):
    out = Path(out) / "ft-force" if (Path(out) / "ft-force").is_dir() else Path(out)
    failures = []
    check_calibration(out, "hid", failures)
    check_calibration(out, "serial", failures)
    with ft.open(out / "hid.h5") as trace:
        attrs = next(iter(trace)).force().attrs["scale"]
        if attrs["scale_kind"] != "hid" or "forcetrace-test-scale" not in attrs.get("scale_name", ""):
            failures.append(f"hid: scale attributes {attrs}")
    # The unplugged scale: readings before, none after, the reason stored.
    with ft.open(out / "unplug.h5") as trace:
        force = next(iter(trace)).force()
        error = force.attrs["scale"].get("scale_error", "")
        last = force["t_scale"].max().total_seconds() if len(force) else 0
        print(f"unplug: {len(force)} readings, the last at {last:.2f} s; scale_error {error!r}")
        if not error.startswith("the scale is gone") or len(force) < 10 or last > 4.0:
            failures.append(f"unplug: {len(force)} readings to {last} s, scale_error {error!r}")
    # The unstable, overloading serial scale: flagged rows, NaN (never 0) under overload.
    with ft.open(out / "unstable.h5") as trace:
        force = next(iter(trace)).force()
        moving, over = int(force["in_motion"].sum()), int(force["overload"].sum())
        print(f"unstable: {len(force)} readings, {moving} in motion, {over} overloaded")
        if moving < 5 or over < 3:
            failures.append(f"unstable: {moving} in motion, {over} overloaded")
        if not force.loc[force["overload"], "grams"].isna().all():
            failures.append("unstable: an overloaded reading has a weight")
        if (force.loc[force["in_motion"], "grams"].isna()).any():
            failures.append("unstable: an in-motion reading lost its weight")
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
