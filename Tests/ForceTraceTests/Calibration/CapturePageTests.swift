import Foundation
import XCTest
@testable import ForceTrace

/// The capture page: self-contained (its policy admits exactly its own script
/// and stylesheet, nothing is fetched), calibrate's protocols as they are,
/// and written as every output is (refusing to replace without --force).
final class CapturePageTests: XCTestCase {
    private let page = CapturePage.html()

    func testThePolicyAdmitsExactlyTheInlineScriptAndStylesheet() throws {
        let script = try XCTUnwrap(page.range(of: "<script>").map { page[$0.upperBound...] }.flatMap { rest in
            rest.range(of: "</script>").map { String(rest[..<$0.lowerBound]) } })
        let style = try XCTUnwrap(page.range(of: "<style>").map { page[$0.upperBound...] }.flatMap { rest in
            rest.range(of: "</style>").map { String(rest[..<$0.lowerBound]) } })
        XCTAssertTrue(page.contains("content=\"default-src 'none'; script-src 'sha256-\(SHA256.base64(script))'; "
                                    + "style-src 'sha256-\(SHA256.base64(style))'; base-uri 'none'; form-action 'none'\""))
        XCTAssertEqual(page.components(separatedBy: "<script").count, 2, "one script")
        XCTAssertEqual(page.components(separatedBy: "<style").count, 2, "one stylesheet")
        // Attributes a hash does not admit, and anything fetched.
        XCTAssertNil(page.range(of: #"\s(style|on[a-z]+)="#, options: .regularExpression))
        XCTAssertNil(page.range(of: #"(src|href)="#, options: .regularExpression))
        XCTAssertNil(page.range(of: "http://"))
        XCTAssertNil(page.range(of: "https://"))
    }

    func testTheProtocolsAreCalibratesOwn() {
        XCTAssertTrue(CapturePage.script.contains(#""app": [{"name": "tap", "prompt": "\#(TrialClass.tap.instruction)"}, "#))
        for calibrationProtocol in [CalibrationProtocol.app, .pen] {
            let names = calibrationProtocol.classes.map { "{\"name\": \"\($0.rawValue)\"" }
            var rest = Substring(CapturePage.protocolTable)
            for name in names {
                guard let found = rest.range(of: name) else { return XCTFail("\(calibrationProtocol): \(name) out of order") }
                rest = rest[found.upperBound...]
            }
        }
        XCTAssertFalse(CapturePage.protocolTable.contains("\"touchpad\""), "a page cannot run the touchpad protocol")
        XCTAssertTrue(CapturePage.script.contains("var MINIMUM_MS = 30;"), "calibrate's shortest trial")
    }

    func testTheCommandWritesThePageAndReplacesOnlyWithForce() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let output = directory.appendingPathComponent("capture.html").path
        let first = try FormatTestSupport.run(["capture-page", "-o", output])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), page)
        let again = try FormatTestSupport.run(["capture-page", "-o", output])
        XCTAssertEqual(again.status, 1, "refused: the page exists")
        XCTAssertTrue(again.stderr.contains("capture.html"), again.stderr)
        XCTAssertEqual(try FormatTestSupport.run(["capture-page", "-o", output, "--force"]).status, 0)
        XCTAssertEqual(try FormatTestSupport.run(["capture-page"]).status, 2, "-o is required")
    }
}
