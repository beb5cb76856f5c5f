import Foundation

/// `report --html`'s pen panel (docs/ANALYSIS.md, "Pen curve"): for a pen
/// calibration, the person's class medians and ranges against their targets
/// and the curve fitted over the usable range, with the error at each.
extension PressureReport {
    func penPanel(_ analysis: RecordingAnalysis) -> String {
        guard let profile = analysis.pen, let range = profile.usableRange, let fit = profile.rangeFit else { return "" }
        var chart = SVGChart(x: 0...1, y: 0...1)
        let ticks = SVGChart.ticks(0...1, count: 5)
        chart.axes(xLabel: "input: position in the usable range \(range.lowerBound)..\(range.upperBound) (raw)",
                   yLabel: "output", xTicks: ticks, yTicks: ticks)
        chart.path([(0, 0), (1, 1)], closed: false, cssClass: "threshold", attributes: "data-series=\"linear\"")
        chart.path((0...100).map { (Double($0) / 100, fit.curve.output(at: Double($0) / 100)) }, closed: false,
                   cssClass: "mean c-pop-press", attributes: "data-series=\"fitted\"")
        let span = Double(range.upperBound) - Double(range.lowerBound)
        let targets = [TrialClass.strokeLight: profile.targets.light, .strokeNormal: profile.targets.normal, .strokeFirm: profile.targets.firm]
        for peaks in profile.classes {
            guard let target = targets[peaks.trialClass] else { continue }
            let low = (Double(peaks.minimum) - Double(range.lowerBound)) / span, high = (Double(peaks.maximum) - Double(range.lowerBound)) / span
            chart.rect(x: low, width: max(0.004, high - low), y: target / 100 - 0.01, height: 0.02, cssClass: "band c-tap",
                       attributes: "data-class=\"\(peaks.trialClass.rawValue)\"")
        }
        for point in fit.points { chart.text(point.input, point.target, "●", cssClass: "mark-label") }
        var rows = fit.points.map { point in
            "<tr><td>\(esc(point.role.rawValue))</td>" + [point.input * 100, point.target * 100, point.output * 100, point.errorPoints]
                .map { String(format: "<td>%.1f</td>", $0) }.joined() + "</tr>"
        }.joined()
        rows = "<table class=\"confusion\"><tr><th>stroke</th><th>input %</th><th>target %</th><th>output %</th><th>error (points)</th></tr>\(rows)</table>"
        let caption = "Curve \(fit.curve.description) (xsetwacom/GNOME form, control points 0–100); whole-axis curve "
            + (profile.axisFit.map { $0.curve.description } ?? "-")
            + "; activation " + (profile.activation.map { String(format: "%.0f", $0) } ?? "-")
            + ", hover noise up to " + (profile.hoverNoise.map { String($0) } ?? "-")
            + ". Bars: each class's peaks at its target; dot: its median."
        return figure("pen-curve", title: "Pen: the person's curve and the fitted one", svg: chart.svg("pen-curve", title: "pen curve"),
                      caption: caption, legend: rows)
    }
}
