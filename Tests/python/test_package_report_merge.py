"""`forcetrace report --merge PART.h5...` equals `forcetrace report` over all
the parts' inputs at once: text, --json and --save, number for number."""
import json
import shutil

import h5py
import numpy as np
import pytest

from conftest import SAMPLES, SHARED, SHARED_NAMES, run, save_as_version_1


@pytest.fixture(scope="module")
def inputs(forcetrace, tmp_path_factory):
    """Trace files: both samples in one file, each alone, a simulated one, and the genuine devices where present."""
    folder = tmp_path_factory.mktemp("merge")
    samples = sorted(SAMPLES.glob("*.evemu"))
    run(forcetrace, "import", *samples, "-o", folder / "both.h5")
    run(forcetrace, "import", samples[0], "-o", folder / "one.h5")
    run(forcetrace, "simulate", "--seed", "9", "--presses", "10", "-o", folder / "sim.evemu")
    run(forcetrace, "import", folder / "sim.evemu", "-o", folder / "sim.h5")
    files = [folder / "both.h5", folder / "one.h5", folder / "sim.h5"]
    for index, name in enumerate(SHARED_NAMES):
        if (SHARED / name).exists():
            run(forcetrace, "import", SHARED / name, "-o", folder / f"shared-{index}.h5")
            files.append(folder / f"shared-{index}.h5")
    return files


def parts_of(forcetrace, files, tmp_path, *options):
    parts = []
    for index, path in enumerate(files):
        parts.append(tmp_path / f"part-{index}.h5")
        run(forcetrace, "report", path, "--save", parts[-1], *options)
    return parts


def without_contacts(document):
    for recording in document["recordings"]:
        recording.pop("contacts")
    return document


@pytest.mark.parametrize("options", [[], ["--tolerance", "0.25mm", "--sensitivity", "light", "--smooth", "ema:0.3", "--k", "32"]],
                         ids=["defaults", "options"])
def test_merge_equals_one_report_in_text_and_json(forcetrace, inputs, tmp_path, options):
    parts = parts_of(forcetrace, inputs, tmp_path, *options)
    direct_text = run(forcetrace, "report", *inputs, "--contacts", "0", *options).stdout
    merged_text = run(forcetrace, "report", "--merge", *parts).stdout
    assert merged_text == direct_text
    direct = without_contacts(json.loads(run(forcetrace, "report", *inputs, "--json", *options).stdout))
    merged = json.loads(run(forcetrace, "report", "--merge", *parts, "--json").stdout)
    assert [r["contacts"] for r in merged["recordings"]] == [[] for _ in merged["recordings"]]
    assert without_contacts(merged) == direct
    assert merged["total"]["contacts"] > 0


def resolved(handle, key, value):
    """A dimension scale's bookkeeping with its object references (file
    addresses, which differ between files) as the paths they point to."""
    if key == "DIMENSION_LIST":
        return [[handle[ref].name for ref in axis] for axis in value]
    if key == "REFERENCE_LIST":
        return sorted((handle[ref].name, int(axis)) for ref, axis in value)
    return value


def datasets(path):
    found = {}
    with h5py.File(path, "r") as handle:
        def visit(name, obj):
            attrs = {k: resolved(handle, k, v) for k, v in obj.attrs.items() if k != "created_utc"}
            found[name] = (obj[()] if isinstance(obj, h5py.Dataset) else None, attrs)
        handle.visititems(visit)
        found["/"] = (None, {k: v for k, v in handle.attrs.items() if k != "created_utc"})
    return found


def assert_same_file(left, right):
    a, b = datasets(left), datasets(right)
    assert sorted(a) == sorted(b)
    for name in a:
        (data_a, attrs_a), (data_b, attrs_b) = a[name], b[name]
        assert sorted(attrs_a) == sorted(attrs_b), name
        for key in attrs_a:
            np.testing.assert_array_equal(attrs_a[key], attrs_b[key], err_msg=f"{name} @{key}")
        if data_a is not None:
            np.testing.assert_array_equal(data_a, data_b, err_msg=name)


