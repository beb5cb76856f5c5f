import Foundation
import XCTest
@testable import ForceTrace

/// Hand-computed cases, one per definition in docs/ANALYSIS.md.
final class AnalysisDefinitionTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// Pressure 10, 20, ... 100 every 10 ms at one spot, lifted at 100 ms.
    func rampRecording() -> Recording {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 10)])
        for step in 1...9 { builder.frame(Int64(step) * 10, [(F.p, Int32(step + 1) * 10)]) }
        builder.frame(100, [(F.id, -1)])
        return builder.recording
    }

    func testRampWithoutMovement() throws {
        var options = AnalysisOptions()
        options.curvePoints = 4
        options.alignedPoints = 12
        let analysis = try F.analyze(rampRecording(), options: options)
        XCTAssertEqual(analysis.contacts.count, 1)
        let contact = analysis.contacts[0]
        XCTAssertEqual(contact.samples, 10)
        XCTAssertEqual(contact.durationNs, 100_000_000)
        XCTAssertEqual(contact.peakRaw, 100)
        XCTAssertEqual(contact.peakNorm, 1.0)
        XCTAssertEqual(contact.peakForce, 6.667)
        XCTAssertEqual(contact.timeToPeakNs, 90_000_000)
        XCTAssertEqual(contact.tPeekNs, 50_000_000, "first sample at or above 0.60 is p = 60 at 50 ms")
        XCTAssertEqual(contact.tPopNs, 70_000_000)
        XCTAssertEqual(contact.peekToPopNs, 20_000_000)
        XCTAssertEqual(contact.peekCrossings, 1)
        XCTAssertEqual(contact.motionEvents, 9)
        XCTAssertEqual(contact.stationary[0], 9, "every event after touch-down changes only pressure")
        XCTAssertEqual(contact.stationaryRise[0], 9, "the peak is the last sample: all before it")
        XCTAssertEqual(contact.stationaryAfterPeak[0], 0)
        XCTAssertEqual(contact.inflation(), .unbounded, "all motion events stationary: motion / 0")
        XCTAssertEqual(contact.pressClass, .popPress)
        XCTAssertEqual(contact.displacementUnits, 0)
        XCTAssertTrue(contact.isStationaryDeepPress)
        // Sample-and-hold at 0, 25, 50, 75 ms: p 10, 30, 60, 80.
        XCTAssertEqual(analysis.curves, [0.1, 0.3, 0.6, 0.8].map { Float($0) })
        // Touch-down grid every 10 ms: 0.1 ... 1.0, then NaN from the lift at 100 ms on.
        XCTAssertEqual(Array(analysis.alignedCurves.row(0)), (1...10).map { Float(Double($0 * 10) / 100) }, "its 10 points before the lift")
        XCTAssertTrue(analysis.alignedCurves.matrix[10].isNaN && analysis.alignedCurves.matrix[11].isNaN)
        XCTAssertEqual(analysis.statistics.reachedPeek, 1)
        XCTAssertEqual(analysis.statistics.stationaryRateHz(), 90, "9 events in 0.1 s of contact")
    }

    func testMoveWithConstantPressure() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 50)])
        for step in 1...5 { builder.frame(Int64(step) * 10, [(F.x, 100 + Int32(step))]) }
        builder.frame(60, [(F.id, -1)])
        let contact = try F.analyze(builder.recording).contacts[0]
        XCTAssertEqual(contact.motionEvents, 5)
        XCTAssertEqual(contact.stationary[0], 0)
        XCTAssertEqual(contact.inflation(), .ratio(1.0))
        XCTAssertEqual(contact.displacementUnits, 5)
        XCTAssertEqual(contact.displacementMM, 0.5, "5 units at 10 units/mm")
        XCTAssertEqual(contact.peakNorm, 0.5)
        XCTAssertEqual(contact.pressClass, .tap)
        XCTAssertNil(contact.tPeekNs)
    }

    /// Moves of 1 and 2 units with pressure, then pressure alone.
    func testToleranceInUnitsAndMillimetres() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 50)])
        builder.frame(10, [(F.x, 101), (F.p, 51)])
        builder.frame(20, [(F.x, 103), (F.p, 52)])
        builder.frame(30, [(F.p, 53)])
        builder.frame(40, [(F.id, -1)])
        let exact = try F.analyze(builder.recording).contacts[0]
        XCTAssertEqual(exact.motionEvents, 3)
        XCTAssertEqual(exact.stationary[0], 1)
        XCTAssertEqual(exact.inflation(), .ratio(1.5))
        // Sweep lanes 1...5 are 0, 0.1, 0.25, 0.5, 1 mm = 0, 1, 2.5, 5, 10 units.
        XCTAssertEqual(Array((1...5).map { exact.stationary[$0] }), [1, 2, 3, 3, 3])
        var options = AnalysisOptions()
        options.tolerance = .deviceUnits(1)
        XCTAssertEqual(try F.analyze(builder.recording, options: options).contacts[0].stationary[0], 2)
        options.tolerance = .millimetres(0.25)
        XCTAssertEqual(try F.analyze(builder.recording, options: options).contacts[0].stationary[0], 3)
    }

    func testHysteresisChatter() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 50)])
        for (step, pressure) in [61, 58, 62, 54, 61, 40].enumerated() { builder.frame(Int64(step + 1) * 10, [(F.p, Int32(pressure))]) }
        builder.frame(80, [(F.id, -1)])
        let contact = try F.analyze(builder.recording).contacts[0]
        // 61 crosses; 58 stays above 0.55 so 62 does not; 54 re-arms; 61 crosses again.
        XCTAssertEqual(contact.peekCrossings, 2)
        XCTAssertEqual(contact.peekRecrossings, 1)
        XCTAssertEqual(contact.tPeekNs, 10_000_000)
        XCTAssertEqual(contact.popCrossings, 0)
        XCTAssertEqual(contact.timeToPeakNs, 30_000_000)
        var options = AnalysisOptions()
        options.thresholds.hysteresis = 0
        XCTAssertEqual(try F.analyze(builder.recording, options: options).contacts[0].peekCrossings, 3)
    }

    func testContactStillDownAtTheEnd() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.p, 40)])
        builder.frame(25, [(F.x, 101)])
        let analysis = try F.analyze(builder.recording)
        let contact = analysis.contacts[0]
        XCTAssertTrue(contact.stillDown)
        XCTAssertEqual(contact.endNs, 25_000_000, "held until the recording's last event")
        XCTAssertEqual(contact.samples, 3)
        XCTAssertEqual(analysis.statistics.stillDown, 1)
        let bytes = PressureReport(options: AnalysisOptions(), files: [FileAnalysis(file: "x", recordings: [analysis])]).jsonBytes()
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let first = ((json["recordings"] as? [[String: Any]])?.first?["contacts"] as? [[String: Any]])?.first
        XCTAssertTrue(first?["t_up_s"] is NSNull)
        XCTAssertEqual(first?["still_down"] as? Bool, true)
    }

    /// A contact lifted in a second frame at the recording's first instant
    /// (two frames with one timestamp) ends at t_up 0: it is not still down.
    func testAContactLiftedAtTimeZeroHasEnded() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(0, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        XCTAssertEqual(analysis.contacts.map(\.tUpNs), [0])
        XCTAssertEqual(analysis.contacts.map(\.stillDown), [false])
        XCTAssertEqual(analysis.statistics.stillDown, 0)
    }

    /// displacement_mm needs both resolutions: with only one of x and y
    /// reported (the other 0) there is none, and the units remain.
    func testDisplacementInMillimetresNeedsBothResolutions() throws {
        for (x, y) in [(Int32(0), Int32(10)), (10, 0), (10, 10)] {
            var builder = RecordingBuilder()
            for code in [AbsoluteAxis.x, AbsoluteAxis.mtPositionX] {
                builder.device.setAxis(AxisInfo(code: code, minimum: 0, maximum: 1000, resolution: x))
            }
            for code in [AbsoluteAxis.y, AbsoluteAxis.mtPositionY] {
                builder.device.setAxis(AxisInfo(code: code, minimum: 0, maximum: 1000, resolution: y))
            }
            builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
            builder.frame(10, [(F.x, 150), (F.y, 130)])
            builder.frame(20, [(F.id, -1)])
            let contact = try F.analyze(builder.recording).contacts[0]
            XCTAssertEqual(contact.displacementUnits, 50)
            XCTAssertEqual(contact.displacementMM, x > 0 && y > 0 ? 5 : nil, "resolution x \(x), y \(y)")
        }
    }

    func testDeviceWithoutPressure() throws {
        var builder = RecordingBuilder(pressure: false)
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100)])
        builder.frame(10, [(F.x, 110)])
        builder.frame(20, [(F.x, 120)])
        builder.frame(30, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        XCTAssertNil(analysis.pressureAxis)
        let contact = analysis.contacts[0]
        XCTAssertEqual(contact.motionEvents, 2)
        XCTAssertEqual(contact.stationary[0], 0)
        XCTAssertEqual(contact.inflation(), .ratio(1.0))
        XCTAssertNil(contact.pressClass)
        XCTAssertNil(contact.peakNorm)
        XCTAssertEqual(contact.peakRaw, -1)
        XCTAssertTrue(analysis.curves.allSatisfy(\.isNaN))
        XCTAssertEqual(analysis.statistics.contactsWithPressure, 0)
        XCTAssertEqual(analysis.statistics.inflation(), .ratio(1.0))
    }

    func testTwoContactsInterleavedInSlots() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 20),
                          (F.slot, 1), (F.id, 2), (F.x, 500), (F.y, 500), (F.p, 20)])
        builder.frame(10, [(F.slot, 0), (F.p, 30), (F.slot, 1), (F.x, 510)])
        builder.frame(20, [(F.slot, 0), (F.p, 40), (F.slot, 1), (F.x, 520), (F.p, 30)])
        builder.frame(30, [(F.slot, 0), (F.id, -1), (F.slot, 1), (F.p, 40)])
        builder.frame(40, [(F.slot, 1), (F.id, -1)])
        let contacts = try F.analyze(builder.recording).contacts
        XCTAssertEqual(contacts.count, 2)
        let (first, second) = (contacts[0], contacts[1])
        XCTAssertEqual(first.samples, 3)
        XCTAssertEqual(first.motionEvents, 2)
        XCTAssertEqual(first.stationary[0], 2, "compared with its own previous sample, not the other finger's")
        XCTAssertEqual(first.peakRaw, 40)
        XCTAssertEqual(first.timeToPeakNs, 20_000_000)
        XCTAssertEqual(first.tUpNs, 30_000_000)
        XCTAssertEqual(second.samples, 4)
        XCTAssertEqual(second.motionEvents, 3)
        XCTAssertEqual(second.stationary[0], 1, "only the 30 ms event is pressure alone")
        XCTAssertEqual(second.peakRaw, 40)
        XCTAssertEqual(second.timeToPeakNs, 30_000_000)
        XCTAssertEqual(second.displacementUnits, 20)
        XCTAssertEqual(second.slot, 1)
    }

    func testEMASmoothing() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 0)])
        builder.frame(10, [(F.p, 100)])
        builder.frame(20, [(F.p, 99)])
        builder.frame(30, [(F.p, 100)])
        builder.frame(40, [(F.id, -1)])
        let raw = try F.analyze(builder.recording).contacts[0]
        XCTAssertEqual(raw.tPeekNs, 10_000_000)
        XCTAssertEqual(raw.tPopNs, 10_000_000)
        var options = AnalysisOptions()
        options.smoothing = .ema(alpha: 0.5)
        // Signal 0, 0.5, 0.745, 0.8725: peek at 20 ms, pop at 30 ms.
        let smoothed = try F.analyze(builder.recording, options: options).contacts[0]
        XCTAssertEqual(smoothed.tPeekNs, 20_000_000)
        XCTAssertEqual(smoothed.tPopNs, 30_000_000)
        XCTAssertEqual(smoothed.signalPeak!, 0.8725, accuracy: 1e-12)
        XCTAssertEqual(smoothed.peakNorm, 1.0)
    }

    func testSensitivityScalesDefaults() {
        XCTAssertEqual(Thresholds(sensitivity: .light).peek, 0.48, accuracy: 1e-12)
        XCTAssertEqual(Thresholds(sensitivity: .firm).pop, 0.96, accuracy: 1e-12)
        XCTAssertEqual(Thresholds(sensitivity: .firm, peek: 0.5).peek, 0.5)
        XCTAssertEqual(Thresholds().peek * UIKitForce.maximumPossibleForce, 4.0, accuracy: 0.001)
    }

    /// The samples' bounds are the axes' ranges, ends included; an axis the
    /// device lacks bounds nothing.
    func testSampleBoundsFromTheAxesLeaveAMissingAxisOpen() {
        let bounds = SampleBounds(x: AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: 1000), y: nil,
                                  pressure: AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 1, maximum: 100))
        XCTAssertTrue(bounds.contains(x: 0, y: .min, pressure: 1))
        XCTAssertTrue(bounds.contains(x: 1000, y: .max, pressure: 100))
        XCTAssertFalse(bounds.contains(x: 1001, y: 0, pressure: 50))
        XCTAssertFalse(bounds.contains(x: 500, y: 0, pressure: 0))
        let none = SampleBounds(x: nil, y: nil, pressure: nil)
        XCTAssertTrue(none.contains(x: .min, y: .max, pressure: .min))
        XCTAssertTrue(none.contains(x: .max, y: .min, pressure: .max))
    }

    func testMillimetreToleranceWithoutResolutionFallsBackWithWarning() throws {
        var builder = RecordingBuilder(resolution: 0)
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 10)])
        builder.frame(10, [(F.p, 20)])
        builder.frame(20, [(F.id, -1)])
        var options = AnalysisOptions()
        options.tolerance = .millimetres(0.5)
        let analysis = try F.analyze(builder.recording, options: options)
        XCTAssertNotNil(analysis.lanes.warning)
        XCTAssertEqual(analysis.contacts[0].stationary[0], 1)
        XCTAssertFalse(analysis.lanes.applicable[3], "0.25 mm cannot apply without a resolution")
        XCTAssertTrue(analysis.lanes.applicable[1], "0 mm is exact equality and always applies")
        XCTAssertNil(analysis.contacts[0].displacementMM)
    }

    /// Only a sample with a new pressure can be a stationary pressure
    /// event; one that only moves is not, however little. Tolerance 1 device
    /// unit; samples after the down at (100, 100) p 30: x 101 (moved 1, p
    /// unchanged: not one), p 40 (no motion: one), x 102 p 50 (moved exactly
    /// the tolerance: one), x 104 p 60 (moved 2: not one). Motion events 4,
    /// stationary 2.
    func testOnlyPressureChangesCountAsStationary() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.x, 101)])
        builder.frame(20, [(F.p, 40)])
        builder.frame(30, [(F.x, 102), (F.p, 50)])
        builder.frame(40, [(F.x, 104), (F.p, 60)])
        builder.frame(50, [(F.id, -1)])
        var options = AnalysisOptions()
        options.tolerance = .deviceUnits(1)
        let analysis = try F.analyze(builder.recording, options: options)
        let contact = try XCTUnwrap(analysis.contacts.first)
        XCTAssertEqual(contact.motionEvents, 4)
        XCTAssertEqual(contact.stationary[0], 2)
    }

    /// A contact lifted at exactly t = 0 (a timestamp that goes back to the
    /// first frame's) is up from then on. Slots 0 (id 1) and 1 (id 2) go down
    /// at 0 ms and change pressure at 10 ms; a frame stamped `lift` ms lifts
    /// id 1; id 2 has samples at 20 and 30 ms and lifts at 40 ms. A frame
    /// counts as multi-contact when two slots are down at its time (up time >
    /// frame time). Lift at 15 ms: frames 0 and 10 (15 > 0, 15 > 10), so 2.
    /// Lift at 0 ms: 0 > 0 fails, so none; a lift at 0 taken for "still
    /// down" (up time max) would count all 4 frames.
    func testAContactLiftedAtTimeZeroIsUpAfterwards() throws {
        for (lift, frames) in [(Int64(15), Int64(2)), (0, 0)] {
            var builder = RecordingBuilder()
            builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30),
                              (F.slot, 1), (F.id, 2), (F.x, 500), (F.y, 500), (F.p, 30)])
            builder.frame(10, [(F.slot, 0), (F.p, 40), (F.slot, 1), (F.p, 50)])
            builder.frame(lift, [(F.slot, 0), (F.id, -1)])
            builder.frame(20, [(F.slot, 1), (F.p, 60)])
            builder.frame(30, [(F.p, 70)])
            builder.frame(40, [(F.id, -1)])
            let analysis = try F.analyze(builder.recording)
            XCTAssertEqual(analysis.contacts.map(\.tUpNs), [lift * 1_000_000, 40_000_000])
            XCTAssertEqual(analysis.statistics.multiContactFrames, frames, "lift at \(lift) ms")
        }
    }

    /// A contact lifted at 0 ns (the relative clock's first instant) ends
    /// there: its duration is 0, not the time to the recording's end.
    func testAContactLiftedAtTimeZeroEndsThere() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(0, [(F.id, -1)])
        builder.frame(100, [(F.slot, 0), (F.id, 2), (F.x, 300), (F.y, 300), (F.p, 40)])
        builder.frame(110, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        XCTAssertEqual(analysis.contacts.count, 2)
        XCTAssertEqual(analysis.contacts[0].tUpNs, 0)
        XCTAssertEqual(analysis.contacts[0].durationNs, 0)
        XCTAssertEqual(analysis.contacts[1].durationNs, 10_000_000)
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
}

