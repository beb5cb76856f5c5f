"""The package's names for the `--save` file (forcetrace/_report_layout.py)
are the file's: every attribute and member a saved report and a saved part
hold is one the layout names, and every one it names is there.
Swift's writer and `--merge` reader share `SavedReportLayout`, so a name
changed there fails here until Python follows."""
import sys

import h5py
import numpy as np
import pytest

from conftest import ROOT, SAMPLES, run

sys.path.insert(0, str(ROOT / "python"))
from forcetrace._report_layout import Layout as L  # noqa: E402


@pytest.fixture(scope="module")
def files(forcetrace, tmp_path_factory):
    folder = tmp_path_factory.mktemp("report-layout")
    trace = folder / "samples.h5"
    run(forcetrace, "import", *sorted(SAMPLES.glob("*.evemu")), "-o", trace)
    saved, part = folder / "saved.h5", folder / "part.h5"
    run(forcetrace, "report", trace, "--contacts", "0", "--save", saved)
    run(forcetrace, "report", trace, "--contacts", "0", "--save-part", part)
    with h5py.File(saved, "r") as a, h5py.File(part, "r") as b:
        yield a, b


def recordings(handle):
    group = handle[L.RECORDINGS]
    assert len(group) >= 2
    return [group[name] for name in group]


def scales(dataset):
    """The dataset name of the scale attached to each dimension (a
    dimension-only scale's NAME attribute is netCDF's note, not its name)."""
    return [dimension[0].name.rsplit("/", 1)[1] for dimension in dataset.dims]


def test_root_attributes(files):
    saved, part = files
    assert set(saved.attrs) == set(L.ROOT_ATTRIBUTES)
    assert set(part.attrs) == set(L.ROOT_ATTRIBUTES + L.PART_ROOT_ATTRIBUTES)
    assert saved.attrs["format"] == L.FORMAT
    assert saved.attrs["format_version"] == part.attrs["format_version"] == L.FORMAT_VERSION == 2
    assert set(saved) == set(part) == {L.RECORDINGS, L.TOTAL}


def test_recording_and_statistics_attributes(files):
    saved, part = files
    identity = set(L.RECORDING_ATTRIBUTES)
    optional = set(L.OPTIONAL_RECORDING_ATTRIBUTES)
    seen_optional = set()
    for group in recordings(saved):
        names = set(group.attrs)
        assert identity | set(L.STATISTICS_ATTRIBUTES) | set(L.CURVES_ATTRIBUTES) <= names, group.name
        assert names - identity - set(L.STATISTICS_ATTRIBUTES) - set(L.CURVES_ATTRIBUTES) <= optional, group.name
        seen_optional |= names & optional
    # The samples are simulated and labelled: their scripted thresholds and import status are there.
    assert seen_optional == optional
    for group in recordings(part):
        assert identity <= set(group.attrs) <= identity | optional, group.name
    assert set(saved[L.TOTAL].attrs) == set(L.STATISTICS_ATTRIBUTES)


def test_members(files):
    saved, part = files
    statistics = set(L.STATISTICS_MEMBERS)
    assert set(saved[L.TOTAL]) == statistics
    coordinates = {L.CONTACT_DIMENSION, L.FRACTION, L.T_MS, L.ALIGNED_SAMPLE, L.SWEEP_TOLERANCE_MM}
    for group in recordings(saved):
        assert set(group) == statistics | {L.CONTACTS, L.CURVES, L.ALIGNED_CURVE_COUNTS, L.ALIGNED_CURVE_VALUES} | coordinates, group.name
        assert scales(group[L.CURVES]) == [L.CONTACT_DIMENSION, L.FRACTION]
        assert scales(group[L.ALIGNED_CURVE_COUNTS]) == [L.CONTACT_DIMENSION]
        assert scales(group[L.ALIGNED_CURVE_VALUES]) == [L.ALIGNED_SAMPLE]
    for group in recordings(part) + [part[L.TOTAL]]:
        assert set(group) == {L.STATE}, group.name


def test_figures_and_histograms(files):
    total = files[0][L.TOTAL]
    suggested = total[L.SUGGESTED_THRESHOLDS]
    assert set(suggested) == {L.WITH_LABELS, L.WITHOUT_LABELS}
    labelled, breaks = suggested[L.WITH_LABELS], suggested[L.WITHOUT_LABELS]
    assert set(labelled.attrs) == {L.METHOD}
    assert set(labelled) == {L.SUGGESTED_PEEK, L.SUGGESTED_POP, L.BALANCED_ACCURACY, L.TIED_PAIRS, L.CONFUSION, L.LABEL, L.FOUND}
    assert L.CONFUSION_CLASSES in labelled[L.CONFUSION].attrs
    assert scales(labelled[L.CONFUSION]) == [L.LABEL, L.FOUND]
    assert set(breaks.attrs) == {L.METHOD, L.NOTE}
    assert set(breaks) == {L.SUGGESTED_PEEK, L.SUGGESTED_POP}
    histograms = total[L.HISTOGRAMS]
    assert set(histograms.attrs) == {L.PEAK_BIN_WIDTH, L.TIME_BIN_S}
    assert {L.PEAK_HISTOGRAM, L.TIME_BIN} <= set(histograms)
    assert L.QUANTILE_LEVEL in total[L.QUANTILES]


def test_aligned_curves_are_a_contiguous_ragged_array(files):
    """CF conventions, section 9.3.3: the values of every contact up to its
    end, one after another along their own dimension, and a count variable per
    contact naming that dimension in `sample_dimension`. A contact's count is
    its grid points (every 10 ms from touch-down, at most 200) before its end;
    ReportFileTests pins the edges (a point at the end, past the grid, no pressure)."""
    saved, _ = files
    step_ns = int(saved.attrs["aligned_step_ns"])
    width = int(saved.attrs["aligned_points"])
    for group in recordings(saved):
        counts, values = group[L.ALIGNED_CURVE_COUNTS], group[L.ALIGNED_CURVE_VALUES]
        assert counts.dtype == np.int32 and values.dtype == np.float32 and values.ndim == 1, group.name
        assert counts.attrs[L.SAMPLE_DIMENSION] == L.ALIGNED_SAMPLE
        assert len(group[L.ALIGNED_SAMPLE]) == values.shape[0] == counts[:].sum()
        down, up = group["contacts/t_down_s"][:], group["contacts/t_up_s"][:]
        duration_ns = np.round((up - down) * 1e9).astype(np.int64)
        grid = np.minimum(width, -(-duration_ns // step_ns))
        np.testing.assert_array_equal(counts[:], grid, err_msg=group.name)
        assert not np.isnan(values[:]).any(), group.name
