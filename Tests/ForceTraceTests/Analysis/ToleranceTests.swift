import Foundation
import XCTest
@testable import ForceTrace

/// The motion tolerance in device units and millimetres, and the inflation sweep's lanes.
final class ToleranceTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// A tolerance in millimetres needs both axes' resolutions; with either at
    /// 0 it falls back to device units with a warning.
    func testMillimetreToleranceNeedsBothResolutions() {
        func axis(_ code: UInt16, _ resolution: Int32) -> AxisInfo {
            AxisInfo(code: code, minimum: 0, maximum: 1000, resolution: resolution)
        }
        let both = ToleranceLanes(.millimetres(1), xAxis: axis(AbsoluteAxis.mtPositionX, 10), yAxis: axis(AbsoluteAxis.mtPositionY, 40))
        XCTAssertNil(both.warning)
        for (x, y) in [(0, 40), (10, 0), (0, 0)] as [(Int32, Int32)] {
            let lanes = ToleranceLanes(.millimetres(1), xAxis: axis(AbsoluteAxis.mtPositionX, x), yAxis: axis(AbsoluteAxis.mtPositionY, y))
            XCTAssertNotNil(lanes.warning, "x \(x), y \(y) units/mm")
        }
    }

    /// The configured tolerance's description: 0 mm needs no resolution and
    /// says so plainly; 1 mm (the step above) names each axis's own units,
    /// on axes whose resolutions differ (16 and 15 units/mm, as the shared
    /// Cypress recording has): 16 x units and 15 y units. 0.5 mm gives 8 and 7.5.
    func testToleranceDescriptionsAtZeroAndOneMillimetre() {
        let x = AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: 1000, resolution: 16)
        let y = AxisInfo(code: AbsoluteAxis.mtPositionY, minimum: 0, maximum: 1000, resolution: 15)
        XCTAssertEqual(ToleranceLanes(.millimetres(0), xAxis: x, yAxis: y).configuredDescription, "0 mm")
        XCTAssertEqual(ToleranceLanes(.millimetres(0), xAxis: nil, yAxis: nil).configuredDescription, "0 mm")
        let one = ToleranceLanes(.millimetres(1), xAxis: x, yAxis: y)
        XCTAssertEqual(one.configuredDescription, "1 mm (16 x units, 15 y units)")
        XCTAssertEqual(one.x[0], 16)
        XCTAssertEqual(one.y[0], 15)
        XCTAssertEqual(ToleranceLanes(.millimetres(0.5), xAxis: x, yAxis: y).configuredDescription, "0.5 mm (8 x units, 7.5 y units)")
    }

    /// The inflation sweep's lanes apply when they saw motion events (a
    /// contact's frames after touch-down), or when the recording has none at
    /// all: a touch-down and a lift only. Without a resolution the lanes above
    /// 0 mm see none while the recording has some: they do not apply.
    func testSweepLanesApplyWithoutAnyMotion() throws {
        var still = RecordingBuilder()
        still.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        still.frame(30, [(F.id, -1)])
        let quiet = try F.analyze(still.recording).statistics
        XCTAssertEqual(quiet.motionEvents, 0)
        XCTAssertNil(quiet.pressureOnlyFraction, "no motion events: no fraction (not 0/0)")
        XCTAssertEqual(quiet.inflationSweep.count, AnalysisOptions.sweepTolerancesMM.count)
        for lane in quiet.inflationSweep { XCTAssertNotNil(lane.stationary, "\(lane.toleranceMM) mm") }

        var moving = RecordingBuilder(resolution: 0)
        moving.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        moving.frame(10, [(F.x, 140), (F.p, 50)])
        moving.frame(20, [(F.id, -1)])
        let unscaled = try F.analyze(moving.recording).statistics
        XCTAssertGreaterThan(unscaled.motionEvents, 0)
        XCTAssertNotNil(unscaled.inflationSweep[0].stationary)
        for lane in unscaled.inflationSweep.dropFirst() { XCTAssertNil(lane.stationary, "\(lane.toleranceMM) mm") }
    }

    /// A distance (a step, a displacement) is within a lane's tolerances in
    /// integers exactly when it is in Double: pinned at each tolerance's floor and the next unit, at
    /// fractions, at the largest step two Int32s make (2^32 − 1) and beyond
    /// it, and on lanes that do not apply (−1, NaN on either axis).
    func testADistanceIsWithinTheIntegerTolerancesExactlyWhenWithinTheDoubleOnes() {
        let largest = Double(UInt32.max)
        let tolerances: [Double] = [0, 0.5, 1, 1.5, 7.999999, 8, 8.000001, largest - 1, largest - 0.5, largest, largest + 1,
                                    .infinity, -1, -0.5, .nan]
        let distances: [Int] = [0, 1, 2, 7, 8, 9, Int(UInt32.max) - 1, Int(UInt32.max), -1, -8, -9, -Int(UInt32.max)]
        // Eight lanes at a time, each pairing an x tolerance with a y tolerance.
        var pairs: [(Double, Double)] = []
        for tx in tolerances { for ty in tolerances { pairs.append((tx, ty)) } }
        while pairs.count % 8 != 0 { pairs.append((0, 0)) }
        for start in stride(from: 0, to: pairs.count, by: 8) {
            var x = SIMD8<Double>(), y = SIMD8<Double>()
            for lane in 0..<8 { (x[lane], y[lane]) = pairs[start + lane] }
            let steps = WholeUnitTolerances(x: x, y: y)
            for dx in distances {
                for dy in distances {
                    let expected = (SIMD8<Double>(repeating: Double(dx.magnitude)) .<= x) .& (SIMD8<Double>(repeating: Double(dy.magnitude)) .<= y)
                    let got = steps.within(dx: dx, dy: dy)
                    for lane in 0..<8 {
                        XCTAssertEqual(got[lane], expected[lane] ? 1 : 0,
                                       "distance (\(dx), \(dy)) against tolerances (\(x[lane]), \(y[lane]))")
                    }
                }
            }
        }
    }

    /// The step between two Int32 positions, taken as a magnitude in 32
    /// bits, is the exact |a − b| up to the largest, 2^32 − 1, in either direction.
    func testAStepsMagnitudeIsExactUpToTheLargestTwoInt32sMake() {
        let positions: [Int32] = [.min, .min + 1, -2, -1, 0, 1, 2, .max - 1, .max]
        for a in positions {
            for b in positions {
                XCTAssertEqual(UInt64(WholeUnitTolerances.magnitude(a, b)), (Int64(a) - Int64(b)).magnitude, "|\(a) − \(b)|")
            }
        }
        let steps = WholeUnitTolerances(x: SIMD8(repeating: Double(UInt32.max) - 1), y: SIMD8(repeating: Double(UInt32.max)))
        XCTAssertEqual(steps.withinMask(stepX: WholeUnitTolerances.magnitude(.max, .min), stepY: 0), .zero)
        XCTAssertEqual(steps.withinMask(stepX: WholeUnitTolerances.magnitude(.max - 1, .min), stepY: WholeUnitTolerances.magnitude(.min, .max)),
                       SIMD8(repeating: 1))
    }
}
