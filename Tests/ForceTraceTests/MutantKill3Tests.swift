import Foundation
import XCTest
@testable import ForceTrace

/// The rule-made mutants (issue 26) left open by MutantKill2Tests: each test
/// pins the boundary or branch one of them moved.
final class MutantKill3Tests: XCTestCase {
    typealias F = AnalysisFixtures

    /// A label whose `peak` column is 0 keeps 0: only -1 means unknown
    /// (docs/FORMAT.md). The contact (slot 0, id 5) reads 30 then 40, so
    /// falling back to its samples would give 40; its curve is still the
    /// two samples.
    func testLabelPeakZeroIsKept() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 5), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.p, 40)])
        builder.frame(20, [(F.id, -1)])
        let path = try F.write([builder.recording], name: UUID().uuidString + ".h5")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let name = try TraceReader(path: path).recordingNames[0]
        var observation = TrialObservation(startNs: 0, endNs: 20_000_000)
        observation.slot = 0
        observation.trackingID = 5
        observation.peak = 0
        try CalibrationLabels.write([(TrialClass.tap, observation)], protocol: CalibrationProtocol.app.rawValue,
                                    toFile: path, recording: name)
        let trace = try TraceReader(path: path).recording(name)
        XCTAssertEqual(try trace.read(TraceSchema.Labels.contact), [0], "the label is matched to the contact")
        let trials = try trace.labelledTrials(for: .app)
        XCTAssertEqual(trials.map(\.peak), [0])
        XCTAssertEqual(trials.first?.curve.map(\.pressure), [30, 40])
    }

    /// Tracking id 0 is a real id: a trial that starts with slot 0 (id 0)
    /// and slot 1 (id 1) down is slot 0's, id 0, and its curve follows slot
    /// 0's pressure (30, 35), not slot 1's (60, 70) nor the largest.
    func testTrialStartingWithTrackingIDZeroIsThatSlots() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 0), (F.x, 100), (F.y, 100), (F.p, 30),
                          (F.slot, 1), (F.id, 1), (F.x, 500), (F.y, 500), (F.p, 60)])
        builder.frame(10, [(F.slot, 0), (F.p, 35), (F.slot, 1), (F.p, 70)])
        builder.frame(20, [(F.slot, 0), (F.id, -1), (F.slot, 1), (F.id, -1)])
        var tracker = TrialTracker(device: builder.device)
        let trials = builder.events.compactMap { tracker.feed($0) }
        XCTAssertEqual(trials.count, 1)
        let trial = try XCTUnwrap(trials.first)
        XCTAssertEqual(trial.slot, 0)
        XCTAssertEqual(trial.trackingID, 0)
        XCTAssertEqual(trial.curve.map(\.pressure), [30, 35])
        XCTAssertEqual(trial.peak, 70)
        XCTAssertEqual(trial.maxContacts, 2)
    }

    private func fast(_ line: String) -> InputEvent? { Array(line.utf8).withUnsafeBufferPointer(Evemu.fastEvent) }

    /// The byte-level evemu parser ends a plain line on any mix of spaces
    /// and tabs after the value (a tab is 0x09; 0x0a never occurs in a line),
    /// as the general parser does: "E: 1.000001 0003 0035 7\t" is ABS_MT_SLOT
    /// 7 at 1.000001 s either way.
    func testFastEventTakesATrailingTab() throws {
        let event = InputEvent(timeNs: 1_000_001_000, type: 3, code: 0x35, value: 7)
        for line in ["E: 1.000001 0003 0035 7\t", "E: 1.000001 0003 0035 7 \t ", "E: 1.000001 0003 0035 7\t\t"] {
            XCTAssertEqual(fast(line), event, line)
            XCTAssertEqual(try Evemu.parse(Array((testPadEvemuHeader + line + "\n").utf8), file: "tab.evemu").events, [event], line)
        }
    }

    /// Type and code must each follow a space or tab: "E: 1.5a 0000 1" (the
    /// type "a" glued to the time 1.5) is no plain line for the fast parser,
    /// and the general parser refuses it too. With the separator it is type
    /// 0xa, code 0, value 1 at 1.5 s.
    func testFastEventNeedsASpaceBeforeTheType() throws {
        XCTAssertNil(fast("E: 1.5a 0000 1"))
        XCTAssertNil(fast("E: 1.5 000a0000 1"))
        XCTAssertEqual(fast("E: 1.5 a 0000 1"), InputEvent(timeNs: 1_500_000_000, type: 0xa, code: 0, value: 1))
        XCTAssertThrowsError(try Evemu.parse(Array((testPadEvemuHeader + "E: 1.5a 0000 1\n").utf8), file: "glued.evemu"))
    }

    /// The highest absolute axis code, ABS_MAX (0x3f), gets its range
    /// checked like any other: with range 0..10, the value 10 is inside and
    /// 11 outside, so one value is out, seen 11..11, first event 2 (frame 0 is events 0-1).
    func testRangeOfTheLastAbsoluteAxisIsChecked() throws {
        var builder = RecordingBuilder()
        XCTAssertEqual(AbsoluteAxis.max, 0x3f)
        builder.device.setAxis(AxisInfo(code: AbsoluteAxis.max, minimum: 0, maximum: 10))
        builder.frame(0, [(AbsoluteAxis.max, 10)])
        builder.frame(10, [(AbsoluteAxis.max, 11)])
        let warnings = StreamCheck.warnings(for: builder.recording)
        XCTAssertEqual(warnings.filter { $0.contains("outside its absinfo range") }.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.contains { $0.hasPrefix("1 ") && $0.contains("values outside its absinfo range 0..10 (seen 11..11), first event 2 ") },
                      "\(warnings)")
    }

    /// In a sticky world-writable folder, a link owned by another user
    /// (nobody, 65534) is refused as an output; the same link owned by the
    /// user who runs the check (root) is followed. Needs root to chown the link.
    func testAnotherUsersLinkInAStickyFolderIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to give the link another owner") }
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let shared = directory.appendingPathComponent("shared").path
        XCTAssertEqual(mkdir(shared, 0o755), 0)
        XCTAssertEqual(chmod(shared, 0o1777), 0)
        let victim = directory.appendingPathComponent("victim.h5").path
        try Data("root's".utf8).write(to: URL(fileURLWithPath: victim))
        let link = shared + "/out.h5"
        XCTAssertEqual(symlink(victim, link), 0)
        XCTAssertEqual(lchown(link, 65534, 65534), 0)
        XCTAssertThrowsError(try OutputPath.check(link, replace: true)) { error in
            XCTAssertTrue("\(error)".contains("owned by another user (uid 65534)"), "\(error)")
        }
        XCTAssertEqual(lchown(link, 0, 0), 0)
        XCTAssertNoThrow(try OutputPath.check(link, replace: true))
    }
}
