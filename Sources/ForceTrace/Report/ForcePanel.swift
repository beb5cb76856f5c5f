import Foundation

/// `report --html`'s force panel (docs/ANALYSIS.md, "Force"): for a
/// recording with a scale's `force` table, every weighed reading against
/// the pen's pressure then, the press and release curves through their five
/// points, and the activation, saturation and libinput tip thresholds in gf.
extension PressureReport {
    /// At most this many readings are drawn (evenly spaced); the figures use all.
    static let forcePanelPoints = 4000

    func forcePanel(_ analysis: RecordingAnalysis) -> String {
        guard let force = analysis.force else { return "" }
        let axis = force.axis
        let heaviest = max(force.pairs.map(\.grams).max() ?? 0, force.saturationGrams ?? 0, 1)
        let top = heaviest * 1.05
        var chart = SVGChart(x: 0...top, y: Double(axis.minimum)...Double(axis.maximum))
        chart.axes(xLabel: "force on the scale (gf)", yLabel: "\(axis.name) (raw)",
                   xTicks: SVGChart.ticks(0...top, count: 6), yTicks: SVGChart.ticks(Double(axis.minimum)...Double(axis.maximum), count: 5, integer: true))
        let stride = max(1, (force.pairs.count + Self.forcePanelPoints - 1) / Self.forcePanelPoints)
        var dots = ""
        for index in Swift.stride(from: 0, to: force.pairs.count, by: stride) {
            let pair = force.pairs[index]
            guard pair.grams >= 0, pair.grams <= top else { continue }
            dots += "M" + SVGChart.number(chart.px(pair.grams)) + " " + SVGChart.number(chart.py(Double(pair.pressure))) + "h0"
        }
        chart.body += "<path class=\"dots\" data-series=\"readings\" d=\"\(dots)\"/>"
        func curve(_ side: KeyPath<ForceAnalysis.CurvePoint, Double?>, name: String, cssClass: String) {
            var points: [(Double, Double)] = []
            if let activation = force.activation, name == "press" { points.append((activation.grams, Double(axis.minimum))) }
            points += force.curve.compactMap { point in point[keyPath: side].map { ($0, Double(point.pressure)) } }
            if let saturation = force.saturationGrams, name == "press" { points.append((saturation, Double(axis.maximum))) }
            guard points.count > 1 else { return }
            chart.path(points, closed: false, cssClass: cssClass, attributes: "data-series=\"\(name)\"")
        }
        curve(\.pressGrams, name: "press", cssClass: "mean c-pop-press")
        curve(\.releaseGrams, name: "release", cssClass: "mean c-tap")
        chart.path([(0, Double(force.tipDownPressure)), (top, Double(force.tipDownPressure))], closed: false, cssClass: "threshold",
                   attributes: "data-series=\"tip-down\"")
        if let activation = force.activation {
            chart.rect(x: activation.low, width: max(activation.high - activation.low, top / 400), y: Double(axis.minimum),
                       height: Double(axis.maximum - axis.minimum), cssClass: "band c-peek-press", attributes: "data-series=\"activation\"")
        }
        func grams(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-" }
        let rows = "<table class=\"confusion\"><tr><th>pressure</th><th>press gf</th><th>release gf</th><th>hysteresis gf</th></tr>"
            + force.curve.map { point in
                "<tr><td>\(point.pressure) (\(String(format: "%.0f", point.fraction * 100)) %)</td><td>\(grams(point.pressGrams))</td>"
                    + "<td>\(grams(point.releaseGrams))</td><td>\(grams(point.hysteresisGrams))</td></tr>"
            }.joined() + "</table>"
        var caption = "Lag \(String(format: "%.1f", Double(force.lagNs) / 1e6)) ms"
        if let uncertainty = force.lagUncertaintyNs { caption += " ± \(String(format: "%.1f", Double(uncertainty) / 1e6)) ms" }
        caption += force.lag != nil ? " (estimated here)" : " (stored by calibrate)"
        if let activation = force.activation {
            caption += "; initial activation \(GramScale.text(activation.grams)) (\(grams(activation.low))–\(grams(activation.high)) gf, the band)"
        }
        caption += "; saturation " + (force.saturationGrams.map(GramScale.text) ?? "-")
        caption += "; libinput's tip down at \(force.tipDownPressure) (the line): " + (force.tipDownGrams.map(GramScale.text) ?? "-")
        caption += "; hysteresis " + (force.hysteresisGrams.map(GramScale.text) ?? "-") + " (press − release)."
        caption += " Dots: \(force.pairs.count) weighed readings" + (stride > 1 ? ", every \(stride)th drawn" : "")
            + "; dotted line: the presses, solid: the releases, through the table's points."
        return figure("force", title: "Force: pressure against the scale", svg: chart.svg("force", title: "pressure against force"),
                      caption: caption, legend: rows)
    }
}
