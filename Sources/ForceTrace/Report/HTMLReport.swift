import Foundation

/// The HTML renderer (`report --html OUT.html`): one self-contained page,
/// inline SVG and CSS and a few lines of JS to sort the contact table. Every
/// chart draws fields of the summary (docs/ANALYSIS.md, "HTML").
extension PressureReport {
    public func html(contactLimit: Int?) -> String {
        var out = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="\(HTMLStyle.contentSecurityPolicy)">
        <title>forcetrace report</title>
        <style>\(HTMLStyle.css)</style>
        </head>
        <body>
        <header>
        <h1>forcetrace report</h1>
        <p class="thresholds">\(esc(thresholdsLine))</p>
        <p class="meta">\(esc(toolVersion)); inputs: \(files.map { esc(InputPath.displayName($0.file)) }.joined(separator: ", "))</p>
        </header>

        """
        for (index, analysis) in recordings.enumerated() {
            out += recordingSection(analysis, index: index, contactLimit: contactLimit)
        }
        if recordings.count > 1 {
            out += "<section class=\"summary total\" data-section=\"total\" id=\"total\">\n"
            out += "<h2>Total: \(files.count) file\(files.count == 1 ? "" : "s"), \(recordings.count) recordings</h2>\n"
            out += summaryFigures(total, paths: [], analysis: nil)
            out += "</section>\n"
        }
        out += "<script>\(HTMLStyle.script)</script>\n</body>\n</html>\n"
        return out
    }

    var thresholdsLine: String {
        let thresholds = options.thresholds
        return String(format: "Thresholds: peek %.2f (%.3f force), pop %.2f (%.3f force), hysteresis %.2f, ",
                      thresholds.peek, UIKitForce.force(normalized: thresholds.peek), thresholds.pop,
                      UIKitForce.force(normalized: thresholds.pop), thresholds.hysteresis)
            + "\(thresholds.sensitivity.rawValue) sensitivity; smoothing \(options.smoothing); tolerance \(options.tolerance). "
            + "Force = normalized pressure × \(UIKitForce.maximumPossibleForce) (UIKit maximumPossibleForce, iPhone 6s)."
    }

    func recordingSection(_ analysis: RecordingAnalysis, index: Int, contactLimit: Int?) -> String {
        var out = "<section class=\"summary recording\" data-section=\"recording\" data-name=\"\(esc(analysis.name))\" id=\"recording-\(index)\">\n"
        out += "<h2>\(esc(InputPath.displayName(analysis.file))): /recordings/\(esc(analysis.name))</h2>\n"
        for warning in analysis.warnings { out += "<p class=\"warning\">warning: \(esc(warning))</p>\n" }
        out += "<div class=\"grid\">\n" + deviceCard(analysis) + "</div>\n"
        out += summaryFigures(analysis.statistics, paths: analysis.paths, analysis: analysis)
        out += penPanel(analysis)
        out += forcePanel(analysis)
        out += levelsPanel(analysis.levels)
        out += whatIfPanel(analysis)
        out += contactTable(analysis, limit: contactLimit)
        out += "</section>\n"
        return out
    }

    // MARK: - Device card and data quality

    func deviceCard(_ analysis: RecordingAnalysis) -> String {
        let device = analysis.device, statistics = analysis.statistics
        func hex(_ value: UInt16) -> String { String(format: "%04x", value) }
        func axisText(_ axis: AxisInfo?) -> String {
            guard let axis else { return "none" }
            var text = "\(axis.name) \(axis.minimum)..\(axis.maximum)"
            text += axis.resolution > 0 ? String(format: ", %d units/mm (%.4f mm per unit)", axis.resolution, 1 / Double(axis.resolution)) : ", resolution unknown"
            return text
        }
        let positions = device.positionAxes
        var rows: [(String, String)] = [
            ("Device", device.name),
            ("Bus / vendor / product / version", "\(hex(device.bus)) / \(hex(device.vendor)) / \(hex(device.product)) / \(hex(device.version))"),
            ("Protocol", device.contactProtocol == .slots ? "multitouch protocol B, \(device.slotCount) slots" : "no slots (single contact)"),
            ("Pressure axis", analysis.pressureAxis.map { axis in
                "\(axis.name) \(axis.minimum)..\(axis.maximum)" + (analysis.grams.map { ", \($0.describe(axis))" } ?? ", arbitrary units")
            } ?? "no per-contact pressure axis: pressure statistics do not apply, inflation does"),
            ("x axis", axisText(positions.x)),
            ("y axis", axisText(positions.y)),
            ("Tolerance", analysis.lanes.configuredDescription),
            ("Duration", String(format: "%.3f s", Double(analysis.durationNs) / 1e9)),
            ("Events / contacts / samples", "\(statistics.events) / \(statistics.contacts) / \(statistics.samples)"),
        ]
        if let peek = analysis.scriptedPeek, let pop = analysis.scriptedPop {
            rows.append(("Ground truth", String(format: "labels from the file, scripted around peek %.2f and pop %.2f", peek, pop)))
        }
        return "<div class=\"card device\"><h3>Device</h3><dl>\n"
            + rows.map { "<dt>\(esc($0.0))</dt><dd>\(esc($0.1))</dd>\n" }.joined() + "</dl></div>\n"
    }

    func dataQuality(_ statistics: PressureStatistics) -> String {
        func item(_ ok: Bool, _ text: String) -> String {
            "<li class=\"\(ok ? "ok" : "warn")\"><span class=\"mark\">\(ok ? "✓" : "⚠")</span> \(esc(text))</li>\n"
        }
        var out = "<div class=\"card quality\" data-panel=\"data-quality\"><h3>Data quality</h3><ul>\n"
        out += item(statistics.outOfRangeSamples == 0, "\(statistics.outOfRangeSamples) sample rows with x, y or pressure outside absinfo")
        out += item(statistics.droppedMarkers == 0, "\(statistics.droppedMarkers) SYN_DROPPED markers, \(statistics.resyncMarkers) resync markers")
        out += item(statistics.stillDown == 0, "\(statistics.stillDown) contacts still down at the end")
        out += item(statistics.partialRecordings == 0, "\(statistics.partialRecordings) partial imports (salvaged up to the last complete frame)")
        let shared = "\(statistics.sharedPressureFrames) of \(statistics.multiContactFrames) frames with two or more contacts down have equal pressures"
        out += item(!statistics.sharesPressure, statistics.sharesPressure
                    ? "SHARED PRESSURE: \(shared); the device reports one pressure for all contacts" : shared)
        return out + "</ul></div>\n"
    }

    // MARK: - Figures

    func summaryFigures(_ statistics: PressureStatistics, paths: [ContactPath], analysis: RecordingAnalysis?) -> String {
        var out = "<div class=\"grid\">\n"
        out += numbersCard(statistics)
        out += dataQuality(statistics)
        out += "</div>\n<div class=\"grid charts\">\n"
        if statistics.contactsWithPressure > 0 {
            out += curvesFigure(statistics.curveBands, aligned: false)
            out += curvesFigure(statistics.alignedBands, aligned: true)
            out += peakHistogram(statistics)
            out += sweepFigure(statistics)
            out += timeCDF(statistics)
        }
        out += inflationFigure(statistics)
        if let analysis, !paths.isEmpty { out += pathsFigure(paths, analysis: analysis) }
        if statistics.labelled > 0 { out += confusionTable(statistics) }
        return out + "</div>\n"
    }

    /// The headline numbers, formatted as in the text summary.
    func numbersCard(_ statistics: PressureStatistics) -> String {
        let withPressure = statistics.contactsWithPressure
        var rows: [(String, String)] = [
            ("Recordings, span", String(format: "%lld, %.3f s", statistics.recordings, Double(statistics.durationNs) / 1e9)),
            ("Events / samples", "\(statistics.events) / \(statistics.samples)"),
            ("Contacts", "\(statistics.contacts)"),
        ]
        if withPressure > 0 {
            rows.append(("Classes", PressClass.allCases.map { "\($0.rawValue) \(statistics.classCounts[$0])" }.joined(separator: ", ")))
            rows.append(("Reached peek / pop", "\(statistics.reachedPeek) (\(ReportFormat.percent(statistics.reachedPeek, withPressure))) / "
                         + "\(statistics.reachedPop) (\(ReportFormat.percent(statistics.reachedPop, withPressure)))"))
            rows.append(("Re-crossings peek / pop", "\(statistics.peekRecrossings) / \(statistics.popRecrossings)"))
            rows.append(("Stationary deep presses", "\(statistics.stationaryDeepPresses[0])"))
        }
        rows.append(("Motion events", "\(statistics.motionEvents)"))
        rows.append(("Stationary pressure events", "\(statistics.stationary[0]) (\(ReportFormat.percent(statistics.stationary[0], statistics.motionEvents)))"))
        rows.append(("Inflation", ReportFormat.inflation(statistics.inflation())))
        if let rate = statistics.stationaryRateHz() {
            rows.append(("Stationary events", String(format: "%.1f Hz during contact; %lld before the peak, %lld after",
                                                     rate, statistics.stationaryRise[0], statistics.stationaryAfterPeak[0])))
        }
        if let suggestion = statistics.suggestionFromLabels {
            rows.append(("Suggested (labels)", String(format: "peek %.2f, pop %.2f (balanced accuracy %.3f)", suggestion.peek, suggestion.pop,
                                                      suggestion.balancedAccuracy ?? 0)))
        }
        if let breaks = statistics.suggestionWithoutLabels {
            rows.append(("Suggested (natural breaks)", String(format: "peek %.2f, pop %.2f (assumes three groups)", breaks.peek, breaks.pop)))
        }
        var out = "<div class=\"card numbers\"><h3>Summary</h3><dl>\n"
            + rows.map { "<dt>\(esc($0.0))</dt><dd>\(esc($0.1))</dd>\n" }.joined() + "</dl>\n"
        if withPressure > 0 {
            out += "<table class=\"quantiles\"><thead><tr><th>quantile</th><th>p5</th><th>p25</th><th>p50</th><th>p75</th><th>p95</th><th>n</th></tr></thead><tbody>\n"
            for (name, values) in statistics.shownQuantileLists {
                out += "<tr><th>\(name)</th>"
                if let quantiles = values.quantiles {
                    out += quantiles.map { String(format: "<td>%.3f</td>", $0) }.joined()
                } else {
                    out += String(repeating: "<td>-</td>", count: 5)
                }
                out += "<td>\(values.values.count)</td></tr>\n"
            }
            out += "</tbody></table>\n"
        }
        return out + "</div>\n"
    }

    func thresholdLines(_ chart: inout SVGChart, vertical: Bool) {
        let thresholds = options.thresholds
        for (value, name) in [(thresholds.peek, "peek"), (thresholds.pop, "pop")] {
            if vertical { chart.vline(value, label: String(format: "%@ %.2f", name, value), cssClass: "threshold \(name)", labelRow: name == "pop" ? 1 : 0) }
            else { chart.hline(value, label: String(format: "%@ %.2f", name, value), cssClass: "threshold \(name)") }
        }
    }

    func curvesFigure(_ bands: CurveBands, aligned: Bool) -> String {
        let name = aligned ? "aligned-curves" : "curves"
        let title = aligned ? "Pressure from touch-down, by press class" : "Pressure curves by press class (duration-normalized)"
        guard bands.points > 0 else {
            return figure(name, title: title, svg: "", caption: "Curves were not computed.", legend: "")
        }
        let stepMS = Double(options.alignedStepNs) / 1e6
        func xValue(_ point: Int) -> Double {
            aligned ? Double(point) * stepMS : 100 * Double(point) / Double(bands.points)
        }
        let xMax = aligned ? Double(bands.points - 1) * stepMS : 100 * Double(bands.points - 1) / Double(bands.points)
        var chart = SVGChart(x: 0...max(xMax, 1), y: 0...1)
        chart.axes(xLabel: aligned ? "time from touch-down (ms)" : "time (% of the contact's duration)",
                   yLabel: "normalized pressure", xTicks: SVGChart.ticks(0...max(xMax, 1), count: 5), yTicks: [0, 0.2, 0.4, 0.6, 0.8, 1])
        for pressClass in bands.classesPresent {
            // Band: p75 forward, then p25 back, over the points that have data.
            let points = (0..<bands.points).filter { bands.count(pressClass, point: $0) > 0 }
            let upper = points.map { (xValue($0), bands.quantile(pressClass, point: $0, level: 0.75) ?? 0) }
            let lower = points.reversed().map { (xValue($0), bands.quantile(pressClass, point: $0, level: 0.25) ?? 0) }
            chart.path(upper + lower, closed: true, cssClass: "band c-\(pressClass.rawValue)", attributes: "data-class=\"\(pressClass.rawValue)\"")
            chart.path(points.map { (xValue($0), bands.mean(pressClass, point: $0) ?? 0) }, closed: false,
                       cssClass: "mean c-\(pressClass.rawValue)", attributes: "data-class=\"\(pressClass.rawValue)\"")
        }
        thresholdLines(&chart, vertical: false)
        return figure(name, title: title, svg: chart.svg(name, title: title),
                      caption: aligned ? String(format: "Mean and interquartile band per class at every %g ms, over the contacts still down.", stepMS)
                                       : "Mean and interquartile band per class at \(bands.points) points of each contact's duration.",
                      legend: classLegend(bands.classesPresent, band: true))
    }

    func peakHistogram(_ statistics: PressureStatistics) -> String {
        let counts = statistics.peakBins.counts
        let top = Double(counts.max() ?? 1)
        var chart = SVGChart(x: 0...1.01, y: 0...max(1, top * 1.1))
        chart.axes(xLabel: options.smoothing == .none ? "peak normalized pressure" : "peak of the smoothed signal", yLabel: "contacts",
                   xTicks: [0, 0.2, 0.4, 0.6, 0.8, 1], yTicks: SVGChart.ticks(0...max(1, top), count: 4, integer: true))
        for (bin, count) in counts.enumerated() where count > 0 {
            let lower = ThresholdBins.threshold(bin)
            chart.rect(x: lower, width: 0.01, y: 0, height: Double(count), cssClass: "bar", attributes: "data-bin=\"\(bin)\" data-count=\"\(count)\"")
        }
        thresholdLines(&chart, vertical: true)
        var legend = "<li><span class=\"swatch threshold\"></span>configured thresholds</li>"
        if let suggestion = statistics.suggestionFromLabels {
            chart.vline(suggestion.peek, label: "", cssClass: "suggested labels")
            chart.vline(suggestion.pop, label: "", cssClass: "suggested labels")
            legend += String(format: "<li><span class=\"swatch suggested labels\"></span>suggested from labels: %.2f, %.2f</li>", suggestion.peek, suggestion.pop)
        }
        if let breaks = statistics.suggestionWithoutLabels {
            chart.vline(breaks.peek, label: "", cssClass: "suggested breaks")
            chart.vline(breaks.pop, label: "", cssClass: "suggested breaks")
            legend += String(format: "<li><span class=\"swatch suggested breaks\"></span>natural breaks: %.2f, %.2f</li>", breaks.peek, breaks.pop)
        }
        return figure("peak-histogram", title: "Distribution of signal peaks", svg: chart.svg("peak-histogram", title: "Peak histogram"),
                      caption: "Bins of 0.01; \(counts.filter { $0 > 0 }.count) non-empty bins, \(statistics.contactsWithPressure) contacts with pressure.",
                      legend: "<ul class=\"legend\">\(legend)</ul>")
    }

    func sweepFigure(_ statistics: PressureStatistics) -> String {
        var chart = SVGChart(x: 0...1, y: 0...1)
        chart.axes(xLabel: "threshold (normalized pressure)", yLabel: "fraction of contacts reaching it",
                   xTicks: [0, 0.2, 0.4, 0.6, 0.8, 1], yTicks: [0, 0.25, 0.5, 0.75, 1])
        chart.path(statistics.sweep.enumerated().map { (ThresholdBins.threshold($0.offset), $0.element) }, closed: false, cssClass: "sweep")
        thresholdLines(&chart, vertical: true)
        let fractions = statistics.sweep
        let thresholds = options.thresholds
        return figure("sweep", title: "Threshold sweep", svg: chart.svg("sweep", title: "Threshold sweep"),
                      caption: String(format: "At the configured thresholds: peek %.1f%%, pop %.1f%% of %lld contacts with pressure.",
                                      100 * fractions[ThresholdBins.bin(thresholds.peek)], 100 * fractions[ThresholdBins.bin(thresholds.pop)],
                                      statistics.contactsWithPressure),
                      legend: "<ul class=\"legend\"><li><span class=\"swatch sweep\"></span>reached</li><li><span class=\"swatch threshold\"></span>configured thresholds</li></ul>")
    }

    func timeCDF(_ statistics: PressureStatistics) -> String {
        let horizonMS = Double(TimeHistogram.bins) * Double(TimeHistogram.binNs) / 1e6
        var chart = SVGChart(x: 0...horizonMS, y: 0...1)
        chart.axes(xLabel: "time from touch-down (ms)", yLabel: "fraction of contacts with pressure",
                   xTicks: [0, 500, 1000, 1500, 2000, 2500, 3000], yTicks: [0, 0.25, 0.5, 0.75, 1])
        let total = Double(max(1, statistics.contactsWithPressure))
        for (histogram, name) in [(statistics.peekHistogram, "peek"), (statistics.popHistogram, "pop")] {
            var running: Int64 = 0
            var points: [(Double, Double)] = [(0, 0)]
            for bin in 0..<TimeHistogram.bins {
                running += histogram.counts[bin]
                points.append((Double(bin + 1) * Double(TimeHistogram.binNs) / 1e6, Double(running) / total))
            }
            chart.path(points, closed: false, cssClass: "cdf \(name)", attributes: "data-series=\"\(name)\"")
        }
        chart.vline(400, label: "400 ms", cssClass: "timeout")
        chart.vline(500, label: "500 ms", cssClass: "timeout", labelRow: 1)
        let within = statistics.timeHistograms.map { name, histogram in
            "\(name) \(histogram.count(below: 400_000_000)) / \(histogram.count(below: 500_000_000)) of \(histogram.counts.reduce(0, +))"
        }.joined(separator: ", ")
        return figure("time-cdf", title: "Time to peek and to pop", svg: chart.svg("time-cdf", title: "Time to peek and pop"),
                      caption: "Cumulative share of contacts with pressure that have crossed, 10 ms bins. Within the long-press timeouts "
                        + "(400 / 500 ms): \(within).",
                      legend: "<ul class=\"legend\"><li><span class=\"swatch cdf peek\"></span>peek</li><li><span class=\"swatch cdf pop\"></span>pop</li>"
                        + "<li><span class=\"swatch timeout\"></span>long-press timeouts</li></ul>")
    }

    func inflationFigure(_ statistics: PressureStatistics) -> String {
        let lanes = statistics.inflationSweep
        let finite = lanes.compactMap { $0.inflation?.ratio }
        let top = max(2, (finite.max() ?? 1) * 1.15)
        var chart = SVGChart(x: 0...Double(lanes.count), y: 0...top)
        chart.axes(xLabel: "position tolerance (mm)", yLabel: "inflation (events per moving event)", xTicks: [],
                   yTicks: SVGChart.ticks(0...top, count: 4))
        for (index, lane) in lanes.enumerated() {
            let label = formatNumber(lane.toleranceMM) + " mm"
            chart.xLabel(Double(index) + 0.5, label)
            let height: Double
            let text: String
            switch lane.inflation {
            case .ratio(let ratio)?: height = ratio; text = ReportFormat.inflation(.ratio(ratio))
            case .unbounded?: height = top; text = "∞"
            case .undefined?: height = 0; text = "-"
            case nil: height = 0; text = "n/a"
            }
            chart.rect(x: Double(index) + 0.15, width: 0.7, y: 0, height: height, cssClass: "inflation-bar", attributes: "data-tolerance-mm=\"\(lane.toleranceMM)\"")
            chart.text(Double(index) + 0.5, min(height, top * 0.93) + top * 0.03, text, cssClass: "bar-label")
            if statistics.contactsWithPressure > 0 {
                chart.text(Double(index) + 0.5, top * 0.01, "\(lane.stationaryDeepPresses) deep", cssClass: "bar-note")
            }
        }
        chart.hline(1, label: "", cssClass: "baseline")
        let rise = statistics.stationaryRise[0], after = statistics.stationaryAfterPeak[0]
        var caption = "Motion events \(statistics.motionEvents), stationary pressure events \(statistics.stationary[0]) "
            + "(\(ReportFormat.percent(statistics.stationary[0], statistics.motionEvents))) at the configured tolerance: inflation \(ReportFormat.inflation(statistics.inflation()))."
        if let rate = statistics.stationaryRateHz() {
            caption += String(format: " %.1f stationary events per second of contact; %lld before the peak, %lld after.", rate, rise, after)
        }
        var split = ""
        if rise + after > 0 {
            // SVG, as wide as the chart above: widths are attributes (the policy allows no style), each part clips its label.
            let riseWidth = 600 * Double(rise) / Double(rise + after)
            func part(_ name: String, _ x: Double, _ width: Double, _ text: String) -> String {
                "<svg class=\"\(name)\" x=\"\(SVGChart.number(x))\" y=\"0\" width=\"\(SVGChart.number(width))\" height=\"24\">"
                    + "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\"/><text class=\"split-label\" x=\"5\" y=\"17\">\(esc(text))</text></svg>"
            }
            split = "<svg class=\"split\" data-chart=\"phase-split\" viewBox=\"0 0 600 24\" role=\"img\" aria-label=\"stationary events before and after the peak\" "
                + "xmlns=\"http://www.w3.org/2000/svg\">" + part("rise", 0, riseWidth, "before the peak \(rise)")
                + part("after", riseWidth, 600 - riseWidth, "after \(after)") + "</svg>"
        }
        return figure("inflation", title: "Event-rate inflation by position tolerance", svg: chart.svg("inflation", title: "Inflation by tolerance") + split,
                      caption: caption + (statistics.contactsWithPressure > 0 ? " Under each bar: stationary deep presses at that tolerance." : ""),
                      legend: "<ul class=\"legend\"><li><span class=\"swatch inflation-bar\"></span>inflation (∞: every motion event stationary)</li><li><span class=\"swatch threshold\"></span>1×: no pressure-only events</li></ul>")
    }

    func pathsFigure(_ paths: [ContactPath], analysis: RecordingAnalysis) -> String {
        // Up to two per class, first ones first: a few presses of each kind.
        var chosen: [ContactPath] = []
        var perClass: [PressClass: Int] = [:]
        for path in paths where !path.x.isEmpty {
            guard let pressClass = analysis.contacts[Int(path.id)].pressClass ?? .tap as PressClass?, perClass[pressClass, default: 0] < 2 else { continue }
            perClass[pressClass, default: 0] += 1
            chosen.append(path)
            if chosen.count == 6 { break }
        }
        let hasPressure = analysis.pressureAxis != nil
        var panels = ""
        for path in chosen {
            let contact = analysis.contacts[Int(path.id)]
            let xs = path.x.map(Double.init), ys = path.y.map(Double.init)
            let span = max(4, (xs.max()! - xs.min()!), (ys.max()! - ys.min()!)) * 1.3
            let cx = (xs.max()! + xs.min()!) / 2, cy = (ys.max()! + ys.min()!) / 2
            var svg = "<svg class=\"path\" viewBox=\"0 0 200 200\" role=\"img\" aria-label=\"contact \(contact.id)\" xmlns=\"http://www.w3.org/2000/svg\">"
            svg += "<rect class=\"frame\" x=\"0\" y=\"0\" width=\"200\" height=\"200\"/>"
            func px(_ x: Double) -> Double { 100 + (x - cx) / span * 180 }
            func py(_ y: Double) -> Double { 100 + (y - cy) / span * 180 }
            svg += "<polyline class=\"trail\" points=\"" + zip(xs, ys).map { SVGChart.number(px($0)) + "," + SVGChart.number(py($1)) }.joined(separator: " ") + "\"/>"
            for index in xs.indices {
                let pressure = hasPressure ? Double(path.pressure[index]) : 0.5
                svg += "<circle cx=\"" + SVGChart.number(px(xs[index])) + "\" cy=\"" + SVGChart.number(py(ys[index]))
                    + "\" r=\"" + SVGChart.number(2 + 10 * min(1, max(0, pressure))) + "\" fill=\"" + HTMLStyle.pressureColour(pressure) + "\"/>"
            }
            svg += "</svg>"
            let still = contact.stationary[0]
            panels += "<div class=\"panel\">\(svg)<p>contact \(contact.id), \(contact.pressClass?.rawValue ?? "no-pressure"): "
                + "\(contact.samples) samples, \(still) pressure changes at rest, "
                + (contact.displacementMM.map { String(format: "moved %.1f mm", $0) } ?? "moved \(contact.displacementUnits) units")
                + String(format: "; box %.0f units wide", span) + "</p></div>\n"
        }
        return figure("paths", title: "x/y paths coloured by pressure", svg: "<div class=\"panels\">\(panels)</div>",
                      caption: "A few contacts (up to two per class). Each sample is a circle at its x/y; its size and colour grow with the normalized pressure, "
                        + "so a stack of circles at one place is pressure changing while the finger stays put.",
                      legend: "<div class=\"ramp\"><span>0</span><span class=\"ramp-bar\"></span><span>1 normalized pressure</span></div>")
    }

    func confusionTable(_ statistics: PressureStatistics) -> String {
        func table(_ confusion: ConfusionMatrix, _ title: String) -> String {
            var out = "<table class=\"confusion\" data-chart=\"confusion\"><caption>\(esc(title))</caption><thead><tr><th>label \\ found</th>"
            out += PressClass.allCases.map { "<th>\($0.rawValue)</th>" }.joined() + "</tr></thead><tbody>\n"
            for label in PressClass.allCases {
                let row = PressClass.allCases.reduce(Int64(0)) { $0 + confusion[label: label, found: $1] }
                out += "<tr><th>\(label.rawValue)</th>"
                for found in PressClass.allCases {
                    let count = confusion[label: label, found: found]
                    let share = row > 0 ? Double(count) / Double(row) : 0
                    out += "<td class=\"\(HTMLStyle.shadeClass(share: share))\">\(count)</td>"
                }
                out += "</tr>\n"
            }
            return out + "</tbody></table>\n"
        }
        var out = table(statistics.confusion, String(format: "At the configured thresholds: balanced accuracy %.3f", statistics.confusion.balancedAccuracy ?? 0))
        if let suggestion = statistics.suggestionFromLabels, let confusion = suggestion.confusion {
            out += table(confusion, String(format: "At the suggested peek %.2f, pop %.2f: balanced accuracy %.3f", suggestion.peek, suggestion.pop,
                                           suggestion.balancedAccuracy ?? 0))
        }
        return figure("confusion", title: "Labels against the classes found", svg: out,
                      caption: "\(statistics.labelled) labelled contacts; shading is the share of each label's row.", legend: "")
    }

    // MARK: - Contact table

    func contactTable(_ analysis: RecordingAnalysis, limit: Int?) -> String {
        let shown = limit.map { min($0, analysis.contacts.count) } ?? analysis.contacts.count
        guard shown > 0 else { return "" }
        let columns = contactColumns(analysis)
        var out = "<div class=\"card table\"><h3>Contacts</h3><div class=\"scroll\"><table class=\"contacts sortable\" data-rows=\"\(shown)\"><thead><tr>"
        out += columns.map { "<th>\(esc($0.heading))</th>" }.joined() + "</tr></thead><tbody>\n"
        for contact in analysis.contacts.prefix(shown) {
            out += "<tr>"
            for column in columns {
                let cell = column.cell(contact)
                guard column.numeric else { out += "<td>\(esc(cell.text))</td>"; continue }
                // nil sorts first, infinities at the ends.
                let sort = cell.sort.map { $0.isFinite ? String($0) : ($0 > 0 ? "1e308" : "-1e308") } ?? "-1e308"
                out += "<td data-v=\"\(sort)\">\(esc(cell.text))</td>"
            }
            out += "</tr>\n"
        }
        out += "</tbody></table></div>"
        if shown < analysis.contacts.count {
            out += "<p class=\"note\">\(shown) of \(analysis.contacts.count) contacts shown; --contacts all shows every one. Click a heading to sort.</p>"
        } else {
            out += "<p class=\"note\">Click a heading to sort.</p>"
        }
        return out + "</div>\n"
    }

    // MARK: - Pieces

    func figure(_ name: String, title: String, svg: String, caption: String, legend: String) -> String {
        "<figure class=\"card chart\" data-figure=\"\(name)\"><h3>\(esc(title))</h3>\(svg)\(legend)<figcaption>\(esc(caption))</figcaption></figure>\n"
    }

    func classLegend(_ classes: [PressClass], band: Bool) -> String {
        "<ul class=\"legend\">" + classes.map { "<li><span class=\"swatch c-\($0.rawValue)\"></span>\($0.rawValue) mean\(band ? ", p25–p75 band" : "")</li>" }.joined()
            + "<li><span class=\"swatch threshold\"></span>peek / pop thresholds</li></ul>"
    }
}

/// Escapes text for HTML and XML (SVG) content and attributes.
func esc(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.append(character)
        }
    }
    return out
}

/// A chart in SVG user units: plot area, axes with ticks, and marks.
struct SVGChart {
    let width = 600.0, height = 320.0
    let left = 62.0, right = 18.0, top = 14.0, bottom = 48.0
    var xDomain: ClosedRange<Double>
    var yDomain: ClosedRange<Double>
    var body = ""

    init(x: ClosedRange<Double>, y: ClosedRange<Double>) {
        xDomain = x
        yDomain = y
    }

    func px(_ value: Double) -> Double {
        left + (value - xDomain.lowerBound) / (xDomain.upperBound - xDomain.lowerBound) * (width - left - right)
    }

    func py(_ value: Double) -> Double {
        let clamped = min(max(value, yDomain.lowerBound), yDomain.upperBound)
        return height - bottom - (clamped - yDomain.lowerBound) / (yDomain.upperBound - yDomain.lowerBound) * (height - top - bottom)
    }

    /// `String(format: "%.1f", value)`, the same text, without Foundation's
    /// formatter (most of a page's drawing time): ten times the value rounded
    /// to the nearest integer, ties to even, as printf rounds the exact binary
    /// value. The product's rounding error, found exactly by a fused
    /// multiply-add, decides the cases the product alone cannot.
    static func number(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e14 else { return String(format: "%.1f", value) }
        let product = 10 * value
        let error = (-product).addingProduct(10, value)
        let floor = product.rounded(.down)
        // floor + 0.5 − product is exact here; the error is smaller than any nonzero step of it.
        let above = product - floor - 0.5
        var tenths = Int64(floor)
        if above > 0 || (above == 0 && (error > 0 || (error == 0 && tenths % 2 != 0))) { tenths += 1 }
        let magnitude = tenths.magnitude
        return (value.sign == .minus ? "-" : "") + String(magnitude / 10) + "." + String(magnitude % 10)
    }

    static func ticks(_ range: ClosedRange<Double>, count: Int, integer: Bool = false) -> [Double] {
        let raw = (range.upperBound - range.lowerBound) / Double(max(1, count))
        let magnitude = pow(10, (log10(max(raw, 1e-12))).rounded(.down))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        let safeStep = integer ? max(1, step.rounded(.up)) : step
        return stride(from: (range.lowerBound / safeStep).rounded(.up) * safeStep, through: range.upperBound + 1e-9, by: safeStep).map { $0 }
    }

    static func label(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int64(value)) : String(format: "%g", value)
    }

    mutating func axes(xLabel: String, yLabel: String, xTicks: [Double], yTicks: [Double]) {
        let x0 = Self.number(left), x1 = Self.number(width - right), y0 = Self.number(height - bottom), y1 = Self.number(top)
        body += "<g class=\"axes\">"
        for tick in yTicks {
            let y = Self.number(py(tick))
            body += "<line class=\"gridline\" x1=\"\(x0)\" y1=\"\(y)\" x2=\"\(x1)\" y2=\"\(y)\"/>"
            body += "<text class=\"tick\" x=\"\(Self.number(left - 6))\" y=\"\(y)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(Self.label(tick))</text>"
        }
        for tick in xTicks {
            let x = Self.number(px(tick))
            body += "<line class=\"tickmark\" x1=\"\(x)\" y1=\"\(y0)\" x2=\"\(x)\" y2=\"\(Self.number(height - bottom + 5))\"/>"
            body += "<text class=\"tick\" x=\"\(x)\" y=\"\(Self.number(height - bottom + 18))\" text-anchor=\"middle\">\(Self.label(tick))</text>"
        }
        body += "<line class=\"axis\" x1=\"\(x0)\" y1=\"\(y0)\" x2=\"\(x1)\" y2=\"\(y0)\"/>"
        body += "<line class=\"axis\" x1=\"\(x0)\" y1=\"\(y0)\" x2=\"\(x0)\" y2=\"\(y1)\"/>"
        body += "<text class=\"axis-label\" x=\"\(Self.number((left + width - right) / 2))\" y=\"\(Self.number(height - 8))\" text-anchor=\"middle\">\(esc(xLabel))</text>"
        body += "<text class=\"axis-label\" transform=\"translate(14 \(Self.number((top + height - bottom) / 2))) rotate(-90)\" text-anchor=\"middle\">\(esc(yLabel))</text>"
        body += "</g>"
    }

    mutating func xLabel(_ x: Double, _ text: String) {
        body += "<text class=\"tick\" x=\"\(Self.number(px(x)))\" y=\"\(Self.number(height - bottom + 18))\" text-anchor=\"middle\">\(esc(text))</text>"
    }

    mutating func text(_ x: Double, _ y: Double, _ text: String, cssClass: String) {
        body += "<text class=\"\(cssClass)\" x=\"\(Self.number(px(x)))\" y=\"\(Self.number(py(y)))\" text-anchor=\"middle\">\(esc(text))</text>"
    }

    mutating func path(_ points: [(Double, Double)], closed: Bool, cssClass: String, attributes: String = "") {
        guard !points.isEmpty else { return }
        var d = ""
        for (index, point) in points.enumerated() {
            d += (index == 0 ? "M" : "L") + Self.number(px(point.0)) + " " + Self.number(py(point.1))
        }
        if closed { d += "Z" }
        body += "<path class=\"\(cssClass)\" \(attributes) d=\"\(d)\"/>"
    }

    mutating func rect(x: Double, width: Double, y: Double, height: Double, cssClass: String, attributes: String = "") {
        let x0 = px(x), x1 = px(x + width), y0 = py(y), y1 = py(y + height)
        body += "<rect class=\"\(cssClass)\" \(attributes) x=\"\(Self.number(x0))\" y=\"\(Self.number(min(y0, y1)))\" "
            + "width=\"\(Self.number(max(0.5, x1 - x0)))\" height=\"\(Self.number(abs(y1 - y0)))\"/>"
    }

    mutating func vline(_ x: Double, label: String, cssClass: String, labelRow: Int = 0) {
        let position = Self.number(px(x))
        body += "<line class=\"\(cssClass)\" x1=\"\(position)\" y1=\"\(Self.number(top))\" x2=\"\(position)\" y2=\"\(Self.number(height - bottom))\"/>"
        if !label.isEmpty {
            body += "<text class=\"mark-label\" x=\"\(Self.number(px(x) + 3))\" y=\"\(Self.number(top + 10 + 12 * Double(labelRow)))\">\(esc(label))</text>"
        }
    }

    mutating func hline(_ y: Double, label: String, cssClass: String) {
        let position = Self.number(py(y))
        body += "<line class=\"\(cssClass)\" x1=\"\(Self.number(left))\" y1=\"\(position)\" x2=\"\(Self.number(width - right))\" y2=\"\(position)\"/>"
        if !label.isEmpty {
            body += "<text class=\"mark-label\" x=\"\(Self.number(left + 4))\" y=\"\(Self.number(py(y) - 3))\">\(esc(label))</text>"
        }
    }

    func svg(_ name: String, title: String) -> String {
        "<svg class=\"plot\" data-chart=\"\(name)\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(esc(title))\" "
            + "xmlns=\"http://www.w3.org/2000/svg\">\(body)</svg>"
    }
}