final class AggregateTests: XCTestCase {
    func testThresholdBinsAreExactOnTheGrid() {
        XCTAssertEqual(ThresholdBins.bin(0.6), 60)
        XCTAssertEqual(ThresholdBins.bin(153.0 / 255.0), 60, "153/255 is the double nearest 0.6")
        XCTAssertEqual(ThresholdBins.bin(0.5999999), 59)
        XCTAssertEqual(ThresholdBins.bin(1.0), 100)
        XCTAssertEqual(ThresholdBins.bin(0.07), 7)
        XCTAssertEqual(ThresholdBins.bin(-0.2), 0)
        for index in 0...100 { XCTAssertEqual(ThresholdBins.bin(ThresholdBins.threshold(index)), index) }
        var bins = ThresholdBins()
        [0.1, 0.6, 0.6, 0.95].forEach { bins.add($0) }
        XCTAssertEqual(bins.reached[0], 4)
        XCTAssertEqual(bins.reached[60], 3)
        XCTAssertEqual(bins.reached[61], 1)
        XCTAssertEqual(bins.reached[96], 0)
    }

    func testQuantilesInterpolateLinearly() {
        for (found, expected) in zip(Quantiles.of([4, 1, 3, 2])!, [1.15, 1.75, 2.5, 3.25, 3.85]) {
            XCTAssertEqual(found, expected, accuracy: 1e-12)
        }
        XCTAssertEqual(Quantiles.of([7])!, [7, 7, 7, 7, 7])
        XCTAssertNil(Quantiles.of([]))
    }

