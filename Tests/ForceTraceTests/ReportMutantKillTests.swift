import Foundation
import XCTest
@testable import ForceTrace

/// Report rendering whose rule-made mutants (issue 26) XCTest did not pin.
final class ReportMutantKillTests: XCTestCase {
    /// The HTML contact table notes "[label X]" exactly where the label differs
    /// from the class. The labelled sample at the default thresholds has none;
    /// at --pop 0.95 the JSON report counts 3 contacts (2, 20, 26) labelled pop-press
    /// and classed peek-press. Every row is shown (--contacts all).
    func testHTMLNotesALabelOnlyWhereItDiffersFromTheClass() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path
        let trace = try BlackBox.importTrace(sample, into: directory).path
        for options in [[], ["--pop", "0.95"]] {
            let json = try BlackBox.run(["report", trace, "--json"] + options).stdout
            let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let recordings = try XCTUnwrap(document["recordings"] as? [[String: Any]])
            let contacts = try XCTUnwrap(recordings.first?["contacts"] as? [[String: Any]])
            let differing = contacts.filter { $0["label"] is String && $0["label"] as? String != $0["class"] as? String }
            XCTAssertEqual(differing.count, options.isEmpty ? 0 : 3)
            let page = directory.appendingPathComponent("report-\(options.count).html").path
            try BlackBox.run(["report", trace, "--html", page, "--contacts", "all"] + options)
            let html = try String(contentsOfFile: page, encoding: .utf8)
            XCTAssertEqual(html.components(separatedBy: "[label ").count - 1, differing.count, "\(options)")
            // The sample's x and y have 20 units/mm, its pressure axis none (0): "resolution unknown".
            XCTAssertTrue(html.contains(", 20 units/mm (0.0500 mm per unit)"))
            XCTAssertEqual(html.components(separatedBy: ", resolution unknown").count - 1, 1)
        }
    }

    /// The text summary's quantile table needs contacts with pressure: none on
    /// a device without a pressure axis, there with one.
    func testQuantilesOnlyWithPressure() throws {
        typealias F = AnalysisFixtures
        func text(pressure: Bool) throws -> String {
            var builder = RecordingBuilder(pressure: pressure)
            let down: [(UInt16, Int32)] = [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100)]
            let move: [(UInt16, Int32)] = [(F.x, 110)]
            let light: [(UInt16, Int32)] = pressure ? [(F.p, Int32(30))] : [], firm: [(UInt16, Int32)] = pressure ? [(F.p, Int32(70))] : []
            builder.frame(0, down + light)
            builder.frame(10, move + firm)
            builder.frame(20, [(F.id, -1)])
            let analysis = try F.analyze(builder.recording)
            let report = PressureReport(options: AnalysisOptions(), files: [FileAnalysis(file: analysis.file, recordings: [analysis])])
            return report.text(contactLimit: nil).rendered
        }
        XCTAssertFalse(try text(pressure: false).contains("quantiles"))
        XCTAssertTrue(try text(pressure: true).contains("quantiles"))
    }

    /// evemu 'B:' lines name event types 00 to 1f (EV_MAX): a line for 1f is
    /// read, one for 20 is an error naming the line.
    func testEvemuBitmaskTypesUpToEVMax() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let fixture = try String(contentsOfFile: BlackBox.fixture("axes-differ.evemu"), encoding: .utf8)
        for (type, accepted) in [("1f", true), ("20", false)] {
            var lines = fixture.components(separatedBy: "\n")
            let index = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("B: 00") })
            lines.insert("B: \(type) 00 00", at: index + 1)
            let source = directory.appendingPathComponent("b\(type).evemu")
            try lines.joined(separator: "\n").write(to: source, atomically: true, encoding: .utf8)
            let run = try FormatTestSupport.run(["import", source.path, "-o", directory.appendingPathComponent("b\(type).h5").path])
            XCTAssertEqual(run.status, accepted ? 0 : 1, run.stderr)
            if !accepted { XCTAssertTrue(run.stderr.contains("b20.evemu:\(index + 2): expected an event type (00 to 1f)"), run.stderr) }
        }
    }
}
