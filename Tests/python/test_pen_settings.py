"""The pen protocol's settings for every desktop:
a simulated person aiming through a scripted curve, replayed through
`calibrate`; each `suggest --format` output checked by the real tool where
Debian has it (gsettings with gsettings-desktop-schemas), by KWin's and
xsetwacom's documented grammar where it does not, and run by real shells
with hostile device names."""
import json
import os
import random
import re
import shutil
import stat
import subprocess

import h5py
import pytest

from conftest import SAMPLES, run

SCHEMA = "org.gnome.desktop.peripherals.tablet.stylus"
SAMPLE = SAMPLES / "calibration" / "pen.evemu"


def calibrate(forcetrace, folder, *simulate_args, targets=None):
    evemu, trace = folder / "pen.evemu", folder / "pen.h5"
    run(forcetrace, "simulate", "--protocol", "pen", "-o", evemu, "--force", *simulate_args)
    extra = ["--targets", targets] if targets else []
    result = run(forcetrace, "calibrate", "--replay", evemu, "--protocol", "pen", "-o", trace, "--fast", "--force", *extra)
    return trace, result.stdout


@pytest.fixture(scope="module")
def session(forcetrace, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pen")
    trace, stdout = calibrate(forcetrace, folder, "--pen-curve", "40,10,80,60", "--pen-range", "300..3700")
    return trace, stdout


def suggestion(forcetrace, trace, *args):
    return json.loads(run(forcetrace, "suggest", trace, "--format", "json", *args).stdout)["pen"]["profile"]


def test_replay_recovers_the_scripted_curve(forcetrace, session):
    trace, stdout = session
    assert "curve over the usable range (kwin, libinput-range, libinput-plugin): 40 10 80 60\n" in stdout
    assert "usable range: 300..3700 " in stdout
    profile = suggestion(forcetrace, trace)
    assert profile["range_fit"]["curve"] == [40, 10, 80, 60]
    assert profile["usable_range"] == [300, 3700]
    assert [p["role"] for p in profile["range_fit"]["points"]] == ["light", "normal", "firm"]
    assert all(p["error_points"] < 0.5 for p in profile["range_fit"]["points"])
    assert [c["class"] for c in profile["classes"]] == ["stroke-light", "stroke-normal", "stroke-firm", "full-press"]
    assert all(c["count"] == 10 for c in profile["classes"])
    assert profile["hover_noise"] <= 40 and profile["activation"] > 0


def test_another_scripted_curve_and_targets(forcetrace, tmp_path):
    trace, _ = calibrate(forcetrace, tmp_path, "--pen-curve", "20,40,60,90", "--pen-range", "500..3000", "--seed", "4")
    assert suggestion(forcetrace, trace)["range_fit"]["curve"] == [20, 40, 60, 90]
    # The same strokes against other targets: the fit aims at those, and says how close it came.
    other = suggestion(forcetrace, trace, "--targets", "10,40,90")
    assert [p["target"] for p in other["range_fit"]["points"]] == [0.10, 0.40, 0.90]
    assert other["range_fit"]["curve"] != [20, 40, 60, 90]
    for point in other["range_fit"]["points"]:
        assert point["error_points"] == pytest.approx(abs(point["output"] - point["target"]) * 100)


@pytest.mark.parametrize("targets,ok", [("0,50,100", True), ("-0.01,50,100", False), ("0,50,100.01", False),
                                        ("25,50,50", False), ("25,50,50.01", True), ("25,50", False)])
def test_targets_edges(forcetrace, session, targets, ok):
    result = run(forcetrace, "suggest", session[0], "--targets", targets, check=False)
    if ok:
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 2 and "expected three percentages, rising, each from 0 to 100" in result.stderr


def env_for(tmp_path, backend):
    env = dict(os.environ, GSETTINGS_BACKEND=backend, XDG_CONFIG_HOME=str(tmp_path / "config"))
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    return env


def test_gsettings_reads_back(forcetrace, session, tmp_path):
    if not shutil.which("gsettings"):
        # make test installs it and sets the variable, so there it fails instead.
        if os.environ.get("FORCETRACE_REQUIRE_GSETTINGS"):
            pytest.fail("gsettings is not installed (apt-get install libglib2.0-bin gsettings-desktop-schemas)")
        pytest.skip("gsettings is not installed")
    script = run(forcetrace, "suggest", session[0], "--format", "gsettings").stdout
    curve = suggestion(forcetrace, session[0])["axis_fit"]["curve"]
    assert curve != [0, 0, 100, 100], "the check needs a value other than the schema's default"
    path = "/org/gnome/desktop/peripherals/stylus/default-1d6b:7f04/"
    command = [line for line in script.splitlines() if not line.startswith("#")]
    assert command[0] == f"if gsettings range {SCHEMA}:{path} pressure-range >/dev/null 2>&1; then"
    assert command[3:] == ["else", f"    gsettings set {SCHEMA}:{path} pressure-curve '[{', '.join(map(str, curve))}]'", "fi"]
    # Debian 12's gsettings-desktop-schemas 43 has no pressure-range: the script takes the whole-axis curve.
    assert "pressure-range" not in subprocess.run(["gsettings", "list-keys", f"{SCHEMA}:{path}"], env=env_for(tmp_path, "memory"),
                                                  capture_output=True, text=True).stdout.split()
    # The memory backend checks the schema, the path and the value's type; it keeps nothing between processes.
    memory = subprocess.run(["sh", "-c", script], env=env_for(tmp_path, "memory"), capture_output=True, text=True)
    assert memory.returncode == 0 and memory.stderr == "", memory.stderr
    # The keyfile backend keeps it: set by the script, read back by another gsettings.
    keyfile = env_for(tmp_path, "keyfile")
    before = subprocess.run(["gsettings", "get", f"{SCHEMA}:{path}", "pressure-curve"], env=keyfile, capture_output=True, text=True)
    assert before.stdout.strip() == "[0, 0, 100, 100]"
    done = subprocess.run(["sh", "-c", script], env=keyfile, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    after = subprocess.run(["gsettings", "get", f"{SCHEMA}:{path}", "pressure-curve"], env=keyfile, capture_output=True, text=True)
    assert after.returncode == 0
    assert json.loads(after.stdout) == curve


# The stylus schema's keys as gsettings-desktop-schemas 47 has them (commit 6336188,
# "peripherals: Provide a new pressure range for styli"): pressure-range and
# eraser-pressure-range are `ai`, two percents, default [0, 100], beside the
# curves (`ai`, default [0, 0, 100, 100]). Written here from those facts.
SCHEMA_47 = """<?xml version="1.0" encoding="UTF-8"?>
<schemalist>
  <schema id="org.gnome.desktop.peripherals.tablet.stylus">
    <key name="pressure-curve" type="ai"><default>[0, 0, 100, 100]</default></key>
    <key name="pressure-range" type="ai"><default>[0, 100]</default></key>
    <key name="eraser-pressure-curve" type="ai"><default>[0, 0, 100, 100]</default></key>
    <key name="eraser-pressure-range" type="ai"><default>[0, 100]</default></key>
  </schema>
</schemalist>
"""


def gnome47(tmp_path):
    """GSETTINGS_SCHEMA_DIR with the stylus schema of GNOME 47, compiled by glib-compile-schemas."""
    folder = tmp_path / "schemas"
    folder.mkdir()
    (folder / "org.gnome.desktop.peripherals.gschema.xml").write_text(SCHEMA_47)
    subprocess.run(["glib-compile-schemas", "--strict", str(folder)], check=True)
    return folder


def bezier_output(curve, x):
    """PressureCurve.output: x(t) = x solved by bisection, then y(t)."""
    x1, y1, x2, y2 = (v / 100 for v in curve)
    def b(t, p, q):
        u = 1 - t
        return 3 * u * u * t * p + 3 * u * t * t * q + t ** 3
    low, high = 0.0, 1.0
    for _ in range(48):
        mid = (low + high) / 2
        low, high = (mid, high) if b(mid, x1, x2) < x else (low, mid)
    return b((low + high) / 2, y1, y2)


def test_gsettings_47_reads_back_range_and_curve(forcetrace, session, tmp_path):
    if not shutil.which("gsettings") or not shutil.which("glib-compile-schemas"):
        if os.environ.get("FORCETRACE_REQUIRE_GSETTINGS"):
            pytest.fail("gsettings is not installed (apt-get install libglib2.0-bin gsettings-desktop-schemas)")
        pytest.skip("gsettings is not installed")
    script = run(forcetrace, "suggest", session[0], "--format", "gsettings").stdout
    profile = suggestion(forcetrace, session[0])
    key = f"{SCHEMA}:/org/gnome/desktop/peripherals/stylus/default-1d6b:7f04/"
    env = dict(env_for(tmp_path, "keyfile"), GSETTINGS_SCHEMA_DIR=str(gnome47(tmp_path)))

    def get(name):
        done = subprocess.run(["gsettings", "get", key, name], env=env, capture_output=True, text=True)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        return json.loads(done.stdout)

    assert get("pressure-range") == [0, 100] and get("pressure-curve") == [0, 0, 100, 100]
    done = subprocess.run(["sh", "-c", script], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    # The usable range 300..3700 of 0..4095 widened to whole percents: 7.33 % down to 7, 90.35 % up to 91.
    assert get("pressure-range") == [7, 91]
    curve = get("pressure-curve")
    assert curve != profile["axis_fit"]["curve"] and curve == json.loads(
        re.search(r"pressure-curve '(\[.*\])'", script.split("else")[0]).group(1))
    # The curve is fitted over that range: each median lands on its target.
    low, high = 0.07 * 4095, 0.91 * 4095
    for c, target in zip(profile["classes"][:3], [0.25, 0.50, 0.85]):
        assert bezier_output(curve, (c["median"] - low) / (high - low)) == pytest.approx(target, abs=0.01)
    # The eraser was not calibrated: its keys keep their defaults.
    assert get("eraser-pressure-range") == [0, 100] and get("eraser-pressure-curve") == [0, 0, 100, 100]


# Hyprland's option names (src/config/values/ConfigValues.cpp, added in 0.56.0 by
# "input/tablet: add TabletTool config options for eraser button and tool
# pressure"): floats from -1 to 1, a negative value meaning libinput's default.
HYPRLAND_OPTIONS = {"input:tablettool:pressure_range_min", "input:tablettool:pressure_range_max"}

# hl.config as Hyprland's Lua config manager reads it: nested tables joined by
# ".", the option's name with ":" as "."; every value printed as KEY=VALUE.
HL_STANDIN = r"""
local seen = {}
local function walk(prefix, t)
  for k, v in pairs(t) do
    local name = prefix == "" and k or prefix .. "." .. k
    if type(v) == "table" then walk(name, v) else seen[#seen + 1] = name .. "=" .. string.format("%.17g", v) .. " " .. math.type(v) end
  end
end
hl = { config = function(t) walk("", t) end }
dofile(arg[1])
table.sort(seen)
for _, line in ipairs(seen) do print(line) end
"""


def hyprlang_values(lines):
    """A hyprland.conf block of nested categories: `name {`, `key = value`, `}`."""
    path, values = [], {}
    for line in lines:
        line = line.strip()
        if line.endswith("{"):
            path.append(line[:-1].strip())
        elif line == "}":
            path.pop()
        elif line:
            key, value = (part.strip() for part in line.split("=", 1))
            values[":".join(path + [key])] = float(value)
    assert path == []
    return values


def test_hyprland_reads_back(forcetrace, session, tmp_path):
    lua = shutil.which("lua5.4")
    if not lua:
        if os.environ.get("FORCETRACE_REQUIRE_LUA"):
            pytest.fail("lua5.4 is not installed (apt-get install lua5.4)")
        pytest.skip("lua5.4 is not installed")
    text = run(forcetrace, "suggest", session[0], "--format", "hyprland").stdout
    (tmp_path / "hyprland.lua").write_text(text)
    (tmp_path / "standin.lua").write_text(HL_STANDIN)
    done = subprocess.run([lua, str(tmp_path / "standin.lua"), str(tmp_path / "hyprland.lua")], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    values = {}
    for line in done.stdout.splitlines():
        name, rest = line.split("=", 1)
        number, kind = rest.split()
        assert kind == "float"
        values[name.replace(".", ":")] = float(number)
    assert set(values) == HYPRLAND_OPTIONS
    assert values["input:tablettool:pressure_range_min"] == pytest.approx(300 / 4095, abs=5e-5)
    assert values["input:tablettool:pressure_range_max"] == pytest.approx(3700 / 4095, abs=5e-5)
    assert all(-1 <= v <= 1 for v in values.values())
    # The hyprland.conf form in the comments says the same.
    comments = [line[3:] for line in text.splitlines() if line.startswith("-- ")]
    start = comments.index("input {")
    assert hyprlang_values(comments[start:start + 6]) == values
    keyword = [c.split()[-2:] for c in comments if "hyprctl keyword" in c]
    assert {name: float(value) for name, value in keyword} == values


def kwin_curve(value):
    """KWin's pressureCurve: "x1,y1;x2,y2;" with values in 0-1."""
    assert value.endswith(";")
    points = value[:-1].split(";")
    assert len(points) == 2
    numbers = []
    for point in points:
        xy = point.split(",")
        assert len(xy) == 2
        for text in xy:
            assert re.fullmatch(r"(0|1|0\.\d+)", text), text
            number = float(text)
            assert 0 <= number <= 1
            numbers.append(number)
    return numbers


def test_kwin_string_parses_back(forcetrace, session):
    text = run(forcetrace, "suggest", session[0], "--format", "kwin").stdout
    values = dict(line.split("=", 1) for line in text.splitlines() if not line.startswith("#"))
    assert set(values) == {"pressureCurve", "pressureRangeMin", "pressureRangeMax"}
    profile = suggestion(forcetrace, session[0])
    assert [round(v * 100) for v in kwin_curve(values["pressureCurve"])] == profile["range_fit"]["curve"] == [40, 10, 80, 60]
    assert float(values["pressureRangeMin"]) == pytest.approx(300 / 4095, abs=5e-5)
    assert float(values["pressureRangeMax"]) == pytest.approx(3700 / 4095, abs=5e-5)
    libinput = run(forcetrace, "suggest", session[0], "--format", "libinput-range").stdout
    ranges = dict(line.split("=", 1) for line in libinput.splitlines() if not line.startswith("#"))
    assert ranges == {"minimum": values["pressureRangeMin"], "maximum": values["pressureRangeMax"]}


FAKE = """#!/usr/bin/env python3
import os, sys
with open(os.environ["FAKE_LOG"], "ab") as log:
    log.write(b"\\0".join(os.fsencode(a) for a in [os.path.basename(sys.argv[0])] + sys.argv[1:]) + b"\\n--\\n")
"""


def fake_tools(tmp_path):
    """`xsetwacom` and `gsettings` that log their arguments exactly."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name in ["xsetwacom", "gsettings"]:
        (folder / name).write_text(FAKE)
        (folder / name).chmod(0o755)
    return folder


def invocations(tmp_path, script, shell):
    log = tmp_path / f"{shell}.log"
    log.unlink(missing_ok=True)
    env = dict(os.environ, PATH=f"{fake_tools(tmp_path)}:{os.environ['PATH']}", FAKE_LOG=str(log))
    (tmp_path / "script.sh").write_bytes(script)
    done = subprocess.run([shell, str(tmp_path / "script.sh")], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    return [entry.split(b"\0") for entry in log.read_bytes().split(b"\n--\n")[:-1]]


def xsetwacom_grammar(argv, device):
    """xsetwacom(1): `xsetwacom set device_name parameter [value ...]`;
    PressureCurve takes x1 y1 x2 y2 in 0-100, Threshold one value of the
    driver's 0-2048 pressure scale (wacom(4))."""
    assert argv[0] == b"xsetwacom" and argv[1] == b"set" and argv[2] == device
    parameter, values = argv[3], argv[4:]
    assert all(re.fullmatch(rb"\d+", v) for v in values), values
    if parameter == b"PressureCurve":
        assert len(values) == 4 and all(0 <= int(v) <= 100 for v in values)
        x1, y1, x2, y2 = map(int, values)
        assert x1 <= x2 and y1 <= y2
    else:
        assert parameter == b"Threshold" and len(values) == 1 and 0 <= int(values[0]) <= 2048
    return parameter, [int(v) for v in values]


def test_xsetwacom_commands_follow_the_grammar(forcetrace, session, tmp_path):
    script = run(forcetrace, "suggest", session[0], "--format", "xsetwacom").stdout.encode()
    profile = suggestion(forcetrace, session[0])
    for shell in ["sh", "bash"]:
        calls = [xsetwacom_grammar(argv, b"forcetrace simulated pen stylus") for argv in invocations(tmp_path, script, shell)]
        assert [name for name, _ in calls] == [b"PressureCurve", b"Threshold"]
        assert calls[0][1] == profile["axis_fit"]["curve"]
        tip = json.loads(run(forcetrace, "suggest", session[0], "--format", "json").stdout)["pen"]["tip"]["value"]
        assert calls[1][1] == [round(tip / 4095 * 2048)]


HOSTILE = ["'", '"', "$", "`", "\\", "%", "%s", "$(id)", "`id`", ";", "&", "|", "*", "?", "[", "]", "#", "=", "~", "!",
           "\n", "\r", "\t", "\x1b", "\x07", "\x7f", "\u0085", "\u202e", "\u200f", "\u2028", "é", "€", " ", "_", "a"]


def hostile_names(count, seed):
    rng = random.Random(seed)
    names = ["it's a \"pen\"", "x\n", "x_", "\n", "_", "%", "\\", "ends with newline\n", "$(touch /tmp/pwned) `id`", "\x1b]0;title\x07"]
    while len(names) < count:
        names.append("".join(rng.choice(HOSTILE) for _ in range(rng.randint(1, 12))))
    return names


def set_device_name(trace, name):
    with h5py.File(trace, "r+") as f:
        recording = next(iter(f["recordings"].values()))
        recording.attrs.create("device_name", name.encode(), dtype=h5py.string_dtype("utf-8"))


@pytest.mark.parametrize("seed", [1, 2])
def test_hostile_device_names_reach_each_tool_exactly(forcetrace, session, tmp_path, seed):
    trace = tmp_path / "named.h5"
    for name in hostile_names(20, seed):
        trace.write_bytes(session[0].read_bytes())
        set_device_name(trace, name)
        outputs = {f: run(forcetrace, "suggest", trace, "--format", f).stdout.encode()
                   for f in ["xsetwacom", "gsettings", "kwin", "libinput-range", "hyprland", "libinput-plugin"]}
        for fmt, text in outputs.items():
            # Only printable text and the lines' own newlines: a terminal shows it as it is.
            assert not any(b < 0x20 and b != 0x0A or b == 0x7F for b in text), (fmt, name, text)
            decoded = text.decode()
            assert not re.search("[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029]", decoded), (fmt, name)
        for shell in ["sh", "bash"]:
            calls = invocations(tmp_path, outputs["xsetwacom"], shell)
            assert len(calls) == 2, (name, outputs["xsetwacom"])
            for argv in calls:
                xsetwacom_grammar(argv, (name + " stylus").encode())
            # The fake gsettings answers `range` with success: the GNOME 47 branch.
            gsettings = invocations(tmp_path, outputs["gsettings"], shell)
            key = f"{SCHEMA}:/org/gnome/desktop/peripherals/stylus/default-1d6b:7f04/".encode()
            assert gsettings == [[b"gsettings", b"range", key, b"pressure-range"], [b"gsettings", b"set", key, b"pressure-range", b"[7, 91]"],
                                 [b"gsettings", b"set", key, b"pressure-curve", gsettings[2][4]]]
        for fmt in ["kwin", "libinput-range"]:
            keys = [line.split("=", 1)[0] for line in outputs[fmt].decode().splitlines() if not line.startswith("# ")]
            assert keys == (["pressureCurve", "pressureRangeMin", "pressureRangeMax"] if fmt == "kwin" else ["minimum", "maximum"])
        assert [line for line in outputs["hyprland"].decode().splitlines() if not line.startswith("-- ")] == [
            "hl.config({ input = { tablettool = { pressure_range_min = 0.0733, pressure_range_max = 0.9035 } } })"]
        # The plugin holds the name as a Lua literal of printable ASCII (LibinputPluginTests runs it).
        assert all(0x20 <= b < 0x7F or b == 0x0A for b in outputs["libinput-plugin"]), name


def test_pen_formats_refused_for_a_touchpad(forcetrace, tmp_path):
    trace = tmp_path / "pad.h5"
    run(forcetrace, "calibrate", "--replay", SAMPLES / "calibration" / "touchpad.evemu", "--protocol", "touchpad", "-o", trace, "--fast")
    for fmt in ["xsetwacom", "gsettings", "kwin", "libinput-range", "hyprland"]:
        result = run(forcetrace, "suggest", trace, "--format", fmt, check=False)
        assert result.returncode == 1
        assert f"--format {fmt} is a pen setting; this is a touchpad calibration" in result.stderr
    result = run(forcetrace, "suggest", trace, "--format", "libinput-plugin", check=False)
    assert result.returncode == 1
    assert "--format libinput-plugin is for a pen calibration; this is a touchpad calibration" in result.stderr
    assert "use --format quirks for a touchpad" in result.stderr


def test_pen_sample_in_samples(forcetrace, tmp_path):
    """samples/calibration/pen.evemu is what `make samples` writes, and `make demo` reads."""
    if not SAMPLE.exists():
        pytest.fail(f"{SAMPLE} is missing: run 'make samples'")
    made = tmp_path / "pen.evemu"
    run(forcetrace, "simulate", "--seed", "1", "--protocol", "pen", "-o", made)
    assert made.read_bytes() == SAMPLE.read_bytes()
    trace = tmp_path / "pen.h5"
    run(forcetrace, "calibrate", "--replay", SAMPLE, "--protocol", "pen", "-o", trace, "--fast")
    assert suggestion(forcetrace, trace)["range_fit"]["curve"] == [40, 10, 80, 60]


def test_html_pen_panel(forcetrace, session, tmp_path):
    """report --html draws the pen panel for a pen calibration, and only for one."""
    page = tmp_path / "pen.html"
    run(forcetrace, "report", session[0], "--html", page)
    html = page.read_text()
    assert html.count('data-figure="pen-curve"') == 1
    assert "Curve 40 10 80 60 (xsetwacom/GNOME form" in html
    assert re.search(r"<tr><td>light</td><td>43\.\d</td><td>25\.0</td><td>25\.0</td><td>0\.0</td></tr>", html)
    pad = tmp_path / "pad.h5"
    run(forcetrace, "calibrate", "--replay", SAMPLES / "calibration" / "touchpad.evemu", "--protocol", "touchpad", "-o", pad, "--fast")
    run(forcetrace, "report", pad, "--html", tmp_path / "pad.html")
    assert 'data-figure="pen-curve"' not in (tmp_path / "pad.html").read_text()


def test_real_pen_recording(forcetrace, tmp_path):
    """The shared Dell Canvas recording (a Wacom ISD-V4 pen) holds one hover
    and one stroke: calibrate takes them as the first two trials, stops at
    the input's end, and the profile's activation is that stroke's first
    pressure with the tip down, read here from the samples table."""
    from conftest import shared_recording
    recording = shared_recording("dell_canvas_pen.evemu")
    trace = tmp_path / "dell.h5"
    result = run(forcetrace, "calibrate", "--replay", recording, "--protocol", "pen", "--trials", "1", "-o", trace, "--fast", check=False)
    assert result.returncode == 1 and "stopped after 2 of 5 trials (end-of-input)" in result.stderr
    assert "each desktop's pen setting" not in result.stdout, "no curve, so no formats to offer"
    profile = suggestion(forcetrace, trace)
    assert [c["class"] for c in profile["classes"]] == ["stroke-light"]
    assert profile["notes"] == ["the curve needs light, normal and firm strokes"]
    assert profile["usable_range"] is None and profile["range_fit"] is None and profile["hover_noise"] == 0
    with h5py.File(trace, "r") as f:
        group = next(iter(f["recordings"].values()))
        contact = group["labels"]["contact"][1]
        samples = group["samples"]
        rows = samples["contact"][:] == contact
        first = samples["pressure"][rows][0]
        assert group["labels"]["peak"][1] == samples["pressure"][rows].max()
    assert profile["activation"] == first
    for fmt in ["xsetwacom", "gsettings", "kwin", "libinput-range", "hyprland", "libinput-plugin"]:
        failed = run(forcetrace, "suggest", trace, "--format", fmt, check=False)
        assert failed.returncode == 1 and "no pen curve can be fitted: the curve needs light, normal and firm strokes" in failed.stderr


@pytest.mark.parametrize("args,ok", [
    (["--pen-range", "1..4095"], True), (["--pen-range", "0..4095"], False), (["--pen-range", "1..4096"], False),
    (["--pen-range", "5..5"], False), (["--pen-range", "5..6"], True),
    (["--pen-curve", "0,0,100,100"], True), (["--pen-curve", "0,0,101,100"], False), (["--pen-curve", "-1,0,100,100"], False),
    (["--pen-curve", "50,0,50,100"], True), (["--pen-curve", "51,0,50,100"], False), (["--pen-curve", "1,2,3"], False),
])
def test_simulate_pen_script_edges(forcetrace, tmp_path, args, ok):
    result = run(forcetrace, "simulate", "--protocol", "pen", "--trials", "3", "-o", tmp_path / "p.evemu", *args, check=False)
    assert result.returncode == (0 if ok else 2), result.stderr
    if not ok:
        assert f"Invalid value '{args[1]}' for '{args[0]}'" in result.stderr


def test_pen_script_needs_the_pen_protocol(forcetrace, tmp_path):
    result = run(forcetrace, "simulate", "--protocol", "touchpad", "--pen-curve", "0,0,100,100", "-o", tmp_path / "p.evemu", check=False)
    assert result.returncode == 2 and "'--pen-curve' and '--pen-range' need '--protocol pen'" in result.stderr
