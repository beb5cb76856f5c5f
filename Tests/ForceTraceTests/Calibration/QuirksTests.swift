import Foundation
import XCTest
@testable import ForceTrace

/// Quirks sections: MatchName patterns and comment lines.
final class QuirksTests: XCTestCase {
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

    /// A device name holding U+FFFD (bytes that were not UTF-8) cannot be
    /// matched by a quirks MatchName: the name's real bytes are unknown.
    /// U+FFFC and U+FFFE beside it are ordinary characters.
    func testReplacementCharacterMakesTheNameUnusable() {
        XCTAssertEqual(QuirksSection.namePattern("pad \u{FFFD}x"), .failure(.notUTF8))
        XCTAssertEqual(QuirksSection.namePattern("pad \u{FFFC}x"), .success("pad \u{FFFC}x"))
        XCTAssertEqual(QuirksSection.namePattern("pad \u{FFFE}x"), .success("pad \u{FFFE}x"))
    }

    /// A comment longer than libinput's 510-byte line is cut to the pieces
    /// that fit with "..." after them: "# " + 505 "a" + "..." is 510 bytes;
    /// a line that fits is kept whole (508 "a" after "# ").
    func testLongQuirksCommentIsCutToTheLine() {
        var long = QuirksSection()
        long.comment(String(repeating: "a", count: 600))
        XCTAssertEqual(long.text, "# " + String(repeating: "a", count: 505) + "...\n")
        var fits = QuirksSection()
        fits.comment(String(repeating: "a", count: 508))
        XCTAssertEqual(fits.text, "# " + String(repeating: "a", count: 508) + "\n")
        var over = QuirksSection()
        over.comment(String(repeating: "a", count: 509))
        XCTAssertEqual(over.text, "# " + String(repeating: "a", count: 505) + "...\n")
    }
}