def test_merged_save_equals_the_save_of_one_report(forcetrace, inputs, tmp_path):
    parts = parts_of(forcetrace, inputs, tmp_path)
    run(forcetrace, "report", *inputs, "--save", tmp_path / "direct.h5")
    run(forcetrace, "report", "--merge", *parts, "--save", tmp_path / "merged.h5")
    assert_same_file(tmp_path / "merged.h5", tmp_path / "direct.h5")
    # A merged file is a part again: merging in rounds gives the same.
    run(forcetrace, "report", "--merge", *parts[:2], "--save", tmp_path / "first.h5")
    run(forcetrace, "report", "--merge", *parts[2:], "--save", tmp_path / "rest.h5")
    run(forcetrace, "report", "--merge", tmp_path / "first.h5", tmp_path / "rest.h5", "--save", tmp_path / "rounds.h5")
    assert_same_file(tmp_path / "rounds.h5", tmp_path / "direct.h5")
    assert run(forcetrace, "report", "--merge", tmp_path / "rounds.h5").stdout == \
        run(forcetrace, "report", *inputs, "--contacts", "0").stdout


def test_merge_reads_parts_saved_as_version_1_beside_version_2(forcetrace, inputs, tmp_path):
    """Version 1 stored the aligned curves as an n x 200 matrix: --merge reads
    such parts, alone or mixed with version-2 ones, and writes what --save of one
    report writes (version 2, the ragged array), text and JSON as before."""
    parts = parts_of(forcetrace, inputs, tmp_path)
    for part in parts[::2]:
        save_as_version_1(part)
    with h5py.File(parts[0], "r") as f:
        assert f.attrs["format_version"] == 1 and all("aligned_curves" in group for group in f["recordings"].values())
    run(forcetrace, "report", *inputs, "--save", tmp_path / "direct.h5")
    run(forcetrace, "report", "--merge", *parts, "--save", tmp_path / "merged.h5")
    assert_same_file(tmp_path / "merged.h5", tmp_path / "direct.h5")
    run(forcetrace, "report", "--merge", parts[0], "--save", tmp_path / "alone.h5")
    run(forcetrace, "report", inputs[0], "--save", tmp_path / "direct-alone.h5")
    assert_same_file(tmp_path / "alone.h5", tmp_path / "direct-alone.h5")
    assert run(forcetrace, "report", "--merge", *parts).stdout == run(forcetrace, "report", *inputs, "--contacts", "0").stdout
    direct = without_contacts(json.loads(run(forcetrace, "report", *inputs, "--json").stdout))
    assert without_contacts(json.loads(run(forcetrace, "report", "--merge", *parts, "--json").stdout)) == direct


def test_merge_refuses_a_version_1_part_whose_aligned_curves_are_not_one_row_per_contact(forcetrace, inputs, tmp_path):
    (part,) = parts_of(forcetrace, inputs[2:3], tmp_path)
    save_as_version_1(part)
    with h5py.File(part, "r+") as f:
        name = next(iter(f["recordings"]))
        group = f["recordings"][name]
        matrix = group["aligned_curves"][:]
        group["aligned_curves"].dims[0].detach_scale(group["contact"])
        group["aligned_curves"].dims[1].detach_scale(group["t_ms"])
        del group["aligned_curves"]
        group.create_dataset("aligned_curves", data=matrix[:, :199])
    result = run(forcetrace, "report", "--merge", part, "--save", tmp_path / "merged.h5", check=False)
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stderr.startswith(f"Error: {part}: recordings/{name}/aligned_curves is not a matrix of 200 points per contact"), result.stderr
    assert "hint: the file is damaged" in result.stderr and not (tmp_path / "merged.h5").exists()


def test_merge_refuses_mixed_options_repeated_inputs_and_traces(forcetrace, inputs, tmp_path):
    plain = parts_of(forcetrace, inputs[:1], tmp_path)
    firm = tmp_path / "firm.h5"
    run(forcetrace, "report", inputs[1], "--save", firm, "--sensitivity", "firm")
    result = run(forcetrace, "report", "--merge", *plain, firm, check=False)
    assert result.returncode == 1 and str(firm) in result.stderr and "other options" in result.stderr
    # One file named twice is read once, with a note; a copy holds the same recordings' report again.
    result = run(forcetrace, "report", "--merge", plain[0], plain[0], check=False)
    assert result.returncode == 0 and "counted once" in result.stderr, result.stderr
    copy = tmp_path / "copy.h5"
    shutil.copyfile(plain[0], copy)
    result = run(forcetrace, "report", "--merge", plain[0], copy, check=False)
    assert result.returncode == 1 and "holds the report of" in result.stderr
    result = run(forcetrace, "report", "--merge", inputs[0], check=False)
    assert result.returncode == 1 and "not a saved report" in result.stderr and str(inputs[0]) in result.stderr
    junk = tmp_path / "junk.h5"
    junk.write_text("not hdf5")
    result = run(forcetrace, "report", "--merge", junk, check=False)
    assert result.returncode == 1 and "junk.h5: is not an HDF5 file" in result.stderr and "H5F" not in result.stderr
    result = run(forcetrace, "report", "--merge", plain[0], "--peek", "0.5", check=False)
    assert result.returncode == 2 and "--merge" in result.stderr


