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
}
