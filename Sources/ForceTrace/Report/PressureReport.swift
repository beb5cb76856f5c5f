import Foundation

/// The analyses of one input file.
public struct FileAnalysis: Sendable {
    public var file: String
    public var recordings: [RecordingAnalysis]
    public var statistics: PressureStatistics { recordings.reduce(PressureStatistics()) { $0 + $1.statistics } }

    public init(file: String, recordings: [RecordingAnalysis]) {
        self.file = file
        self.recordings = recordings
    }
}

/// Builds the report's JSON document and its text rendering
/// (docs/ANALYSIS.md defines every number).
public struct PressureReport {
    public var options: AnalysisOptions
    public var files: [FileAnalysis]
    public var total: PressureStatistics

    public init(options: AnalysisOptions, files: [FileAnalysis]) {
        self.options = options
        self.files = files
        total = files.reduce(PressureStatistics()) { $0 + $1.statistics }
    }

    // MARK: - JSON

    /// The JSON document: `{"thresholds", "recordings": [...], "files": [...], "total"}`.
    public func json() -> [String: Any] {
        [
            "thresholds": thresholdsJSON(),
            "recordings": files.flatMap { file in file.recordings.map(recordingJSON) },
            "files": files.map { ["file": $0.file, "summary": summaryJSON($0.statistics)] as [String: Any] },
            "total": summaryJSON(total),
            "tool_version": "forcetrace \(ForceTraceVersion.string)",
        ]
    }

    public func jsonText() -> String { JSONText.encode(json()) }

    func thresholdsJSON() -> [String: Any] {
        let thresholds = options.thresholds
        return [
            "peek": thresholds.peek, "pop": thresholds.pop, "hysteresis": thresholds.hysteresis,
            "peek_force": UIKitForce.force(normalized: thresholds.peek), "pop_force": UIKitForce.force(normalized: thresholds.pop),
            "maximum_possible_force": UIKitForce.maximumPossibleForce,
            "sensitivity": thresholds.sensitivity.rawValue, "smoothing": options.smoothing.description,
            "tolerance": options.tolerance.description, "curve_points": options.curvePoints,
            "aligned_step_s": Double(options.alignedStepNs) / 1e9, "aligned_points": options.alignedPoints,
            "sweep_tolerances_mm": AnalysisOptions.sweepTolerancesMM,
        ]
    }

    func recordingJSON(_ analysis: RecordingAnalysis) -> [String: Any] {
        let device = analysis.device
        var result: [String: Any] = [
            "file": analysis.file, "name": analysis.name, "device": device.name,
            "device_id": [Int(device.bus), Int(device.vendor), Int(device.product), Int(device.version)],
            "contact_protocol": device.contactProtocol.rawValue,
            "pressure_axis": analysis.pressureAxis.map { ["code": Int($0.code), "name": $0.name, "min": Int($0.minimum), "max": Int($0.maximum)] as [String: Any] } ?? NSNull(),
            "tolerance": analysis.lanes.configuredDescription,
            "duration_s": Double(analysis.durationNs) / 1e9,
            "warnings": analysis.warnings,
            "summary": summaryJSON(analysis.statistics),
            "contacts": analysis.contacts.map { contactJSON($0, lanes: analysis.lanes) },
        ]
        if let peek = analysis.scriptedPeek, let pop = analysis.scriptedPop {
            result["scripted_thresholds"] = ["peek": peek, "pop": pop]
        } else {
            result["scripted_thresholds"] = NSNull()
        }
        return result
    }

