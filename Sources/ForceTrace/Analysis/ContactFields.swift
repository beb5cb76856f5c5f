import Foundation

/// One per-contact number as every renderer sees it: the JSON value, from
/// which the `--save` dataset's value follows by `ContactField.Storage`.
public enum ContactValue: Equatable, Sendable {
    /// null in JSON; `ContactField.missing` in `--save`.
    case integer(Int64?)
    /// null in JSON when nil or not finite; NaN in `--save`.
    case real(Double?)
    /// Nanoseconds, written as seconds; null in JSON and NaN in `--save` when nil.
    case seconds(Int64?)
    /// A ratio; null in JSON when unbounded or undefined, inf or NaN in `--save` (`ReportFile.stored`).
    case inflation(Inflation)
    /// true/false in JSON, 1/0 in `--save`.
    case flag(Bool)
    /// null in JSON, "" in `--save` when nil.
    case text(String?)
    /// One count per inflation-sweep lane (`ToleranceLanes.sweepLanes`); a lane
    /// that does not apply is null in JSON and −1 in `--save`.
    case sweep(SIMD8<Int64>)
}

/// A per-contact statistic, described once: the text and HTML contact
/// tables, the JSON `contacts` objects, the `--save` `contacts/` datasets and
/// the Python package (`Report.contacts()`, which reads the datasets' names)
/// all iterate `ContactField.all`. Adding one is a line in `all`
/// (docs/ARCHITECTURE.md, "A per-contact statistic").
public struct ContactField: Sendable {
    /// The element type of the `--save` dataset; `int64PerLane` is a
    /// contact × sweep-lane matrix (`ContactValue.sweep`).
    public enum Storage: Sendable { case int16, int32, int64, uint8, uint16, double, string, int64PerLane }

    /// The JSON key and the `--save` dataset's name.
    public let key: StaticString
    public let units: String
    public let longName: String
    public let storage: Storage
    /// What `--save` stores for `.integer(nil)` and a sweep lane that does not apply.
    public let missing: Int64
    /// Whether the field exists under these options (JSON key and dataset alike).
    public let applies: @Sendable (AnalysisOptions) -> Bool
    public let value: @Sendable (ContactStatistics) -> ContactValue
    /// Its column in the text and HTML contact tables, if it has one.
    public let column: ContactColumn?

    public var name: String { key.description }

    /// A per-lane field (`ContactValue.sweep`): a contact × lane matrix in `--save`.
    public var isSweep: Bool { storage == .int64PerLane }

    public init(_ key: StaticString, _ storage: Storage, units: String, _ longName: String, missing: Int64 = -1,
                applies: @escaping @Sendable (AnalysisOptions) -> Bool = { _ in true },
                column: ContactColumn? = nil, value: @escaping @Sendable (ContactStatistics) -> ContactValue) {
        self.key = key
        self.storage = storage
        self.units = units
        self.longName = longName
        self.missing = missing
        self.applies = applies
        self.column = column
        self.value = value
    }
}

/// A column of the contact table: its heading, the text table's width
/// (right-aligned; 0 for the last, free column) and the cell, whose text the
/// HTML table shows as is and sorts by `sort`.
public struct ContactColumn: Sendable {
    public struct Cell {
        public var text: String
        /// The HTML sort value; nil sorts first.
        public var sort: Double?
        public init(_ text: String, _ sort: Double?) { self.text = text; self.sort = sort }
    }

    public let heading: String
    public let width: Int
    /// False for a column sorted by its text (the class): no `data-v`.
    public let numeric: Bool
    /// Whether a recording's table has the column (the grams only where the axis gives them).
    public let shown: @Sendable (RecordingAnalysis) -> Bool
    public let cell: @Sendable (ContactStatistics) -> Cell

    public init(_ heading: String, width: Int, numeric: Bool = true,
                shown: @escaping @Sendable (RecordingAnalysis) -> Bool = { _ in true },
                cell: @escaping @Sendable (ContactStatistics) -> Cell) {
        self.heading = heading
        self.width = width
        self.numeric = numeric
        self.shown = shown
        self.cell = cell
    }

