import XCTest
@testable import ForceTrace

/// `suggest`'s touchpad and pen derivations (docs/ANALYSIS.md, "Calibration")
/// at each margin's boundary, from hand-chosen peaks; the expected values are
/// worked out in the comments.
final class QuirksMarginTests: XCTestCase {
    private let touchpadAxis = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255)
    private let penAxis = AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 4095)

    private func trials(_ peaks: [TrialClass: [Int32]]) -> [LabelledTrial] {
        peaks.flatMap { trialClass, values in values.map { LabelledTrial(trialClass: trialClass, peak: $0, startNs: 0) } }
    }

    private func touchpad(_ peaks: [TrialClass: [Int32]], axis: AxisInfo? = nil) throws -> CalibrationSuggestion.Touchpad {
        try XCTUnwrap(CalibrationSuggestion(protocol: .touchpad, trials: trials(peaks), device: CalibrationSimulator.device(.touchpad),
                                            axis: axis ?? touchpadAxis, file: "f.h5", recording: "r").touchpad)
    }

    private func pen(_ peaks: [TrialClass: [Int32]]) throws -> CalibrationSuggestion.Pen {
        try XCTUnwrap(CalibrationSuggestion(protocol: .pen, trials: trials(peaks), device: CalibrationSimulator.device(.pen),
                                            axis: penAxis, file: "f.h5", recording: "r").pen)
    }

    /// N = lowest light − max(1, round(10 % of it above the minimum)); left out when N ≤ the minimum.
    /// M = max(minimum, N − h), h = round(255 × 2 %) = round(5.1) = 5.
    func testBeginMarginAndEnd() throws {
        // 25: 2.5 rounds away from zero to 3: N 22, M 17.
        var pad = try touchpad([.light: [25, 40]])
        XCTAssertEqual(pad.begin.value, 22)
        XCTAssertEqual(pad.end.value, 17)
        // 4: 0.4 rounds to 0, at least 1: N 3; M 3 − 5 is below 0: 0.
        pad = try touchpad([.light: [4]])
        XCTAssertEqual(pad.begin.value, 3)
        XCTAssertEqual(pad.end.value, 0)
        // 2: N 1, one above the minimum: kept.
        XCTAssertEqual(try touchpad([.light: [2]]).begin.value, 1)
        // 1: N would be 0, the minimum itself: left out, and M with it.
        pad = try touchpad([.light: [1]])
        XCTAssertNil(pad.begin.value)
        XCTAssertNil(pad.end.value)
        // The same edges on an axis 10..265: 12 → N 11, kept; 11 → N 10, left out; M clamps at 10.
        let shifted = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 10, maximum: 265)
        pad = try touchpad([.light: [12]], axis: shifted)
        XCTAssertEqual(pad.begin.value, 11)
        XCTAssertEqual(pad.end.value, 10)
        XCTAssertNil(try touchpad([.light: [11]], axis: shifted).begin.value)
    }

    /// P and O: "pressure > t" is the upper class; without overlap the middle of the gap, lowerMax + (upperMin − 1 − lowerMax) / 2.
    func testThumbAndPalmThresholdsAtTheGapEdges() throws {
        // Touches up to 100, thumbs from 101: no gap, P = 100 + 0 / 2 = 100.
        // Palms from 112 over thumbs up to 101: O = 101 + (111 − 101) / 2 = 106.
        var pad = try touchpad([.light: [40], .normal: [100], .thumb: [101], .palm: [112]])
        XCTAssertEqual(pad.thumb.value, 100)
        XCTAssertEqual(pad.palm.value, 106)
        XCTAssertEqual(pad.thumbSeparation?.balancedAccuracy, 1)
        XCTAssertEqual(pad.thumbSeparation?.overlaps, false)
        // Touches up to 100, thumbs from 100: they share a value, so they overlap; P is left out.
        pad = try touchpad([.light: [40], .normal: [100], .thumb: [100, 150]])
        XCTAssertEqual(pad.thumbSeparation?.overlaps, true)
        XCTAssertNil(pad.thumb.value)
    }

    /// Overlapping classes, lower 10, 20, 30 and upper 25, 40. Candidates are
    /// each peak and the value below it; balanced accuracy (lower ≤ t, upper > t):
    ///   t   9    10   19   20   24   25   29   30   39   40
    ///      1/2  2/3  2/3  5/6  5/6  7/12 7/12 3/4  3/4  1/2
    /// Best 5/6 at 20 and 24: the middle of the two, index (2 − 1) / 2 = 0, is 20.
    func testOverlapPicksTheMiddleOfTheTiedThresholds() throws {
        let pad = try touchpad([.light: [10], .normal: [20, 30], .thumb: [25, 40]])
        let separation = try XCTUnwrap(pad.thumbSeparation)
        XCTAssertEqual(separation.threshold, 20)
        XCTAssertEqual(separation.balancedAccuracy, 5.0 / 6, accuracy: 1e-12)
        XCTAssertEqual([separation.lowerMax, separation.upperMin], [30, 25])
        guard case .omitted(let reason) = pad.thumb else { return XCTFail("an overlap must leave P out") }
        XCTAssertTrue(reason.contains("the best threshold, 20, separates them with balanced accuracy 0.83"), reason)
    }

    /// tip = lowest light − 1, only when above the hover noise; release = min(tip − 1, max(tip − h, noise + 1)),
    /// h = round(4095 × 4 %) = round(163.8) = 164.
    func testPenTipAboveTheHoverNoise() throws {
        // Hover up to 50, light from 51: tip 50 is not above 50: left out.
        XCTAssertNil(try pen([.hover: [50], .strokeLight: [51]]).tip.value)
        // Light from 52: tip 51; release min(50, max(−113, 51)) = 50.
        var result = try pen([.hover: [50], .strokeLight: [52]])
        XCTAssertEqual(result.tip.value, 51)
        XCTAssertEqual(result.release.value, 50)
        // Light from 400: tip 399, release 399 − 164 = 235.
        result = try pen([.hover: [50], .strokeLight: [400, 900]])
        XCTAssertEqual(result.tip.value, 399)
        XCTAssertEqual(result.release.value, 235)
        // Hover up to 300: release kept above it, 301.
        XCTAssertEqual(try pen([.hover: [300], .strokeLight: [400]]).release.value, 301)
        // No hovers: the noise is the axis minimum, 0: light 1 → tip 0, left out; light 2 → tip 1.
        XCTAssertNil(try pen([.strokeLight: [1]]).tip.value)
        XCTAssertEqual(try pen([.strokeLight: [2]]).tip.value, 1)
    }
}
