"""Host side of the versioned what-if comparison (ft-whatif*, ft-whatif-versions).

Each guest step played one file into one `libinput debug-events --verbose`
per (libinput version x quirk set): `versions`, `sets`, `candidate-N.quirks`,
`libinput-V-N.log`. Here the host's forcetrace runs `whatif --json
--libinput V --quirks-dir DIR` over the same played file, DIR being the
host's copy of that version's shipped quirks, and the decisions are compared
in order."""
import glob
import json
import os
import re
import subprocess
import tempfile

from kernel_expect import Checks, read_text

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.abspath(os.path.join(HERE, "..", ".."))
FORCETRACE = os.environ.get("FORCETRACE") or os.path.join(CHECKOUT, ".build", "debug", "forcetrace")
SHARED_LIBINPUT = os.path.join(CHECKOUT, "..", "shared", "libinput")
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "forcetrace", "libinput")
DEBIAN = "1.22.1"  # Debian 12's libinput, the guest's and the host's /usr/share/libinput

LINE = re.compile(r"(pressure: (?:begin|end) touch \d+"
                  r"|palm: touch (\d+) \([^)]*\), palm detected \(pressure\)"
                  r"|thumb: touch \d+, THUMB_STATE_(?:FINGER → THUMB_STATE_JAILED|JAILED → THUMB_STATE_FINGER))")
TIP = re.compile(r"^\s*\S+\s+TABLET_TOOL_TIP\s.*\s(down|up)\s*$")
QUIRKS_FAILED = "Failed to load the device quirks"
DROPPED = "SYN_DROPPED"


def libinput_decisions(log):
    """libinput's decisions in forcetrace's words (the palm line without the touch state)."""
    out = []
    for line in log.splitlines():
        tip = TIP.match(line)
        if tip:
            out.append("tip " + tip.group(1))
            continue
        m = LINE.search(line)
        if m:
            text = m.group(1)
            if m.group(2) is not None:
                text = f"palm: touch {m.group(2)}, palm detected (pressure)"
            out.append(text)
    return out


def expected_versions():
    """Debian's, then each release tarball beside the checkout."""
    tarballs = glob.glob(os.path.join(SHARED_LIBINPUT, "libinput-*.tar.xz"))
    built = sorted((os.path.basename(t)[len("libinput-"):-len(".tar.xz")] for t in tarballs),
                   key=lambda v: tuple(int(x) for x in v.split(".")))
    return [DEBIAN] + built


def host_quirks_dir(version):
    return "/usr/share/libinput" if version == DEBIAN else os.path.join(CACHE, f"libinput-{version}", "share", "libinput")


def forcetrace(*args):
    return subprocess.run([FORCETRACE, *map(str, args)], capture_output=True, text=True, timeout=300)


_has_libinput_option = None


def has_libinput_option():
    global _has_libinput_option
    if _has_libinput_option is None:
        r = forcetrace("whatif", "--help")
        _has_libinput_option = "--libinput" in r.stdout + r.stderr
    return _has_libinput_option


def versions_played(step_dir):
    return [v for v in read_text(os.path.join(step_dir, "versions"), "").split() if v]


REFUSED = "refuses the whole quirks folder"


def whatif(c, step, trace, version, candidates, no_shipped=False, quiet=False):
    """forcetrace's JSON for one version, or None; with quiet, a refused quirks
    file is returned as the string "refused" instead of failing."""
    args = ["whatif", trace, "--json"] + ([] if no_shipped else ["--quirks-dir", host_quirks_dir(version)])
    if has_libinput_option():
        args += ["--libinput", version]
        # From 1.27, debug-events sets each tool's pressure range (0 to 1 by
        # default) on its proximity events (tools_tablet_tool_apply_config).
        if tuple(int(x) for x in version.split(".")) >= (1, 27):
            args += ["--pressure-range", "0:1"]
    elif version != DEBIAN:
        c.check(False, f"{step} [{version}]: forcetrace whatif has --libinput",
                f"{FORCETRACE} has no --libinput option: libinput {version} cannot be modelled by this build")
        return None
    if no_shipped:
        args.append("--no-shipped")
    for q in candidates:
        args += ["--quirks", q]
    r = forcetrace(*args)
    if r.returncode != 0 and quiet and REFUSED in r.stderr:
        return "refused"
    if not c.check(r.returncode == 0, f"{step} [{version}]: whatif ran", r.stderr):
        return None
    out = json.loads(r.stdout)
    if has_libinput_option():
        said = (out.get("libinput") or {}).get("version")
        c.check(said == version, f"{step} [{version}]: whatif's JSON says libinput {version}", said)
        sets = [q.get("libinput") for q in out.get("quirk_sets", [])]
        c.check(all(v == version for v in sets), f"{step} [{version}]: each quirk set says libinput {version}", sets)
    return out