    func contactJSON(_ contact: ContactStatistics, lanes: ToleranceLanes) -> [String: Any] {
        func seconds(_ ns: Int64?) -> Any { ns.map { Double($0) / 1e9 } ?? NSNull() }
        func value(_ number: Double?) -> Any { number ?? NSNull() }
        var result: [String: Any] = [
            "id": Int(contact.id), "slot": Int(contact.slot), "tracking_id": Int(contact.trackingID), "tool": Int(contact.tool),
            "t_down_s": Double(contact.tDownNs) / 1e9, "t_up_s": contact.stillDown ? NSNull() : Double(contact.tUpNs) / 1e9 as Any,
            "still_down": contact.stillDown, "duration_s": Double(contact.durationNs) / 1e9,
            "samples": contact.samples,
            "peak_pressure": contact.peakRaw >= 0 || contact.peakNorm != nil ? Int(contact.peakRaw) : NSNull() as Any,
            "peak_norm": value(contact.peakNorm), "peak_force": value(contact.peakForce),
            "time_to_peak_s": seconds(contact.timeToPeakNs),
            "t_peek_s": seconds(contact.tPeekNs), "t_pop_s": seconds(contact.tPopNs), "peek_to_pop_s": seconds(contact.peekToPopNs),
            "peek_crossings": contact.peekCrossings, "pop_crossings": contact.popCrossings,
            "peek_recrossings": contact.peekRecrossings, "pop_recrossings": contact.popRecrossings,
            "displacement_units": contact.displacementUnits, "displacement_mm": value(contact.displacementMM),
            "motion_events": contact.motionEvents,
            "stationary_pressure_events": contact.stationary[0],
            "stationary_rise": contact.stationaryRise[0], "stationary_after_peak": contact.stationaryAfterPeak[0],
            "inflation": value(contact.inflation()),
            "stationary_rate_hz": contact.durationNs > 0 ? Double(contact.stationary[0]) / (Double(contact.durationNs) / 1e9) : NSNull() as Any,
            "class": contact.pressClass?.rawValue ?? "no-pressure",
            "stationary_deep_press": contact.isStationaryDeepPress,
            "label": contact.label?.rawValue ?? NSNull() as Any,
        ]
        if options.smoothing != .none { result["signal_peak"] = value(contact.signalPeak) }
        result["stationary_sweep"] = ToleranceLanes.sweepLanes.map { lanes.applicable[$0] ? Int(contact.stationary[$0]) : NSNull() as Any }
        return result
    }

