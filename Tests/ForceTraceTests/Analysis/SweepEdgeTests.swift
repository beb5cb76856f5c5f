import Foundation
import XCTest
@testable import ForceTrace

/// The labelled threshold sweep at the edges of its grid, 0.01 ≤ peek < pop ≤ 1.00.
final class SweepEdgeTests: XCTestCase {
    /// Taps at 0.00, peek-presses at 0.01 and 0.99, pop-presses at 1.00: only
    /// peek 0.01 (tap bin 0 < 1 ≤ bin 1) with pop 1.00 (bin 99 < 100 ≤ bin 100)
    /// classifies all four, so it is the one pair of balanced accuracy 1.
    func testPeekAtTheFirstStepAndPopAtTheLast() throws {
        var bins = [ThresholdBins](repeating: ThresholdBins(), count: 3)
        bins[PressClass.tap.index].add(0)
        bins[PressClass.peekPress.index].add(0.01)
        bins[PressClass.peekPress.index].add(0.99)
        bins[PressClass.popPress.index].add(1)
        let suggestion = try XCTUnwrap(ThresholdSuggestion.fromLabels(bins))
        XCTAssertEqual(suggestion.peek, 0.01)
        XCTAssertEqual(suggestion.pop, 1)
        XCTAssertEqual(suggestion.tiedPairs, 1)
        XCTAssertEqual(suggestion.balancedAccuracy, 1)
    }

    /// `ThresholdBins.bin` (a truncated first guess, then the edges from a
    /// table) is the largest j with j/100 ≤ value, as the division-based
    /// definition gives: on every edge and its neighbouring doubles and
    /// floats, below 0, above 1, -0.0, subnormals, infinities, NaN, huge
    /// values, and random doubles and floats.
    func testBinIsTheLargestEdgeAtOrBelow() {
        func reference(_ value: Double) -> Int {
            guard value.isFinite else { return value > 0 ? ThresholdBins.steps : 0 }
            return (0...ThresholdBins.steps).last { Double($0) / Double(ThresholdBins.steps) <= value } ?? 0
        }
        var values: [Double] = [0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
                                .infinity, -.infinity, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e300, -1e300, 2, -1]
        for j in 0...ThresholdBins.steps {
            let edge = Double(j) / 100
            values += [edge, edge.nextUp, edge.nextDown, Double(Float(edge)), Double(Float(edge).nextUp), Double(Float(edge).nextDown)]
        }
        var generator = SystemRandomNumberGenerator()
        values += (0..<20_000).map { _ in Double.random(in: -0.05...1.05, using: &generator) }
        values += (0..<20_000).map { _ in Double(Float.random(in: 0...1, using: &generator)) }
        for value in values {
            XCTAssertEqual(ThresholdBins.bin(value), reference(value), "\(value)")
        }
    }

    /// Natural breaks need three occupied bins: exactly three (bins 20, 50,
    /// 80) give one class each, each threshold in the middle of the empty
    /// gap below its class: bins 21-49 and 51-79, so peek 0.35 and pop 0.65;
    /// two give none.
    func testNaturalBreaksFromThreeOccupiedBins() throws {
        var three = ThresholdBins()
        [0.2, 0.5, 0.8].forEach { three.add($0) }
        let breaks = try XCTUnwrap(ThresholdSuggestion.naturalBreaks(three))
        XCTAssertEqual(breaks.peek, 0.35, accuracy: 1e-12)
        XCTAssertEqual(breaks.pop, 0.65, accuracy: 1e-12)
        var two = ThresholdBins()
        [0.2, 0.5].forEach { two.add($0) }
        XCTAssertNil(ThresholdSuggestion.naturalBreaks(two))
    }

    /// Labels with no contacts do not count: with taps at 0.2 and peeks at
    /// 0.7 and no pops, a peek threshold between them and a pop threshold
    /// above 0.7 get both present classes right, balanced accuracy
    /// (1 + 1) / 2 = 1, not NaN from the empty class's 0/0.
    func testAnEmptyLabelClassIsLeftOutOfTheAccuracy() throws {
        var bins = [ThresholdBins](repeating: ThresholdBins(), count: 3)
        for _ in 0..<3 { bins[0].add(0.2); bins[1].add(0.7) }
        let suggestion = try XCTUnwrap(ThresholdSuggestion.fromLabels(bins))
        XCTAssertEqual(suggestion.balancedAccuracy, 1.0)
        XCTAssertGreaterThan(suggestion.peek, 0.2)
        XCTAssertLessThanOrEqual(suggestion.peek, 0.7)
        XCTAssertGreaterThan(suggestion.pop, 0.7)
    }
}
