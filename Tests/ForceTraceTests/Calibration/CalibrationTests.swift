import Foundation
import XCTest
@testable import ForceTrace

/// Calibration sessions: simulated people through the live
/// pipeline, the suggestions recovering the scripted separation, and every
/// quirks file checked by libinput's own parser.
final class CalibrationTests: XCTestCase {
    /// Runs a calibration on a simulated session the way `calibrate --replay --fast` does.
    private func calibrate(_ simulation: CalibrationSimulation, protocol calibrationProtocol: CalibrationProtocol, trials: Int,
                           file: String = "calibration.h5") throws -> (CalibrationSession, String, TraceRecording) {
        let path = try makeTemporaryDirectory(self).appendingPathComponent(file).path
        let source = CalibrationSource(ReplaySource(recording: simulation.recording, speed: nil), protocol: calibrationProtocol, trials: trials)
        let recorder = try Recorder(source: source, path: path, name: "session")
        let result = try recorder.run(stop: nil)
        XCTAssertEqual(result.reason, .sessionComplete)
        try CalibrationLabels.write(source.session.trials, protocol: calibrationProtocol, toFile: path, recording: "session")
        return (source.session, path, try TraceReader(path: path).recording("session"))
    }

    private func actualPeaks(_ simulation: CalibrationSimulation, _ trialClass: TrialClass) -> [Int32] {
        simulation.trials.filter { $0.trialClass == trialClass && $0.flaw == nil }.map(\.peak)
    }

    private func suggestion(_ trace: TraceRecording, file: String) throws -> CalibrationSuggestion {
        let calibrationProtocol = try XCTUnwrap(try trace.calibrationProtocol())
        return CalibrationSuggestion(protocol: calibrationProtocol, trials: try trace.labelledTrials(for: calibrationProtocol),
                                     device: trace.device, axis: try XCTUnwrap(trace.device.contactPressureAxis), file: file, recording: trace.name)
    }

    func testLabelsFollowTheScriptAndFlawedTrialsAreDiscarded() throws {
        for (device, calibrationProtocol) in [(SimulatedDevice.touchscreen, CalibrationProtocol.app), (.touchpad, .touchpad), (.pen, .pen)] {
            let simulation = CalibrationSimulator.run(device: device, protocol: calibrationProtocol, trials: 4, seed: 3)
            let (session, _, trace) = try calibrate(simulation, protocol: calibrationProtocol, trials: 4)
            XCTAssertEqual(session.discardedCount, 2, "\(calibrationProtocol)")
            let kept = simulation.trials.filter { $0.flaw == nil }
            XCTAssertEqual(session.trials.map(\.trialClass), kept.map(\.trialClass))
            XCTAssertEqual(session.trials.map(\.observation.peak), kept.map(\.peak), "\(calibrationProtocol): the peak each trial reached")
            let stored = try trace.labelledTrials(for: calibrationProtocol)
            XCTAssertEqual(stored.map(\.trialClass), kept.map(\.trialClass))
            XCTAssertEqual(stored.map(\.peak), kept.map(\.peak))
            XCTAssertEqual(try trace.calibrationProtocol(), calibrationProtocol)
            let contacts = try trace.read(TraceSchema.Labels.contact)
            XCTAssertEqual(contacts.filter { $0 < 0 }.count, calibrationProtocol == .pen ? 4 : 0, "only hovers have no contact")
        }
    }

    /// Without the `protocol` attribute (a text it does not name), the
    /// protocol is the one whose classes the labels use.
    func testProtocolWithoutItsAttributeIsTheOneOfTheLabelsClasses() throws {
        for calibrationProtocol in [CalibrationProtocol.app, .touchpad, .pen] {
            let device: SimulatedDevice = calibrationProtocol == .app ? .touchscreen : calibrationProtocol == .touchpad ? .touchpad : .pen
            let simulation = CalibrationSimulator.run(device: device, protocol: calibrationProtocol, trials: 2, seed: 5)
            let (session, _, _) = try calibrate(simulation, protocol: calibrationProtocol, trials: 2)
            let path = try makeTemporaryDirectory(self).appendingPathComponent("unnamed.h5").path
            let recorder = try Recorder(source: ReplaySource(recording: simulation.recording, speed: nil), path: path, name: "session")
            _ = try recorder.run(stop: nil)
            try CalibrationLabels.write(session.trials.map { ($0.trialClass, $0.observation) }, protocol: "not-a-protocol",
                                        toFile: path, recording: "session")
            let trace = try TraceReader(path: path).recording("session")
            XCTAssertEqual(try trace.calibrationProtocol(), calibrationProtocol)
        }
    }

