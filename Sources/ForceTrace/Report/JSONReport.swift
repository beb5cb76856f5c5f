import Foundation

/// The JSON renderer (`report --json`): `{"files", "recordings", "thresholds",
/// "tool_version", "total"}`, keys in byte order, undefined numbers `null`.
extension PressureReport {
    public func jsonText() -> String { String(decoding: jsonBytes(), as: UTF8.self) }

    public func jsonBytes() -> [UInt8] {
        let contactCount = recordings.reduce(0) { $0 + $1.contacts.count }
        var out = JSONWriter(capacity: 65_536 + 1_200 * contactCount)
        writeDocument(to: &out)
        return out.finish()
    }

    /// Writes the document to `sink` in pieces of about a megabyte, so memory
    /// does not grow with the number of contacts.
    public func writeJSON(to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) {
        var out = JSONWriter(sink: sink)
        writeDocument(to: &out)
        _ = out.finish()
    }

    func writeDocument(to out: inout JSONWriter) {
        out.beginObject()
        out.key("files")
        out.beginArray(flat: false)
        for file in files {
            out.beginObject()
            out.key("file"); out.string(InputPath.displayName(file.file))
            out.key("summary"); writeSummary(file.statistics, to: &out)
            out.endObject()
        }
        out.endArray()
        out.key("recordings")
        out.beginArray(flat: false)
        for analysis in recordings { writeRecording(analysis, to: &out) }
        out.endArray()
        out.key("thresholds"); writeThresholds(to: &out)
        out.key("tool_version"); out.string(toolVersion)
        out.key("total"); writeSummary(total, to: &out)
        out.endObject()
    }

    func writeThresholds(to out: inout JSONWriter) {
        let thresholds = options.thresholds
        out.beginObject()
        out.key("aligned_points"); out.int(options.alignedPoints)
        out.key("aligned_step_s"); out.seconds(options.alignedStepNs)
        out.key("curve_points"); out.int(options.curvePoints)
        out.key("hysteresis"); out.double(thresholds.hysteresis)
        out.key("maximum_possible_force"); out.double(UIKitForce.maximumPossibleForce)
        out.key("peek"); out.double(thresholds.peek)
        out.key("peek_force"); out.double(UIKitForce.force(normalized: thresholds.peek))
        out.key("pop"); out.double(thresholds.pop)
        out.key("pop_force"); out.double(UIKitForce.force(normalized: thresholds.pop))
        out.key("sensitivity"); out.string(thresholds.sensitivity.rawValue)
        out.key("smoothing"); out.string(options.smoothing.description)
        out.key("sweep_tolerances_mm"); out.doubles(AnalysisOptions.sweepTolerancesMM)
        out.key("tolerance"); out.string(options.tolerance.description)
        out.endObject()
    }

    func writeRecording(_ analysis: RecordingAnalysis, to out: inout JSONWriter) {
        let device = analysis.device
        out.beginObject()
        out.key("contact_protocol"); out.string(device.contactProtocol.rawValue)
        out.key("contacts")
        out.beginArray(flat: false)
        // A hundred thousand contacts are most of the document: rendered on all cores, in order.
        let contacts = analysis.contacts, lanes = analysis.lanes
        let fields = ContactJSONFields(jsonContactFields), keys = out.prepareKeys(fields.entries.map(\.key))
        out.elements(contacts.count) { index, out in writeContact(contacts[index], fields: fields, keys: keys, lanes: lanes, to: &out) }
        out.endArray()
        out.key("device"); out.string(device.name)
        out.key("device_id"); out.integers([Int(device.bus), Int(device.vendor), Int(device.product), Int(device.version)])
        out.key("duration_s"); out.seconds(analysis.durationNs)
        out.key("file"); out.string(InputPath.displayName(analysis.file))
        out.key("name"); out.string(analysis.name)
        out.key("pressure_axis"); out.pressureAxis(analysis.pressureAxis)
        out.key("scripted_thresholds")
        if let peek = analysis.scriptedPeek, let pop = analysis.scriptedPop {
            out.beginObject()
            out.key("peek"); out.double(peek)
            out.key("pop"); out.double(pop)
            out.endObject()
        } else {
            out.null()
        }
        out.key("summary"); writeSummary(analysis.statistics, to: &out)
        out.key("tolerance"); out.string(analysis.lanes.configuredDescription)
        out.key("warnings"); out.strings(analysis.warnings)
        out.endObject()
    }

