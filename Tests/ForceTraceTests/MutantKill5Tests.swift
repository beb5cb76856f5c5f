import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// Survivors of the seed-26 sample run on two workers (2026-12-03, issue 26):
/// each test pins the boundary or case one of them moved.
final class MutantKill5Tests: XCTestCase {
    typealias F = AnalysisFixtures

    /// One press: 30 → 70 → 90 of 0...100, so normalized 0.3, 0.7, 0.9; it
    /// crosses peek (0.60) and pop (0.80).
    private func onePress() throws -> RecordingAnalysis {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.p, 70)])
        builder.frame(20, [(F.p, 90)])
        builder.frame(30, [(F.id, -1)])
        return try F.analyze(builder.recording)
    }

    /// A fraction over exactly one contact is that contact's 0 or 1, not
    /// "no data": the denominator's boundary is 0, not 1.
    func testFractionsOverASingleContact() throws {
        let statistics = try onePress().statistics
        XCTAssertEqual(statistics.contactsWithPressure, 1)
        XCTAssertEqual(statistics.reachedPeek, 1)
        XCTAssertEqual(statistics.reachedPeekFraction, 1.0)
        XCTAssertEqual(statistics.reachedPopFraction, 1.0)
        XCTAssertNil(statistics.fraction(0, of: 0))
        XCTAssertEqual(statistics.fraction(0, of: 1), 0.0)
    }

    /// The "(n of m contacts shown)" line appears only when some are hidden:
    /// a limit of m − 1 shows it, a limit of m or none does not.
    func testShownLineOnlyWhenContactsAreHidden() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.id, -1)])
        builder.frame(100, [(F.slot, 0), (F.id, 2), (F.x, 300), (F.y, 300), (F.p, 40)])
        builder.frame(110, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        XCTAssertEqual(analysis.contacts.count, 2)
        let report = PressureReport(options: AnalysisOptions(), files: [FileAnalysis(file: analysis.file, recordings: [analysis])])
        XCTAssertTrue(report.text(contactLimit: 1).rendered.contains("(1 of 2 contacts shown;"))
        for limit in [2, 3, nil] as [Int?] {
            XCTAssertFalse(report.text(contactLimit: limit).rendered.contains("contacts shown"), "limit \(String(describing: limit))")
        }
    }

    /// JSON's two-character escapes are used where they exist (RFC 8259 §7),
    /// and \u00XX only for the other controls: the bytes are part of the
    /// byte-identical output, not only what a parser reads back.
    func testJSONStringEscapesByteForByte() {
        var writer = JSONWriter()
        writer.beginArray(flat: true)
        writer.string("a\nb\rc\td\"e\\f\u{01}g\u{1f}h\u{7f}é")
        writer.endArray()
        XCTAssertEqual(writer.text(), "[\"a\\nb\\rc\\td\\\"e\\\\f\\u0001g\\u001fh\u{7f}é\"]\n")
    }
}