    /// Quantiles select their ranks instead of sorting: the same bits as
    /// interpolating in a full sort, on ties, runs, sorted and reversed input,
    /// and with NaN or −0 (which fall back to sorting).
    func testQuantilesBySelectionEqualThoseOfAFullSort() {
        func sorting(_ values: [Double], _ levels: [Double]) -> [Double] {
            let sorted = values.sorted()
            return levels.map { level in
                let position = Double(sorted.count - 1) * level
                let lower = Int(position.rounded(.down)), upper = min(lower + 1, sorted.count - 1)
                return sorted[lower] + (position - Double(lower)) * (sorted[upper] - sorted[lower])
            }
        }
        var generator = SystemRandomNumberGenerator()
        let levels = Quantiles.levels + [0, 0.001, 0.37, 0.999, 1]
        var cases: [[Double]] = [[1], [2, 1], [0, 0, 0], [-0.0, 0, 1], [.nan, 1, 2], Array(repeating: 3, count: 1_000)]
        for count in [2, 3, 5, 24, 25, 26, 100, 1_000, 4_097, 30_000] {
            cases.append((0..<count).map { _ in Double(Int.random(in: 0..<max(2, count / 50), using: &generator)) / 7 })
            cases.append((0..<count).map { _ in Double.random(in: -1e6...1e6, using: &generator) })
            cases.append((0..<count).map { Double($0) })
            cases.append((0..<count).map { Double(count - $0) })
            cases.append((0..<count).map { Double($0 % 3) })
        }
        for values in cases {
            let found = Quantiles.of(values, levels: levels)!
            XCTAssertEqual(found.map(\.bitPattern), sorting(values, levels).map(\.bitPattern), "\(values.count) values, first \(values.prefix(4))")
        }
    }

