import Foundation
import XCTest
@testable import ForceTrace

/// Analysis rules whose rule-made mutants (issue 26) survived XCTest: each
/// test pins the boundary or branch one of them moved.
final class AnalysisMutantKillTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// Two lanes from two chunks of 65 536 rows (on two or more cores); one below.
    func testAutomaticLanesFromTwoChunks() throws {
        guard ProcessInfo.processInfo.activeProcessorCount >= 2 else { throw XCTSkip("one core: always one lane") }
        XCTAssertEqual(AnalysisOptions.automaticLanes(rows: 2 * 65_536 - 1), 1)
        XCTAssertEqual(AnalysisOptions.automaticLanes(rows: 2 * 65_536), 2)
        XCTAssertEqual(AnalysisOptions.automaticLanes(rows: 2 * 65_536 + 1), 2)
    }

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

    /// A pressure axis with an empty range (min = max) is not analysed and
    /// says so; one with a range gets no such warning.
    func testEmptyPressureRangeIsNamedOnlyWhenEmpty() throws {
        func analysis(maximum: Int32) throws -> RecordingAnalysis {
            var builder = RecordingBuilder()
            builder.device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: maximum))
            builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 0)])
            builder.frame(10, [(F.p, 0)])
            builder.frame(20, [(F.id, -1)])
            return try F.analyze(builder.recording)
        }
        let empty = try analysis(maximum: 0)
        XCTAssertNil(empty.pressureAxis)
        XCTAssertTrue(empty.warnings.contains { $0.contains("has the empty range 0..0") }, "\(empty.warnings)")
        let ranged = try analysis(maximum: 1)
        XCTAssertNotNil(ranged.pressureAxis)
        XCTAssertFalse(ranged.warnings.contains { $0.contains("empty range") }, "\(ranged.warnings)")
    }

    /// A sample exactly on an axis's minimum or maximum is inside the
    /// device's ranges (counted as valid); one unit beyond is outside.
    func testSampleBoundsIncludeBothEnds() {
        let bounds = SampleBounds(x: (0, 1000), y: (-50, 50), p: (1, 100))
        XCTAssertTrue(bounds.contains(x: 0, y: 0, pressure: 50))
        XCTAssertTrue(bounds.contains(x: 1000, y: 0, pressure: 50))
        XCTAssertTrue(bounds.contains(x: 500, y: -50, pressure: 50))
        XCTAssertTrue(bounds.contains(x: 500, y: 50, pressure: 50))
        XCTAssertTrue(bounds.contains(x: 500, y: 0, pressure: 1))
        XCTAssertTrue(bounds.contains(x: 500, y: 0, pressure: 100))
        XCTAssertFalse(bounds.contains(x: -1, y: 0, pressure: 50))
        XCTAssertFalse(bounds.contains(x: 1001, y: 0, pressure: 50))
        XCTAssertFalse(bounds.contains(x: 500, y: -51, pressure: 50))
        XCTAssertFalse(bounds.contains(x: 500, y: 51, pressure: 50))
        XCTAssertFalse(bounds.contains(x: 500, y: 0, pressure: 0))
        XCTAssertFalse(bounds.contains(x: 500, y: 0, pressure: 101))
    }

    /// Stationary events per second need a contact time above 0: at 1 ns the
    /// rate is defined (4 events / 1e-9 s), at 0 it is nil.
    func testStationaryRateFromOneNanosecond() throws {
        var statistics = PressureStatistics()
        statistics.stationary[0] = 4
        XCTAssertNil(statistics.stationaryRateHz())
        statistics.contactTimeNs = 1
        XCTAssertEqual(try XCTUnwrap(statistics.stationaryRateHz()), 4e9, accuracy: 1)
    }

    /// An eight-lane counter reads back from exactly eight stored integers;
    /// seven or nine is a damaged file (nil), not a silently cut value.
    func testEightLaneCountersNeedEightStoredValues() {
        let lanes = SIMD8<Int64>(1, 2, 3, 4, 5, 6, 7, 8)
        XCTAssertEqual(SIMD8<Int64>(stored: lanes.stored), lanes)
        XCTAssertNil(SIMD8<Int64>(stored: .integers([1, 2, 3, 4, 5, 6, 7])))
        XCTAssertNil(SIMD8<Int64>(stored: .integers([1, 2, 3, 4, 5, 6, 7, 8, 9])))
        XCTAssertNil(SIMD8<Int64>(stored: .doubles([1, 2, 3, 4, 5, 6, 7, 8])))
    }
}
