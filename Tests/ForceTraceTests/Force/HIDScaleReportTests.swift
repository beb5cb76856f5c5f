import Foundation
import XCTest
@testable import ForceTrace

/// Report descriptors written here from HID 1.11 (items) and the HID Usage
/// Tables' Scales page, and the readings their reports give.
final class HIDScaleReportTests: XCTestCase {
    /// A postal-style scale: report 3 = status selector, unit selector,
    /// Data Scaling (signed byte), Data Weight (16 bits, unsigned).
    static let scale: [UInt8] = [
        0x05, 0x8D,       // Usage Page (Scales)
        0x09, 0x20,       // Usage (Scale Device)
        0xA1, 0x01,       // Collection (Application)
        0x09, 0x32,       //   Usage (Scale Data Report)
        0xA1, 0x02,       //   Collection (Logical)
        0x85, 0x03,       //     Report ID (3)
        0x75, 0x08,       //     Report Size (8)
        0x95, 0x01,       //     Report Count (1)
        0x15, 0x01,       //     Logical Minimum (1)
        0x25, 0x08,       //     Logical Maximum (8)
        0x19, 0x71,       //     Usage Minimum (Scale Status Fault)
        0x29, 0x78,       //     Usage Maximum (Scale Status Requires Rezeroing)
        0x81, 0x00,       //     Input (Data, Array)
        0x25, 0x0C,       //     Logical Maximum (12)
        0x19, 0x51,       //     Usage Minimum (Weight Unit Milligram)
        0x29, 0x5C,       //     Usage Maximum (Weight Unit Pound)
        0x81, 0x00,       //     Input (Data, Array)
        0x15, 0x81,       //     Logical Minimum (-127)
        0x25, 0x7F,       //     Logical Maximum (127)
        0x09, 0x41,       //     Usage (Data Scaling)
        0x81, 0x02,       //     Input (Data, Variable)
        0x75, 0x10,       //     Report Size (16)
        0x15, 0x00,       //     Logical Minimum (0)
        0x27, 0xFF, 0xFF, 0x00, 0x00, // Logical Maximum (65535)
        0x09, 0x40,       //     Usage (Data Weight)
        0x81, 0x02,       //     Input (Data, Variable)
        0xC0,             //   End Collection
        0xC0,             // End Collection
    ]

    /// status 4 (weight stable), unit 2 (gram), scaling -1, weight.
    static func report(status: UInt8 = 4, unit: UInt8 = 2, scaling: Int8 = -1, weight: UInt16) -> [UInt8] {
        [3, status, unit, UInt8(bitPattern: scaling), UInt8(weight & 0xFF), UInt8(weight >> 8)]
    }

    private func scaleReport(_ bytes: [UInt8] = scale) throws -> HIDScaleReport {
        try HIDScaleReport(HIDReportDescriptor(bytes, name: "/dev/hidraw9"), name: "/dev/hidraw9")
    }

    func testTheDescriptorsFields() throws {
        let descriptor = try HIDReportDescriptor(Self.scale, name: "d")
        XCTAssertTrue(descriptor.usesReportIDs)
        XCTAssertEqual(descriptor.inputFields.map(\.bitOffset), [0, 8, 16, 24])
        XCTAssertEqual(descriptor.inputFields.map(\.size), [8, 8, 8, 16])
        XCTAssertEqual(descriptor.inputFields.map(\.logicalMinimum), [1, 1, -127, 0])
        XCTAssertEqual(descriptor.inputFields.map(\.logicalMaximum), [8, 12, 127, 65535])
        XCTAssertEqual(descriptor.inputFields[3].collections, [0x8D0020, 0x8D0032])
        XCTAssertEqual(descriptor.inputReportBytes, [3: 5])
    }

    func testAStableWeightInGramsWithItsScaling() throws {
        let reading = try XCTUnwrap(scaleReport().reading(Self.report(weight: 1234), timeNs: 5))
        XCTAssertEqual(reading.grams, 123.4, accuracy: 1e-9)
        XCTAssertEqual(reading.status, .stable)
        XCTAssertEqual(reading.rawValue, 123.4, accuracy: 1e-9)
        XCTAssertEqual(reading.rawUnit, "g")
        XCTAssertEqual(reading.timeNs, 5)
    }

    /// Unit 11 is the eleventh selector from 0x51: 0x5B, the ounce.
    func testOuncesAndKilogramsBecomeGrams() throws {
        let ounces = try XCTUnwrap(scaleReport().reading(Self.report(unit: 11, weight: 25), timeNs: 0))
        XCTAssertEqual(ounces.grams, 2.5 * 28.349523125, accuracy: 1e-9)
        XCTAssertEqual(ounces.rawUnit, "oz")
        let kilograms = try XCTUnwrap(scaleReport().reading(Self.report(unit: 3, scaling: -3, weight: 1500), timeNs: 0))
        XCTAssertEqual(kilograms.grams, 1500, accuracy: 1e-9)
    }

