import Foundation
import XCTest
@testable import ForceTrace

/// A serial scale's lines: header, gross/net, sign, weight and unit, and
/// every line that must not become a weight.
final class SerialScaleLineTests: XCTestCase {
    private func parse(_ text: String) -> ScaleReading {
        SerialScaleLine.parse(Array(text.utf8), timeNs: 7)
    }

    private func assertNoWeight(_ reading: ScaleReading, _ status: ScaleStatus, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(reading.grams.isNaN, "grams \(reading.grams)", file: file, line: line)
        XCTAssertEqual(reading.status, status, file: file, line: line)
    }

    func testAnAndDStableGramLine() {
        XCTAssertEqual(parse("ST,+00123.45  g"),
                       ScaleReading(timeNs: 7, grams: 123.45, status: .stable, rawValue: 123.45, rawUnit: "g"))
    }

    func testGrossAndNetFieldsWithTheUnitInItsOwnField() {
        XCTAssertEqual(parse("ST,GS,+  123.4 g"), ScaleReading(timeNs: 7, grams: 123.4, status: .stable, rawValue: 123.4, rawUnit: "g"))
        let net = parse("US,NT,- 12.3,kg")
        XCTAssertEqual(net.grams, -12_300, accuracy: 1e-9)
        XCTAssertEqual(net.status, [.inMotion, .net, .underZero])
        XCTAssertEqual(net.rawValue, -12.3)
        XCTAssertEqual(net.rawUnit, "kg")
    }

    func testUnitsConvertToGrams() {
        for (line, grams) in [("ST,+0002.000 oz", 56.69904625), ("ST,+0001.000 lb", 453.59237), ("ST,+1500.000 mg", 1.5),
                              ("ST,+0001.000 ozt", 31.1034768), ("ST,+0010.000 ct", 2.0), ("ST,+00001.50kg", 1500)] {
            XCTAssertEqual(parse(line).grams, grams, accuracy: 1e-9, line)
            XCTAssertEqual(parse(line).status, .stable, line)
        }
    }

    /// An unstable line keeps its weight and says it is unstable.
    func testUnstableIsFlaggedNotDropped() {
        let reading = parse("US,+00012.30  g")
        XCTAssertEqual(reading.grams, 12.3)
        XCTAssertEqual(reading.status, .inMotion)
    }

    /// Overload carries the display's 999999.9: a naive reader would take it as a weight.
    func testOverloadHasNoWeight() {
        let reading = parse("OL,+999999.9  g")
        assertNoWeight(reading, .overload)
        XCTAssertEqual(reading.rawValue, 999_999.9)
        assertNoWeight(parse("OL"), .overload)
        assertNoWeight(parse("OL,GS"), .overload)
    }

    /// A negative tare (net below zero) keeps its sign and is flagged.
    func testNegativeNetIsUnderZero() {
        let reading = parse("ST,NT,-    5.0 g")
        XCTAssertEqual(reading.grams, -5)
        XCTAssertEqual(reading.status, [.stable, .net, .underZero])
        XCTAssertEqual(parse("ST,+00000.00  g").status, .stable, "zero is not under zero")
    }

    func testLinesThatAreNotWeightsAreUnreadable() {
        for line in ["QT,+00012345PC", "", "ST", "ST,", "ST,+ g", "ST,+12.3.4 g", "XX,+00012.30  g", "ST,+0012.30 g\u{1b}[2J",
                     "ST,+00012.30  g!", "ST,++12 g", "st,+00012.30  g", "ST,+1234567890123 g"] {
            let reading = parse(line)
            XCTAssertTrue(reading.grams.isNaN, line)
            XCTAssertTrue(reading.status.contains(.unreadable), line)
        }
        XCTAssertTrue(SerialScaleLine.parse([0x53, 0x54, 0x2C, 0xFF, 0x31, 0x67], timeNs: 0).status.contains(.unreadable))
    }

    /// A counting or percentage unit, or a force in newtons, is not a mass: no weight, the unit kept.
    func testAUnitThatIsNotAMassKeepsItsNumberButNoWeight() {
        for (line, unit) in [("ST,+0001234.5 PC", "PC"), ("ST,+00123.4  %", ""), ("ST,+00001.23  N", "N")] {
            let reading = parse(line)
            XCTAssertTrue(reading.grams.isNaN, line)
            if unit.isEmpty { XCTAssertEqual(reading.status, [.stable, .unreadable], line); continue }
            XCTAssertEqual(reading.status, [.stable, .unreadable], line)
            XCTAssertEqual(reading.rawUnit, unit, line)
        }
    }

    /// The longest line taken is `maximumLength` bytes; one more is unreadable.
    func testLineLengthBoundary() {
        let body = "ST,+00012.30  g"
        let atLimit = String(repeating: " ", count: SerialScaleLine.maximumLength - body.count) + body
        XCTAssertEqual(parse(atLimit).grams, 12.3)
        XCTAssertTrue(parse(" " + atLimit).status.contains(.unreadable))
    }

    // MARK: The line assembler

    func testLinesAcrossReadsWithCRLFAndEmptyLines() {
        var lines = ScaleLineAssembler()
        XCTAssertEqual(lines.append(Array("ST,+0001".utf8)), [])
        XCTAssertEqual(lines.append(Array("2.30  g\r\n\r\nUS,+0".utf8)), [Array("ST,+00012.30  g".utf8)])
        XCTAssertEqual(lines.append(Array("0001.00  g\n".utf8)), [Array("US,+00001.00  g".utf8)])
    }

    /// An over-long line (a wrong baud rate) is one nil, and the assembler
    /// keeps no more than the limit while it lasts.
    func testAnOverlongLineIsOneNilAndTheNextLineIsRead() {
        var lines = ScaleLineAssembler()
        let exact = [UInt8](repeating: UInt8(ascii: "x"), count: SerialScaleLine.maximumLength)
        XCTAssertEqual(lines.append(exact + [0x0A]), [exact])
        XCTAssertEqual(lines.append([UInt8](repeating: UInt8(ascii: "x"), count: SerialScaleLine.maximumLength + 1)), [])
        XCTAssertEqual(lines.append([UInt8](repeating: 0xAA, count: 100_000)), [])
        XCTAssertEqual(lines.append(Array("\nST,+00001.00  g\n".utf8)), [nil, Array("ST,+00001.00  g".utf8)])
    }

    // MARK: The device argument

    func testScaleAddressTakesARateAfterTheLastColon() throws {
        XCTAssertEqual(try ScaleAddress.parse("/dev/ttyUSB0:19200").get(), ScaleAddress(path: "/dev/ttyUSB0", baud: 19200))
        XCTAssertEqual(try ScaleAddress.parse("/dev/hidraw3").get(), ScaleAddress(path: "/dev/hidraw3", baud: nil))
        XCTAssertEqual(try ScaleAddress.parse("/dev/serial/by-id/usb-x:y").get(), ScaleAddress(path: "/dev/serial/by-id/usb-x:y", baud: nil))
        guard case .failure(let error) = ScaleAddress.parse("/dev/ttyUSB0:9601") else { return XCTFail("9601 accepted") }
        XCTAssertTrue(error.message.hasPrefix("9601 is not a serial rate"), error.message)
    }
}