    /// The text table's cell: the HTML text, right-aligned to `width`.
    public func padded(_ contact: ContactStatistics) -> String {
        let text = cell(contact).text
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    static func integer(_ heading: String, width: Int, _ value: @escaping @Sendable (ContactStatistics) -> Int64) -> ContactColumn {
        ContactColumn(heading, width: width) { let v = value($0); return Cell("\(v)", Double(v)) }
    }

    static func seconds(_ heading: String, width: Int, _ value: @escaping @Sendable (ContactStatistics) -> Int64?) -> ContactColumn {
        ContactColumn(heading, width: width) { contact in
            guard let ns = value(contact) else { return Cell("-", nil) }
            let seconds = Double(ns) / 1e9
            return Cell(String(format: "%.3f", seconds), seconds)
        }
    }

    /// Pressure columns show "-" for a contact without pressure.
    static func pressure(_ heading: String, width: Int, _ text: @escaping @Sendable (ContactStatistics, Double) -> Cell) -> ContactColumn {
        ContactColumn(heading, width: width) { contact in contact.peakNorm.map { text(contact, $0) } ?? Cell("-", nil) }
    }
}

extension ContactField {
    /// Every per-contact statistic; those with a column in table order.
    public static let all: [ContactField] = [
        ContactField("id", .int32, units: "1", "contact id, its row in the trace's contacts table",
                     column: .integer("id", width: 6) { Int64($0.id) }) { .integer(Int64($0.id)) },
        ContactField("slot", .int16, units: "1", "multitouch slot, -1 without slots",
                     column: .integer("slot", width: 4) { Int64($0.slot) }) { .integer(Int64($0.slot)) },
        ContactField("tracking_id", .int32, units: "1", "ABS_MT_TRACKING_ID, -1 without slots",
                     column: .integer("track", width: 6) { Int64($0.trackingID) }) { .integer(Int64($0.trackingID)) },
        ContactField("t_down_s", .double, units: seconds, "touch-down since the recording's first event",
                     column: .seconds("down_s", width: 9) { $0.tDownNs }) { .seconds($0.tDownNs) },
        ContactField("duration_s", .double, units: seconds, "lift-off minus touch-down",
                     column: .seconds("dur_s", width: 7) { $0.durationNs }) { .seconds($0.durationNs) },
        ContactField("samples", .int64, units: "1", "its sample rows",
                     column: .integer("smpl", width: 5) { $0.samples }) { .integer($0.samples) },
        ContactField("peak_pressure", .int32, units: deviceUnits, "largest raw pressure",
                     column: .pressure("peak", width: 5) { contact, _ in .init("\(contact.peakRaw)", Double(contact.peakRaw)) }) {
            .integer($0.peakRaw >= 0 || $0.peakNorm != nil ? Int64($0.peakRaw) : nil)
        },
        ContactField("peak_norm", .double, units: "1", "largest normalized pressure",
                     column: .pressure("norm", width: 5) { _, norm in .init(String(format: "%.3f", norm), norm) }) { .real($0.peakNorm) },
        ContactField("peak_force", .double, units: "1",
                     "peak in UIKit force units (1 an average touch, maximum_possible_force at full scale)",
                     column: .pressure("force", width: 5) { _, norm in
                         .init(String(format: "%.2f", UIKitForce.force(normalized: norm)), norm)
                     }) { .real($0.peakForce) },
        ContactField("peak_gf", .double, units: "gf",
                     "largest pressure in grams: raw over the axis resolution in units per gram, NaN without one",
                     column: ContactColumn("gf", width: 6, shown: { $0.grams != nil }) { contact in
                         contact.peakGrams.map { .init(String(format: "%.1f", $0), $0) } ?? .init("-", nil)
                     }) { .real($0.peakGrams) },
        ContactField("time_to_peak_s", .double, units: seconds, "from touch-down to the first sample at the peak",
                     column: .seconds("t_peak", width: 7) { $0.timeToPeakNs }) { .seconds($0.timeToPeakNs) },
        ContactField("t_peek_s", .double, units: seconds, "from touch-down to the first peek crossing, NaN without",
                     column: .seconds("t_peek", width: 7) { $0.tPeekNs }) { .seconds($0.tPeekNs) },
        ContactField("t_pop_s", .double, units: seconds, "from touch-down to the first pop crossing, NaN without",
                     column: .seconds("t_pop", width: 7) { $0.tPopNs }) { .seconds($0.tPopNs) },
        ContactField("peek_to_pop_s", .double, units: seconds, "from the peek crossing to the pop crossing",
                     column: .seconds("pk>pop", width: 6) { $0.peekToPopNs }) { .seconds($0.peekToPopNs) },
        // The table's one re-crossings column adds both thresholds'.
        ContactField("peek_recrossings", .int32, units: "1", "crossings of peek after the first",
                     column: .integer("rx", width: 2) { Int64($0.peekRecrossings + $0.popRecrossings) }) {
            .integer(Int64($0.peekRecrossings))
        },
        // The table shows millimetres when known, else device units.
        ContactField("displacement_mm", .double, units: "mm",
                     "largest distance from the touch-down position, NaN without both resolutions",
                     column: ContactColumn("disp", width: 6) { contact in
                         contact.displacementMM.map { .init(String(format: "%.1fmm", $0), $0) }
                             ?? .init("\(contact.displacementUnits)", Double(contact.displacementUnits))
                     }) { .real($0.displacementMM) },
        ContactField("motion_events", .int64, units: "1", "sample rows after the down row",
                     column: .integer("motion", width: 7) { $0.motionEvents }) { .integer($0.motionEvents) },
        ContactField("stationary_pressure_events", .int64, units: "1",
                     "motion events that changed only pressure, within the tolerance",
                     column: .integer("stat", width: 5) { $0.stationary[0] }) { .integer($0.stationary[0]) },
        ContactField("inflation", .double, units: "1",
                     "motion / (motion - stationary) events; inf when unbounded, NaN when undefined",
                     column: ContactColumn("infl", width: 5) { contact in
                         let inflation = contact.inflation()
                         return .init(ReportFormat.inflation(inflation, width: 0),
                                      inflation.ratio ?? (inflation == .unbounded ? .infinity : nil))
                     }) { .inflation($0.inflation()) },
        ContactField("class", .string, units: "", "press class: tap, peek-press, pop-press or no-pressure",
                     column: ContactColumn("class", width: 0, numeric: false) { contact in
                         var note = contact.pressClass?.rawValue ?? "no-pressure"
                         if contact.isStationaryDeepPress { note += " (stationary)" }
                         if contact.stillDown { note += " [still down]" }
                         if let label = contact.label, label != contact.pressClass { note += " [label \(label.rawValue)]" }
                         return .init(note, nil)
                     }) { .text($0.pressClass?.rawValue ?? "no-pressure") },

        // Not in the tables.
        ContactField("label", .string, units: "", "ground-truth class from the trace's labels, empty without") {
            .text($0.label?.rawValue)
        },
        ContactField("tool", .uint16, units: "1", "BTN_TOOL_* code, 0 unknown") {
            .integer(Int64($0.tool))
        },
        ContactField("t_up_s", .double, units: seconds, "lift-off since the recording's first event, NaN when still down") {
            .seconds($0.stillDown ? nil : $0.tUpNs)
        },
        ContactField("still_down", .uint8, units: "1", "1 when the contact is still down at the end of the recording") {
            .flag($0.stillDown)
        },
        ContactField("signal_peak", .double, units: "1", "peak of the smoothed signal the thresholds look at",
                     applies: { $0.smoothing != .none }) { .real($0.signalPeak) },
        ContactField("peek_crossings", .int32, units: "1", "crossings of peek") { .integer(Int64($0.peekCrossings)) },
        ContactField("pop_crossings", .int32, units: "1", "crossings of pop") { .integer(Int64($0.popCrossings)) },
        ContactField("pop_recrossings", .int32, units: "1", "crossings of pop after the first") {
            .integer(Int64($0.popRecrossings))
        },
        ContactField("displacement_units", .int64, units: deviceUnits, "largest distance from the touch-down position, max of x and y") {
            .integer($0.displacementUnits)
        },
        ContactField("stationary_rise", .int64, units: "1", "stationary pressure events up to the peak") {
            .integer($0.stationaryRise[0])
        },
        ContactField("stationary_after_peak", .int64, units: "1", "stationary pressure events after the peak") {
            .integer($0.stationaryAfterPeak[0])
        },
        ContactField("stationary_rate_hz", .double, units: "Hz", "stationary pressure events per second of the contact") {
            .real($0.stationaryRateHz)
        },
        ContactField("stationary_sweep", .int64PerLane, units: "1",
                     "stationary pressure events at each tolerance of the inflation sweep, -1 where the lane does not apply") {
            .sweep($0.stationary)
        },
        ContactField("stationary_deep_press", .uint8, units: "1",
                     "1 for a pop-press whose displacement stays within the tolerance") { .flag($0.isStationaryDeepPress) },
    ]

    /// The text table's heading line (without its newline).
    public static func textHeading(_ columns: [ContactColumn]) -> String {
        columns.map { column in
            String(repeating: " ", count: max(0, column.width - column.heading.count)) + column.heading
        }.joined(separator: " ")
    }

    static let seconds = "seconds", deviceUnits = "device units"
}
