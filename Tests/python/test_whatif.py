"""`forcetrace whatif`: libinput's pressure rules over a recording, per
release. The boundary fixtures' comments work every number out by hand;
each rule is pinned on its threshold, one below and one above."""
import json
import os
import pathlib
import shutil
import subprocess

import h5py
import pytest

from conftest import ROOT, SAMPLES, run, shared_recording
from test_calibrate import libinput

FIXTURES = ROOT / "Tests" / "fixtures"
TOUCHPAD = FIXTURES / "whatif-touchpad-boundaries.evemu"
PEN = FIXTURES / "whatif-pen-boundaries.evemu"
THUMB_QUIRKS = FIXTURES / "whatif-thumb.quirks"


def whatif(forcetrace, tmp_path, fixture, *args):
    trace = tmp_path / (fixture.stem + ".h5")
    if not trace.exists():
        run(forcetrace, "import", fixture, "-o", trace)
    return json.loads(run(forcetrace, "whatif", trace, "--json", *args).stdout)


def decisions(result):
    return [(round(t, 6), line) for t, line in result["decisions"]]


def begin(t):
    return (t, "pressure: begin touch 0")


def end(t):
    return (t, "pressure: end touch 0")


def jailed(t):
    return (t, "thumb: touch 0, THUMB_STATE_FINGER → THUMB_STATE_JAILED")


def test_touchpad_boundaries_defaults(forcetrace, tmp_path):
    out = whatif(forcetrace, tmp_path, TOUCHPAD, "--no-shipped")
    [defaults] = out["quirk_sets"]
    assert defaults["rules"] == {"begin_at": 30, "end_below": 25, "palm_above": 130, "pressure_ignored": None,
                                 "thumb_jail_line": 850, "thumb_pressure_threshold": None}
    # Touch 100 (peak 29) never begins; 101 begins on 30 and 102 on 31; 103 ends on 24,
    # not on 25, and begins again; 106 is a palm at 131, 104 (129) and 105 (130) are not;
    # 107 (y 849) is a finger, 108 (850) and every one lower is jailed.
    assert decisions(defaults) == [
        begin(0.15), end(0.16),                    # 101: 30, then 20
        begin(0.29), end(0.30),                    # 102: 31, then 20
        begin(0.42), end(0.45), begin(0.46), end(0.47),  # 103: 40 26 25 24 30 20
        begin(0.59),                               # 104: 129, no palm
        begin(0.73),                               # 105: 130, no palm
        begin(0.87), (0.88, "palm: touch 0, palm detected (pressure)"),  # 106: 131
        begin(1.01),                               # 107: y 849
        begin(1.13), jailed(1.13), begin(1.25), jailed(1.25), begin(1.37), jailed(1.37),
        begin(1.49), jailed(1.49), begin(1.61), jailed(1.61),
    ]
    assert defaults["totals"] == {"begins": 13, "chatter": 1, "ends": 4, "palms": 1, "sequences": 13, "thumbs": 5}


def test_touchpad_thumb_threshold_moves_the_line(forcetrace, tmp_path):
    out = whatif(forcetrace, tmp_path, TOUCHPAD, "--no-shipped", "--quirks", THUMB_QUIRKS)
    defaults, candidate = out["quirk_sets"]
    assert candidate["rules"]["thumb_jail_line"] == 920
    assert candidate["rules"]["thumb_pressure_threshold"] == 100
    # 919 and 920 are fingers with the lower line's "> 920"; 921 is jailed.
    thumbs = [t for t, line in decisions(candidate) if line.startswith("thumb:")]
    assert thumbs == [1.61]
    assert candidate["totals"]["thumbs"] == 1 and defaults["totals"]["thumbs"] == 5
    assert any("whatever its pressure" in note for note in candidate["notes"])


def test_touchpad_pressure_range_boundaries(forcetrace, tmp_path):
    """AttrPressureRange=31:26 and palm 129: each rule one step up from the defaults."""
    quirks = tmp_path / "range.quirks"
    quirks.write_text("[range]\nMatchName=forcetrace whatif boundary touchpad\nAttrPressureRange=31:26\nAttrPalmPressureThreshold=129\n")
    out = whatif(forcetrace, tmp_path, TOUCHPAD, "--no-shipped", "--quirks", quirks)
    candidate = out["quirk_sets"][1]
    assert candidate["rules"]["begin_at"] == 31 and candidate["rules"]["end_below"] == 26
    lines = decisions(candidate)
    assert begin(0.15) not in lines and begin(0.29) in lines
    # 103: 40 begins, 26 stays (not < 26), 25 ends, 24 stays ended, 30 does not begin (< 31).
    assert [x for x in lines if 0.40 <= x[0] <= 0.5] == [begin(0.42), end(0.44)]
    # Palm above 129: 104 (129) is not, 105 (130) and 106 (131) are.
    palms = [t for t, line in lines if line.startswith("palm:")]
    assert palms == [0.74, 0.88]


