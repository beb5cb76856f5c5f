import Foundation
import XCTest
@testable import ForceTrace

/// A pressure pad's session (`simulate --device pressurepad`, pressure at 2
/// units per gram) read back through the binary: every output shows its
/// contacts and thresholds in grams beside the raw units; a touchpad without
/// a resolution shows none.
final class PressureInGramsTests: XCTestCase {
    /// The simulated session replayed into a trace file, in a folder of its own.
    private func session(_ device: String) throws -> (trace: String, directory: URL) {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let evemu = directory.appendingPathComponent("\(device).evemu").path
        let trace = directory.appendingPathComponent("\(device).h5").path
        try BlackBox.run(["simulate", "--protocol", "touchpad", "--device", device, "--trials", "3", "-o", evemu])
        try BlackBox.run(["calibrate", "--replay", evemu, "--protocol", "touchpad", "--trials", "3", "-o", trace, "--fast"])
        return (trace, directory)
    }

    func testEveryContactsPeakIsInGramsInJSONTextAndHTML() throws {
        let (trace, directory) = try session("pressurepad")
        let report = try BlackBox.report(trace)
        let contacts = BlackBox.contacts(report)
        XCTAssertGreaterThan(contacts.count, 10)
        for contact in contacts {
            let raw = try XCTUnwrap(contact["peak_pressure"] as? Int)
            XCTAssertEqual(try XCTUnwrap(contact["peak_gf"] as? Double), Double(raw) / 2, "\(contact)")
        }
        let quantiles = try XCTUnwrap(BlackBox.summary(report)["quantiles"] as? [String: Any])
        let grams = try XCTUnwrap(quantiles["peak_gf"] as? [String: Any])
        let peaks = contacts.compactMap { $0["peak_gf"] as? Double }.sorted()
        XCTAssertEqual(grams["p50"] as? Double, (peaks[(peaks.count - 1) / 2] + peaks[peaks.count / 2]) / 2)

        let text = try BlackBox.run(["report", trace, "--contacts", "all"]).stdout
        XCTAssertTrue(text.contains("pressure ABS_MT_PRESSURE 0..255 (2 units per gram, 0.0..127.5 gf)"), text)
        let lines = text.split(separator: "\n")
        let heading = try XCTUnwrap(lines.first { $0.contains(" force     gf ") })
        let rows = lines.drop { $0 != heading }.dropFirst().prefix(contacts.count)
        // Each row's gf cell follows its force cell: the raw peak over 2.
        for (row, contact) in zip(rows, contacts) {
            let cells = row.split(separator: " ")
            XCTAssertEqual(cells[9], Substring(String(format: "%.1f", Double(contact["peak_pressure"] as! Int) / 2)), String(row))
        }
        XCTAssertTrue(text.contains("    peak_gf     "), "the quantile row")

        let page = directory.appendingPathComponent("report.html").path
        try BlackBox.run(["report", trace, "--html", page, "--contacts", "all"])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains("<th>gf</th>"))
        XCTAssertTrue(html.contains("ABS_MT_PRESSURE 0..255, 2 units per gram, 0.0..127.5 gf"))
        XCTAssertTrue(html.contains("<tr><th>peak_gf</th>"))
    }

    func testATouchpadWithoutAResolutionShowsNoGrams() throws {
        let (trace, directory) = try session("touchpad")
        let report = try BlackBox.report(trace)
        XCTAssertTrue(BlackBox.contacts(report).allSatisfy { $0["peak_gf"] is NSNull })
        let quantiles = try XCTUnwrap(BlackBox.summary(report)["quantiles"] as? [String: Any])
        XCTAssertTrue(quantiles["peak_gf"] is NSNull)
        let text = try BlackBox.run(["report", trace]).stdout
        XCTAssertFalse(text.contains("gf"), text)
        let page = directory.appendingPathComponent("report.html").path
        try BlackBox.run(["report", trace, "--html", page])
        XCTAssertFalse(try String(contentsOfFile: page, encoding: .utf8).contains("gf<"))
        XCTAssertFalse(try BlackBox.run(["suggest", trace]).stdout.contains("gf"))
        XCTAssertFalse(try BlackBox.run(["whatif", trace, "--libinput", "1.22"]).stdout.contains("gf"))
    }

    func testSuggestAndWhatifGiveTheThresholdsInGrams() throws {
        let (trace, _) = try session("pressurepad")
        let text = try BlackBox.run(["suggest", trace]).stdout
        XCTAssertTrue(text.contains("ABS_MT_PRESSURE 0..255 (2 units per gram, 0.0..127.5 gf)"), text)
        let json = try JSONSerialization.jsonObject(with: Data(try BlackBox.run(["suggest", trace, "--format", "json"]).stdout.utf8)) as? [String: Any]
        let axis = try XCTUnwrap(json?["pressure_axis"] as? [String: Any])
        XCTAssertEqual(axis["units_per_gram"] as? Int, 2)
        let touchpad = try XCTUnwrap(json?["touchpad"] as? [String: Any])
        for key in ["pressure_range_begin", "pressure_range_end", "thumb_pressure_threshold", "palm_pressure_threshold"] {
            let quirk = try XCTUnwrap(touchpad[key] as? [String: Any])
            guard let value = quirk["value"] as? Int else { continue }
            XCTAssertEqual(quirk["gf"] as? Double, Double(value) / 2, key)
            XCTAssertTrue(text.contains("= \(value) (\(String(format: "%.1f", Double(value) / 2)) gf, "), "\(key) in \(text)")
        }
        let whatif = try BlackBox.run(["whatif", trace, "--libinput", "1.22"]).stdout
        XCTAssertTrue(whatif.contains("(2 units per gram, 0.0..127.5 gf)"), whatif)
        let whatifJSON = try JSONSerialization.jsonObject(with: Data(try BlackBox.run(["whatif", trace, "--libinput", "1.22", "--json"]).stdout.utf8)) as? [String: Any]
        XCTAssertEqual(whatifJSON?["pressure_units_per_gram"] as? Int, 2)
    }
}
