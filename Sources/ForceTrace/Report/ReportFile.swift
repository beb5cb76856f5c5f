import Foundation
import HDF5

/// Writes a report for notebooks (`forcetrace report --save OUT.h5`); the
/// layout is in docs/ANALYSIS.md ("The --save file").
public enum ReportFile {
    private typealias Root = SavedReportLayout.Root
    private typealias Recording = SavedReportLayout.Recording
    private typealias Statistics = SavedReportLayout.Statistics
    private typealias Name = SavedReportLayout.Name
    typealias Dimension = SavedReportLayout.Dimension
    public static let formatName = "forcetrace-report"
    /// 2: the aligned curves as a ragged array (`aligned_curve_values`,
    /// `aligned_curve_counts`) instead of version 1's `aligned_curves` matrix.
    public static let formatVersion: Int64 = 2

    /// The root attribute `part` of a file that holds only what `--merge` reads
    /// (`report --save-part`): options, recordings' attributes and `state/`.
    public static let statePart = "state"

    /// Writes `report` to `path` through a temporary file renamed into place.
    /// - Parameter stateOnly: only what `--merge` reads (`--save-part`), no curves, contacts or figures.
    public static func write(_ report: PressureReport, to path: String, replace: Bool, stateOnly: Bool = false) throws {
        let target = try AtomicOutput(path: path, replace: replace, inputs: report.files.map(\.file))
        let file = try File.create(target.temporaryPath)
        let root = try file.root
        try root.set(Root.format, formatName)
        try root.set(Root.formatVersion, formatVersion)
        try root.set(Root.toolVersion, "forcetrace \(ForceTraceVersion.string)")
        try root.set(Root.createdUTC, ISO8601DateFormatter().string(from: Date()))
        let options = report.options
        try root.set(Root.peek, options.thresholds.peek)
        try root.set(Root.pop, options.thresholds.pop)
        try root.set(Root.hysteresis, options.thresholds.hysteresis)
        try root.set(Root.sensitivity, options.thresholds.sensitivity.rawValue)
        try root.set(Root.smoothing, options.smoothing.description)
        try root.set(Root.tolerance, options.tolerance.description)
        try root.set(Root.maximumPossibleForce, UIKitForce.maximumPossibleForce)
        try root.set(Root.inputs, report.files.map { InputPath.displayName($0.file) })
        if stateOnly { try root.set(Root.part, statePart) }
        let recordings = try root.createGroup(Name.recordings)
        var used: Set<String> = []
        try ReportMerge.writeOptions(options, to: root)
        for (index, analysis) in report.recordings.enumerated() {
            let group = try recordings.createGroup(ReportMerge.groupName(analysis.name, used: &used))
            if stateOnly {
                try writeIdentity(analysis, to: group)
                try writeState(analysis.statistics, to: group)
            } else {
                try writeRecording(analysis, of: report, to: group)
            }
            try ReportMerge.writeContext(analysis, index: index, to: group)
        }
        let total = try root.createGroup(Name.total)
        if stateOnly {
            try writeState(report.total, to: total)
        } else {
            try writeStatistics(report.total, of: report, to: total)
        }
        try file.close()
        try target.commit()
    }

    /// The recording's attributes that say which it is.
    static func writeIdentity(_ analysis: RecordingAnalysis, to group: Group) throws {
        try group.set(Recording.file, InputPath.displayName(analysis.file))
        try group.set(Recording.name, analysis.name)
        try group.set(Recording.deviceName, analysis.device.name)
        try group.set(Recording.pressureAxis, analysis.pressureAxis?.name ?? "")
        try group.set(Recording.tolerance, analysis.lanes.configuredDescription)
    }