def test_pen_boundaries(forcetrace, tmp_path):
    out = whatif(forcetrace, tmp_path, PEN, "--no-shipped")
    [defaults] = out["quirk_sets"]
    assert defaults["rules"] == {"tip_down_at": 204, "tip_up_at": 40}
    assert [t for t, _ in decisions(defaults)] == [0.15, 0.17, 0.31, 0.32, 0.47, 0.49, 0.63, 0.64, 0.76, 0.77, 0.91, 0.93]
    assert [line for _, line in decisions(defaults)] == ["tip down", "tip up"] * 6


def test_pen_range_quirk(forcetrace, tmp_path):
    quirks = tmp_path / "pen.quirks"
    quirks.write_text("[pen]\nMatchName=forcetrace whatif boundary pen\nMatchUdevType=tablet\nAttrPressureRange=205:41\n")
    out = whatif(forcetrace, tmp_path, PEN, "--no-shipped", "--quirks", quirks)
    candidate = out["quirk_sets"][1]
    assert candidate["rules"] == {"tip_down_at": 205, "tip_up_at": 41}
    lines = decisions(candidate)
    # 204 no longer puts the tip down (second stroke, 0.15); 205 does (third, 0.31) and 39 <= 41 lifts it.
    assert (0.15, "tip down") not in lines
    assert (0.31, "tip down") in lines and (0.32, "tip up") in lines


def test_quirks_errors_name_the_line(forcetrace, tmp_path):
    trace = tmp_path / "t.h5"
    run(forcetrace, "import", TOUCHPAD, "-o", trace)
    for body, line, words in [
        ("[a]\nMatchUdevType=touchpad\nAttrPressureRange=0:0\n", 3, "takes N:M with N > M"),
        ("[a]\nMatchUdevType=touchpad\nAttrPressureRange=25:30\n", 3, "takes N:M with N > M"),
        ("[a]\nMatchUdevType=touchpad\nAttrPalmPressureThreshold=-1\n", 3, "unsigned"),
        ("[a]\nAttrPalmPressureThreshold=1\n", 2, "starts with its Match lines"),
        ("[a]\nMatchUdevType=touchpad\nAttrPalmPressureThreshold=1\nMatchName=x\n", 4, "a Match line after an Attr"),
        ("MatchName=x\n", 1, "outside any [section]"),
        ("[a]\nMatchName=x\n", 1, "has no Attr or Model line"),
        ("[a]\nMatchUdevType=touchpad\nAttrPressureRange=30:25 \n", 3, "trailing whitespace"),
        ("[a]\nMatchUdevType=touchscreen\nAttrPressureRange=30:25\n", 2, "MatchUdevType takes"),
    ]:
        bad = tmp_path / "bad.quirks"
        bad.write_text(body)
        result = run(forcetrace, "whatif", trace, "--no-shipped", "--quirks", bad, check=False)
        assert result.returncode == 1, result.stderr
        assert f"{bad}:{line}: " in result.stderr and words in result.stderr
    # "none" is libinput's word for 0:0: detection off, said so.
    good = tmp_path / "none.quirks"
    good.write_text("[a]\nMatchName=forcetrace whatif boundary touchpad\nAttrPressureRange=none\n")
    out = json.loads(run(forcetrace, "whatif", trace, "--no-shipped", "--quirks", good, "--json").stdout)
    assert out["quirk_sets"][1]["rules"]["pressure_ignored"].startswith("AttrPressureRange=none")
    # Touches then begin on BTN_TOUCH, silently; palm and thumb detection still read pressure and position.
    lines = [line for _, line in out["quirk_sets"][1]["decisions"]]
    assert not any(line.startswith("pressure:") for line in lines)
    assert lines.count("palm: touch 0, palm detected (pressure)") == 1 and len(lines) == 6