    func testAppSuggestionSeparatesTheScriptedClasses() throws {
        let simulation = CalibrationSimulator.run(device: .touchscreen, protocol: .app, trials: 10, seed: 1)
        let (_, path, trace) = try calibrate(simulation, protocol: .app, trials: 10)
        let app = try XCTUnwrap(try suggestion(trace, file: path).app)
        let tapMax = actualPeaks(simulation, .tap).max()!, peekMin = actualPeaks(simulation, .peekPress).min()!
        let peekMax = actualPeaks(simulation, .peekPress).max()!, popMin = actualPeaks(simulation, .popPress).min()!
        XCTAssertGreaterThan(app.peekRaw, tapMax)
        XCTAssertLessThanOrEqual(app.peekRaw, peekMin)
        XCTAssertGreaterThan(app.popRaw, peekMax)
        XCTAssertLessThanOrEqual(app.popRaw, popMin)
        XCTAssertEqual(app.thresholds.balancedAccuracy, 1)
        XCTAssertEqual(app.thresholds.confusion.map(CalibrationSuggestion.cells), [10, 0, 0, 0, 10, 0, 0, 0, 10])
        XCTAssertEqual(app.popPresses, 10)
        XCTAssertEqual(app.beforeTimeout.map(\.timeoutMs), [400, 500])
        // Scripted: the peak comes at 20 % to 40 % of a 0.35..0.9 s press, so every pop lands before 400 ms.
        XCTAssertEqual(app.reachedPop, 10)
        XCTAssertEqual(app.beforeTimeout.map(\.count), [10, 10])
        XCTAssertFalse(try suggestion(trace, file: path).quirks().isSuccess)
    }

    func testTouchpadSuggestionRecoversTheScriptedSeparationAndLibinputAcceptsIt() throws {
        let simulation = CalibrationSimulator.run(device: .touchpad, protocol: .touchpad, trials: 10, seed: 2)
        let (_, path, trace) = try calibrate(simulation, protocol: .touchpad, trials: 10)
        let result = try suggestion(trace, file: path)
        let touchpad = try XCTUnwrap(result.touchpad)
        let lightMin = actualPeaks(simulation, .light).min()!
        let fingerMax = (actualPeaks(simulation, .light) + actualPeaks(simulation, .normal)).max()!
        let thumbMin = actualPeaks(simulation, .thumb).min()!, thumbMax = actualPeaks(simulation, .thumb).max()!
        let palmMin = actualPeaks(simulation, .palm).min()!
        let n = try XCTUnwrap(touchpad.begin.value), m = try XCTUnwrap(touchpad.end.value)
        let p = try XCTUnwrap(touchpad.thumb.value), o = try XCTUnwrap(touchpad.palm.value)
        XCTAssertLessThan(n, lightMin, "every light touch crosses N")
        XCTAssertEqual(n - m, 5, "2 % of 0..255")
        XCTAssertTrue((fingerMax..<thumbMin).contains(p), "P=\(p) between touches and thumbs")
        XCTAssertTrue((thumbMax..<palmMin).contains(o), "O=\(o) between thumbs and palms")
        XCTAssertTrue(o > p && p > n && n > m)
        let quirks = try result.quirks().get()
        XCTAssertTrue(quirks.contains("\n[forcetrace session]\nMatchName=forcetrace simulated touchpad\nMatchBus=usb\nMatchVendor=0x1D6B\nMatchProduct=0x7F02\nMatchUdevType=touchpad\n"))
        XCTAssertTrue(quirks.contains("\nAttrPressureRange=\(n):\(m)\nAttrThumbPressureThreshold=\(p)\nAttrPalmPressureThreshold=\(o)\n"))
        try assertLibinputAccepts(quirks)
    }

    func testPenTipThresholdSitsBetweenHoverAndLightStrokes() throws {
        let simulation = CalibrationSimulator.run(device: .pen, protocol: .pen, trials: 10, seed: 5)
        let (_, path, trace) = try calibrate(simulation, protocol: .pen, trials: 10)
        let result = try suggestion(trace, file: path)
        let pen = try XCTUnwrap(result.pen)
        let tip = try XCTUnwrap(pen.tip.value)
        XCTAssertEqual(tip, actualPeaks(simulation, .strokeLight).min()! - 1, "the largest value below every light stroke")
        XCTAssertGreaterThan(tip, actualPeaks(simulation, .hover).max()!)
        XCTAssertEqual(pen.hoverMax, actualPeaks(simulation, .hover).max())
        let quirks = try result.quirks().get()
        XCTAssertTrue(quirks.contains("MatchUdevType=tablet\nAttrPressureRange=\(tip):\(pen.release.value!)\n"))
        try assertLibinputAccepts(quirks)
    }