/// More survivors of the same run (Analysis and Calibration).
final class MutantKill5CalibrationTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// Tracking ID 0 is a contact like any other (the kernel hands out ids
    /// from 0); -1 is the only "no contact". The live bar shows its pressure.
    func testTrackingIDZeroIsAContactDown() {
        var tracker = TrialTracker(device: RecordingBuilder().device)
        func frame(_ pairs: [(UInt16, Int32)]) {
            for (code, value) in pairs { _ = tracker.feed(InputEvent(timeNs: 0, type: EventType.abs, code: code, value: value)) }
            _ = tracker.feed(InputEvent(timeNs: 0, type: EventType.syn, code: Synchronization.report, value: 0))
        }
        XCTAssertNil(tracker.currentPressure)
        frame([(F.slot, 0), (F.id, 0), (F.x, 100), (F.y, 100), (F.p, 42)])
        XCTAssertEqual(tracker.contactsDown, 1)
        XCTAssertEqual(tracker.currentPressure, 42)
        frame([(F.id, -1)])
        XCTAssertEqual(tracker.contactsDown, 0)
        XCTAssertNil(tracker.currentPressure)
    }

    /// Holds are a touchpad session's only: the app and pen protocols have
    /// none, so `--holds` adds nothing to their schedule.
    func testOnlyTheTouchpadHasHoldClasses() {
        XCTAssertEqual(CalibrationProtocol.touchpad.holdClasses, [.holdLight, .holdNormal])
        XCTAssertEqual(CalibrationProtocol.app.holdClasses, [])
        XCTAssertEqual(CalibrationProtocol.pen.holdClasses, [])
        XCTAssertEqual(CalibrationProtocol.app.schedule(trials: 1, holds: true), [.tap, .peekPress, .popPress])
        XCTAssertEqual(CalibrationProtocol.touchpad.schedule(trials: 1, holds: true),
                       [.light, .normal, .thumb, .palm, .holdLight, .holdNormal])
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

    /// `report`'s progress: four files weigh a quarter each. One not opened
    /// (0), one empty (done: 1), one half done (100 of 200 samples: 0.5) and
    /// one past its total (capped at 1): (0 + 1 + 0.5 + 1) / 4 = 0.625.
    func testReportProgressSharesOfEachFile() {
        XCTAssertEqual(ParallelState.fraction(totals: [nil, 0, 200, 10], finished: [0, 0, 60, 10], current: [0, 0, 40, 5]), 0.625)
        XCTAssertEqual(ParallelState.fraction(totals: [nil], finished: [0], current: [0]), 0)
        XCTAssertEqual(ParallelState.fraction(totals: [0], finished: [0], current: [0]), 1)
        XCTAssertEqual(ParallelState.fraction(totals: [1], finished: [0], current: [1]), 1)
    }

    /// Overlapping classes: lower [10, 20], upper [11, 30]. The candidates
    /// 9, 10, 11, 19, 20, 29, 30 give balanced accuracy 0.5, 0.75, 0.5, 0.5,
    /// 0.75, 0.75, 0.5 (at 10: 1/2 and 2/2; at 20 and 29: 2/2 and 1/2), so
    /// three tie at 0.75 and the middle one, 20, is the threshold.
    func testTiedSeparationTakesTheMiddleOfThree() throws {
        let separation = try XCTUnwrap(Separation.best(lower: [10, 20], upper: [11, 30]))
        XCTAssertEqual(separation.balancedAccuracy, 0.75)
        XCTAssertEqual(separation.threshold, 20)
        XCTAssertTrue(separation.overlaps)
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

    /// A device name holding U+FFFD (bytes that were not UTF-8) cannot be
    /// matched by a quirks MatchName: the name's real bytes are unknown.
    /// U+FFFC and U+FFFE beside it are ordinary characters.
    func testReplacementCharacterMakesTheNameUnusable() {
        XCTAssertEqual(QuirksSection.namePattern("pad \u{FFFD}x"), .failure(.notUTF8))
        XCTAssertEqual(QuirksSection.namePattern("pad \u{FFFC}x"), .success("pad \u{FFFC}x"))
        XCTAssertEqual(QuirksSection.namePattern("pad \u{FFFE}x"), .success("pad \u{FFFE}x"))
    }

    /// An object's closing brace goes on its own line once it has a member,
    /// the first one included; an empty object stays "{}".
    func testOneMemberObjectClosesOnItsOwnLine() {
        var one = JSONWriter()
        one.beginObject(); one.key("i"); one.int(1); one.endObject()
        XCTAssertEqual(one.text(), "{\n  \"i\": 1\n}\n")
        var two = JSONWriter()
        two.beginObject(); two.key("i"); two.int(1); two.key("j"); two.int(2); two.endObject()
        XCTAssertEqual(two.text(), "{\n  \"i\": 1,\n  \"j\": 2\n}\n")
        var none = JSONWriter()
        none.beginObject(); none.endObject()
        XCTAssertEqual(none.text(), "{}\n")
    }

    /// The classes a curve figure shows are those with a curve: one light
    /// press (30 → 40 of 100, below peek) makes taps only.
    func testClassesPresentAreThoseWithACurve() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.p, 40)])
        builder.frame(20, [(F.id, -1)])
        let statistics = try F.analyze(builder.recording).statistics
        XCTAssertEqual(statistics.curveBands.classesPresent, [.tap])
        XCTAssertEqual(statistics.alignedBands.classesPresent, [.tap])
        XCTAssertEqual(CurveBands(points: 4).classesPresent, [])
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

    /// A comment longer than libinput's 510-byte line is cut to the pieces
    /// that fit with "..." after them: "# " + 505 "a" + "..." is 510 bytes;
    /// a line that fits is kept whole (508 "a" after "# ").
    func testLongQuirksCommentIsCutToTheLine() {
        var long = QuirksSection()
        long.comment(String(repeating: "a", count: 600))
        XCTAssertEqual(long.text, "# " + String(repeating: "a", count: 505) + "...\n")
        var fits = QuirksSection()
        fits.comment(String(repeating: "a", count: 508))
        XCTAssertEqual(fits.text, "# " + String(repeating: "a", count: 508) + "\n")
        var over = QuirksSection()
        over.comment(String(repeating: "a", count: 509))
        XCTAssertEqual(over.text, "# " + String(repeating: "a", count: 505) + "...\n")
    }

    /// A levels stage threshold takes the middle of the whole tied run, both
    /// ways from Separation's pick. Lower [10, 12], upper [12, 20]: accuracy
    /// is 0.5 at 9, 0.75 from 10 through 19 ((1/2 + 2/2)/2 at 10 and 11,
    /// (2/2 + 1/2)/2 from 12), 0.5 at 20. Separation picks 11 (the middle of
    /// the tied candidates 10, 11, 12, 19); the run is 10...19, its middle
    /// 10 + 9/2 = 14.
    func testStageThresholdRunExtendsBelowThePick() throws {
        XCTAssertEqual(Separation.best(lower: [10, 12], upper: [12, 20])?.threshold, 11)
        let stage = try XCTUnwrap(LevelsResult.stage(lower: [10, 12], upper: [12, 20]))
        XCTAssertEqual(stage.threshold, 14)
        XCTAssertEqual(stage.balancedAccuracy, 0.75)
    }

    /// A label matches the contact of its slot and tracking id whose
    /// touch-down is within 100 ms, the edge included: touch-down at 1 s,
    /// labels at 0.9 s and 1.1 s match, 1 ns further out do not. Of two
    /// contacts 50 ms either side, the first row wins the tie; a time that
    /// overflows the difference matches nothing instead of trapping.
    func testLabelMatchingWindowEdges() {
        let window = LabelTable.matchWindowNs, second: Int64 = 1_000_000_000
        let one = ContactMatcher(ids: [7], slots: [0], tracking: [3], down: [second])
        XCTAssertEqual(one.match(slot: 0, trackingID: 3, tNs: second - window), 7)
        XCTAssertEqual(one.match(slot: 0, trackingID: 3, tNs: second + window), 7)
        XCTAssertEqual(one.match(slot: 0, trackingID: 3, tNs: second - window - 1), -1)
        XCTAssertEqual(one.match(slot: 0, trackingID: 3, tNs: second + window + 1), -1)
        XCTAssertEqual(one.match(slot: 1, trackingID: 3, tNs: second), -1)
        XCTAssertEqual(one.match(slot: 0, trackingID: 4, tNs: second), -1)
        XCTAssertEqual(one.match(slot: 0, trackingID: 3, tNs: .min), -1)
        let two = ContactMatcher(ids: [7, 8], slots: [0, 0], tracking: [3, 3], down: [second - 50_000_000, second + 50_000_000])
        XCTAssertEqual(two.match(slot: 0, trackingID: 3, tNs: second), 7)
        XCTAssertEqual(two.match(slot: 0, trackingID: 3, tNs: second + 1), 8)
    }
}