    func testSuggestionFromLabelsSitsInTheGaps() throws {
        var bins = [ThresholdBins](repeating: ThresholdBins(), count: 3)
        [0.2, 0.3, 0.4].forEach { bins[0].add($0) }
        [0.6, 0.7].forEach { bins[1].add($0) }
        [0.9, 0.95].forEach { bins[2].add($0) }
        let suggestion = try XCTUnwrap(ThresholdSuggestion.fromLabels(bins))
        XCTAssertEqual(suggestion.balancedAccuracy, 1.0)
        // Perfect for peek in 0.41...0.60 and pop in 0.71...0.90: the middles.
        XCTAssertEqual(suggestion.peek, 0.50, accuracy: 1e-12)
        XCTAssertEqual(suggestion.pop, 0.80, accuracy: 1e-12)
        XCTAssertEqual(suggestion.confusion?.stored, .integers([3, 0, 0, 0, 2, 0, 0, 0, 2]))
        XCTAssertEqual(suggestion.tiedPairs, 20 * 20)
        // A mislabelled tap cannot be fixed by any pair: accuracy below 1.
        bins[0].add(0.97)
        XCTAssertLessThan(try XCTUnwrap(ThresholdSuggestion.fromLabels(bins)).balancedAccuracy!, 1.0)
    }