    func testOverlappingClassesAreLeftOutWithTheReason() throws {
        let axis = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255)
        var trials = [Int32](arrayLiteral: 30, 35, 40).map { LabelledTrial(trialClass: .light, peak: $0, startNs: 0) }
        trials += [Int32](arrayLiteral: 70, 90, 140).map { LabelledTrial(trialClass: .normal, peak: $0, startNs: 0) }
        trials += [Int32](arrayLiteral: 120, 150, 160).map { LabelledTrial(trialClass: .thumb, peak: $0, startNs: 0) }
        trials += [Int32](arrayLiteral: 200, 220).map { LabelledTrial(trialClass: .palm, peak: $0, startNs: 0) }
        let result = CalibrationSuggestion(protocol: .touchpad, trials: trials, device: CalibrationSimulator.device(.touchpad), axis: axis,
                                           file: "f.h5", recording: "r")
        let touchpad = try XCTUnwrap(result.touchpad)
        XCTAssertNil(touchpad.thumb.value)
        guard case .omitted(let reason) = touchpad.thumb else { return XCTFail("thumb not omitted") }
        XCTAssertTrue(reason.hasPrefix("light and normal touches (up to 140) and thumbs (from 120) overlap"), reason)
        XCTAssertEqual(touchpad.palm.value, 179, "palms still separate from the rest (up to 160, from 200): the middle of 160...199")
        XCTAssertEqual(touchpad.begin.value, 27)
        let quirks = try result.quirks().get()
        XCTAssertFalse(quirks.contains("AttrThumbPressureThreshold="))
        XCTAssertTrue(quirks.contains("# AttrThumbPressureThreshold left out: light and normal touches (up to 140) and thumbs (from 120) overlap"))
        XCTAssertTrue(result.text.rendered.contains("AttrThumbPressureThreshold P: left out: light and normal touches"))
        try assertLibinputAccepts(quirks)
    }

    /// The threshold is the middle of the gap, or of the tied best candidates.
    func testSeparationPicksTheMiddleOfTheGapOrOfTheTies() throws {
        XCTAssertEqual(Separation.best(lower: [10, 20], upper: [31, 40])?.threshold, 25)
        XCTAssertEqual(Separation.best(lower: [10, 20], upper: [21])?.threshold, 20, "pressure > 20 is the upper class")
        let overlap = Separation.best(lower: [10, 20, 30], upper: [25, 40])!
        XCTAssertTrue(overlap.overlaps)
        XCTAssertLessThan(overlap.balancedAccuracy, 1)
        // Lower [10, 20], upper [11, 30]: the candidates 9, 10, 11, 19, 20, 29, 30
        // give balanced accuracy 0.5, 0.75, 0.5, 0.5, 0.75, 0.75, 0.5, so three
        // tie at 0.75 and the middle one, 20, is the threshold.
        let tied = try XCTUnwrap(Separation.best(lower: [10, 20], upper: [11, 30]))
        XCTAssertEqual(tied.balancedAccuracy, 0.75)
        XCTAssertEqual(tied.threshold, 20)
        XCTAssertTrue(tied.overlaps)
    }

    func testReportReadsATouchpadCalibrationAndSkipsItsClasses() throws {
        let simulation = CalibrationSimulator.run(device: .touchpad, protocol: .touchpad, trials: 2, seed: 4)
        let (_, _, trace) = try calibrate(simulation, protocol: .touchpad, trials: 2)
        XCTAssertEqual(try trace.contactLabels(count: try trace.rowCount(.contacts)).compactMap { $0 }, [])
        XCTAssertNoThrow(try PressureAnalyzer.analyze(trace))
    }

    // MARK: libinput's parser

    /// `libinput quirks validate --data-dir DIR` on `text` as DIR/forcetrace.quirks, failing on a non-zero exit.
    private func assertLibinputAccepts(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let (status, output) = try validate(text)
        XCTAssertEqual(status, 0, "libinput quirks validate rejected:\n\(text)\n\(output)", file: file, line: line)
    }

    private func validate(_ text: String) throws -> (Int32, String) {
        guard let libinput = ["/usr/bin/libinput", "/usr/local/bin/libinput"].first(where: FileManager.default.isExecutableFile) else {
            if ProcessInfo.processInfo.environment["FORCETRACE_REQUIRE_LIBINPUT"] != nil {
                XCTFail("libinput is not installed: apt-get install libinput-tools (make test-swift does)")
            }
            throw XCTSkip("libinput (Debian package libinput-tools) is not installed")
        }
        let directory = try makeTemporaryDirectory(self)
        try text.write(to: directory.appendingPathComponent("forcetrace.quirks"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: libinput)
        process.arguments = ["quirks", "validate", "--data-dir", directory.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    func testTheValidatorRejectsAReversedPressureRange() throws {
        // The check above can fail: libinput refuses N <= M.
        let (status, output) = try validate("[forcetrace bad]\nMatchUdevType=touchpad\nAttrPressureRange=10:25\n")
        XCTAssertNotEqual(status, 0, output)
    }

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
}

private extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}
