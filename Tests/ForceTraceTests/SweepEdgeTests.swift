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
}
