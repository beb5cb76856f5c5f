import Foundation
import XCTest
@testable import ForceTrace

/// The strict JSON reader for untrusted inputs: RFC 8259 and nothing more,
/// its limits at their boundaries, and errors with the byte offset and path.
final class JSONReaderTests: XCTestCase {
    private let roomy = JSONReader.Limits(maximumBytes: 1 << 20, maximumDepth: 8, maximumValues: 1000)

    private func parse(_ text: String, _ limits: JSONReader.Limits? = nil) throws -> JSONValue {
        try JSONReader.parse(Array(text.utf8), file: "in.json", limits: limits ?? roomy)
    }

    private func assertFails(_ text: String, _ expected: String, _ limits: JSONReader.Limits? = nil,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(text, limits), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(expected), "\(error)", file: file, line: line)
        }
    }

    func testReadsValuesKeysInOrderAndEscapes() throws {
        let value = try parse(#" {"b": [1, -2.5e3, 0, true, false, null], "a": "x\u00e9\ud83d\ude00\n\/"} "#)
        guard case .object(let object) = value else { return XCTFail("\(value)") }
        XCTAssertEqual(object.keys, ["b", "a"])
        XCTAssertEqual(object["b"], .array([.number(1), .number(-2500), .number(0), .bool(true), .bool(false), .null]))
        XCTAssertEqual(object["a"], .string("xé😀\n/"))
        XCTAssertEqual(try parse("\u{feff}[]"), .array([]), "a leading byte-order mark is skipped")
    }

    func testRefusesWhatRFC8259Refuses() {
        assertFails(#"{"a": 1,}"#, "in.json: at byte 8: $: expected a key in double quotes, found '}'")
        assertFails("[1, 2,]", "at byte 6: $[2]: expected a value, found ']'")
        assertFails(#"{"a": 1, "a": 2}"#, "$: the key 'a' appears twice")
        assertFails("[01]", "$[0]: a number with a leading zero")
        assertFails("[NaN]", "$[0]: expected a value, found 'N'")
        assertFails("[1e999]", "$[0]: a number beyond the range of a double")
        assertFails("[1.]", "expected a digit after the decimal point")
        assertFails(#"["\ud800"]"#, "a lone high surrogate")
        assertFails(#"["\udc00"]"#, "a lone low surrogate")
        assertFails("[\"a\u{1}\"]", "a control character (byte 0x1) inside a string")
        assertFails(#"["\q"]"#, #"unknown escape \'q'"#)
        assertFails("[1] [2]", "text after the JSON value")
        assertFails(#"{"x": {"y z": [1, }]}}"#, "$.x['y z'][1]: expected a value, found '}'")
        assertFails("", "expected a value, found the end of the file")
        XCTAssertThrowsError(try JSONReader.parse([0x5b, 0x22, 0xff, 0x22, 0x5d], file: "in.json", limits: roomy)) { error in
            XCTAssertTrue("\(error)".contains("$[0]: a string is not valid UTF-8"), "\(error)")
        }
    }

    func testLimitsHoldAtTheirBoundaries() throws {
        let deep = JSONReader.Limits(maximumBytes: 100, maximumDepth: 3, maximumValues: 5)
        XCTAssertNoThrow(try parse("[[[1]]]", deep), "three levels, four values")
        assertFails("[[[[]]]]", "nested deeper than 3 levels", deep)
        XCTAssertNoThrow(try parse("[1,2,3,4]", deep), "five values")
        assertFails("[1,2,3,4,5]", "more than 5 values", deep)
        XCTAssertNoThrow(try parse(String(repeating: " ", count: 98) + "[]", deep))
        assertFails(String(repeating: " ", count: 99) + "[]", "is 101 bytes; JSON inputs of at most 100 bytes are read", deep)
    }
}
