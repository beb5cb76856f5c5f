import Foundation
import XCTest
@testable import ForceTrace

/// The XML tokenizer InkML reads through, at its bounds: NUL bytes, a tag
/// cut after an attribute's name, and the attribute count.
final class XMLTokensTests: XCTestCase {
    private func tokens(_ text: String) throws -> [XMLTokens.Token] {
        var reader = XMLTokens(Array(text.utf8), file: "doc.xml")
        var found: [XMLTokens.Token] = []
        while let token = try reader.next() { found.append(token) }
        return found
    }

    func testANulByteInTextIsRefusedAndOtherBytesAreText() throws {
        XCTAssertThrowsError(try tokens("<a>x\u{0}y</a>")) { XCTAssertTrue("\($0)".contains("a NUL byte"), "\($0)") }
        XCTAssertNoThrow(try tokens("<a>x\u{1}y</a>"))
    }

    func testATagCutAfterAnAttributeNameIsRefusedByName() {
        XCTAssertThrowsError(try tokens("<a b")) { XCTAssertTrue("\($0)".contains("expected '=' after the attribute 'b'"), "\($0)") }
        XCTAssertThrowsError(try tokens("<a b ")) { XCTAssertTrue("\($0)".contains("expected '=' after the attribute 'b'"), "\($0)") }
    }

    func testSixtyFourAttributesAreReadAndSixtyFiveAreNot() throws {
        func tag(_ count: Int) -> String { "<a " + (0..<count).map { "n\($0)=\"\($0)\"" }.joined(separator: " ") + "/>" }
        XCTAssertNoThrow(try tokens(tag(XMLTokens.maximumAttributes)))
        XCTAssertEqual(XMLTokens.maximumAttributes, 64)
        XCTAssertThrowsError(try tokens(tag(65))) { XCTAssertTrue("\($0)".contains("more than 64 attributes on '<a>'"), "\($0)") }
    }
}