    static func writeRecording(_ analysis: RecordingAnalysis, of report: PressureReport, to group: Group) throws {
        let fields = report.contactFields
        try writeIdentity(analysis, to: group)
        let count = analysis.contacts.count
        let options = analysis.options
        guard options.curves else {
            throw ForceTraceError(file: analysis.file, "the report was analysed without curves (AnalysisOptions.curves), which --save stores")
        }
        try group.writeRows(Name.curves, analysis.curves, rows: count, columns: options.curvePoints, compression: curveCompression)
        try group.describe(Name.curves, units: "1", "normalized pressure at each fraction of the contact's duration, sample-and-hold")
        try writeAlignedCurves(analysis.alignedCurves, to: group)
        try group.set(Recording.alignedStepS, Double(options.alignedStepNs) / 1e9)
        try group.writeCoordinate(Dimension.fraction, (0..<options.curvePoints).map { Double($0) / Double(options.curvePoints) },
                                  units: "1", "fraction of the contact's duration since touch-down, i/K")
        try group.writeCoordinate(Dimension.alignedTime, (0..<options.alignedPoints).map { Double(Int64($0) * options.alignedStepNs) / 1e6 },
                                  units: "milliseconds", "time since touch-down")
        try group.attachScale(Dimension.fraction, to: [Name.curves], axis: 1)

        let contacts = try group.createGroup(Name.contacts)
        let columns = SavedContactColumns(fields.filter { $0.applies(options) }, analysis.contacts, lanes: analysis.lanes)
        for (field, values) in zip(columns.fields, columns.values) {
            try writeContactField(field, values, rows: count, to: contacts)
        }
        try group.createDimensionScale(Dimension.contact, rows: count)
        try group.attachScale(Dimension.contact, to: try contacts.memberNames().map { "\(Name.contacts)/\($0)" } + [Name.curves, Name.alignedCurveCounts])
        try group.writeCoordinate(Dimension.sweepLane, AnalysisOptions.sweepTolerancesMM, units: "mm", "the inflation sweep's tolerance in x and in y")
        try group.attachScale(Dimension.sweepLane, to: fields.filter { $0.isSweep && $0.applies(options) }.map { "\(Name.contacts)/\($0.name)" }, axis: 1)
        try writeStatistics(analysis.statistics, of: report, to: group)
    }

    /// The aligned curves as a CF contiguous ragged array (docs/ANALYSIS.md,
    /// "The --save file"): each contact's points up to its last value, the
    /// rows one after another along `aligned_sample`, and each row's count.
    /// A row's count is its points before any NaN tail (a contact without
    /// samples or without pressure has none), so the matrix reads back
    /// exactly; contact c's points start at the sum of the counts before it.
    /// The caller attaches the `contact` dimension to the counts.
    static func writeAlignedCurves(_ curves: AlignedCurves, to group: Group) throws {
        let stored = curves.trimmed(), values = stored.values
        let counts = (0..<stored.rows).map { Int32(stored.starts[$0 + 1] - stored.starts[$0]) }
        try group.write(Name.alignedCurveCounts, counts, units: "1",
                        "points of each contact's aligned curve in \(Name.alignedCurveValues), the grid points before its end (CF count variable)")
        try group.set(Statistics.sampleDimension, Dimension.alignedSample, onMember: Name.alignedCurveCounts)
        if values.count >= deflatedElements {
            // Chunks of as many points as the matrix's chunks of 1024 whole rows held.
            try group.writeDeflated(Name.alignedCurveValues, values, rows: values.count, chunkRows: 1024 * curves.width, compression: curveCompression)
        } else {
            try group.writeArray(Name.alignedCurveValues, values)
        }
        try group.describe(Name.alignedCurveValues, units: "1",
                           "normalized pressure after touch-down, sample-and-hold, each contact's points up to its end, contact after contact")
        try group.createDimensionScale(Dimension.alignedSample, rows: values.count)
        try group.attachScale(Dimension.alignedSample, to: [Name.alignedCurveValues])
    }

    /// One `contacts/` dataset: the field's values (`SavedContactColumns`), narrowed to its storage.
    static func writeContactField(_ field: ContactField, _ values: SavedContactColumns.Values, rows: Int, to contacts: Group) throws {
        let name = field.name
        switch (field.storage, values) {
        case (.int64PerLane, .lanes(let values)):
            try contacts.writeRows(name, values, rows: rows, columns: ToleranceLanes.sweepLanes.count)
            try contacts.describe(name, units: field.units, field.longName)
        case (.int16, .integers(let values)): try contacts.write(name, values.map { Int16(truncatingIfNeeded: $0) }, units: field.units, field.longName)
        case (.int32, .integers(let values)): try contacts.write(name, values.map { Int32(truncatingIfNeeded: $0) }, units: field.units, field.longName)
        case (.int64, .integers(let values)): try contacts.write(name, values, units: field.units, field.longName)
        case (.uint8, .integers(let values)): try contacts.write(name, values.map { UInt8(truncatingIfNeeded: $0) }, units: field.units, field.longName)
        case (.uint16, .integers(let values)): try contacts.write(name, values.map { UInt16(truncatingIfNeeded: $0) }, units: field.units, field.longName)
        case (.double, .doubles(let values)): try contacts.write(name, values, units: field.units, field.longName)
        case (.string, .strings(let values)):
            // Fixed-length: variable-length strings take one global-heap entry a row, which no filter compresses.
            try contacts.writeCompressedStrings(name, values, chunkRows: 16384, compression: compression)
            try contacts.describe(name, units: field.units, field.longName)
        default:
            preconditionFailure("SavedContactColumns gives each storage its kind of values")
        }
    }

