import Foundation
import XCTest
@testable import ForceTrace

/// evemu-record's own line layout, read by fixed places, against the
/// field-by-field parse of any plain line.
final class EvemuEventLineTests: XCTestCase {
    private func strict(_ line: [UInt8]) -> InputEvent? { line.withUnsafeBufferPointer(Evemu.recordLayoutEvent) }
    private func plain(_ line: [UInt8]) -> InputEvent? { line.withUnsafeBufferPointer(Evemu.plainEvent) }

    /// Every line the fixed-place reader takes, the plain parser reads as
    /// the same event: evemu-record's lines, and each of them with one byte
    /// changed or cut. Most written lines must take the fixed path, or it
    /// buys nothing.
    func testRecordLayoutGivesThePlainParsersEventForEveryLineItTakes() {
        var random = SeededRandom(seed: 7)
        let hexDigits = Array("0123456789abcdefABCDEF".utf8)
        let odd = Array("/:@`gG.-+ \t\0x".utf8) + [0x7f, 0x80, 0xff]
        var written = 0, taken = 0, takenChanged = 0
        for _ in 0..<4000 {
            // 1 to 10 digits, as many lines of each length.
            let length = Int.random(in: 1...10, using: &random)
            let seconds = String(UInt64.random(in: 0..<min(9_000_000_000, (1...length).reduce(1) { value, _ in value * 10 }), using: &random))
            let fraction = String(format: "%06u", UInt32.random(in: 0...999_999, using: &random))
            func hex() -> String { String(decoding: (0..<4).map { _ in hexDigits.randomElement(using: &random)! }, as: UTF8.self) }
            let value = [String(Int32.random(in: .min ... .max, using: &random)), String(Int.random(in: -9...9, using: &random)),
                         "+" + String(Int.random(in: 0...99, using: &random))].randomElement(using: &random)!
            let line = Array("E: \(seconds).\(fraction) \(hex()) \(hex()) \(value)".utf8)
            written += 1
            let event = strict(line)
            if event != nil { taken += 1 }
            XCTAssertEqual(event, plain(line), String(decoding: line, as: UTF8.self))
            var changed = line
            let place = Int.random(in: 0..<changed.count, using: &random)
            if Bool.random(using: &random) {
                changed[place] = odd.randomElement(using: &random)!
            } else {
                changed.removeSubrange(place...)
            }
            if let event = strict(changed) {
                takenChanged += 1
                XCTAssertEqual(event, plain(changed), String(decoding: changed, as: UTF8.self))
            }
        }
        XCTAssertEqual(taken, written)
        XCTAssertGreaterThan(takenChanged, 0)
    }

    /// The six fraction digits and the four hex digits of type and code
    /// stop at the bytes either side of their ranges: '/' and ':' around
    /// the digits, '@' and 'G', '`' and 'g' around the letters.
    func testRecordLayoutDigitsStopAtTheirRangesEnds() throws {
        let line = Array("E: 12.345678 0003 0035 7".utf8)
        XCTAssertEqual(strict(line), InputEvent(timeNs: 12_345_678_000, type: 3, code: 0x35, value: 7))
        for place in 6...11 {
            for (byte, digit) in [(UInt8(ascii: "0"), 0), (UInt8(ascii: "9"), 9)] {
                var edge = line
                edge[place] = byte
                let expected = try XCTUnwrap(plain(edge))
                XCTAssertEqual(strict(edge), expected)
                XCTAssertEqual(expected.timeNs / 1000 % 1_000_000 / Int64(pow(10, Double(11 - place))) % 10, Int64(digit))
            }
            for byte in Array("/:".utf8) {
                var outside = line
                outside[place] = byte
                XCTAssertNil(strict(outside), String(decoding: outside, as: UTF8.self))
            }
        }
        for place in [13, 14, 15, 16, 18, 19, 20, 21] {
            for (byte, digit) in [("0", 0), ("9", 9), ("a", 10), ("f", 15), ("A", 10), ("F", 15)] {
                var edge = line
                edge[place] = UInt8(ascii: Unicode.Scalar(byte)!)
                let event = try XCTUnwrap(strict(edge), String(decoding: edge, as: UTF8.self))
                XCTAssertEqual(event, plain(edge))
                let field = place < 18 ? event.type : event.code
                XCTAssertEqual(Int(field >> (4 * (3 - (place - (place < 18 ? 13 : 18))))) & 0xf, digit)
            }
            for byte in Array("/:@G`g".utf8) {
                var outside = line
                outside[place] = byte
                XCTAssertNil(strict(outside), String(decoding: outside, as: UTF8.self))
                XCTAssertNil(plain(outside), String(decoding: outside, as: UTF8.self))
            }
        }
    }

