import Foundation
import XCTest
@testable import ForceTrace

/// Calibration rules whose rule-made mutants (issue 26) XCTest did not pin.
final class CalibrationMutantKillTests: XCTestCase {
    private func pattern(_ name: String) -> String? {
        if case .success(let pattern) = QuirksSection.namePattern(name) { return pattern }
        return nil
    }

    /// MatchName patterns: a blank only at the end becomes "[ ]" (a quirks line
    /// may not end with one); a quote only at the start is escaped; glob
    /// characters always are.
    func testNamePatternEscapesByPosition() {
        XCTAssertEqual(pattern("pad "), "pad[ ]")
        XCTAssertEqual(pattern("a b"), "a b")
        XCTAssertEqual(pattern(" a"), " a")
        XCTAssertEqual(pattern("\"pad\""), "\\\"pad\"")
        XCTAssertEqual(pattern("'pad'"), "\\'pad'")
        XCTAssertEqual(pattern("p*d?[x]\\"), "p\\*d\\?\\[x\\]\\\\")
        XCTAssertNil(pattern("a#b"))
        XCTAssertNil(pattern("a=b"))
    }
}
