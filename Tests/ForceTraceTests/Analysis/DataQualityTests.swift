import Foundation
import XCTest
@testable import ForceTrace

/// The data-quality counts the analysis adds to the summary.
final class DataQualityTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// The genuine Cypress recording reports one pressure for all its slots:
    /// 44 of its 44 frames with two or more contacts down have equal pressures.
    func testCypressSharesOnePressureAcrossSlots() throws {
        let analysis = try F.analyze(try Evemu.read(try F.shared("CyPS2 Cypress Trackpad.three_finger_press.events")))
        XCTAssertEqual(analysis.statistics.multiContactFrames, 44)
        XCTAssertEqual(analysis.statistics.sharedPressureFrames, 44)
        XCTAssertTrue(analysis.statistics.sharesPressure)
        XCTAssertTrue(PressureReport(options: analysis.options, files: [FileAnalysis(file: "c.h5", recordings: [analysis])])
            .text(contactLimit: 0).rendered.contains("SHARED PRESSURE"))
    }

    func testTwoFingersWithTheirOwnPressuresDoNotShare() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 20),
                          (F.slot, 1), (F.id, 2), (F.x, 500), (F.y, 500), (F.p, 20)])
        builder.frame(10, [(F.slot, 0), (F.p, 30)])
        builder.frame(20, [(F.slot, 1), (F.p, 30)])
        builder.frame(30, [(F.slot, 0), (F.id, -1), (F.slot, 1), (F.id, -1)])
        let statistics = try F.analyze(builder.recording).statistics
        XCTAssertEqual(statistics.multiContactFrames, 3, "frames at 0, 10 and 20 ms")
        XCTAssertEqual(statistics.sharedPressureFrames, 2, "20/20 and 30/30; not 30/20")
        XCTAssertFalse(statistics.sharesPressure)
    }

    /// A finger that rests sends no rows, yet it is down in every frame of
    /// the finger that moves: id 1 (slot 0) rests from 0 ms and lifts at
    /// `lift`; id 2 (slot 1) moves at 10 to 60 ms, rows one after another.
    /// Frames with both down are those before the lift (up time > frame
    /// time); equal pressures at 10 and 30 ms.
    func testAFingerAtRestCountsInTheFramesOfOneThatMoves() throws {
        for (lift, multi, shared) in [(Int64(35), Int64(4), Int64(2)), (30, 3, 1), (5, 1, 0)] {
            var builder = RecordingBuilder()
            builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30),
                              (F.slot, 1), (F.id, 2), (F.x, 500), (F.y, 500), (F.p, 20)])
            let moves = [(Int64(10), Int32(30)), (20, 40), (30, 30), (40, 35), (50, 30), (60, 40)]
            for (time, pressure) in moves where time <= lift { builder.frame(time, [(F.slot, 1), (F.p, pressure)]) }
            builder.frame(lift, [(F.slot, 0), (F.id, -1)])
            for (time, pressure) in moves where time > lift { builder.frame(time, [(F.slot, 1), (F.p, pressure)]) }
            builder.frame(70, [(F.slot, 1), (F.id, -1)])
            let statistics = try F.analyze(builder.recording).statistics
            XCTAssertEqual(statistics.multiContactFrames, multi, "lift at \(lift) ms")
            XCTAssertEqual(statistics.sharedPressureFrames, shared, "lift at \(lift) ms")
        }
    }

    func testValuesOutsideAbsinfoAreCounted() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 20)])
        builder.frame(10, [(F.p, 150)])
        builder.frame(20, [(F.x, 1200)])
        builder.frame(30, [(F.x, 900)])
        builder.frame(40, [(F.id, -1)])
        let statistics = try F.analyze(builder.recording).statistics
        XCTAssertEqual(statistics.outOfRangeSamples, 3, "rows at 10, 20 and 30 ms hold pressure 150 > 100 (and x 1200 at 20 ms)")
        XCTAssertEqual(statistics.multiContactFrames, 0)
        XCTAssertFalse(statistics.sharesPressure)
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
}