def quirk_sets(c, step, trace, version, candidates):
    """[(result, refused)] per quirk set. A candidate forcetrace refuses for this
    version (as libinput would drop every quirk) is modelled by libinput's
    built-in defaults alone (--no-shipped), which is what libinput then runs on."""
    out = whatif(c, step, trace, version, candidates, quiet=True)
    if out is None:
        return None
    if out != "refused":
        return [(r, False) for r in out["quirk_sets"]], out["kind"]
    base = whatif(c, step, trace, version, [])
    defaults = whatif(c, step, trace, version, [], no_shipped=True)
    if base is None or defaults is None:
        return None
    sets = [(base["quirk_sets"][0], False)]
    for q in candidates:
        one = whatif(c, step, trace, version, [q], quiet=True)
        if one is None:
            return None
        sets.append((defaults["quirk_sets"][0], True) if one == "refused" else (one["quirk_sets"][1], False))
    return sets, base["kind"]


def compare_step(c, d, step, totals, quirks_must_load=True):
    """Compares every (version, quirk set) of one step; adds to totals[version]. Returns
    {version: [decisions of set 0, set 1, ...]} from libinput's logs."""
    s = os.path.join(d, step)
    sets = int(read_text(os.path.join(s, "sets"), "0") or 0)
    versions = versions_played(s)
    if not c.check(sets > 0 and versions, f"{step}: played", read_text(os.path.join(d, "log"), "")):
        return {}
    c.check(versions == expected_versions(), f"{step}: played to every libinput version ({', '.join(expected_versions())})", versions)
    udev = read_text(os.path.join(s, "udev.txt"), "")
    c.check("ID_INPUT_TOUCHPAD=1" in udev or "ID_INPUT_TABLET=1" in udev, f"{step}: udevd typed the device a touchpad or tablet", udev)
    logs = {}
    for v in versions:
        for i in range(sets):
            log = read_text(os.path.join(s, f"libinput-{v}-{i}.log"), "")
            logs[(v, i)] = log
            c.check(DROPPED not in log, f"{step} [{v} set {i}]: libinput lost no events", DROPPED)
            if quirks_must_load:
                c.check(QUIRKS_FAILED not in log, f"{step} [{v} set {i}]: libinput loaded its quirks",
                        "\n".join(line for line in log.splitlines() if "quirk" in line.lower()))
    theirs_all = {v: [libinput_decisions(logs[(v, i)]) for i in range(sets)] for v in versions}
    candidates = [os.path.join(s, f"candidate-{i}.quirks") for i in range(1, sets)]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "played.h5")
        r = forcetrace("import", os.path.join(s, "played.evemu"), "-o", trace)
        if not c.check(r.returncode == 0, f"{step}: the played file imports on the host", r.stderr):
            return theirs_all
        for v in versions:
            got = quirk_sets(c, step, trace, v, candidates)
            if got is None:
                continue
            results, kind = got
            c.check(len(results) == sets, f"{step} [{v}]: whatif has {sets} quirk sets", len(results))
            for i, (result, refused) in enumerate(results[:sets]):
                if i > 0:
                    dropped = QUIRKS_FAILED in logs[(v, i)]
                    c.check(refused == dropped, f"{step} [libinput {v}, set {i}]: forcetrace {'refuses' if refused else 'takes'} the quirks file"
                            f" and libinput {'drops' if dropped else 'loads'} its quirks", "")
                ours = [line for _, line in result["decisions"]]
                theirs = theirs_all[v][i]
                differences = sum(1 for a, b in zip(ours, theirs) if a != b) + abs(len(ours) - len(theirs))
                contacts = result["totals"]["sequences"] if kind == "touchpad" else sum(1 for x in ours if x == "tip down")
                t = totals.setdefault(v, {"contacts": 0, "decisions": 0, "differences": 0})
                t["contacts"] += contacts
                t["decisions"] += len(theirs)
                t["differences"] += differences
                first = next((k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
                name = f"set {i}, refused: libinput's defaults" if refused else (result['name'] if i == 0 else f"set {i}, candidate-{i}.quirks")
                print(f"  {step} [libinput {v}, {name}]: contacts {contacts}, decisions {len(theirs)}, differences {differences}")
                c.check(differences == 0, f"{step} [libinput {v}, {name}]: forcetrace and libinput agree decision by decision",
                        f"first difference at decision {first}: forcetrace {ours[first:first + 3]}, libinput {theirs[first:first + 3]}")
    return theirs_all


def compare_steps(results, scenario, expected, each_step):
    """Checks that the steps of `expected` were played, runs
    each_step(c, d, step, totals) on each and prints the totals per version;
    returns the Checks and the totals."""
    d = os.path.join(results, scenario)
    c = Checks(scenario)
    steps = sorted(e for e in os.listdir(d) if os.path.isdir(os.path.join(d, e))) if os.path.isdir(d) else []
    c.check(steps == expected, f"every step was played: {', '.join(expected)}", steps)
    totals = {}
    for step in steps:
        each_step(c, d, step, totals)
    print_totals(c, scenario, totals)
    return c, totals


def print_totals(c, scenario, totals):
    if not os.path.isdir(SHARED_LIBINPUT):
        print(f"SKIP: no ../shared/libinput beside the checkout: only Debian's libinput {DEBIAN} compared")
    for v in sorted(totals, key=lambda v: tuple(int(x) for x in v.split("."))):
        t = totals[v]
        print(f"{scenario} libinput {v}: contacts {t['contacts']}, decisions {t['decisions']}, differences {t['differences']}")
        c.check(t["differences"] == 0, f"libinput {v}: no differences in total", t)