    /// One contact's object: every `ContactField` that applies, in key order.
    /// `keys`: the entries' keys, prepared where the object begins (`JSONWriter.prepareKeys`).
    func writeContact(_ contact: ContactStatistics, fields: ContactJSONFields, keys: PreparedKeys, lanes: ToleranceLanes,
                      to out: inout JSONWriter) {
        out.beginObject()
        for (index, entry) in fields.entries.enumerated() {
            out.key(keys, index)
            out.value(entry.value(contact), lanes: lanes)
        }
        out.endObject()
    }

    func writeSummary(_ statistics: PressureStatistics, to out: inout JSONWriter) {
        out.beginObject()
        out.key("classes")
        out.beginObject()
        out.key("peek-press"); out.int(statistics.classCounts[.peekPress])
        out.key("pop-press"); out.int(statistics.classCounts[.popPress])
        out.key("tap"); out.int(statistics.classCounts[.tap])
        out.endObject()
        if statistics.labelled > 0 {
            out.key("configured_thresholds_vs_labels")
            out.beginObject()
            out.key("balanced_accuracy"); out.double(statistics.confusion.balancedAccuracy)
            out.key("confusion"); writeConfusion(statistics.confusion, to: &out)
            out.endObject()
        }
        out.key("contact_time_s"); out.seconds(statistics.contactTimeNs)
        out.key("contacts"); out.int(statistics.contacts)
        out.key("contacts_with_pressure"); out.int(statistics.contactsWithPressure)
        out.key("curves")
        if statistics.curveBands.points > 0 {
            out.beginObject()
            out.key("aligned"); writeBands(statistics.alignedBands, to: &out)
            out.key("aligned_step_s"); out.seconds(options.alignedStepNs)
            out.key("duration_normalized"); writeBands(statistics.curveBands, to: &out)
            out.endObject()
        } else {
            out.null()
        }
        out.key("data_quality")
        out.beginObject()
        out.key("multi_contact_frames"); out.int(statistics.multiContactFrames)
        out.key("out_of_range_samples"); out.int(statistics.outOfRangeSamples)
        out.key("partial_recordings"); out.int(statistics.partialRecordings)
        out.key("resync_markers"); out.int(statistics.resyncMarkers)
        out.key("shared_pressure"); out.bool(statistics.sharesPressure)
        out.key("shared_pressure_frames"); out.int(statistics.sharedPressureFrames)
        out.key("syn_dropped_markers"); out.int(statistics.droppedMarkers)
        out.endObject()
        out.key("duration_s"); out.seconds(statistics.durationNs)
        out.key("events"); out.int(statistics.events)
        out.key("histograms")
        out.beginObject()
        out.key("peak_norm")
        out.beginObject()
        out.key("bin_lower_edges"); out.doubles((0...ThresholdBins.steps).map(ThresholdBins.threshold))
        out.key("counts"); out.integers(statistics.peakBins.counts)
        out.endObject()
        out.key("peek_to_pop_s"); writeHistogram(statistics.peekToPopHistogram, to: &out)
        out.key("t_peek_s"); writeHistogram(statistics.peekHistogram, to: &out)
        out.key("t_pop_s"); writeHistogram(statistics.popHistogram, to: &out)
        out.key("time_to_peak_s"); writeHistogram(statistics.timeToPeakHistogram, to: &out)
        out.endObject()
        out.key("inflation"); out.inflation(statistics.inflation())
        out.key("inflation_sweep")
        out.beginArray(flat: false)
        for lane in statistics.inflationSweep {
            out.beginObject()
            out.key("inflation"); out.inflation(lane.inflation)
            out.key("motion_events"); out.int(lane.motionEvents)
            out.key("stationary_deep_presses"); out.int(lane.stationaryDeepPresses)
            out.key("stationary_pressure_events")
            out.int(lane.stationary)
            out.key("tolerance_mm"); out.double(lane.toleranceMM)
            out.endObject()
        }
        out.endArray()
        out.key("labelled_contacts"); out.int(statistics.labelled)
        out.key("motion_events"); out.int(statistics.motionEvents)
        out.key("peek_recrossings"); out.int(statistics.peekRecrossings)
        out.key("pop_recrossings"); out.int(statistics.popRecrossings)
        out.key("pressure_only_fraction"); out.double(statistics.pressureOnlyFraction)
        out.key("quantiles")
        out.beginObject()
        out.key("peak_gf"); writeQuantiles(statistics.peakGfValues, to: &out)
        out.key("peak_norm"); writeQuantiles(statistics.peakValues, to: &out)
        out.key("peek_to_pop_s"); writeQuantiles(statistics.peekToPopValues, to: &out)
        out.key("t_peek_s"); writeQuantiles(statistics.peekValues, to: &out)
        out.key("t_pop_s"); writeQuantiles(statistics.popValues, to: &out)
        out.key("time_to_peak_s"); writeQuantiles(statistics.timeToPeakValues, to: &out)
        out.endObject()
        out.key("reached_peek"); out.int(statistics.reachedPeek)
        out.key("reached_peek_fraction"); out.double(statistics.reachedPeekFraction)
        out.key("reached_pop"); out.int(statistics.reachedPop)
        out.key("reached_pop_fraction"); out.double(statistics.reachedPopFraction)
        out.key("recordings"); out.int(statistics.recordings)
        out.key("samples"); out.int(statistics.samples)
        out.key("stationary_after_peak"); out.int(statistics.stationaryAfterPeak[0])
        out.key("stationary_deep_presses"); out.int(statistics.stationaryDeepPresses[0])
        out.key("stationary_pressure_events"); out.int(statistics.stationary[0])
        out.key("stationary_rate_hz"); out.double(statistics.stationaryRateHz())
        out.key("stationary_rise"); out.int(statistics.stationaryRise[0])
        out.key("still_down"); out.int(statistics.stillDown)
        out.key("suggested_thresholds")
        out.beginObject()
        out.key("with_labels")
        if let labelled = statistics.suggestionFromLabels {
            out.beginObject()
            out.key("balanced_accuracy"); out.double(labelled.balancedAccuracy)
            out.key("confusion"); writeConfusion(labelled.confusion ?? ConfusionMatrix(), to: &out)
            out.key("method"); out.string(labelled.method.rawValue)
            out.key("peek"); out.double(labelled.peek)
            out.key("pop"); out.double(labelled.pop)
            out.key("tied_pairs"); out.int(labelled.tiedPairs)
            out.endObject()
        } else {
            out.null()
        }
        out.key("without_labels")
        if let breaks = statistics.suggestionWithoutLabels {
            out.beginObject()
            out.key("method"); out.string(breaks.method.rawValue)
            out.key("note"); out.string("a suggestion from the shape of the peak distribution (three groups assumed), not ground truth")
            out.key("peek"); out.double(breaks.peek)
            out.key("pop"); out.double(breaks.pop)
            out.endObject()
        } else {
            out.null()
        }
        out.endObject()
        out.key("sweep")
        out.beginObject()
        out.key("fraction"); out.doubles(statistics.sweep)
        out.key("reached"); out.integers(statistics.peakBins.reached)
        out.key("thresholds"); out.doubles((0...ThresholdBins.steps).map(ThresholdBins.threshold))
        out.endObject()
        out.endObject()
    }

