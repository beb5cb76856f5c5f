import Foundation

extension PressureReport {
    /// The report as a person reads it at a terminal: per recording a
    /// per-contact table (at most `contactLimit` rows; nil for all), then its
    /// summary; then a summary per file and the total when there are several.
    /// File, recording and device names are shown escaped (`TerminalText`).
    public func text(contactLimit: Int?) -> TerminalText {
        let thresholds = options.thresholds
        var out: TerminalText = "\(String(format: "thresholds: peek %.2f (%.3f force), pop %.2f (%.3f force), hysteresis %.2f, %@ sensitivity; ", thresholds.peek, UIKitForce.force(normalized: thresholds.peek), thresholds.pop, UIKitForce.force(normalized: thresholds.pop), thresholds.hysteresis, thresholds.sensitivity.rawValue))"
        out += "smoothing \(options.smoothing); tolerance \(options.tolerance)\n"
        out += "force = normalized pressure × \(UIKitForce.maximumPossibleForce) (UIKit maximumPossibleForce, iPhone 6s)\n"
        let recordingCount = files.reduce(0) { $0 + $1.recordings.count }
        for file in files {
            for analysis in file.recordings {
                out += "\n" + recordingText(analysis, contactLimit: contactLimit)
            }
        }
        if files.count > 1 {
            for file in files where file.recordings.count > 1 {
                out += "\n== \(file.file): \(file.recordings.count) recordings ==\n" + summaryText(file.statistics)
            }
        }
        if recordingCount > 1 {
            out += "\n== total: \(files.count) file\(files.count == 1 ? "" : "s"), \(recordingCount) recordings ==\n" + summaryText(total)
        }
        return out
    }

    func recordingText(_ analysis: RecordingAnalysis, contactLimit: Int?) -> TerminalText {
        var out: TerminalText = "== \(analysis.file): /recordings/\(analysis.name) ==\n"
        let slots: TerminalText = analysis.device.contactProtocol == .slots ? "multitouch protocol B" : "no slots"
        out += "device: \"\(analysis.device.name)\", \(slots)"
        if let axis = analysis.pressureAxis {
            out += ", pressure \(axis.name) \(axis.minimum)..\(axis.maximum)"
            if let grams = analysis.grams { out += " (\(grams.describe(axis)))" }
            out += "\n"
        } else {
            out += ", no per-contact pressure axis: pressure statistics do not apply, inflation does\n"
        }
        out += "tolerance: \(analysis.lanes.configuredDescription)\n"
        if let peek = analysis.scriptedPeek, let pop = analysis.scriptedPop {
            out += "\(String(format: "ground truth: labels from the file, scripted around peek %.2f and pop %.2f", peek, pop))\n"
        }
        for warning in analysis.warnings { out += "warning: \(warning)\n" }
        let shown = contactLimit.map { min($0, analysis.contacts.count) } ?? analysis.contacts.count
        if shown > 0 {
            let columns = contactColumns(analysis)
            out += "\(ContactField.textHeading(columns))\n"
            for contact in analysis.contacts.prefix(shown) { out += "\(contactLine(contact, columns: columns))\n" }
            if shown < analysis.contacts.count {
                out += "    (\(shown) of \(analysis.contacts.count) contacts shown; --contacts all shows every one)\n"
            }
        }
        out += summaryText(analysis.statistics)
        return out
    }

    /// One row of the contact table: each `ContactField.columns` cell, right-aligned.
    func contactLine(_ contact: ContactStatistics, columns: [ContactColumn]? = nil) -> String {
        (columns ?? contactColumns()).map { $0.padded(contact) }.joined(separator: " ")
    }

