#!/usr/bin/env python3
"""Host-side check of the ft-pressurepad scenario.

usage: check_ft_pressurepad.py RESULT_DIR

The player made a pressure pad (INPUT_PROP_PRESSUREPAD, pressure at 2 units
per gram) and did calibrate's touchpad protocol on it while `forcetrace
calibrate` recorded it through the kernel. Every kept trial's contact must
read its scripted peak, and its grams (peak / 2) in the report's text, JSON
and HTML and in the Python package; suggest and whatif must give their
thresholds in grams too.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_expect import Checks, read_text  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import forcetrace  # noqa: E402

UNITS_PER_GRAM = 2


def kept_trials(path):
    """The player's kept trials, in order: (class, scripted peak)."""
    kept = []
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "trial" and record["flaw"] is None:
                kept.append((record["class"], record["peak"]))
    return kept


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    d = os.path.join(argv[1], "ft-pressurepad") if os.path.isdir(os.path.join(argv[1], "ft-pressurepad")) else argv[1]
    c = Checks("check_ft_pressurepad")
    print(f"checking {d}")
    if not c.check(read_text(os.path.join(d, "status")) == "0", "guest scenario exited 0", read_text(os.path.join(d, "failure"), "")):
        return c.finish()
    kept = kept_trials(os.path.join(d, "expected.jsonl"))
    c.check(len(kept) == 12, "the player did 12 kept trials", kept)

    # The trace file as the kernel described the device, read by the Python package.
    recording = next(iter(forcetrace.open(os.path.join(d, "cal.h5"))))
    c.check(recording.device.is_pressure_pad, "the recorded device has INPUT_PROP_PRESSUREPAD", recording.device.properties)
    c.check(recording.device.units_per_gram == UNITS_PER_GRAM, "its pressure axis has 2 units per gram", recording.device.axes)
    samples = recording.samples()
    c.check(samples.attrs["units"]["pressure_gf"] == "gf" and
            (samples["pressure_gf"] == samples["pressure"] / UNITS_PER_GRAM).all(), "Python: every sample's pressure_gf is pressure / 2")
    labels = recording.labels()
    largest = samples.groupby("contact")["pressure_gf"].max()
    python_grams = [float(largest.get(int(contact), float("nan"))) for contact in labels["contact"]]
    c.check(python_grams == [peak / UNITS_PER_GRAM for _, peak in kept],
            "Python: each trial's contact peaks at its scripted grams", (python_grams, kept))

    report = json.loads(read_text(os.path.join(d, "report.json"), "{}") or "{}")
    contacts = {contact["id"]: contact for contact in report.get("recordings", [{}])[0].get("contacts", [])}
    by_trial = [contacts.get(int(contact), {}) for contact in labels["contact"]]
    c.check([contact.get("peak_pressure") for contact in by_trial] == [peak for _, peak in kept],
            "JSON: each trial's contact has its scripted raw peak", [contact.get("peak_pressure") for contact in by_trial])
    c.check([contact.get("peak_gf") for contact in by_trial] == [peak / UNITS_PER_GRAM for _, peak in kept],
            "JSON: and its peak in grams, raw / 2", [contact.get("peak_gf") for contact in by_trial])
    quantiles = report.get("recordings", [{}])[0].get("summary", {}).get("quantiles", {})
    c.check(isinstance(quantiles.get("peak_gf"), dict), "JSON: the summary has peak_gf quantiles", quantiles.keys())

    text = read_text(os.path.join(d, "report.txt"), "")
    c.check("pressure ABS_MT_PRESSURE 0..255 (2 units per gram, 0.0..127.5 gf)" in text, "text: the device line gives the grams")
    lines = text.splitlines()
    heading = next((i for i, line in enumerate(lines) if " force     gf " in line), None)
    if c.check(heading is not None, "text: the contact table has a gf column", text[:600]):
        rows = {int(line.split()[0]): line.split() for line in lines[heading + 1:] if line.split() and line.split()[0].isdigit()}
        cells = [rows.get(int(contact), [None] * 10)[9] for contact in labels["contact"]]
        c.check(cells == [f"{peak / UNITS_PER_GRAM:.1f}" for _, peak in kept], "text: each trial's gf cell is its scripted grams", cells)
    html = read_text(os.path.join(d, "report.html"), "")
    c.check("<th>gf</th>" in html and "ABS_MT_PRESSURE 0..255, 2 units per gram, 0.0..127.5 gf" in html,
            "HTML: the gf column and the axis in grams")

    suggestion = json.loads(read_text(os.path.join(d, "suggest.json"), "{}") or "{}")
    c.check(suggestion.get("pressure_axis", {}).get("units_per_gram") == UNITS_PER_GRAM, "suggest JSON: units_per_gram 2")
    quirks = [suggestion.get("touchpad", {}).get(key, {}) for key in
              ("pressure_range_begin", "pressure_range_end", "thumb_pressure_threshold", "palm_pressure_threshold")]
    c.check(all(q.get("value") is not None and q.get("gf") == q["value"] / UNITS_PER_GRAM for q in quirks),
            "suggest JSON: every threshold's gf is its value / 2", quirks)
    c.check(any("libinput ignores pressure on this touchpad" in note for note in suggestion.get("notes", [])),
            "suggest: says libinput ignores a pressure pad's pressure", suggestion.get("notes"))
    suggest_text = read_text(os.path.join(d, "suggest.txt"), "")
    c.check(all(f"= {q.get('value')} ({q.get('value', 0) / UNITS_PER_GRAM:.1f} gf, " in suggest_text for q in quirks),
            "suggest text: each threshold with its grams", suggest_text)

    whatif = json.loads(read_text(os.path.join(d, "whatif.json"), "{}") or "{}")
    c.check(whatif.get("pressure_units_per_gram") == UNITS_PER_GRAM, "whatif JSON: pressure_units_per_gram 2")
    rules = [s.get("rules", {}) for s in whatif.get("quirk_sets", [])]
    c.check(rules and all(r.get("pressure_ignored") for r in rules), "whatif: libinput 1.22 ignores the pad's pressure", rules)
    c.check("(2 units per gram, 0.0..127.5 gf)" in read_text(os.path.join(d, "whatif.txt"), ""), "whatif text: the axis in grams")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
