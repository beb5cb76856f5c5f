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
        }
    }
}