    func summaryText(_ statistics: PressureStatistics) -> TerminalText {
        let recordings = statistics.recordings
        let counts = String(format: "%.3f s, %lld events, %lld samples", Double(statistics.durationNs) / 1e9, statistics.events, statistics.samples)
        var out: TerminalText = "summary (\(recordings) recording\(recordings == 1 ? "" : "s"), \(counts)):\n"
        let withPressure = statistics.contactsWithPressure
        let percent = ReportFormat.percent
        out += "  contacts \(statistics.contacts)"
        if statistics.stillDown > 0 { out += " (\(statistics.stillDown) still down at the end)" }
        if withPressure > 0 {
            out += ": \(PressClass.allCases.map { "\($0.rawValue) \(statistics.classCounts[$0])" }.joined(separator: ", "))"
            out += "; stationary deep presses \(statistics.stationaryDeepPresses[0])\n"
            out += "  reached peek \(statistics.reachedPeek) (\(percent(statistics.reachedPeek, withPressure))), "
            out += "pop \(statistics.reachedPop) (\(percent(statistics.reachedPop, withPressure))); "
            out += "re-crossings peek \(statistics.peekRecrossings), pop \(statistics.popRecrossings)\n"
        } else {
            out += "; no pressure\n"
        }
        out += "  motion events \(statistics.motionEvents), stationary pressure events \(statistics.stationary[0]) "
        out += "(\(percent(statistics.stationary[0], statistics.motionEvents))): inflation \(ReportFormat.inflation(statistics.inflation()))\n"
        if let rate = statistics.stationaryRateHz() {
            out += "\(String(format: "  stationary events %.1f Hz during contact; %lld before the peak, %lld after", rate, statistics.stationaryRise[0], statistics.stationaryAfterPeak[0]))\n"
        }
        let sweep = statistics.inflationSweep.map { lane -> String in
            let label = "\(formatNumber(lane.toleranceMM)) mm"
            guard let inflation = lane.inflation else { return "\(label) n/a" }
            return "\(label) \(ReportFormat.inflation(inflation))" + (withPressure > 0 ? " (\(lane.stationaryDeepPresses))" : "")
        }
        let deep: TerminalText = withPressure > 0 ? " (stationary deep presses)" : ""
        out += "  inflation by tolerance\(deep): \(sweep.joined(separator: ", "))\n"
        out += dataQualityText(statistics)
        guard withPressure > 0 else { return out }
        out += "  quantiles          p5     p25     p50     p75     p95       n\n"
        for (name, values) in statistics.shownQuantileLists {
            out += "    \(TerminalText(escaping: name).padded(to: 14))"
            if let quantiles = values.quantiles {
                out += "\(quantiles.map { String(format: "%8.3f", $0) }.joined() + String(format: "%8d", values.values.count))\n"
            } else {
                out += "       -       -       -       -       -       0\n"
            }
        }
        let timeouts = statistics.timeHistograms.map { name, histogram in
            "\(name) \(histogram.count(below: 400_000_000)) / \(histogram.count(below: 500_000_000)) of \(histogram.counts.reduce(0, +))"
        }
        out += "  within the long-press timeouts (400 / 500 ms of n): \(timeouts.joined(separator: ", "))\n"
        let fractions = statistics.sweep
        let reaching = stride(from: 10, through: 100, by: 10).map {
            String(format: "%.1f %.0f%%", ThresholdBins.threshold($0), 100 * fractions[$0])
        }
        out += "  reaching threshold: \(reaching.joined(separator: ", "))\n"
        out += curvesText(statistics)
        if statistics.labelled > 0 {
            if let accuracy = statistics.confusion.balancedAccuracy {
                out += "\(String(format: "  labels: %lld contacts; balanced accuracy at the configured thresholds %.3f", statistics.labelled, accuracy))\n"
                out += confusionText(statistics.confusion)
            }
            if let best = statistics.suggestionFromLabels {
                out += "\(String(format: "  suggested thresholds (from labels, best balanced accuracy %.3f): peek %.2f, pop %.2f", best.balancedAccuracy ?? 0, best.peek, best.pop))\n"
                out += confusionText(best.confusion ?? ConfusionMatrix())
            }
        }
        if let breaks = statistics.suggestionWithoutLabels {
            out += "\(String(format: "  suggestion without labels (natural breaks in the peaks; assumes three groups): peek %.2f, pop %.2f", breaks.peek, breaks.pop))\n"
        }
        return out
    }

