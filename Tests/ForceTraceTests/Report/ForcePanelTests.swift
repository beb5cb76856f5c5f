import Foundation
import XCTest
@testable import ForceTrace

/// `report --html`'s force panel on the scripted force session
/// (`simulate --protocol force`): the figures suggest gives, the readings
/// drawn, and no panel without a scale's table.
final class ForcePanelTests: XCTestCase {
    private func session() throws -> (trace: String, directory: URL) {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let trace = directory.appendingPathComponent("force.h5").path
        try BlackBox.run(["simulate", "--protocol", "force", "-o", trace])
        return (trace, directory)
    }

    private func figure(_ html: String, _ name: String) -> String? {
        guard let start = html.range(of: "<figure class=\"card chart\" data-figure=\"\(name)\">") else { return nil }
        return html[start.lowerBound...].components(separatedBy: "</figure>")[0]
    }

    func testThePanelShowsWhatSuggestFinds() throws {
        let (trace, directory) = try session()
        let page = directory.appendingPathComponent("report.html").path
        try BlackBox.run(["report", trace, "--html", page])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let panel = try XCTUnwrap(figure(html, "force"), "no force panel")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try BlackBox.run(["suggest", trace, "--format", "json"]).stdout.utf8)) as? [String: Any])
        let force = try XCTUnwrap(json["force"] as? [String: Any])
        let activation = try XCTUnwrap(force["activation"] as? [String: Any])
        for (label, value) in [("initial activation", activation["gf"]), ("saturation", force["saturation_gf"]), ("hysteresis", force["hysteresis_gf"])] {
            let grams = try XCTUnwrap(value as? Double)
            XCTAssertTrue(panel.contains("\(label) \(String(format: "%.1f", grams)) gf"), "\(label) \(grams) in \(panel.suffix(600))")
        }
        let lag = try XCTUnwrap((force["lag"] as? [String: Any])?["ms"] as? Double)
        XCTAssertTrue(panel.contains("Lag \(String(format: "%.1f", lag)) ms"))
        for point in try XCTUnwrap(force["curve"] as? [[String: Any]]) {
            let press = try XCTUnwrap(point["press_gf"] as? Double), release = try XCTUnwrap(point["release_gf"] as? Double)
            XCTAssertTrue(panel.contains("<td>\(String(format: "%.1f", press))</td><td>\(String(format: "%.1f", release))</td>"), "\(point)")
        }
        // Every weighed reading is a dot (fewer than the cap), and both curves are drawn.
        let readings = try XCTUnwrap(force["readings"] as? Int) - (force["readings_without_weight"] as? Int ?? 0)
        let dots = try XCTUnwrap(panel.components(separatedBy: "data-series=\"readings\" d=\"").dropFirst().first?.prefix { $0 != "\"" })
        XCTAssertEqual(dots.components(separatedBy: "M").count - 1, readings)
        XCTAssertTrue(panel.contains("Dots: \(readings) weighed readings;"))
        XCTAssertTrue(panel.contains("data-series=\"press\"") && panel.contains("data-series=\"release\"") && panel.contains("data-series=\"activation\""))
    }

    /// Above the cap the readings are thinned evenly, and the caption says so.
    func testALongSessionDrawsAtMostTheCap() throws {
        let (trace, _) = try session()
        var options = AnalysisOptions()
        options.curves = true
        var analysis = try XCTUnwrap(try AnalysisFixtures.analyzeFile(trace, options: options).first)
        var force = try XCTUnwrap(analysis.force)
        let one = force.pairs.count
        force.pairs = Array(repeating: force.pairs, count: 12).flatMap { $0 }
        analysis.force = force
        let cap = PressureReport.forcePanelPoints
        XCTAssertGreaterThan(12 * one, cap)
        let stride = (12 * one + cap - 1) / cap
        let panel = PressureReport(options: options, files: [FileAnalysis(file: trace, recordings: [analysis])]).forcePanel(analysis)
        let dots = try XCTUnwrap(panel.components(separatedBy: "data-series=\"readings\" d=\"").dropFirst().first?.prefix { $0 != "\"" })
        XCTAssertEqual(dots.components(separatedBy: "M").count - 1, (12 * one + stride - 1) / stride)
        XCTAssertLessThanOrEqual(dots.components(separatedBy: "M").count - 1, cap)
        XCTAssertTrue(panel.contains("every \(stride)th drawn"), panel.suffix(300).description)
    }

    /// A curve is drawn from two points on; one point is no line.
    func testACurveNeedsTwoPoints() throws {
        let (trace, _) = try session()
        var options = AnalysisOptions()
        options.curves = true
        var analysis = try XCTUnwrap(try AnalysisFixtures.analyzeFile(trace, options: options).first)
        var force = try XCTUnwrap(analysis.force)
        let report = PressureReport(options: options, files: [FileAnalysis(file: trace, recordings: [analysis])])
        for (kept, drawn) in [(2, true), (1, false)] {
            for index in force.curve.indices { force.curve[index].releaseGrams = index < kept ? 10 * Double(index + 1) : nil }
            analysis.force = force
            XCTAssertEqual(report.forcePanel(analysis).contains("data-series=\"release\""), drawn, "\(kept) release points")
        }
    }

    func testNoPanelWithoutAScale() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let trace = try BlackBox.importTrace(FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path, into: directory).path
        let page = directory.appendingPathComponent("report.html").path
        try BlackBox.run(["report", trace, "--html", page])
        XCTAssertNil(figure(try String(contentsOfFile: page, encoding: .utf8), "force"))
    }
}
