import HDF5

/// The `--save` file's names, written once: `ReportFile` writes by them,
/// `ReportMerge` reads by them, and `Tests/python/test_report_layout.py`
/// checks Python's `report.py` against a saved file (docs/ANALYSIS.md, "The
/// --save file"). An attribute's key carries its value's type, so a writer
/// and a reader cannot disagree on it.
public enum SavedReportLayout {
    /// An attribute's name and the Swift type of its value.
    public struct Key<Value: SavedAttributeValue>: Sendable {
        public let name: String
        init(_ name: String) { self.name = name }
    }

    /// The root group's attributes.
    public enum Root {
        public static let format = Key<String>("format")
        public static let formatVersion = Key<Int64>("format_version")
        public static let toolVersion = Key<String>("tool_version")
        public static let createdUTC = Key<String>("created_utc")
        public static let peek = Key<Double>("peek")
        public static let pop = Key<Double>("pop")
        public static let hysteresis = Key<Double>("hysteresis")
        public static let sensitivity = Key<String>("sensitivity")
        public static let smoothing = Key<String>("smoothing")
        public static let tolerance = Key<String>("tolerance")
        public static let maximumPossibleForce = Key<Double>("maximum_possible_force")
        public static let inputs = Key<[String]>("inputs")
        /// Present only in a `--save-part` file, with the value `ReportFile.statePart`.
        public static let part = Key<String>("part")
        public static let curvePoints = Key<Int64>("curve_points")
        public static let alignedPoints = Key<Int64>("aligned_points")
        public static let alignedStepNs = Key<Int64>("aligned_step_ns")
    }

    /// The attributes of each group under `recordings/`.
    public enum Recording {
        public static let file = Key<String>("file")
        public static let name = Key<String>("name")
        public static let deviceName = Key<String>("device_name")
        public static let pressureAxis = Key<String>("pressure_axis")
        public static let tolerance = Key<String>("tolerance")
        public static let alignedStepS = Key<Double>("aligned_step_s")
        public static let reportIndex = Key<Int64>("report_index")
        /// bus, vendor, product, version.
        public static let deviceID = Key<[Int64]>("device_id")
        /// Rows of `axisColumns` numbers: code, minimum, maximum, fuzz, flat, resolution, value.
        public static let axes = Key<[Int64]>("axes")
        public static let axisColumns = 7
        public static let pressureAxisCode = Key<Int64>("pressure_axis_code")
        public static let durationNs = Key<Int64>("duration_ns")
        public static let warnings = Key<[String]>("warnings")
        public static let scriptedPeek = Key<Double>("scripted_peek")
        public static let scriptedPop = Key<Double>("scripted_pop")
        public static let importStatus = Key<String>("import_status")
    }

    /// The scalar attributes of a statistics group (each recording's and `total`).
    public enum Statistics {
        public static let contacts = Key<Int64>("contacts")
        public static let motionEvents = Key<Int64>("motion_events")
        public static let stationaryPressureEvents = Key<Int64>("stationary_pressure_events")
        public static let inflation = Key<Double>("inflation")
        public static let reachedPeek = Key<Int64>("reached_peek")
        public static let reachedPop = Key<Int64>("reached_pop")
        public static let sharedPressure = Key<Int64>("shared_pressure")
        /// `state/`'s attribute listing its fields in order.
        public static let stateFields = Key<[String]>("fields")
        /// `histograms/`'s bin widths.
        public static let peakBinWidth = Key<Double>("peak_norm_bin")
        public static let timeBinSeconds = Key<Double>("time_bin_s")
        /// `suggested_thresholds/*`'s method and note, and the confusion's class names.
        public static let method = Key<String>("method")
        public static let note = Key<String>("note")
        public static let classes = Key<[String]>("classes")
        /// The count variable's attribute naming its sample dimension (CF's `sample_dimension`).
        public static let sampleDimension = Key<String>("sample_dimension")
    }

    /// Group and dataset names.
    public enum Name {
        public static let recordings = "recordings"
        public static let total = "total"
        public static let contacts = "contacts"
        public static let curves = "curves"
        /// The aligned curves as a CF contiguous ragged array (CF conventions
        /// 1.x, section 9.3.3): each contact's points up to its end, in contact
        /// order, along `Dimension.alignedSample`; and per contact how many are
        /// its own, with the attribute `sampleDimension` naming that dimension.
        public static let alignedCurveValues = "aligned_curve_values"
        public static let alignedCurveCounts = "aligned_curve_counts"
        /// Version 1's n × `aligned_points` matrix (NaN from each contact's end), which `--merge` still reads.
        public static let alignedCurves = "aligned_curves"
        public static let summary = "summary"
        public static let state = "state"
        public static let sweep = "sweep"
        public static let inflationSweep = "inflation_sweep"
        public static let histograms = "histograms"
        public static let classes = "classes"
        public static let quantiles = "quantiles"
        public static let suggestedThresholds = "suggested_thresholds"
        public static let withLabels = "with_labels"
        public static let withoutLabels = "without_labels"
        public static let peakHistogram = "peak_norm"
        /// In each `suggested_thresholds/*` group.
        public static let suggestedPeek = "peek"
        public static let suggestedPop = "pop"
        public static let balancedAccuracy = "balanced_accuracy"
        public static let tiedPairs = "tied_pairs"
        public static let confusion = "confusion"
    }