    func testEveryStatusSelector() throws {
        let expected: [UInt8: ScaleStatus] = [
            2: [.stable, .stableAtZero], 3: .inMotion, 4: .stable, 7: .requiresCalibration, 8: .requiresRezeroing,
        ]
        for (code, status) in expected {
            let reading = try XCTUnwrap(scaleReport().reading(Self.report(status: code, weight: 100), timeNs: 0))
            XCTAssertEqual(reading.status, status, "status \(code)")
            XCTAssertEqual(reading.grams, 10, accuracy: 1e-9, "status \(code)")
        }
    }

    /// Over weight and fault still carry a number in Data Weight; it is not a weight.
    func testOverWeightAndFaultHaveNoWeight() throws {
        for (code, status) in [(UInt8(6), ScaleStatus.overload), (1, .fault)] {
            let reading = try XCTUnwrap(scaleReport().reading(Self.report(status: code, weight: 65535), timeNs: 0))
            XCTAssertTrue(reading.grams.isNaN, "status \(code)")
            XCTAssertEqual(reading.status, status)
            XCTAssertEqual(reading.rawValue, 6553.5, accuracy: 1e-9)
        }
    }

    /// Under zero in an unsigned field is the size of a negative weight.
    func testUnderZeroIsNegative() throws {
        let reading = try XCTUnwrap(scaleReport().reading(Self.report(status: 5, weight: 50), timeNs: 0))
        XCTAssertEqual(reading.grams, -5, accuracy: 1e-9)
        XCTAssertEqual(reading.status, .underZero)
    }

    /// Unit 0 is below the logical minimum: no selection, so no unit and no weight; 12 is the pound, 13 none.
    func testAReportWithoutAUnitHasNoWeight() throws {
        for unit: UInt8 in [0, 13] {
            let reading = try XCTUnwrap(scaleReport().reading(Self.report(unit: unit, weight: 100), timeNs: 0))
            XCTAssertTrue(reading.grams.isNaN, "unit \(unit)")
            XCTAssertEqual(reading.status, [.stable, .unreadable])
        }
        XCTAssertEqual(try XCTUnwrap(scaleReport().reading(Self.report(unit: 12, scaling: 0, weight: 1), timeNs: 0)).grams, 453.59237)
        // Taels (0x55, unit 5) differ by region: not converted.
        XCTAssertTrue(try XCTUnwrap(scaleReport().reading(Self.report(unit: 5, weight: 1), timeNs: 0)).grams.isNaN)
    }

    func testAShortReportIsUnreadableAndAnotherReportIsSkipped() throws {
        let short = try XCTUnwrap(scaleReport().reading([3, 4, 2, 0xFF, 0x10], timeNs: 0))
        XCTAssertTrue(short.grams.isNaN)
        XCTAssertTrue(short.status.contains(.unreadable))
        XCTAssertNil(try scaleReport().reading([4, 4, 2, 0xFF, 0x10, 0], timeNs: 0))
        XCTAssertNil(try scaleReport().reading([], timeNs: 0))
    }

    /// Without Data Scaling in the report, the item's Unit Exponent scales
    /// the weight: the nibble 0xE is -2. A signed weight field sign-extends.
    func testUnitExponentAndASignedWeightWithoutReportIDs() throws {
        let bytes: [UInt8] = [
            0x05, 0x8D, 0x09, 0x20, 0xA1, 0x01,
            0x75, 0x08, 0x95, 0x01, 0x15, 0x01, 0x25, 0x0C, 0x19, 0x51, 0x29, 0x5C, 0x81, 0x00, // unit
            0x55, 0x0E,                                                                      // Unit Exponent (-2)
            0x75, 0x18, 0x16, 0x00, 0x80, 0x26, 0xFF, 0x7F, 0x09, 0x40, 0x81, 0x02,           // 24-bit weight, -32768...32767
            0xC0,
        ]
        let report = try scaleReport(bytes)
        XCTAssertFalse(report.usesReportIDs)
        XCTAssertEqual(report.unitExponent, -2)
        let positive = try XCTUnwrap(report.reading([2, 0x39, 0x30, 0x00], timeNs: 0))
        XCTAssertEqual(positive.grams, 123.45, accuracy: 1e-9)
        let negative = try XCTUnwrap(report.reading([2, 0xFE, 0xFF, 0xFF], timeNs: 0))
        XCTAssertEqual(negative.grams, -0.02, accuracy: 1e-12)
        XCTAssertEqual(negative.status, .underZero)
    }

