import XCTest
@testable import ForceTrace

/// The lanes' table of threshold bins for float curve values, against the
/// rule it stands for (`ThresholdBins.bin` of the value as a double).
final class ThresholdFloatBinsTests: XCTestCase {
    private func tableBin(_ value: Float) -> Int {
        ThresholdBins.FloatTable.shared.withTables { ThresholdBins.FloatTable.bin(value, edgeBits: $0, bucketBins: $1) }
    }

    private func assertSameBin(_ value: Float, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(tableBin(value), ThresholdBins.bin(Double(value)), "\(message): \(value) (bits \(String(value.bitPattern, radix: 16)))",
                       file: file, line: line)
    }

    /// At every edge j/100, the floats on either side of it.
    func testEveryEdgeSplitsTheFloatsWhereTheDoublesDo() {
        for index in 0...ThresholdBins.steps {
            let near = Float(ThresholdBins.threshold(index))
            var below = near, above = near
            for _ in 0..<64 {
                assertSameBin(below, "below edge \(index)")
                assertSameBin(above, "above edge \(index)")
                below = below.nextDown
                above = above.nextUp
            }
        }
    }

    /// The first and last float of every bucket, where the table changes.
    func testBothEndsOfEveryBucketAreInTheirBins() {
        let buckets = UInt32(ThresholdBins.FloatTable.oneBits >> ThresholdBins.FloatTable.shift)
        for bucket in 0..<buckets {
            let first = bucket << ThresholdBins.FloatTable.shift, last = first | ((1 << ThresholdBins.FloatTable.shift) - 1)
            assertSameBin(Float(bitPattern: first), "first of bucket \(bucket)")
            assertSameBin(Float(bitPattern: last), "last of bucket \(bucket)")
        }
    }

    /// Floats spread over 0…1 (one bit pattern in 1021), and the values no bucket holds.
    func testFloatsAcrossTheRangeAndOutsideIt() {
        var bits: UInt32 = 0
        while bits <= ThresholdBins.FloatTable.oneBits {
            assertSameBin(Float(bitPattern: bits), "spread")
            bits += 1021
        }
        let outside: [Float] = [0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, -0.2, -1, 1, Float(1).nextDown, Float(1).nextUp,
                                1.5, 2.1e9, .greatestFiniteMagnitude, .infinity, -.infinity]
        for value in outside { assertSameBin(value, "outside") }
        XCTAssertEqual(tableBin(.nan), 0, "NaN in bin 0, as ThresholdBins.bin puts it")
        XCTAssertEqual(tableBin(-.nan), 0)
        XCTAssertEqual(ThresholdBins.bin(.nan), 0)
    }
}
