import ForceTrace
import Foundation
import XCTest

/// Replays every input the fuzzers ever crashed on (Tests/fuzz-regressions/
/// <parser>/) through the same entry points the harnesses call. A trap
/// here kills the test run, which is the failure.
final class FuzzRegressionTests: XCTestCase {
    private func replay(_ parser: String, _ body: ([UInt8]) -> Void) throws {
        let directory = FormatTestSupport.packageRoot.appendingPathComponent("Tests/fuzz-regressions/\(parser)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertFalse(names.isEmpty, "no regression inputs in \(directory.path)")
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
            body(bytes)
        }
    }

    func testEvemuRegressions() throws { try replay("evemu", ParserFuzzing.evemu) }
    func testLibinputRegressions() throws { try replay("libinput", ParserFuzzing.libinput) }
    func testRawRegressions() throws { try replay("raw", ParserFuzzing.raw) }
}
