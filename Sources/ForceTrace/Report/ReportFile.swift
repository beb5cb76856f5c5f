import Foundation
import HDF5

/// Writes a report for notebooks (`forcetrace report --save OUT.h5`); the
/// layout is in docs/ANALYSIS.md ("The --save file").
public enum ReportFile {
    public static let formatName = "forcetrace-report"
    public static let formatVersion: Int64 = 1

    /// Writes `report` to `path` through a temporary file renamed into place.
    public static func write(_ report: PressureReport, to path: String, replace: Bool) throws {
        let target = try AtomicOutput(path: path, replace: replace)
        let file = try File.create(target.temporaryPath)
        let root = try file.root
        try root.setAttribute("format", .string(formatName))
        try root.setAttribute("format_version", .int(formatVersion))
        try root.setAttribute("tool_version", .string("forcetrace \(ForceTraceVersion.string)"))
        try root.setAttribute("created_utc", .string(ISO8601DateFormatter().string(from: Date())))
        let options = report.options
        try root.setAttribute("peek", .double(options.thresholds.peek))
        try root.setAttribute("pop", .double(options.thresholds.pop))
        try root.setAttribute("hysteresis", .double(options.thresholds.hysteresis))
        try root.setAttribute("sensitivity", .string(options.thresholds.sensitivity.rawValue))
        try root.setAttribute("smoothing", .string(options.smoothing.description))
        try root.setAttribute("tolerance", .string(options.tolerance.description))
        try root.setAttribute("maximum_possible_force", .double(UIKitForce.maximumPossibleForce))
        try root.setAttribute("inputs", .strings(report.files.map(\.file)))
        let recordings = try root.createGroup("recordings")
        var used: Set<String> = []
        try ReportMerge.writeOptions(options, to: root)
        for (index, analysis) in report.recordings.enumerated() {
            let group = try recordings.createGroup(ReportMerge.groupName(analysis.name, used: &used))
            try writeRecording(analysis, to: group)
            try ReportMerge.writeContext(analysis, index: index, to: group)
        }
        let total = try root.createGroup("total")
        try writeStatistics(report.total, to: total)
        try file.close()
        try target.commit()
    }

    static func writeRecording(_ analysis: RecordingAnalysis, to group: Group) throws {
        try group.setAttribute("file", .string(analysis.file))
        try group.setAttribute("name", .string(analysis.name))
        try group.setAttribute("device_name", .string(analysis.device.name))
        try group.setAttribute("pressure_axis", .string(analysis.pressureAxis?.name ?? ""))
        try group.setAttribute("tolerance", .string(analysis.lanes.configuredDescription))
        let count = analysis.contacts.count
        let options = analysis.options
        guard options.curves else {
            throw ForceTraceError(file: analysis.file, "the report was analysed without curves (AnalysisOptions.curves), which --save stores")
        }
        try group.writeMatrix("curves", analysis.curves, rows: count, columns: options.curvePoints)
        try group.writeMatrix("aligned_curves", analysis.alignedCurves, rows: count, columns: options.alignedPoints)
        try group.setAttribute("aligned_step_s", .double(Double(options.alignedStepNs) / 1e9))

        let contacts = try group.createGroup("contacts")
        let list = analysis.contacts
        func seconds(_ ns: Int64?) -> Double { ns.map { Double($0) / 1e9 } ?? .nan }
        try contacts.writeArray("id", list.map(\.id))
        try contacts.writeArray("slot", list.map(\.slot))
        try contacts.writeArray("tracking_id", list.map(\.trackingID))
        try contacts.writeArray("t_down_s", list.map { Double($0.tDownNs) / 1e9 })
        try contacts.writeArray("t_up_s", list.map { $0.stillDown ? .nan : Double($0.tUpNs) / 1e9 })
        try contacts.writeArray("duration_s", list.map { Double($0.durationNs) / 1e9 })
        try contacts.writeArray("samples", list.map(\.samples))
        try contacts.writeArray("peak_pressure", list.map(\.peakRaw))
        try contacts.writeArray("peak_norm", list.map { $0.peakNorm ?? .nan })
        try contacts.writeArray("peak_force", list.map { $0.peakForce ?? .nan })
        try contacts.writeArray("time_to_peak_s", list.map { seconds($0.timeToPeakNs) })
        try contacts.writeArray("t_peek_s", list.map { seconds($0.tPeekNs) })
        try contacts.writeArray("t_pop_s", list.map { seconds($0.tPopNs) })
        try contacts.writeArray("peek_to_pop_s", list.map { seconds($0.peekToPopNs) })
        try contacts.writeArray("peek_crossings", list.map { Int32($0.peekCrossings) })
        try contacts.writeArray("pop_crossings", list.map { Int32($0.popCrossings) })
        try contacts.writeArray("displacement_units", list.map(\.displacementUnits))
        try contacts.writeArray("displacement_mm", list.map { $0.displacementMM ?? .nan })
        try contacts.writeArray("motion_events", list.map(\.motionEvents))
        try contacts.writeArray("stationary_pressure_events", list.map { $0.stationary[0] })
        try contacts.writeArray("stationary_rise", list.map { $0.stationaryRise[0] })
        try contacts.writeArray("inflation", list.map { stored($0.inflation()) })
        try contacts.writeStrings("class", list.map { $0.pressClass?.rawValue ?? "no-pressure" })
        try contacts.writeStrings("label", list.map { $0.label?.rawValue ?? "" })
        try writeStatistics(analysis.statistics, to: group)
    }