    func testNaturalBreaksFindThreeGroups() throws {
        var bins = ThresholdBins()
        [0.20, 0.22, 0.25, 0.30].forEach { bins.add($0) }
        [0.66, 0.70, 0.72].forEach { bins.add($0) }
        [0.90, 0.93, 0.97].forEach { bins.add($0) }
        let breaks = try XCTUnwrap(ThresholdSuggestion.naturalBreaks(bins))
        XCTAssertEqual(breaks.method, .naturalBreaks)
        XCTAssertEqual(breaks.peek, 0.48, accuracy: 1e-12, "middle of the empty bins 0.31...0.65")
        XCTAssertEqual(breaks.pop, 0.81, accuracy: 1e-12, "middle of 0.73...0.89")
        var two = ThresholdBins()
        [0.2, 0.8].forEach { two.add($0) }
        XCTAssertNil(ThresholdSuggestion.naturalBreaks(two))
    }

    /// Two simulated recordings analysed apart and merged equal one recording
    /// of both, played one after the other.
    func testMergedStatisticsEqualThoseOfConcatenatedData() throws {
        var first = SimulationOptions(); first.seed = 3; first.presses = 14
        var second = SimulationOptions(); second.seed = 4; second.presses = 11
        let simulations = [Simulator.run(first), Simulator.run(second)]
        let a = simulations[0].recording, b = simulations[1].recording
        let pressCount = Int64(simulations[0].presses.count + simulations[1].presses.count)
        let shift = a.events.last!.timeNs + 1_000_000_000 - b.events.first!.timeNs
        var joined = a
        joined.events += b.events.map { InputEvent(timeNs: $0.timeNs + shift, type: $0.type, code: $0.code, value: $0.value) }
        joined.groundTruth.labels += b.groundTruth.labels.map { var label = $0; label.tNs += shift; return label }
        var options = AnalysisOptions()
        options.tolerance = .millimetres(0.25)
        let parts = [try AnalysisFixtures.analyze(a, options: options), try AnalysisFixtures.analyze(b, options: options)]
        let merged = parts[0].statistics + parts[1].statistics
        let whole = try AnalysisFixtures.analyze(joined, options: options).statistics
        XCTAssertEqual(merged.contacts, whole.contacts)
        XCTAssertEqual(merged.contacts, pressCount)
        XCTAssertGreaterThan(pressCount, 25, "two-finger presses add a contact each")
        XCTAssertEqual(merged.motionEvents, whole.motionEvents)
        XCTAssertEqual(merged.stationary, whole.stationary)
        XCTAssertEqual(merged.stationaryRise, whole.stationaryRise)
        XCTAssertEqual(merged.contactTimeNs, whole.contactTimeNs)
        XCTAssertEqual(merged.classCounts, whole.classCounts)
        XCTAssertEqual(merged.peakBins, whole.peakBins)
        XCTAssertEqual(merged.labelledPeakBins, whole.labelledPeakBins)
        XCTAssertEqual(merged.confusion, whole.confusion)
        XCTAssertEqual(merged.peekHistogram, whole.peekHistogram)
        XCTAssertEqual(merged.peekToPopHistogram, whole.peekToPopHistogram)
        XCTAssertEqual(merged.sweep, whole.sweep)
        XCTAssertEqual(merged.peakValues.quantiles, whole.peakValues.quantiles)
        XCTAssertEqual(merged.popValues.quantiles, whole.popValues.quantiles)
        XCTAssertEqual(merged.inflation(lane: 3), whole.inflation(lane: 3))
        XCTAssertEqual(merged.labelled, pressCount, "every press labelled and matched")
    }
}