    /// The kernel's rule: with a minimum of 0 a two-byte maximum 0xFFFF is 65535, with a negative one it is -1.
    func testLogicalMaximumIsSignedOnlyAfterANegativeMinimum() throws {
        let unsigned = try HIDReportDescriptor([0x05, 0x8D, 0x15, 0x00, 0x26, 0xFF, 0xFF, 0x75, 0x10, 0x95, 0x01, 0x09, 0x40, 0x81, 0x02], name: "d")
        XCTAssertEqual(unsigned.inputFields[0].logicalMaximum, 65535)
        let signed = try HIDReportDescriptor([0x05, 0x8D, 0x15, 0xFF, 0x26, 0xFF, 0xFF, 0x75, 0x10, 0x95, 0x01, 0x09, 0x40, 0x81, 0x02], name: "d")
        XCTAssertEqual(signed.inputFields[0].logicalMaximum, -1)
    }

    func testANonScaleDescriptorSaysSo() {
        // A three-button mouse's first items: Generic Desktop, no Scales page.
        let mouse: [UInt8] = [0x05, 0x01, 0x09, 0x02, 0xA1, 0x01, 0x05, 0x09, 0x19, 0x01, 0x29, 0x03, 0x15, 0x00, 0x25, 0x01,
                              0x95, 0x03, 0x75, 0x01, 0x81, 0x02, 0x95, 0x01, 0x75, 0x05, 0x81, 0x03, 0xC0]
        XCTAssertThrowsError(try scaleReport(mouse)) { error in
            XCTAssertTrue("\(error)".hasPrefix("/dev/hidraw9: has no Data Weight (HID usage 0x8D:0x40)"), "\(error)")
        }
    }

    // MARK: Bounds and damage

    private func assertRejected(_ bytes: [UInt8], _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try HIDReportDescriptor(bytes, name: "/dev/hidraw9"), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
    }

    func testDescriptorSizeLimitAtTheKernelsBound() throws {
        // 4096 bytes of Usage Page items is a descriptor without fields; one more byte is refused.
        let padding = [UInt8](repeating: 0, count: 4096 - 2 * 2048) + [UInt8](Array(repeating: [0x05, 0x8D], count: 2048).joined())
        XCTAssertEqual(try HIDReportDescriptor(padding, name: "d").inputFields.count, 0)
        assertRejected(padding + [0x05], "4097 bytes, over the kernel's limit of 4096")
    }

    func testDamagedDescriptors() {
        assertRejected(Array(Self.scale.dropLast()), "1 collection(s) not ended")
        assertRejected([0x27, 0xFF, 0xFF], "at byte 0: HID report descriptor: item 0x27 cut short")
        assertRejected([0xC0], "End Collection without a Collection")
        assertRejected([0xB4], "Pop without a Push")
        assertRejected([0xFE, 0x05, 0x00, 0x01], "long item cut short")
        assertRejected([0x85, 0x00], "Report ID 0 (1 to 255)")
        assertRejected([0x09, 0x40, 0x75, 0x08, 0x95, 0x01, 0x81, 0x02, 0x85, 0x01], "an input item before the first Report ID")
        assertRejected([0x19, 0x05, 0x29, 0x01, 0x75, 0x08, 0x95, 0x01, 0x81, 0x00], "Usage Minimum above Usage Maximum")
        assertRejected([0x75, 0x21, 0x95, 0x01, 0x81, 0x02], "a data field of 33 bits")
        assertRejected([0x75, 0x08, 0x96, 0x00, 0x10, 0x81, 0x02, 0x95, 0x01, 0x81, 0x02], "input report over 4096 bytes")
    }

    /// 32 nested collections are read; the 33rd is refused. Push likewise at 16.
    func testNestingBounds() throws {
        let open = Array(repeating: [UInt8]([0xA1, 0x02]), count: 32).joined()
        let close = Array(repeating: UInt8(0xC0), count: 32)
        XCTAssertNoThrow(try HIDReportDescriptor(Array(open) + close, name: "d"))
        assertRejected(Array(open) + [0xA1, 0x02] + close + [0xC0], "collections nested over 32 deep")
        let push = Array(repeating: UInt8(0xA4), count: 16)
        XCTAssertNoThrow(try HIDReportDescriptor(push + Array(repeating: UInt8(0xB4), count: 16), name: "d"))
        assertRejected(push + [0xA4], "Push over 16 deep")
    }

    /// 256 data fields are kept; the 257th is refused, so a small descriptor cannot make a large table.
    func testFieldCountBound() throws {
        let field: [UInt8] = [0x81, 0x02]
        let head: [UInt8] = [0x75, 0x01, 0x95, 0x01, 0x09, 0x40]
        let many = Array(repeating: head + field, count: 256).joined()
        XCTAssertEqual(try HIDReportDescriptor(Array(many), name: "d").inputFields.count, 256)
        assertRejected(Array(many) + head + field, "more than 256 input fields")
    }
}