    func writeHistogram(_ histogram: TimeHistogram, to out: inout JSONWriter) {
        out.beginObject()
        out.key("bin_s"); out.seconds(TimeHistogram.binNs)
        out.key("counts"); out.integers(histogram.counts)
        out.key("last_bin_open"); out.bool(true)
        out.endObject()
    }

    func writeQuantiles(_ values: ValueList, to out: inout JSONWriter) {
        guard let quantiles = values.quantiles else { out.null(); return }
        // Levels 0.05, 0.25, 0.5, 0.75, 0.95, written in key order.
        out.beginObject()
        out.key("p25"); out.double(quantiles[1])
        out.key("p5"); out.double(quantiles[0])
        out.key("p50"); out.double(quantiles[2])
        out.key("p75"); out.double(quantiles[3])
        out.key("p95"); out.double(quantiles[4])
        out.endObject()
    }

    func writeConfusion(_ confusion: ConfusionMatrix, to out: inout JSONWriter) {
        out.beginObject()
        out.key("classes")
        out.beginArray(flat: true)
        for pressClass in PressClass.allCases { out.string(pressClass.rawValue) }
        out.endArray()
        out.key("columns"); out.string("found" as StaticString)
        out.key("matrix")
        out.beginArray(flat: false)
        for label in PressClass.allCases { out.integers(PressClass.allCases.map { confusion[label: label, found: $0] }) }
        out.endArray()
        out.key("rows"); out.string("label" as StaticString)
        out.endObject()
    }