    /// The seconds take 1 to 10 digits below 9 000 000 000 (so that the
    /// time in nanoseconds fits an Int64), eight of them read as one word
    /// and the rest one by one; the value takes Int32's range. Each bound
    /// on both sides, on the fixed places, as the plain parse reads them.
    func testRecordLayoutSecondsAndValueStopAtTheirBounds() throws {
        func line(_ seconds: String, _ value: String = "7") -> [UInt8] { Array("E: \(seconds).000000 0003 0035 \(value)".utf8) }
        let taken: [(String, String, Int64, Int32)] = [
            ("8999999999", "7", 8_999_999_999, 7), ("0000000001", "7", 1, 7), ("12345678", "7", 12_345_678, 7),
            ("123456789", "7", 123_456_789, 7), ("1234567", "7", 1_234_567, 7), ("5", "2147483647", 5, .max), ("5", "-2147483648", 5, .min),
        ]
        for (seconds, value, whole, expected) in taken {
            let written = line(seconds, value)
            let event = try XCTUnwrap(strict(written), String(decoding: written, as: UTF8.self))
            XCTAssertEqual(event, InputEvent(timeNs: whole * 1_000_000_000, type: 3, code: 0x35, value: expected))
            XCTAssertEqual(plain(written), event)
        }
        for (seconds, value) in [("9000000000", "7"), ("00000000001", "7"), ("5", "2147483648"), ("5", "-2147483649")] {
            let written = line(seconds, value)
            XCTAssertNil(strict(written), String(decoding: written, as: UTF8.self))
            XCTAssertNil(plain(written), String(decoding: written, as: UTF8.self))
        }
    }

    /// Neither parse reads past the end of its memory, the 8-byte reads of
    /// the fixed places included: every prefix of a line (each cut in a
    /// field, after it, in a blank) ends at the last byte of a page whose
    /// next page is unreadable, and parses as it does in a plain buffer. A
    /// read of one byte more is a segmentation fault here.
    func testTheEventLineIsReadNoFurtherThanItsMemory() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let base = try XCTUnwrap(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        XCTAssertNotEqual(base, MAP_FAILED)
        defer { munmap(base, 2 * page) }
        XCTAssertEqual(mprotect(base + page, page, PROT_NONE), 0)
        var takenWhole = 0
        for text in ["E:\t1.000001 0003 0035 -7 \t", "E: 1764400000.208171 0003 0035 1234", "E: 0.000000 0000 0000 0",
                     "E: 5.000001 0003 0039 -1 "] {
            let line = Array(text.utf8)
            for count in 0...line.count {
                let start = (base + page - count).assumingMemoryBound(to: UInt8.self)
                line[..<count].withUnsafeBufferPointer { start.update(from: $0.baseAddress!, count: count) }
                let atTheEnd = UnsafeBufferPointer(start: start, count: count), plainCopy = Array(line[..<count])
                let shown = String(decoding: plainCopy, as: UTF8.self)
                XCTAssertEqual(Evemu.fastEvent(atTheEnd), plainCopy.withUnsafeBufferPointer(Evemu.fastEvent), shown)
                let fixed = Evemu.recordLayoutEvent(atTheEnd)
                XCTAssertEqual(fixed, strict(plainCopy), shown)
                if count == line.count && fixed != nil { takenWhole += 1 }
            }
        }
        XCTAssertEqual(takenWhole, 3, "evemu-record's lines take the fixed places")
    }
}
