import Foundation
import XCTest
@testable import ForceTrace

/// The text report's summary and contact lines.
final class TextReportTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// The text summary of contacts without pressure says so and has no
    /// quantile table; with pressure it gives the classes and the quantiles.
    func testSummaryWithoutPressureSaysSoAndHasNoQuantiles() throws {
        func text(pressure: Bool) throws -> String {
            var builder = RecordingBuilder(pressure: pressure)
            let light: [(UInt16, Int32)] = pressure ? [(F.p, Int32(30))] : [], firm: [(UInt16, Int32)] = pressure ? [(F.p, Int32(70))] : []
            builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100)] + light)
            builder.frame(10, [(F.x, 110)] + firm)
            builder.frame(20, [(F.id, -1)])
            let analysis = try F.analyze(builder.recording)
            let report = PressureReport(options: AnalysisOptions(), files: [FileAnalysis(file: analysis.file, recordings: [analysis])])
            return report.text(contactLimit: nil).rendered
        }
        let without = try text(pressure: false), with = try text(pressure: true)
        XCTAssertTrue(without.contains("contacts 1; no pressure\n"), without)
        XCTAssertFalse(without.contains("reached peek"), without)
        XCTAssertFalse(with.contains("no pressure"), with)
        XCTAssertTrue(with.contains("reached peek"), with)
        XCTAssertFalse(without.contains("quantiles"), without)
        XCTAssertTrue(with.contains("quantiles"), with)
    }

    /// The text report's device line and the HTML page's device table name
    /// protocol B for a slotted device.
    func testTextReportNamesProtocolB() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.p, 40)])
        builder.frame(20, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        XCTAssertEqual(analysis.device.contactProtocol, .slots)
        let report = PressureReport(options: AnalysisOptions(), files: [FileAnalysis(file: analysis.file, recordings: [analysis])])
        let text = report.text(contactLimit: nil).rendered
        XCTAssertTrue(text.contains("device: \"test touchscreen\", multitouch protocol B"), text)
        XCTAssertFalse(text.contains("no slots"), text)
        // The HTML page's device table too, with the slot count (2).
        let page = report.html(contactLimit: nil)
        XCTAssertTrue(page.contains("multitouch protocol B, 2 slots"))
        XCTAssertFalse(page.contains("no slots"))
    }

    /// The "(n of m contacts shown)" line appears only when some are hidden:
    /// a limit of m − 1 shows it, a limit of m or none does not.
    func testShownLineOnlyWhenContactsAreHidden() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.id, -1)])
        builder.frame(100, [(F.slot, 0), (F.id, 2), (F.x, 300), (F.y, 300), (F.p, 40)])
        builder.frame(110, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        XCTAssertEqual(analysis.contacts.count, 2)
        let report = PressureReport(options: AnalysisOptions(), files: [FileAnalysis(file: analysis.file, recordings: [analysis])])
        XCTAssertTrue(report.text(contactLimit: 1).rendered.contains("(1 of 2 contacts shown;"))
        for limit in [2, 3, nil] as [Int?] {
            XCTAssertFalse(report.text(contactLimit: limit).rendered.contains("contacts shown"), "limit \(String(describing: limit))")
        }
    }
}