def test_libinput_accepts_the_fixture_quirks(tmp_path):
    folder = tmp_path / "q"
    folder.mkdir()
    (folder / "99-thumb.quirks").write_text(THUMB_QUIRKS.read_text())
    result = subprocess.run([libinput(), "quirks", "validate", "--data-dir", str(folder)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_calibration_sample_defaults_against_the_suggestion(forcetrace, tmp_path):
    cal = tmp_path / "cal.h5"
    run(forcetrace, "calibrate", "--replay", SAMPLES / "calibration" / "touchpad.evemu", "--protocol", "touchpad",
        "-o", cal, "--fast")
    quirks = tmp_path / "s.quirks"
    run(forcetrace, "suggest", cal, "--format", "quirks", "-o", quirks)
    out = json.loads(run(forcetrace, "whatif", cal, "--no-shipped", "--quirks", quirks, "--json").stdout)
    defaults, suggested = out["quirk_sets"]
    by_class = {name: {c["class"]: c for c in result["classes"]} for name, result in [("d", defaults), ("s", suggested)]}
    assert {c: by_class["s"][c]["trials"] for c in by_class["s"]} == {"light": 10, "normal": 10, "thumb": 10, "palm": 10}
    assert by_class["s"]["light"]["began"] == 10 and by_class["s"]["palm"]["palms"] == 10
    # The defaults' palm threshold (130) flags the sample's thumbs (peaks 130..160) as palms; the suggestion does not.
    assert by_class["d"]["thumb"]["palms"] > 0 and by_class["s"]["thumb"]["palms"] == 0
    assert all(by_class["s"][c]["palms"] == 0 for c in ("light", "normal"))


def test_text_escapes_the_device_name(forcetrace, tmp_path):
    trace = tmp_path / "evil.h5"
    run(forcetrace, "import", TOUCHPAD, "-o", trace)
    # An evemu file cannot carry control bytes: set the name on the trace itself.
    with h5py.File(trace, "r+") as f:
        f["recordings"]["whatif-touchpad-boundaries"].attrs.create("device_name", "pad\x1b[31mred", dtype=h5py.string_dtype("utf-8"))
    result = run(forcetrace, "whatif", trace, "--no-shipped")
    assert "\x1b" not in result.stdout and "pad\\x1b[31mred" in result.stdout


@pytest.mark.parametrize("name", ["CyPS2 Cypress Trackpad.three_finger_press.events", "bcm5974.three-finger-click.events"])
def test_shared_touchpads_say_why(forcetrace, tmp_path, name):
    trace = tmp_path / "shared.h5"
    run(forcetrace, "import", shared_recording(name), "-o", trace)
    out = json.loads(run(forcetrace, "whatif", trace, "--json").stdout)
    result = out["quirk_sets"][0]
    if name.startswith("CyPS2"):
        # Semi-mt (INPUT_PROP_SEMI_MT): libinput drops the MT axes, uses ABS_PRESSURE, and so has no palm pressure;
        # the shipped [Cypress Touchpads] section sets 10:8.
        assert result["rules"]["begin_at"] == 10 and result["rules"]["end_below"] == 8
        assert result["rules"]["palm_above"] is None
        assert any("30-vendor-cypress.quirks" in s for s in result["matched_sections"])
    else:
        # Protocol A without ABS_MT_PRESSURE: ABS_PRESSURE 0..256 with the defaults (int)(0.12 * 256) = 30, (int)25.6 = 25.
        assert result["rules"]["begin_at"] == 30 and result["rules"]["end_below"] == 25


def test_suggest_says_what_its_section_changes(forcetrace, tmp_path):
    """The quirks file's comment is whatif's comparison: on the sample, the defaults' palm
    threshold 130 takes every thumb (peaks 130..160, above 130 from 131) for a palm; the
    suggested 177 takes none, and still every palm (190..240)."""
    cal = tmp_path / "cal.h5"
    run(forcetrace, "calibrate", "--replay", SAMPLES / "calibration" / "touchpad.evemu", "--protocol", "touchpad",
        "-o", cal, "--fast")
    text = run(forcetrace, "suggest", cal, "--format", "quirks").stdout
    comment = [line for line in text.splitlines() if line.startswith("# with this section: ")]
    assert comment == ["# with this section: 10/10 light touches begin (defaults: 10/10), 10/10 palms ignored (defaults: 10/10), "
                       "0/10 normal touches taken for palms (defaults: 0/10), 0/10 thumbs taken for palms (defaults: 10/10), "
                       "0/10 thumbs jailed (defaults: 0/10), 0 touches lost mid-stroke (defaults: 0)"]
    folder = tmp_path / "q"
    folder.mkdir()
    (folder / "99-forcetrace.quirks").write_text(text)
    result = subprocess.run([libinput(), "quirks", "validate", "--data-dir", str(folder)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_report_html_has_the_panel(forcetrace, tmp_path):
    trace = tmp_path / "t.h5"
    run(forcetrace, "import", TOUCHPAD, "-o", trace)
    with h5py.File(trace, "r+") as f:
        f["recordings"]["whatif-touchpad-boundaries"].attrs.create("device_name", "<script>x</script>", dtype=h5py.string_dtype("utf-8"))
    page = tmp_path / "r.html"
    run(forcetrace, "report", trace, "--html", page)
    html = page.read_text()
    assert html.count('data-figure="whatif"') == 1
    panel = html[html.index('data-figure="whatif"'):]
    panel = panel[:panel.index("</figure>")]
    assert "<tr><th>touch begins at</th><td>&gt;= 30</td></tr>" in panel
    assert "<tr><th>thumbs jailed</th><td>5 (185.2/min)</td></tr>" in panel
    assert "<script>x" not in html and "&lt;script&gt;x" in html


@pytest.fixture(scope="module")
def holds_session(forcetrace, tmp_path_factory):
    """A simulated touchpad session with steady holds (calibrate --holds), and its suggestion."""
    tmp = tmp_path_factory.mktemp("holds")
    evemu, cal = tmp / "holds.evemu", tmp / "holds.h5"
    run(forcetrace, "simulate", "--protocol", "touchpad", "--holds", "--trials", "4", "-o", evemu)
    result = run(forcetrace, "calibrate", "--replay", evemu, "--protocol", "touchpad", "--holds", "--trials", "4", "-o", cal, "--fast")
    assert "saved 24 labelled trials" in result.stdout
    suggestion = json.loads(run(forcetrace, "suggest", cal, "--format", "json").stdout)["touchpad"]
    return tmp, cal, suggestion


def hold_chatter(forcetrace, tmp, cal, n, m):
    quirks = tmp / f"range-{n}-{m}.quirks"
    quirks.write_text(f"[r]\nMatchName=forcetrace simulated touchpad\nAttrPressureRange={n}:{m}\n")
    out = json.loads(run(forcetrace, "whatif", cal, "--no-shipped", "--quirks", quirks, "--json").stdout)
    classes = {c["class"]: c for c in out["quirk_sets"][1]["classes"]}
    return classes["hold-light"]["chatter"] + classes["hold-normal"]["chatter"]


def test_holds_set_the_gap(forcetrace, holds_session):
    """suggest's M is the lowest pressure any hold shows once begun: whatif (libinput's rules,
    computed apart) finds no chatter at M or one below, some one above; and the chatter
    suggest reports for libinput's default gap is whatif's at N:N-5 (2 % of 255, rounded)."""
    tmp, cal, touchpad = holds_session
    n, m = touchpad["pressure_range_begin"]["value"], touchpad["pressure_range_end"]["value"]
    holds = touchpad["holds"]
    assert holds["holds"] == 8 and holds["never_begin"] == 0
    assert m == holds["lowest_held"] < holds["default_end"] == n - 5
    assert holds["default_chatter"] > 0
    assert hold_chatter(forcetrace, tmp, cal, n, holds["default_end"]) == holds["default_chatter"]
    assert hold_chatter(forcetrace, tmp, cal, n, m) == 0
    assert hold_chatter(forcetrace, tmp, cal, n, m - 1) == 0
    assert hold_chatter(forcetrace, tmp, cal, n, m + 1) > 0


def test_holds_only_with_the_touchpad_protocol(forcetrace, tmp_path):
    result = run(forcetrace, "calibrate", "--replay", SAMPLES / "calibration" / "touchpad.evemu", "--protocol", "app",
                 "--holds", "-o", tmp_path / "x.h5", check=False)
    assert result.returncode == 2 and "'--holds' needs '--protocol touchpad'" in result.stderr
    result = run(forcetrace, "simulate", "--protocol", "pen", "--holds", "-o", tmp_path / "x.evemu", check=False)
    assert result.returncode == 2 and "'--holds' needs '--protocol touchpad'" in result.stderr


def test_touchscreens_are_refused_with_the_reason(forcetrace, tmp_path):
    trace = tmp_path / "ts.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", trace)
    result = run(forcetrace, "whatif", trace, check=False)
    assert result.returncode == 1
    assert "is neither a touchpad nor a pen tablet" in result.stderr and "hint: " in result.stderr


def test_simulated_0_127_pad_the_suggestion_beats_the_defaults(forcetrace, tmp_path):
    """On a 0..127 pad libinput's defaults begin at (int)(0.12 * 127) = 15, above the script's
    lightest touches (10..22), and look for palms above 130, beyond the axis: the suggested
    section takes every light touch and ignores every palm (95..120)."""
    evemu, cal, quirks = tmp_path / "n.evemu", tmp_path / "n.h5", tmp_path / "n.quirks"
    run(forcetrace, "simulate", "--protocol", "touchpad", "--device", "touchpad-127", "-o", evemu)
    run(forcetrace, "calibrate", "--replay", evemu, "--protocol", "touchpad", "-o", cal, "--fast")
    run(forcetrace, "suggest", cal, "--format", "quirks", "-o", quirks)
    assert "# with this section: 10/10 light touches begin (defaults: 6/10), 10/10 palms ignored (defaults: 0/10), " in quirks.read_text()
    out = json.loads(run(forcetrace, "whatif", cal, "--no-shipped", "--quirks", quirks, "--json").stdout)
    defaults, suggested = ({c["class"]: c for c in r["classes"]} for r in out["quirk_sets"])
    assert out["quirk_sets"][0]["rules"]["begin_at"] == 15 and out["quirk_sets"][0]["rules"]["palm_above"] == 130
    assert (defaults["light"]["began"], suggested["light"]["began"]) == (6, 10)
    assert (defaults["palm"]["palms"], suggested["palm"]["palms"]) == (0, 10)
    assert sum(suggested[c]["palms"] for c in ("light", "normal", "thumb")) == 0


# libinput's own parser, per release: Debian's libinput-quirks (the installed
# release) and the builds of ../shared/libinput (make libinput-oracles).
ORACLES = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "forcetrace" / "libinput"


def quirks_validators():
    """[(version, argv prefix, env)] of every libinput-quirks here."""
    found = []
    debian = pathlib.Path("/usr/libexec/libinput/libinput-quirks")
    if debian.exists() and shutil.which("libinput"):
        version = subprocess.run(["libinput", "--version"], capture_output=True, text=True).stdout.strip()
        found.append((version, [str(debian)], {}))
    for prefix in sorted(ORACLES.glob("libinput-*")):
        tool = prefix / "libexec" / "libinput" / "libinput-quirks"
        if (prefix / "BUILD-INFO").exists() and tool.exists() and prefix.name != "libinput-1.22.1":
            libs = next(prefix.glob("lib/*/libinput.so.10")).parent
            found.append((prefix.name.removeprefix("libinput-"), [str(tool)], {"LD_LIBRARY_PATH": str(libs)}))
    return found


# One-section files, each one line away from a valid one: keys each release
# knows or not, values, and the syntax every release shares.
PARSER_CASES = [
    "AttrPressureRange=20:10", "AttrPressureRange=none", "AttrPressureRange=0:0", "AttrPressureRange=10:20",
    "AttrPressureRange=5:-1", "AttrPressureRange=20:10abc", "AttrPressureRange = 20:10", "AttrPressureRange=\"20:10\"",
    "AttrPressureRange=20:10 ", "AttrPressureRange=20:10 # c", "AttrPressureRange==20:10", "AttrPressureRange=20",
    "AttrPalmPressureThreshold=0", "AttrPalmPressureThreshold=-1", "AttrThumbPressureThreshold=abc",
    "ModelPressurePad=1", "ModelPressurePad=2", "ModelTouchpadPhantomClicks=1", "ModelScrollOnMiddleClick=1",
    "AttrEventCode=-ABS_MT_PRESSURE", "AttrEventCode=ABS_MT_PRESSURE", "AttrEventCode=-EV_ABS:0x3a",
    "AttrEventCodeDisable=ABS_MT_PRESSURE", "AttrEventCodeDisable=ABS_TILT_X;ABS_TILT_Y;",
    "AttrInputPropEnable=INPUT_PROP_BUTTONPAD", "AttrInputProp=+INPUT_PROP_PRESSUREPAD", "AttrInputProp=+0x07",
    "AttrInputProp=+INPUT_PROP_BUTTONPAD;-INPUT_PROP_SEMI_MT", "AttrIsVirtual=1", "AttrFoo=1", "ModelFoo=1",
    "MatchProduct=0x1;0x2", "MatchUniq=abc", "MatchVendor=0x1d6b", "MatchVendor=0x1D6B", "MatchBus=serial",
    " AttrPressureRange=20:10", "attrPressureRange=20:10",
]


def parser_case_file(folder, line):
    folder.mkdir()
    if line.lstrip().startswith("Match"):
        text = f"[case]\n{line}\nAttrPressureRange=20:10\n"
    else:
        text = f"[case]\nMatchUdevType=touchpad\n{line}\n"
    (folder / "case.quirks").write_text(text)
    return folder / "case.quirks"


def test_the_quirks_parser_accepts_what_each_libinput_accepts(forcetrace, tmp_path):
    validators = quirks_validators()
    if len(validators) < 2:
        pytest.skip(f"needs Debian's libinput-tools and the builds in {ORACLES} (make libinput-oracles)")
    trace = tmp_path / "t.h5"
    run(forcetrace, "import", TOUCHPAD, "-o", trace)
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    compared = 0
    for index, line in enumerate(PARSER_CASES):
        case = parser_case_file(tmp_path / f"case-{index}", line)
        for version, argv, env in validators:
            # No DMI in a container: libinput's test-suite switch lets the parser run anyway.
            env = {**os.environ, **env, "LIBINPUT_RUNNING_TEST_SUITE": "1", "XDG_RUNTIME_DIR": str(runtime)}
            theirs = subprocess.run([*argv, "validate", "--data-dir", case.parent], capture_output=True, text=True, env=env)
            ours = run(forcetrace, "whatif", trace, "--no-shipped", "--libinput", version, "--quirks", case, check=False)
            assert (ours.returncode == 0) == (theirs.returncode == 0), \
                f"libinput {version} on {line!r}: libinput {theirs.returncode} {theirs.stderr.strip()!r}, forcetrace {ours.stderr.strip()!r}"
            compared += 1
    print(f"{compared} verdicts compared over {len(validators)} libinput releases")


def test_the_html_panel_models_and_names_the_release_the_machine_would_run(forcetrace, tmp_path):
    trace = tmp_path / "t.h5"
    run(forcetrace, "import", TOUCHPAD, "-o", trace)
    page = tmp_path / "t.html"
    environment = {**os.environ, "FORCETRACE_LIBINPUT": "1.30.4"}
    run(forcetrace, "report", trace, "--html", page, env=environment)
    assert "pressure rules of libinput 1.30.4 (FORCETRACE_LIBINPUT)" in page.read_text()


@pytest.mark.parametrize("value", ["1.9", "1.21.0", "all", "newest", " 1.25.0"])
def test_a_libinput_setting_forcetrace_cannot_model_is_refused_not_ignored(forcetrace, tmp_path, value):
    trace = tmp_path / "t.h5"
    run(forcetrace, "import", TOUCHPAD, "-o", trace)
    environment = {**os.environ, "FORCETRACE_LIBINPUT": value}
    for command in (["whatif", trace], ["suggest", trace, "--format", "quirks"],
                    ["report", trace, "--html", tmp_path / "t.html"]):
        result = run(forcetrace, *command, check=False, env=environment)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert f"Invalid value '{value}' for 'FORCETRACE_LIBINPUT'" in result.stderr, result.stderr
        assert "unset it" in result.stderr, result.stderr
    assert not (tmp_path / "t.html").exists()
    # The first modelled release is accepted, and an empty value is no value.
    assert "libinput 1.22.0 (FORCETRACE_LIBINPUT)" in \
        run(forcetrace, "whatif", trace, env={**os.environ, "FORCETRACE_LIBINPUT": "1.22.0"}).stdout
    assert "FORCETRACE_LIBINPUT" not in run(forcetrace, "whatif", trace, env={**os.environ, "FORCETRACE_LIBINPUT": ""}).stdout


def test_the_pen_rows_show_the_thresholds_the_pressure_range_sets(forcetrace, tmp_path):
    trace = tmp_path / "pen.h5"
    run(forcetrace, "import", PEN, "-o", trace)
    text = run(forcetrace, "whatif", trace, "--no-shipped", "--libinput", "all", "--pressure-range", "0.1:0.9").stdout
    assert "with the range: down at" in text and "no range setting" in text, text
    result = json.loads(run(forcetrace, "whatif", trace, "--no-shipped", "--libinput", "1.31.3", "--pressure-range", "0.1:0.9",
                            "--json").stdout)
    # The fixture's ABS_PRESSURE is 0..4095: 0.1:0.9 narrows it to 409..3685, whose 5 % and 1 % are 572 and 441.
    expected = (572, 441)
    column = result["quirk_sets"][0]["rules"]
    assert (column["tip_down_at_with_range"], column["tip_up_at_with_range"]) == expected
    assert column["tip_down_at"] != expected[0]
