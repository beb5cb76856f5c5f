import Foundation
import XCTest
@testable import ForceTrace

/// `JSONWriter.double` keeps the text of doubles by bit pattern
/// (`DoubleTextCache`); what it writes stays Swift's shortest round trip,
/// `description`, whether the text comes from the conversion or the cache.
final class JSONDoubleTextTests: XCTestCase {
    /// Values with their own spellings: signed zero, subnormals, the edges of
    /// the exponent notation (1e16 and 2^53 + 1), the longest texts, and neighbours.
    static let special: [Double] = [
        0, -0.0, 1, -1, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 6.667, 0.6 * 6.667, 0.8, 0.8 * 1.2, 1e15, 1e16, -1e16, 9_007_199_254_740_993,
        1e-5, 1e-4, 0.001, 123456789012345680, 1.7976931348623157e308, -1.7976931348623157e308, Double.leastNormalMagnitude,
        Double.leastNormalMagnitude.nextDown, Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude,
        -2.2250738585072014e-308, 5e-324, 1.0.nextUp, 1.0.nextDown, 0.1.nextUp, 4.35, 100, 1e22, 1e23,
    ]

    /// The document `JSONWriter` writes for `values` as one flat array.
    private func written(_ values: [Double]) -> String {
        var out = JSONWriter()
        out.beginArray(flat: true)
        for value in values { out.double(value) }
        out.endArray()
        return String(decoding: out.finish(), as: UTF8.self)
    }

    private func expected(_ values: [Double]) -> String {
        "[" + values.map { $0.isFinite ? $0.description : "null" }.joined(separator: ", ") + "]\n"
    }

    func testSpecialValuesTwiceAreTheirDescription() {
        // The second round comes from the cache.
        let values = Self.special + Self.special + [.nan, .infinity, -.infinity, -.nan] + Self.special
        XCTAssertEqual(written(values), expected(values))
        XCTAssertTrue(written([-0.0, -0.0]).hasPrefix("[-0.0, -0.0]"))
        XCTAssertTrue(written([1e16, 1e16]).hasPrefix("[1e+16, 1e+16]"))
    }

    /// Random bit patterns (every exponent, subnormals included), each written
    /// several times among many others, so that slots of the table are taken
    /// over by other values between a value's writes.
    func testManyRandomValuesAreTheirDescription() {
        var generator = SeededRandom(seed: 25)
        var pool: [Double] = []
        while pool.count < 20_000 {
            let value = Double(bitPattern: generator.next())
            if value.isFinite { pool.append(value) }
        }
        // Pressure levels as the analysis makes them: raw / span, and times the force scale.
        pool += (0...4095).map { Double($0) / 4095 } + (0...255).map { Double($0) / 255 * UIKitForce.maximumPossibleForce }
        var values: [Double] = []
        for _ in 0..<100_000 { values.append(pool[Int(generator.next() % UInt64(pool.count))]) }
        XCTAssertEqual(written(values), expected(values))
    }

    /// A value and the one whose slot it takes: the second must not read the first's text.
    func testValuesThatShareASlotKeepTheirOwnText() {
        var values: [Double] = []
        for step in 0..<50_000 { values.append(Double(step) * 0.001); values.append(Double(step) * 0.001 + 0.0005) }
        XCTAssertEqual(written(values + values.reversed()), expected(values + values.reversed()))
    }
}