def test_merge_refuses_a_part_whose_state_declares_more_than_the_file_holds(forcetrace, inputs, tmp_path):
    """A damaged extent in a part's state (here: 2^40 rows, never written) is
    an error naming the part and the dataset, before any read allocates it
    (the old binary aborted allocating 8 TB)."""
    (part,) = parts_of(forcetrace, inputs[:1], tmp_path)
    with h5py.File(part, "r+") as f:
        name = next(iter(f["recordings"]))
        state = f["recordings"][name]["state"]
        values = state["class_counts"][:]
        del state["class_counts"]
        grown = state.create_dataset("class_counts", data=values, chunks=(4,), maxshape=(None,))
        grown.resize((1 << 40,))
    result = run(forcetrace, "report", "--merge", part, check=False)
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stderr.startswith(f"Error: {part}: recordings/{name}/state/class_counts declares 1099511627776 rows"), result.stderr
    assert "hint: the file is damaged" in result.stderr


@pytest.mark.parametrize("field", ["contacts", "duration_ns", "class_counts", "stationary", "peak_bins", "confusion"])
def test_merge_refuses_state_integers_that_overflow_when_added(forcetrace, inputs, tmp_path, field):
    """Two parts whose state/FIELD adds up to Int64.max: their sum overflows. It is
    an error naming the part and the field, and nothing is written (the
    old binary saturated some fields silently and trapped on others)."""
    parts = []
    for index, path in enumerate(inputs[1:3]):
        parts.append(tmp_path / f"state-{index}.h5")
        run(forcetrace, "report", path, "--save-part", parts[-1])
        with h5py.File(parts[-1], "r+") as f:
            name = next(iter(f["recordings"]))
            dataset = f["recordings"][name]["state"][field]
            values = dataset[:]
            # Each part alone adds up to Int64.max at most; the two together overflow.
            values[0] = np.iinfo(np.int64).max - values[1:].sum()
            dataset[...] = values
    for output in (["--save-part", tmp_path / "merged.h5"], ["--json"]):
        result = run(forcetrace, "report", "--merge", *parts, *output, check=False)
        assert result.returncode == 1, result.stderr[-2000:]
        assert result.stderr.startswith(f"Error: {parts[1]}: recordings/{name}/state/{field} "), result.stderr
        assert "overflows a 64-bit integer" in result.stderr and result.stdout == ""
        assert not (tmp_path / "merged.h5").exists()


@pytest.mark.parametrize("value", [-1, "overflowing"])
def test_merge_refuses_a_part_whose_counts_alone_overflow_their_total(forcetrace, inputs, tmp_path, value):
    """One part's state/peak_bins: a count below 0, or counts adding up
    beyond Int64 (the cumulative 'reached' counts trapped on the old binary)."""
    part = tmp_path / "state.h5"
    run(forcetrace, "report", inputs[1], "--save-part", part)
    with h5py.File(part, "r+") as f:
        name = next(iter(f["recordings"]))
        dataset = f["recordings"][name]["state"]["peak_bins"]
        values = dataset[:]
        values[0], values[1] = (-1, values[1]) if value == -1 else (np.iinfo(np.int64).max, 1)
        dataset[...] = values
    result = run(forcetrace, "report", "--merge", part, "--json", check=False)
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stderr.startswith(f"Error: {part}: recordings/{name}/state/peak_bins holds a count below 0, or counts whose total "
                                    "overflows a 64-bit integer"), result.stderr


