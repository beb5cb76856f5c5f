import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// The levels protocol: simulated people of known
/// capacity through the live pipeline, and the rules at their boundaries.
final class LevelsTests: XCTestCase {
    /// Runs the session as `levels --replay --fast` does, writes its labels and reads the result back from the file.
    private func session(_ simulation: LevelsSimulation) throws -> (LevelsSession, LevelsResult) {
        let path = try makeTemporaryDirectory(self).appendingPathComponent("levels.h5").path
        let device = simulation.recording.device
        let axis = try XCTUnwrap(device.contactPressureAxis)
        let source = LevelsSource(ReplaySource(recording: simulation.recording, speed: nil), plan: simulation.plan, axis: axis)
        let recorder = try Recorder(source: source, path: path, name: "session")
        XCTAssertEqual(try recorder.run(stop: nil).reason, .sessionComplete)
        try LevelsLabels.write(source.session.trials, plan: simulation.plan, axis: axis, toFile: path, recording: "session")
        let result = try XCTUnwrap(try TraceReader(path: path).recording("session").levelsResult())
        return (source.session, result)
    }

    private static let touchAxis = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255)

    func testSimulatedCapacityIsRecoveredExactly() throws {
        let cases: [(SimulatedDevice, counts: [Int], capacity: Int)] = [
            (.touchscreen, [2, 3, 4, 5, 6, 7], 4), (.touchscreen, [2, 3, 4, 5, 6, 7], 7), (.touchscreen, [2, 3, 4], 1),
            (.touchpad, [2, 3, 4, 5], 3), (.pen, [2, 3, 4, 5, 6], 5),
        ]
        for (device, counts, capacity) in cases {
            let plan = LevelsPlan(counts: counts, trialsPerLevel: 10, seed: 11)
            let simulation = LevelsSimulator.run(device: device, plan: plan, person: SimulatedLevelsPerson(capacity: capacity))
            let (session, result) = try session(simulation)
            let label = "\(device), capacity \(capacity)"
            XCTAssertEqual(session.discardedCount, device == .pen ? 1 : 2, label)
            XCTAssertEqual(session.trials.map(\.target), plan.schedule, label)
            XCTAssertEqual(session.trials.map(\.held), simulation.kept.map(\.held), "\(label): the held pressure of each trial")
            XCTAssertEqual(result.capacity, capacity, label)
            XCTAssertEqual(result.seed, 11)
            for set in result.sets {
                XCTAssertEqual(set.isReliable, set.count <= capacity, "\(label): \(set.count) levels")
                for level in 1...set.count { XCTAssertEqual(set.trials(level), 10) }
            }
            XCTAssertEqual(result.thresholds.count, max(0, capacity - 1), label)
        }
    }

    /// The text's confusion header names the columns below the first band,
    /// each band 1...N, and above the last: N + 2 columns, "above" at N + 1.
    func testTextHeaderNamesBelowEveryBandAndAbove() throws {
        let plan = LevelsPlan(counts: [2, 3], trialsPerLevel: 10, seed: 5)
        let (_, result) = try session(LevelsSimulator.run(device: .touchscreen, plan: plan, person: SimulatedLevelsPerson(capacity: 3)))
        let headers = result.text.rendered.split(separator: "\n").filter { $0.contains("asked \\ held") }
        XCTAssertEqual(headers.count, 2)
        for (header, count) in zip(headers, [2, 3]) {
            let names = header.components(separatedBy: "asked \\ held").last!.components(separatedBy: "inside")[0]
                .split(separator: " ").map(String.init)
            XCTAssertEqual(names, ["below"] + (1...count).map(String.init) + ["above"], String(header))
        }
    }

    func testStageThresholdsSeparateTheCapacitySetAndConvertToUIKitForce() throws {
        let plan = LevelsPlan(counts: [2, 3, 4, 5], trialsPerLevel: 10, seed: 5)
        let simulation = LevelsSimulator.run(device: .touchscreen, plan: plan, person: SimulatedLevelsPerson(capacity: 4))
        let (_, result) = try session(simulation)
        XCTAssertEqual(result.capacity, 4)
        for stage in result.thresholds {
            let held = { (level: Int) in simulation.kept.filter { $0.target == LevelTarget(count: 4, level: level) }.map(\.held) }
            XCTAssertGreaterThanOrEqual(stage.raw, held(stage.lower).max()!, "the lower level's trials stay at or below")
            XCTAssertLessThan(stage.raw, held(stage.lower + 1).min()!, "the upper level's trials are above")
            XCTAssertEqual(result.force(stage.raw), Double(stage.raw) / 255 * 6.667, accuracy: 1e-12)
        }
        // UIKit's own stages: peek 4.0 and pop 5.333 of 6.667 are 0.60 and 0.80 normalized.
        XCTAssertEqual(UIKitForce.peekForce / UIKitForce.maximumPossibleForce, 0.60, accuracy: 0.001)
        XCTAssertEqual(UIKitForce.popForce / UIKitForce.maximumPossibleForce, 0.80, accuracy: 0.001)
    }

    /// 9 in 10 inside is reliable (on the rule), 8 in 10 is not, 10 in 10 is; the same at 18/17/19 of 20.
    func testNinetyPercentRuleAtItsBoundary() throws {
        for (trials, inside, reliable) in [(10, 9, true), (10, 8, false), (10, 10, true), (20, 18, true), (20, 17, false), (20, 19, true)] {
            let bands = LevelBands(count: 3, range: .full, axis: Self.touchAxis)
            var records: [LevelRecord] = []
            for count in [2, 3] {
                let countBands = LevelBands(count: count, range: .full, axis: Self.touchAxis)
                for level in 1...count {
                    let centre = (countBands.edges[level - 1] + countBands.edges[level] - 1) / 2
                    for trial in 0..<trials {
                        // Level 2 of 3 misses into level 3 on its last trials.
                        let miss = count == 3 && level == 2 && trial >= inside
                        records.append(LevelRecord(target: LevelTarget(count: count, level: level), held: miss ? bands.edges[2] + 5 : centre))
                    }
                }
            }
            let result = LevelsResult(records: records, counts: [2, 3], range: .full, seed: 1, device: DeviceDescription(name: "t"),
                                      axis: Self.touchAxis, file: "f", recording: "r")
            XCTAssertEqual(result.sets[1].inside(2), inside)
            XCTAssertEqual(result.sets[1].isReliable(2), reliable, "\(inside) of \(trials)")
            XCTAssertEqual(result.capacity, reliable ? 3 : 2, "\(inside) of \(trials)")
            XCTAssertEqual(result.sets[1].rows[1], [0, 0, inside, trials - inside, 0])
        }
    }

    /// A level asked for in no trial (a session stopped before it) is not
    /// reliable, so its count does not raise the capacity.
    func testALevelWithoutTrialsIsNotReliable() {
        var records: [LevelRecord] = []
        for count in [2, 3] {
            let bands = LevelBands(count: count, range: .full, axis: Self.touchAxis)
            for level in 1...count where !(count == 3 && level == 3) {
                for _ in 0..<10 {
                    records.append(LevelRecord(target: LevelTarget(count: count, level: level),
                                               held: (bands.edges[level - 1] + min(bands.edges[level], 256) - 1) / 2))
                }
            }
        }
        let result = LevelsResult(records: records, counts: [2, 3], range: .full, seed: 1, device: DeviceDescription(name: "t"),
                                  axis: Self.touchAxis, file: "f", recording: "r")
        XCTAssertEqual(result.sets[1].trials(3), 0)
        XCTAssertTrue(result.sets[1].isReliable(2))
        XCTAssertFalse(result.sets[1].isReliable(3))
        XCTAssertEqual(result.capacity, 2)
    }

    /// Capacity needs every smaller tested count reliable too: reliable at 2 and 4
    /// but not at 3 is a capacity of 2, not 4.
    func testCapacityStopsAtTheFirstUnreliableCount() {
        var records: [LevelRecord] = []
        for count in [2, 3, 4] {
            let bands = LevelBands(count: count, range: .full, axis: Self.touchAxis)
            for level in 1...count {
                for trial in 0..<10 {
                    let aimed = count == 3 && level == 1 && trial < 5 ? 2 : level
                    records.append(LevelRecord(target: LevelTarget(count: count, level: level),
                                               held: (bands.edges[aimed - 1] + min(bands.edges[aimed], 256) - 1) / 2))
                }
            }
        }
        let result = LevelsResult(records: records, counts: [2, 3, 4], range: .full, seed: 1, device: DeviceDescription(name: "t"),
                                  axis: Self.touchAxis, file: "f", recording: "r")
        XCTAssertEqual(result.sets.map(\.isReliable), [true, false, true])
        XCTAssertEqual(result.capacity, 2)
        XCTAssertEqual(result.thresholds.map(\.lower), [1])
    }

    /// Overlapping levels: the stage threshold is the middle of the run of equally
    /// good thresholds, not the lower level's own hold.
    func testOverlappingStageThresholdSitsInTheMiddleOfTheTiedRun() throws {
        let lower: [Int32] = Array(repeating: 127, count: 9) + [212]
        let upper: [Int32] = Array(repeating: 212, count: 10)
        XCTAssertEqual(Separation.best(lower: lower, upper: upper)?.threshold, 127, "the shared rule's first candidate")
        let stage = try XCTUnwrap(LevelsResult.stage(lower: lower, upper: upper))
        XCTAssertEqual(stage.threshold, 169, "127...211 all score 0.95: their middle")
        XCTAssertEqual(stage.balancedAccuracy, 0.95, accuracy: 1e-12)
        // Without overlap the gap's middle, as Separation.best gives it.
        XCTAssertEqual(LevelsResult.stage(lower: [10, 20], upper: [40, 50])?.threshold, Separation.best(lower: [10, 20], upper: [40, 50])?.threshold)
        // Identical values: bounded by the data, no endless walk.
        XCTAssertNotNil(LevelsResult.stage(lower: [5, 5], upper: [5, 5]))
        // Levels held alike score 0.5 everywhere; the run is bounded by one
        // below the lowest value and by the highest: 4...6, its middle 5.
        XCTAssertEqual(Separation.best(lower: [5, 6], upper: [5, 6])?.balancedAccuracy, 0.5)
        XCTAssertEqual(LevelsResult.stage(lower: [5, 6], upper: [5, 6])?.threshold, 5)
        // The run extends both ways from Separation's pick. Lower [10, 12], upper
        // [12, 20]: accuracy 0.5 at 9, 0.75 from 10 through 19, 0.5 at 20.
        // Separation picks 11 (the middle of the tied candidates 10, 11, 12, 19);
        // the run is 10...19, its middle 10 + 9/2 = 14.
        XCTAssertEqual(Separation.best(lower: [10, 12], upper: [12, 20])?.threshold, 11)
        let below = try XCTUnwrap(LevelsResult.stage(lower: [10, 12], upper: [12, 20]))
        XCTAssertEqual(below.threshold, 14)
        XCTAssertEqual(below.balancedAccuracy, 0.75)
    }

    /// The same rule end to end: a person whose one level misses once in ten (on) or twice (below).
    func testNinetyPercentRuleThroughTheSession() throws {
        for misses in [0, 1, 2] {
            let plan = LevelsPlan(counts: [2, 3], trialsPerLevel: 10, seed: 3)
            var seen: [LevelTarget: Int] = [:]
            let held: [Int32] = plan.schedule.map { target in
                let bands = LevelBands(count: target.count, range: .full, axis: Self.touchAxis)
                let occurrence = seen[target, default: 0]
                seen[target] = occurrence + 1
                let aimed = target == LevelTarget(count: 3, level: 3) && occurrence < misses ? 2 : target.level
                return (bands.edges[aimed - 1] + min(bands.edges[aimed], 256) - 1) / 2
            }
            let (_, result) = try session(LevelsSimulator.run(device: .touchscreen, plan: plan, held: held))
            XCTAssertEqual(result.sets[1].inside(3), 10 - misses)
            XCTAssertEqual(result.capacity, misses <= 1 ? 3 : 2, "\(misses) misses in 10")
        }
    }

    /// A held value on a band's lower edge is inside, one unit below is in the
    /// level under it, one above inside; through events, the session and the file.
    func testBandEdgesOnAndEitherSide() throws {
        let plan = LevelsPlan(counts: [4], trialsPerLevel: 3, seed: 9)
        let bands = LevelBands(count: 4, range: .full, axis: Self.touchAxis)
        XCTAssertEqual(bands.edges, [0, 64, 128, 192, 256])
        var seen: [Int: Int] = [:]
        let held: [Int32] = plan.schedule.map { target in
            let occurrence = seen[target.level, default: 0]
            seen[target.level] = occurrence + 1
            // Level 1 holds 1 (edge 0 is pressure 0, no touch); the others their lower edge - 1, the edge, the edge + 1.
            if target.level == 1 { return 1 }
            return bands.edges[target.level - 1] + Int32(occurrence - 1)
        }
        let (session, result) = try session(LevelsSimulator.run(device: .touchscreen, plan: plan, held: held))
        XCTAssertEqual(session.trials.map(\.held), held)
        let set = result.sets[0]
        XCTAssertEqual(set.rows[0], [0, 3, 0, 0, 0, 0])
        XCTAssertEqual(set.rows[1], [0, 1, 2, 0, 0, 0], "63 is level 1; 64 and 65 level 2")
        XCTAssertEqual(set.rows[2], [0, 0, 1, 2, 0, 0])
        XCTAssertEqual(set.rows[3], [0, 0, 0, 1, 2, 0])
    }

    func testRangeEdgesAndTheAxisMaximum() {
        let full = LevelBands(count: 4, range: .full, axis: Self.touchAxis)
        XCTAssertEqual(full.place(255), .level(4), "the axis maximum is inside the top level of a range ending at 1")
        XCTAssertEqual(full.place(0), .level(1))
        let part = LevelBands(count: 3, range: LevelRange(low: 0.2, high: 0.8), axis: Self.touchAxis)
        XCTAssertEqual(part.edges, [51, 102, 153, 204], "0.2 + 2 × 0.6 / 3 rounds to 0.6000000000000001; 153/255 = 0.6 still reaches it")
        XCTAssertEqual(part.place(50), .below)
        XCTAssertEqual(part.place(51), .level(1))
        XCTAssertEqual(part.place(52), .level(1))
        XCTAssertEqual(part.place(203), .level(3))
        XCTAssertEqual(part.place(204), .above)
        XCTAssertEqual(part.place(205), .above)
        // Every edge is the least raw value whose normalized pressure reaches the band's edge.
        for axis in [Self.touchAxis, AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 4095),
                     AxisInfo(code: AbsoluteAxis.mtPressure, minimum: -7, maximum: 1000)] {
            for count in 2...12 {
                let bands = LevelBands(count: count, range: LevelRange(low: 0.1, high: 0.9), axis: axis)
                for (index, edge) in bands.edges.enumerated() {
                    let wanted = 0.1 + Double(index) * 0.8 / Double(count) - LevelBands.edgeTolerance
                    XCTAssertGreaterThanOrEqual(axis.normalized(edge)!, wanted)
                    XCTAssertLessThan(axis.normalized(edge - 1)!, wanted)
                }
            }
        }
    }

    /// The held pressure is the highest kept for 300 ms (largest 300 ms median);
    /// a value holds until the next one.
    func testHeldPressureIsTheHighestKeptForTheHold() {
        let ms: Int64 = 1_000_000
        func point(_ t: Int64, _ p: Int32) -> PressurePoint { PressurePoint(tNs: t * ms, pressure: p) }
        // A ramp, a plateau at 120 sent once (the kernel repeats no value) for 400 ms, a fall.
        let curve = [point(0, 10), point(50, 60), point(100, 110), point(150, 120), point(550, 80), point(600, 20)]
        XCTAssertEqual(HeldPressure.held(curve, endNs: 650 * ms), 120)
        // An overshoot to 130 for 100 ms (under half the hold) inside a 120 hold: 120.
        let wobble = [point(0, 50), point(100, 120), point(200, 130), point(300, 120), point(700, 10)]
        XCTAssertEqual(HeldPressure.held(wobble, endNs: 720 * ms), 120)
        // An overshoot for exactly half the hold counts (the lower median of 150 ms of each is the hold's 120 ...
        let half = [point(0, 50), point(100, 200), point(250, 120), point(700, 10)]
        XCTAssertEqual(HeldPressure.held(half, endNs: 720 * ms), 120, "150 ms of 200 and 150 ms of 120: the lower median")
        // ... and one more nanosecond of it is more than half: 200.
        let over = [point(0, 50), point(100, 200), PressurePoint(tNs: 250 * ms + 1, pressure: 120), point(700, 10)]
        XCTAssertEqual(HeldPressure.held(over, endNs: 720 * ms), 200)
        // The kernel scenario's case: the hold, the release, then a 356 ms rest at 40 before the lift.
        let rest = [point(0, 40), point(11, 80), point(22, 119), point(33, 159), point(394, 119), point(421, 80), point(437, 40)]
        XCTAssertEqual(HeldPressure.held(rest, endNs: 794 * ms), 159)
        // A rest before the press as well.
        XCTAssertEqual(HeldPressure.held([point(0, 20), point(400, 90), point(750, 20)], endNs: 1200 * ms), 90)
        // A hold that ends at the lift: the stretch that ends at the lift counts.
        XCTAssertEqual(HeldPressure.held([point(0, 30), point(100, 70), point(150, 90)], endNs: 450 * ms), 90)
        XCTAssertEqual(HeldPressure.held([point(0, 30), point(100, 70), point(301, 90)], endNs: 450 * ms), 70,
                       "90 for the last 149 ms only, under half the hold: 70 is what was kept")
        // The hold's length: exactly 300 ms holds, one nanosecond less does not.
        XCTAssertEqual(HeldPressure.held([point(0, 42)], endNs: 300 * ms), 42)
        XCTAssertNil(HeldPressure.held([point(0, 42)], endNs: 300 * ms - 1))
        XCTAssertEqual(HeldPressure.held([point(0, 42)], endNs: 300 * ms + 1), 42)
    }

    func testScheduleIsSeededShuffledWithinBlocksAndComplete() {
        let plan = LevelsPlan(counts: [2, 5, 3], trialsPerLevel: 4, seed: 42)
        let order = plan.schedule
        XCTAssertEqual(order, plan.schedule, "the same seed, the same order")
        XCTAssertNotEqual(order, LevelsPlan(counts: [2, 5, 3], trialsPerLevel: 4, seed: 43).schedule)
        XCTAssertEqual(order.map(\.count), [2, 2, 2, 2, 2, 2, 2, 2] + Array(repeating: 3, count: 12) + Array(repeating: 5, count: 20))
        for count in [2, 3, 5] {
            let block = order.filter { $0.count == count }
            for level in 1...count { XCTAssertEqual(block.filter { $0.level == level }.count, 4) }
            XCTAssertNotEqual(block.map(\.level), block.map(\.level).sorted(), "shuffled, not in level order")
        }
        XCTAssertEqual(LevelsPlan.parseCounts("2-4,6"), [2, 3, 4, 6])
        XCTAssertNil(LevelsPlan.parseCounts("1-4"))
        XCTAssertNil(LevelsPlan.parseCounts("2-13"))
        XCTAssertEqual(LevelsPlan.parseCounts("11-12"), [11, 12], "12 levels, the most, are taken")
        XCTAssertEqual(LevelsPlan.parseCounts("12"), [12])
        XCTAssertNil(LevelsPlan.parseCounts("5-3"))
    }

    /// A levels session's `level_range` must lie within 0...1 with LOW < HIGH:
    /// [0, 1] and [0.2, 0.9] read back; a HIGH past 1 (1.5), a LOW below 0
    /// and LOW = HIGH are refused as damaged labels, naming the attribute.
    func testLevelRangeOutside0To1IsRefused() throws {
        let plan = LevelsPlan(counts: [2, 3], trialsPerLevel: 2, seed: 11)
        let simulation = LevelsSimulator.run(device: .touchscreen, plan: plan, person: SimulatedLevelsPerson(capacity: 3))
        let path = try makeTemporaryDirectory(self).appendingPathComponent("levels.h5").path
        let axis = try XCTUnwrap(simulation.recording.device.contactPressureAxis)
        let source = LevelsSource(ReplaySource(recording: simulation.recording, speed: nil), plan: simulation.plan, axis: axis)
        _ = try Recorder(source: source, path: path, name: "session").run(stop: nil)
        try LevelsLabels.write(source.session.trials, plan: simulation.plan, axis: axis, toFile: path, recording: "session")
        func result(_ range: [Double]) -> String {
            do {
                let file = try File.open(path, mode: .readWrite)
                try file.root.openGroup("recordings").openGroup("session").openGroup("labels").setAttribute("level_range", .doubles(range))
                try file.close()
                _ = try TraceReader(path: path).recording("session").levelsResult()
                return "read"
            } catch { return "\(error)" }
        }
        XCTAssertEqual(result([0, 1]), "read")
        XCTAssertEqual(result([0.2, 0.9]), "read")
        for range in [[0.2, 1.5], [-0.1, 0.5], [0.5, 0.5]] {
            XCTAssertTrue(result(range).contains("level_range is not LOW < HIGH within 0..1"), "\(range)")
        }
    }
}