    /// A ratio as is, unbounded as +inf, undefined (and a sweep lane that does not apply) as NaN.
    public static func stored(_ inflation: Inflation?) -> Double {
        switch inflation {
        case .ratio(let value): value
        case .unbounded: .infinity
        case .undefined, nil: .nan
        }
    }

    /// Arrays of at least this many elements are chunked and deflated (on
    /// worker threads); smaller ones stay contiguous, where chunk indexes and
    /// filters would cost more than they save.
    static let deflatedElements = 1024
    /// Their filters: shuffle + deflate at level 1 (level 4 took longer
    /// for about 3 % less size).
    static let compression = Compression.fast
    /// The curves' filter (`curves`, `aligned_curve_values`): deflate at level 1, no shuffle. A curve
    /// holds each value over neighbouring points, and deflate finds those
    /// repeats whole: half the size of shuffle + deflate 4, in a third of the time.
    static let curveCompression = Compression.fastUnshuffled

    /// The name of the dataset holding the summary as `report --json` has it.
    public static let summaryDataset = Name.summary

    static func writeStatistics(_ statistics: PressureStatistics, of report: PressureReport, to group: Group) throws {
        // The JSON renderer's own text, so read_report().summary() has every key --json has, under the same names.
        var json = JSONWriter()
        report.writeSummary(statistics, to: &json)
        try group.writeString(summaryDataset, String(decoding: json.finish(), as: UTF8.self))
        try group.describe(summaryDataset, units: "", "the summary as report --json prints it, JSON text")

        try group.set(Statistics.contacts, statistics.contacts)
        try group.set(Statistics.motionEvents, statistics.motionEvents)
        try group.set(Statistics.stationaryPressureEvents, statistics.stationary[0])
        try group.set(Statistics.inflation, stored(statistics.inflation()))
        try group.set(Statistics.reachedPeek, statistics.reachedPeek)
        try group.set(Statistics.reachedPop, statistics.reachedPop)
        try group.set(Statistics.sharedPressure, statistics.sharesPressure ? 1 : 0)

        try writeFigures(statistics, to: group)

        let sweep = try group.createGroup(Name.sweep)
        try sweep.writeCoordinate("threshold", (0...ThresholdBins.steps).map(ThresholdBins.threshold), units: "1",
                                  "threshold, normalized pressure j/100")
        try sweep.write("reached", statistics.peakBins.reached, units: "1", "contacts whose signal peak reaches the threshold")
        try sweep.write("fraction", statistics.sweep, units: "1", "fraction of the contacts with pressure that reach the threshold")
        try sweep.attachScale("threshold", to: ["reached", "fraction"])

        let inflation = try group.createGroup(Name.inflationSweep)
        let lanes = statistics.inflationSweep
        try inflation.writeCoordinate("tolerance_mm", lanes.map(\.toleranceMM), units: "mm", "the lane's tolerance in x and in y")
        try inflation.write("motion_events", lanes.map(\.motionEvents), units: "1", "motion events of the recordings where the lane applies")
        try inflation.write("stationary_pressure_events", lanes.map { $0.stationary ?? -1 }, units: "1",
                            "motion events that changed only pressure within the tolerance, -1 where the lane does not apply")
        try inflation.write("inflation", lanes.map { stored($0.inflation) }, units: "1",
                            "motion / (motion - stationary) events; inf when unbounded, NaN when undefined or not applicable")
        try inflation.write("stationary_deep_presses", lanes.map(\.stationaryDeepPresses), units: "1",
                            "pop-presses whose displacement stays within the tolerance")
        try inflation.attachScale("tolerance_mm", to: ["motion_events", "stationary_pressure_events", "inflation", "stationary_deep_presses"])

        let histograms = try group.createGroup(Name.histograms)
        try histograms.writeCoordinate(Dimension.peakBin, (0...ThresholdBins.steps).map(ThresholdBins.threshold), units: "1",
                                       "lower edge of the bin of normalized pressure; the last holds 1 and above")
        try histograms.write(Name.peakHistogram, statistics.peakBins.counts, units: "1", "contacts per bin of their signal peak")
        try histograms.writeCoordinate(Dimension.timeBin, (0...TimeHistogram.bins).map { Double(Int64($0) * TimeHistogram.binNs) / 1e9 },
                                       units: "seconds", "lower edge of the time bin; the last holds every longer time")
        for (name, histogram) in statistics.timeHistograms {
            try histograms.write(name, histogram.counts, units: "1", "contacts per 10 ms bin of \(name), the time from touch-down (peek for peek_to_pop)")
        }
        try histograms.attachScale(Dimension.peakBin, to: [Name.peakHistogram])
        try histograms.attachScale(Dimension.timeBin, to: statistics.timeHistograms.map(\.name))
        try histograms.set(Statistics.peakBinWidth, 1 / Double(ThresholdBins.steps))
        try histograms.set(Statistics.timeBinSeconds, Double(TimeHistogram.binNs) / 1e9)

        try writeState(statistics, to: group)
    }