def test_merged_html_is_the_page_without_the_per_contact_paths(forcetrace, inputs, tmp_path):
    """--html from --merge: the same page as report --contacts 0, less the x/y paths (they need the samples)."""
    import re

    parts = parts_of(forcetrace, inputs[:2], tmp_path)
    run(forcetrace, "report", *inputs[:2], "--contacts", "0", "--html", tmp_path / "direct.html")
    run(forcetrace, "report", "--merge", *parts, "--html", tmp_path / "merged.html")
    direct, merged = (tmp_path / "direct.html").read_text(), (tmp_path / "merged.html").read_text()
    paths = re.compile(r'<figure class="card chart" data-figure="paths">.*?</figure>\n', re.S)
    assert paths.search(direct) and not paths.search(merged)
    assert merged == paths.sub("", direct)


def test_state_parts_merge_to_the_same_text_and_json_and_refuse_curves(forcetrace, inputs, tmp_path):
    """`--save-part` writes only what --merge reads (options, the recordings'
    attributes, state/): merged, in one round or two, it gives the text and
    JSON of one report; --save or --html from it would lack curves and rows,
    so they are refused, naming the part."""
    parts = []
    for index, path in enumerate(inputs):
        parts.append(tmp_path / f"state-{index}.h5")
        run(forcetrace, "report", path, "--save-part", parts[-1], "--contacts", "0")
        with h5py.File(parts[-1], "r") as f:
            assert f.attrs["part"] == "state"
            for name, group in f["recordings"].items():
                assert sorted(group) == ["state"], name
            assert sorted(f["total"]) == ["state"]
    one = run(forcetrace, "report", *inputs, "--json", "--contacts", "0").stdout
    merged = run(forcetrace, "report", "--merge", *parts, "--json").stdout
    assert without_contacts(json.loads(merged)) == without_contacts(json.loads(one))
    run(forcetrace, "report", "--merge", *parts[:2], "--save-part", tmp_path / "first.h5")
    run(forcetrace, "report", "--merge", *parts[2:], "--save-part", tmp_path / "rest.h5")
    rounds = run(forcetrace, "report", "--merge", tmp_path / "first.h5", tmp_path / "rest.h5", "--json").stdout
    assert rounds == merged
    assert run(forcetrace, "report", "--merge", *parts).stdout == run(forcetrace, "report", *inputs, "--contacts", "0").stdout
    for option, output in (("--save", "full.h5"), ("--html", "page.html")):
        result = run(forcetrace, "report", "--merge", *parts, option, tmp_path / output, check=False)
        assert result.returncode == 1 and f"{parts[0]}: holds only what --merge reads" in result.stderr, result.stderr
        assert not (tmp_path / output).exists()


def test_merge_reads_a_part_saved_before_grams_and_keeps_a_pressure_pads(forcetrace, inputs, tmp_path):
    """A part saved before peak grams existed has no state/peak_gf_values: it
    merges, with no grams from it; a pressure pad's part keeps its grams. A
    part without an older field is still refused."""
    evemu, pad = tmp_path / "pad.evemu", tmp_path / "pad.h5"
    run(forcetrace, "simulate", "--protocol", "touchpad", "--device", "pressurepad", "--trials", "2", "-o", evemu)
    run(forcetrace, "calibrate", "--replay", evemu, "--protocol", "touchpad", "--trials", "2", "-o", pad, "--fast")
    old, grams = parts_of(forcetrace, [inputs[1], pad], tmp_path)
    with h5py.File(old, "r+") as handle:
        states = [name for name, item in handle.items() if isinstance(item, h5py.Group) and "state" in item]
        states += [f"recordings/{name}" for name in handle["recordings"]]
        for place in states:
            del handle[place]["state"]["peak_gf_values"]
    merged = json.loads(run(forcetrace, "report", "--merge", old, grams, "--json").stdout)
    direct = json.loads(run(forcetrace, "report", inputs[1], pad, "--json").stdout)
    assert merged["total"]["quantiles"]["peak_gf"] == direct["total"]["quantiles"]["peak_gf"] is not None
    assert merged["recordings"][0]["summary"]["quantiles"]["peak_gf"] is None
    with h5py.File(old, "r+") as handle:
        del handle[f"recordings/{next(iter(handle['recordings']))}"]["state"]["peak_values"]
    refused = run(forcetrace, "report", "--merge", old, grams, check=False)
    assert refused.returncode != 0 and "state/peak_values is missing" in refused.stderr
