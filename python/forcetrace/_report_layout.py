"""The names of the `forcetrace report --save` file, written once for the
package (Swift's are `SavedReportLayout`); Tests/python/test_report_layout.py
checks them against a file forcetrace saves (docs/ANALYSIS.md, "The --save file")."""
from typing import Final


class Layout:
    """The names, as class attributes: `from ._report_layout import Layout as L`."""

    FORMAT: Final = "forcetrace-report"
    # The newest `format_version` the package reads; 1 stored the aligned curves dense (ALIGNED_CURVES).
    FORMAT_VERSION: Final = 2

    # Attributes of the root group; PART_ROOT_ATTRIBUTES only in a --save-part file.
    ROOT_ATTRIBUTES: Final = ("format", "format_version", "tool_version", "created_utc", "peek", "pop", "hysteresis",
                              "sensitivity", "smoothing", "tolerance", "maximum_possible_force", "inputs", "curve_points",
                              "aligned_points", "aligned_step_ns")
    PART_ROOT_ATTRIBUTES: Final = ("part",)
    PEEK: Final = "peek"
    POP: Final = "pop"

    # Groups of the root.
    RECORDINGS: Final = "recordings"
    TOTAL: Final = "total"

    # Attributes of each recording's group; OPTIONAL_ only where they apply;
    # CURVES_ATTRIBUTES beside the curves (not in a --save-part file).
    RECORDING_ATTRIBUTES: Final = ("file", "name", "device_name", "pressure_axis", "tolerance", "report_index",
                                   "device_id", "axes", "pressure_axis_code", "duration_ns", "warnings")
    OPTIONAL_RECORDING_ATTRIBUTES: Final = ("scripted_peek", "scripted_pop", "import_status")
    FILE: Final = "file"
    ALIGNED_STEP_S: Final = "aligned_step_s"
    CURVES_ATTRIBUTES: Final = (ALIGNED_STEP_S,)

    # Attributes of a statistics group (each recording's and the total).
    STATISTICS_ATTRIBUTES: Final = ("contacts", "motion_events", "stationary_pressure_events", "inflation",
                                    "reached_peek", "reached_pop", "shared_pressure")

    # Members of a statistics group; a recording's also has CONTACTS, the curve
    # matrices and their coordinates (DIMENSIONS).
    SUMMARY: Final = "summary"
    STATE: Final = "state"
    SWEEP: Final = "sweep"
    INFLATION_SWEEP: Final = "inflation_sweep"
    HISTOGRAMS: Final = "histograms"
    CLASSES: Final = "classes"
    QUANTILES: Final = "quantiles"
    SUGGESTED_THRESHOLDS: Final = "suggested_thresholds"
    STATISTICS_MEMBERS: Final = (SUMMARY, STATE, SWEEP, INFLATION_SWEEP, HISTOGRAMS, CLASSES, QUANTILES, SUGGESTED_THRESHOLDS)
    CONTACTS: Final = "contacts"
    CURVES: Final = "curves"
    # The aligned curves as a CF contiguous ragged array (format_version 2): each
    # contact's points up to its end, concatenated along ALIGNED_SAMPLE, and how
    # many are each contact's (the count variable, naming that dimension in
    # SAMPLE_DIMENSION). Version 1 stored the n x 200 matrix ALIGNED_CURVES.
    ALIGNED_CURVE_VALUES: Final = "aligned_curve_values"
    ALIGNED_CURVE_COUNTS: Final = "aligned_curve_counts"
    SAMPLE_DIMENSION: Final = "sample_dimension"
    ALIGNED_CURVES: Final = "aligned_curves"

    # suggested_thresholds/: its groups, their attributes and datasets.
    WITH_LABELS: Final = "with_labels"
    WITHOUT_LABELS: Final = "without_labels"
    METHOD: Final = "method"
    NOTE: Final = "note"
    SUGGESTED_PEEK: Final = "peek"
    SUGGESTED_POP: Final = "pop"
    BALANCED_ACCURACY: Final = "balanced_accuracy"
    TIED_PAIRS: Final = "tied_pairs"
    CONFUSION: Final = "confusion"
    CONFUSION_CLASSES: Final = "classes"

    # histograms/: the pressure histogram and the bin widths.
    PEAK_HISTOGRAM: Final = "peak_norm"
    PEAK_BIN_WIDTH: Final = "peak_norm_bin"
    TIME_BIN_S: Final = "time_bin_s"

    # Dimension names that are not datasets' own (coordinates where they have values).
    CONTACT_DIMENSION: Final = "contact"
    FRACTION: Final = "fraction"
    T_MS: Final = "t_ms"
    ALIGNED_SAMPLE: Final = "aligned_sample"
    SWEEP_TOLERANCE_MM: Final = "sweep_tolerance_mm"
    TIME_BIN: Final = "time_bin"
    QUANTILE_LEVEL: Final = "level"
    LABEL: Final = "label"
    FOUND: Final = "found"