    /// The dimension names that are not datasets' own names (docs/ANALYSIS.md, "The --save file").
    public enum Dimension {
        /// A recording's contacts: the rows of `contacts/*`, of `curves` and of `aligned_curve_counts`.
        public static let contact = "contact"
        /// The columns of `curves`, and the aligned curves' grid (the j-th point of each contact's), coordinates with values.
        public static let fraction = "fraction"
        public static let alignedTime = "t_ms"
        /// The points of `aligned_curve_values`, every contact's after the one before.
        public static let alignedSample = "aligned_sample"
        /// The second dimension of a per-contact sweep (`contacts/stationary_sweep`), a coordinate in mm.
        public static let sweepLane = "sweep_tolerance_mm"
        /// The bins of the histograms, coordinates with their lower edges.
        public static let peakBin = "peak_norm_bin"
        public static let timeBin = "time_bin"
        /// The levels of `quantiles/*`, a coordinate with values.
        public static let quantileLevel = "level"
        /// The rows and columns of `suggested_thresholds/with_labels/confusion`.
        public static let label = "label"
        public static let found = "found"
        /// The elements of the `state` fields of one length.
        public static func element(length: Int) -> String { "length_\(length)" }
    }
}

/// A Swift type an attribute of the `--save` file holds, and how it is
/// named in an error when the file holds something else.
public protocol SavedAttributeValue: Sendable {
    static var kind: String { get }
    init?(attribute: AttributeValue)
    var attribute: AttributeValue { get }
}

extension String: SavedAttributeValue {
    public static var kind: String { "a string" }
    public init?(attribute: AttributeValue) { guard let value = attribute.stringValue else { return nil }; self = value }
    public var attribute: AttributeValue { .string(self) }
}

extension Int64: SavedAttributeValue {
    public static var kind: String { "an integer" }
    public init?(attribute: AttributeValue) { guard let value = attribute.intValue else { return nil }; self = value }
    public var attribute: AttributeValue { .int(self) }
}

extension Double: SavedAttributeValue {
    public static var kind: String { "a number" }
    public init?(attribute: AttributeValue) { guard let value = attribute.doubleValue else { return nil }; self = value }
    public var attribute: AttributeValue { .double(self) }
}

extension Array: SavedAttributeValue where Element: SavedListElement {
    public static var kind: String { "a list of \(Element.plural)" }
    public init?(attribute: AttributeValue) { guard let value = Element.list(attribute) else { return nil }; self = value }
    public var attribute: AttributeValue { Element.attribute(self) }
}

/// The element of a list attribute: strings or integers. A single value reads as a list of one.
public protocol SavedListElement: Sendable {
    static var plural: String { get }
    static func list(_ attribute: AttributeValue) -> [Self]?
    static func attribute(_ values: [Self]) -> AttributeValue
}

extension String: SavedListElement {
    public static var plural: String { "strings" }
    public static func list(_ attribute: AttributeValue) -> [String]? {
        switch attribute {
        case .strings(let values): values
        case .string(let value): [value]
        default: nil
        }
    }
    public static func attribute(_ values: [String]) -> AttributeValue { .strings(values) }
}

extension Int64: SavedListElement {
    public static var plural: String { "integers" }
    public static func list(_ attribute: AttributeValue) -> [Int64]? {
        switch attribute {
        case .ints(let values): values
        case .int(let value): [value]
        default: nil
        }
    }
    public static func attribute(_ values: [Int64]) -> AttributeValue { .ints(values) }
}

extension Group {
    /// Writes a `--save` attribute under its layout name.
    func set<Value>(_ key: SavedReportLayout.Key<Value>, _ value: Value) throws {
        try setAttribute(key.name, value.attribute)
    }

    /// Writes a `--save` attribute of the member `member` under its layout name.
    func set<Value>(_ key: SavedReportLayout.Key<Value>, _ value: Value, onMember member: String) throws {
        try setAttribute(key.name, value.attribute, onMember: member)
    }

    /// A `--save` attribute that may be absent; present with another type, an error.
    func optional<Value>(_ key: SavedReportLayout.Key<Value>, part: String, where place: String = "") throws -> Value? {
        guard let stored = try attribute(key.name) else { return nil }
        guard let value = Value(attribute: stored) else {
            throw ForceTraceError(file: part, "\(place.isEmpty ? "" : place + ": ")'\(key.name)' is not \(Value.kind)")
        }
        return value
    }

    /// A `--save` attribute `--merge` needs: its absence names the attribute and what to do.
    func required<Value>(_ key: SavedReportLayout.Key<Value>, part: String, where place: String = "") throws -> Value {
        guard let value = try optional(key, part: part, where: place) else {
            throw ForceTraceError(file: part, "\(place.isEmpty ? "" : place + ": ")has no '\(key.name)' attribute",
                                  hint: "it was saved by a forcetrace without --merge support; run report --save again")
        }
        return value
    }
}