    /// A ratio as is, unbounded as +inf, undefined (and a sweep lane that does not apply) as NaN.
    public static func stored(_ inflation: Inflation?) -> Double {
        switch inflation {
        case .ratio(let value): value
        case .unbounded: .infinity
        case .undefined, nil: .nan
        }
    }

    static func writeStatistics(_ statistics: PressureStatistics, to group: Group) throws {
        try group.setAttribute("contacts", .int(statistics.contacts))
        try group.setAttribute("motion_events", .int(statistics.motionEvents))
        try group.setAttribute("stationary_pressure_events", .int(statistics.stationary[0]))
        try group.setAttribute("inflation", .double(stored(statistics.inflation())))
        try group.setAttribute("reached_peek", .int(statistics.reachedPeek))
        try group.setAttribute("reached_pop", .int(statistics.reachedPop))
        try group.setAttribute("shared_pressure", .int(statistics.sharesPressure ? 1 : 0))

        let sweep = try group.createGroup("sweep")
        try sweep.writeArray("threshold", (0...ThresholdBins.steps).map(ThresholdBins.threshold))
        try sweep.writeArray("reached", statistics.peakBins.reached)
        try sweep.writeArray("fraction", statistics.sweep)

        let inflation = try group.createGroup("inflation_sweep")
        let lanes = statistics.inflationSweep
        try inflation.writeArray("tolerance_mm", lanes.map(\.toleranceMM))
        try inflation.writeArray("motion_events", lanes.map(\.motionEvents))
        try inflation.writeArray("stationary_pressure_events", lanes.map { $0.stationary ?? -1 })
        try inflation.writeArray("inflation", lanes.map { stored($0.inflation) })
        try inflation.writeArray("stationary_deep_presses", lanes.map(\.stationaryDeepPresses))

        let histograms = try group.createGroup("histograms")
        try histograms.writeArray("peak_norm", statistics.peakBins.counts)
        for (name, histogram) in statistics.timeHistograms { try histograms.writeArray(name, histogram.counts) }
        try histograms.setAttribute("peak_norm_bin", .double(1 / Double(ThresholdBins.steps)))
        try histograms.setAttribute("time_bin_s", .double(Double(TimeHistogram.binNs) / 1e9))

        // Every field of the mergeable aggregate, as is, so that it reads back exactly.
        let state = try group.createGroup("state")
        try state.setAttribute("fields", .strings(PressureStatistics.fields.map(\.name)))
        for field in PressureStatistics.fields {
            switch field.stored(statistics) {
            case .integers(let values): try state.writeArray(field.name, values)
            case .doubles(let values): try state.writeArray(field.name, values)
            }
        }
    }

    /// Reads back the aggregate `writeStatistics` stored under `group/state`.
    public static func readStatistics(from group: Group, file: String) throws -> PressureStatistics {
        let state = try group.openGroup("state")
        var statistics = PressureStatistics()
        for field in PressureStatistics.fields {
            guard state.contains(field.name) else {
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
        return statistics
    }
}