    func dataQualityText(_ statistics: PressureStatistics) -> TerminalText {
        var out: TerminalText = "  data quality: samples outside absinfo \(statistics.outOfRangeSamples), SYN_DROPPED \(statistics.droppedMarkers), "
        out += "resync \(statistics.resyncMarkers), partial imports \(statistics.partialRecordings); "
        out += "frames with 2+ contacts down \(statistics.multiContactFrames), with equal pressures \(statistics.sharedPressureFrames)"
        if statistics.sharesPressure { out += ": SHARED PRESSURE, the device reports one pressure for all contacts" }
        return out + "\n"
    }

    /// The mean curves at a few points, when the curves were computed.
    func curvesText(_ statistics: PressureStatistics) -> TerminalText {
        var out: TerminalText = ""
        let bands = statistics.curveBands, aligned = statistics.alignedBands
        if bands.points > 0 {
            let points = [0, bands.points / 4, bands.points / 2, 3 * bands.points / 4, bands.points - 1]
            let means = bands.classesPresent.map { pressClass in
                "\(pressClass.rawValue) " + points.map { ReportFormat.optional(bands.mean(pressClass, point: $0), "%.2f") }.joined(separator: " ")
            }
            out += "  mean curve at 0, 25, 50, 75, 100% of the press: \(means.joined(separator: "; "))\n"
        }
        if aligned.points > 0 {
            let stepMS = Double(options.alignedStepNs) / 1e6
            let points = [0, 10, 20, 50, 100].map { min(aligned.points - 1, Int((Double($0) / max(stepMS, 1e-9)).rounded())) }
            let times = points.map { formatNumber(Double($0) * stepMS) }.joined(separator: ", ")
            let means = aligned.classesPresent.map { pressClass in
                "\(pressClass.rawValue) " + points.map { ReportFormat.optional(aligned.mean(pressClass, point: $0), "%.2f") }.joined(separator: " ")
            }
            out += "  mean curve at \(times) ms from touch-down: \(means.joined(separator: "; "))\n"
        }
        return out
    }

    func confusionText(_ confusion: ConfusionMatrix) -> TerminalText {
        var out: TerminalText = "      label \\ found    tap  peek-press  pop-press\n"
        for label in PressClass.allCases {
            let cells = String(format: "%7lld %11lld %10lld", confusion[label: label, found: .tap],
                               confusion[label: label, found: .peekPress], confusion[label: label, found: .popPress])
            out += "      \(TerminalText(escaping: label.rawValue).padded(to: 12))\(cells)\n"
        }
        return out
    }
}

/// Number formats shared by the text and HTML renderers.
public enum ReportFormat {
    /// "1.23×", "∞" (every motion event stationary) or "-" (no motion events);
    /// with `width`, the table's right-aligned form without the ×.
    public static func inflation(_ value: Inflation, width: Int? = nil) -> String {
        let text: String
        switch value {
        case .ratio(let ratio): text = width == nil ? String(format: "%.2f×", ratio) : String(format: "%.2f", ratio)
        case .unbounded: text = "∞"
        case .undefined: text = "-"
        }
        guard let width else { return text }
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    public static func percent(_ part: Int64, _ whole: Int64) -> String {
        whole > 0 ? String(format: "%.1f%%", 100 * Double(part) / Double(whole)) : "-"
    }

    public static func optional(_ value: Double?, _ format: String) -> String {
        value.map { String(format: format, $0) } ?? "-"
    }
}

extension TimeHistogram {
    /// Values below `ns` (a multiple of the bin width).
    public func count(below ns: Int64) -> Int64 {
        counts.prefix(Int(min(Int64(Self.bins), ns / Self.binNs))).reduce(0, +)
    }
}