    func summaryJSON(_ statistics: PressureStatistics) -> [String: Any] {
        func value(_ number: Double?) -> Any { number ?? NSNull() }
        func quantiles(_ values: [Double]) -> Any {
            guard let result = Quantiles.of(values) else { return NSNull() }
            return Dictionary(uniqueKeysWithValues: zip(["p5", "p25", "p50", "p75", "p95"], result))
        }
        func histogram(_ histogram: TimeHistogram) -> [String: Any] {
            ["bin_s": Double(TimeHistogram.binNs) / 1e9, "counts": histogram.counts, "last_bin_open": true]
        }
        let withPressure = statistics.contactsWithPressure
        var sweep: [[String: Any]] = []
        for (offset, mm) in AnalysisOptions.sweepTolerancesMM.enumerated() {
            let lane = 1 + offset
            let applicable = statistics.laneMotionEvents[lane] > 0 || statistics.motionEvents == 0
            sweep.append([
                "tolerance_mm": mm,
                "motion_events": statistics.laneMotionEvents[lane],
                "stationary_pressure_events": applicable ? Int(statistics.stationary[lane]) : NSNull() as Any,
                "inflation": applicable ? value(statistics.inflation(lane: lane)) : NSNull(),
                "stationary_deep_presses": statistics.stationaryDeepPresses[lane],
            ])
        }
        var suggestions: [String: Any] = [:]
        if statistics.labelled > 0, let labelled = ThresholdSuggestion.fromLabels(statistics.labelledPeakBins) {
            suggestions["with_labels"] = [
                "method": labelled.method.rawValue, "peek": labelled.peek, "pop": labelled.pop,
                "balanced_accuracy": value(labelled.balancedAccuracy), "confusion": confusionJSON(labelled.confusion ?? []),
                "tied_pairs": labelled.tiedPairs,
            ] as [String: Any]
        } else {
            suggestions["with_labels"] = NSNull()
        }
        if let breaks = ThresholdSuggestion.naturalBreaks(statistics.peakBins) {
            suggestions["without_labels"] = [
                "method": breaks.method.rawValue, "peek": breaks.peek, "pop": breaks.pop,
                "note": "a suggestion from the shape of the peak distribution (three groups assumed), not ground truth",
            ] as [String: Any]
        } else {
            suggestions["without_labels"] = NSNull()
        }
        var result: [String: Any] = [
            "recordings": statistics.recordings,
            "contacts": statistics.contacts, "contacts_with_pressure": withPressure, "still_down": statistics.stillDown,
            "samples": statistics.samples,
            "motion_events": statistics.motionEvents,
            "stationary_pressure_events": statistics.stationary[0],
            "inflation": value(statistics.inflation()),
            "pressure_only_fraction": statistics.motionEvents > 0 ? Double(statistics.stationary[0]) / Double(statistics.motionEvents) : NSNull() as Any,
            "stationary_rate_hz": value(statistics.stationaryRateHz()),
            "stationary_rise": statistics.stationaryRise[0], "stationary_after_peak": statistics.stationaryAfterPeak[0],
            "contact_time_s": Double(statistics.contactTimeNs) / 1e9,
            "inflation_sweep": sweep,
            "reached_peek": statistics.reachedPeek, "reached_pop": statistics.reachedPop,
            "reached_peek_fraction": withPressure > 0 ? Double(statistics.reachedPeek) / Double(withPressure) : NSNull() as Any,
            "reached_pop_fraction": withPressure > 0 ? Double(statistics.reachedPop) / Double(withPressure) : NSNull() as Any,
            "peek_recrossings": statistics.peekRecrossings, "pop_recrossings": statistics.popRecrossings,
            "classes": Dictionary(uniqueKeysWithValues: PressClass.allCases.map { ($0.rawValue, statistics.classCounts[$0.index]) }),
            "stationary_deep_presses": statistics.stationaryDeepPresses[0],
            "quantiles": [
                "peak_norm": quantiles(statistics.peakValues), "time_to_peak_s": quantiles(statistics.timeToPeakValues),
                "t_peek_s": quantiles(statistics.peekValues), "t_pop_s": quantiles(statistics.popValues),
                "peek_to_pop_s": quantiles(statistics.peekToPopValues),
            ] as [String: Any],
            "sweep": [
                "thresholds": (0...ThresholdBins.steps).map(ThresholdBins.threshold),
                "reached": statistics.peakBins.reached, "fraction": statistics.sweep,
            ] as [String: Any],
            "histograms": [
                "peak_norm": ["bin_lower_edges": (0...ThresholdBins.steps).map(ThresholdBins.threshold), "counts": statistics.peakBins.counts] as [String: Any],
                "time_to_peak_s": histogram(statistics.timeToPeakHistogram), "t_peek_s": histogram(statistics.peekHistogram),
                "t_pop_s": histogram(statistics.popHistogram), "peek_to_pop_s": histogram(statistics.peekToPopHistogram),
            ] as [String: Any],
            "suggested_thresholds": suggestions,
            "labelled_contacts": statistics.labelled,
        ]
        if statistics.labelled > 0 {
            result["configured_thresholds_vs_labels"] = [
                "confusion": confusionJSON(statistics.confusion),
                "balanced_accuracy": value(Self.balancedAccuracy(statistics.confusion)),
            ] as [String: Any]
        }
        return result
    }

    /// Mean recall over the labelled classes of a 3 × 3 confusion matrix.
    public static func balancedAccuracy(_ confusion: [Int64]) -> Double? {
        var recalls: [Double] = []
        for label in 0..<3 {
            let row = confusion[(label * 3)..<(label * 3 + 3)]
            let total = row.reduce(0, +)
            if total > 0 { recalls.append(Double(confusion[label * 3 + label]) / Double(total)) }
        }
        return recalls.isEmpty ? nil : recalls.reduce(0, +) / Double(recalls.count)
    }

    func confusionJSON(_ confusion: [Int64]) -> [String: Any] {
        let names = PressClass.allCases.map(\.rawValue)
        return [
            "rows": "label", "columns": "found",
            "classes": names,
            "matrix": (0..<3).map { row in (0..<3).map { confusion.count == 9 ? confusion[row * 3 + $0] : 0 } },
        ]
    }
}