    /// Every field of the mergeable aggregate, as is, so that it reads back exactly.
    static func writeState(_ statistics: PressureStatistics, to group: Group) throws {
        let state = try group.createGroup(Name.state)
        try state.set(Statistics.stateFields, PressureStatistics.fields.map(\.name))
        var byLength: [Int: [String]] = [:]
        for field in PressureStatistics.fields {
            let length: Int
            switch field.stored(statistics) {
            case .integers(let values): try state.write(field.name, values, units: field.units, field.longName); length = values.count
            case .doubles(let values): try state.write(field.name, values, units: field.units, field.longName); length = values.count
            }
            byLength[length, default: []].append(field.name)
        }
        // One dimension per length, shared by the fields of that length: their lengths are otherwise unrelated.
        for (length, names) in byLength.sorted(by: { $0.key < $1.key }) {
            try state.createDimensionScale(Dimension.element(length: length), rows: length)
            try state.attachScale(Dimension.element(length: length), to: names)
        }
    }

    /// The summary's derived figures as datasets of their own (docs/ANALYSIS.md,
    /// "The --save file"), under the names `report --json` gives them:
    /// `classes/`, `quantiles/` and `suggested_thresholds/`.
    static func writeFigures(_ statistics: PressureStatistics, to group: Group) throws {
        let classes = try group.createGroup(Name.classes)
        for pressClass in PressClass.allCases {
            try classes.writeScalar(pressClass.rawValue, statistics.classCounts[pressClass])
            try classes.describe(pressClass.rawValue, units: "1", "contacts classed \(pressClass.rawValue) at the configured thresholds")
        }

        let quantiles = try group.createGroup(Name.quantiles)
        try quantiles.writeCoordinate(Dimension.quantileLevel, Quantiles.levels, units: "1", "quantile level (p5, p25, p50, p75, p95)")
        for (name, values) in statistics.quantileLists {
            // NaN throughout where there are no values (null in JSON).
            try quantiles.write(name, values.quantiles ?? Quantiles.levels.map { _ in .nan },
                                units: name.hasSuffix("_s") ? "seconds" : name.hasSuffix("_gf") ? "gf" : "1", "quantiles of \(name) over the contacts that have one")
        }
        try quantiles.attachScale(Dimension.quantileLevel, to: statistics.quantileLists.map(\.name))

        // A suggestion that cannot be made (null in JSON) has no group.
        let suggested = try group.createGroup(Name.suggestedThresholds)
        if let labelled = statistics.suggestionFromLabels {
            let with = try suggested.createGroup(Name.withLabels)
            try writeSuggestion(labelled, to: with)
            try with.writeScalar(Name.balancedAccuracy, labelled.balancedAccuracy ?? .nan)
            try with.describe(Name.balancedAccuracy, units: "1", "mean recall over the labelled classes at the suggested thresholds")
            try with.writeScalar(Name.tiedPairs, Int64(labelled.tiedPairs))
            try with.describe(Name.tiedPairs, units: "1", "threshold pairs with the same best balanced accuracy; the suggestion is their middle")
            let confusion = labelled.confusion ?? ConfusionMatrix()
            try with.writeMatrix(Name.confusion, PressClass.allCases.flatMap { label in PressClass.allCases.map { confusion[label: label, found: $0] } },
                                 rows: 3, columns: 3, compression: .none)
            try with.describe(Name.confusion, units: "1", "contacts by label (rows) and the class the suggested thresholds give (columns)")
            try with.setAttribute(Statistics.classes.name, PressClass.allCases.map(\.rawValue).attribute, onMember: Name.confusion)
            try with.createDimensionScale(Dimension.label, rows: 3)
            try with.createDimensionScale(Dimension.found, rows: 3)
            try with.attachScale(Dimension.label, to: [Name.confusion], axis: 0)
            try with.attachScale(Dimension.found, to: [Name.confusion], axis: 1)
        }
        if let breaks = statistics.suggestionWithoutLabels {
            let without = try suggested.createGroup(Name.withoutLabels)
            try writeSuggestion(breaks, to: without)
            try without.set(Statistics.note, ThresholdSuggestion.naturalBreaksNote)
        }
    }