    /// Per class present: count, mean, p25 and p75 at every grid point.
    func writeBands(_ bands: CurveBands, to out: inout JSONWriter) {
        out.beginObject()
        for pressClass in [PressClass.peekPress, .popPress, .tap] {   // key order
            switch pressClass {
            case .tap: out.key("tap")
            case .peekPress: out.key("peek-press")
            case .popPress: out.key("pop-press")
            }
            out.beginObject()
            let points = 0..<bands.points
            out.key("count"); out.integers(points.map { bands.count(pressClass, point: $0) })
            out.key("mean"); out.doubles(points.map { bands.mean(pressClass, point: $0) ?? .nan })
            out.key("p25"); out.doubles(points.map { bands.quantile(pressClass, point: $0, level: 0.25) ?? .nan })
            out.key("p75"); out.doubles(points.map { bands.quantile(pressClass, point: $0, level: 0.75) ?? .nan })
            out.endObject()
        }
        out.endObject()
    }
}

extension JSONWriter {
    /// A ratio, or null when unbounded or undefined (docs/ANALYSIS.md).
    mutating func inflation(_ value: Inflation?) { double(value?.ratio) }

    /// A per-contact value (`ContactValue` says how each kind is written).
    mutating func value(_ value: ContactValue, lanes: ToleranceLanes) {
        switch value {
        case .integer(let number): if let number { int(number) } else { null() }
        case .real(let number): double(number)
        case .seconds(let ns): seconds(ns)
        case .inflation(let ratio): inflation(ratio)
        case .flag(let flag): bool(flag)
        case .text(let text): if let text { string(text) } else { null() }
        case .sweep(let counts):
            beginArray(flat: true)
            for lane in ToleranceLanes.sweepLanes {
                if lanes.applicable[lane] { int(counts[lane]) } else { null() }
            }
            endArray()
        }
    }
}

/// The keys and value functions of the contact fields, taken out of
/// `ContactField` once per recording: copying a whole field per contact
/// (its strings, closures and column) cost reference counting on every
/// thread that renders contacts. In a struct, not an array of functions:
/// an array keeps functions in its generic form, and calling one went
/// through a thunk that copied the contact for every field.
struct ContactJSONFields: Sendable {
    struct Entry: Sendable {
        let key: StaticString
        let value: @Sendable (ContactStatistics) -> ContactValue
    }

    let entries: [Entry]

    init(_ fields: [ContactField]) {
        entries = fields.map { Entry(key: $0.key, value: $0.value) }
    }
}