    private static func writeSuggestion(_ suggestion: ThresholdSuggestion, to group: Group) throws {
        try group.set(Statistics.method, suggestion.method.rawValue)
        try group.writeScalar(Name.suggestedPeek, suggestion.peek)
        try group.describe(Name.suggestedPeek, units: "1", "suggested peek threshold, normalized pressure")
        try group.writeScalar(Name.suggestedPop, suggestion.pop)
        try group.describe(Name.suggestedPop, units: "1", "suggested pop threshold, normalized pressure")
    }

    /// Reads back the aggregate `writeStatistics` stored under `group/state`.
    /// - Parameter place: the group's path in the file, for errors ("recordings/NAME").
    public static func readStatistics(from group: Group, file: String, place: String = "") throws -> PressureStatistics {
        let state = try group.openGroup(Name.state)
        var statistics = PressureStatistics()
        // Declared sizes first, as for trace tables: a damaged extent would make the read allocate without bound.
        let fileSize = TraceValidation.fileSize(file)
        for field in PressureStatistics.fields where state.contains(field.name) {
            if let problem = TraceValidation.extentProblem(try state.storage(of: field.name), fileSize: fileSize) {
                throw ForceTraceError(file: file, "\(place.isEmpty ? "" : place + "/")state/\(field.name) \(problem)",
                                      hint: "the file is damaged; save the report again from its inputs")
            }
        }
        for field in PressureStatistics.fields {
            guard state.contains(field.name) else {
                if field.absentInOlderParts { continue }
                throw ForceTraceError(file: file, "state/\(field.name) is missing; the report was saved by another version")
            }
            let integers = field.stored(statistics)
            let array: StoredArray
            switch integers {
            case .integers: array = .integers(try state.readArray(field.name, of: Int64.self))
            case .doubles: array = .doubles(try state.readArray(field.name, of: Double.self))
            }
            guard field.restore(&statistics, array) else {
                throw ForceTraceError(file: file, "state/\(field.name) has the wrong length for its field")
            }
        }
        if let field = statistics.fieldWhoseTotalsOverflow {
            throw ForceTraceError(file: file, "\(place.isEmpty ? "" : place + "/")state/\(field) holds a count below 0, or counts whose total overflows a 64-bit integer",
                                  hint: "the file is damaged; save the report again from its inputs")
        }
        return statistics
    }
}

/// Writes of the `--save` file's datasets with the `units` and `long_name`
/// attributes that make it self-describing, as the trace file's columns have.
extension Group {
    fileprivate func write<Element: HDF5Scalar>(_ name: String, _ values: [Element], units: String, _ longName: String) throws {
        if values.count >= ReportFile.deflatedElements {
            try writeDeflated(name, values, rows: values.count, chunkRows: 16384, compression: ReportFile.compression)
        } else {
            try writeArray(name, values)
        }
        try describe(name, units: units, longName)
    }

    /// A matrix, deflated on worker threads when large (whole rows per chunk, so one curve reads one chunk).
    fileprivate func writeRows<Element: HDF5Scalar>(_ name: String, _ values: [Element], rows: Int, columns: Int,
                                                    compression: Compression = ReportFile.compression) throws {
        if values.count >= ReportFile.deflatedElements {
            try writeDeflated(name, values, rows: rows, columns: columns, chunkRows: 1024, compression: compression)
        } else {
            try writeMatrix(name, values, rows: rows, columns: columns)
        }
    }

    /// A dimension whose points have values: a coordinate variable for netCDF readers.
    fileprivate func writeCoordinate(_ name: String, _ values: [Double], units: String, _ longName: String) throws {
        try write(name, values, units: units, longName)
        try makeCoordinateScale(name)
    }

    fileprivate func describe(_ name: String, units: String, _ longName: String) throws {
        try setAttribute("units", .string(units), onMember: name)
        try setAttribute("long_name", .string(longName), onMember: name)
    }
}
