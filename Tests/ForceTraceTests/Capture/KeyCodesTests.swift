import Foundation
import XCTest
@testable import ForceTrace

/// Common keys are recorded as KEY_A; the live path through a replay source.
final class KeyCodesTests: XCTestCase {
    static let keyP: UInt16 = 25, keyS: UInt16 = 31, keyEsc: UInt16 = 1, keyF1: UInt16 = 59
    static let btnLeft: UInt16 = 0x110

    private func event(_ type: UInt16, _ code: UInt16, _ value: Int32, at time: Int64 = 0) -> InputEvent {
        InputEvent(timeNs: time, type: type, code: code, value: value)
    }

    func testCommonKeysAndNeverButtons() {
        for code: UInt16 in [2, 11, 16, 30, 50, 12, 39, 53, 57, 28, 42, 29, 56, 97, 100, 125, 71, 83, 96, 98] {
            XCTAssertTrue(KeyboardKeys.isCommon(code), "code \(code)")
        }
        for code: UInt16 in [Self.keyEsc, Self.keyF1, 103, 105, Self.btnLeft, Button.touch, Button.toolPen, Button.toolFinger, 0x14b] {
            XCTAssertFalse(KeyboardKeys.isCommon(code), "code \(code)")
        }
    }

    func testAFrameWithALetterLosesItsCodeAndScancode() {
        var at = [event(EventType.msc, KeyboardKeys.mscScan, 0x19), event(EventType.key, Self.keyP, 1), event(EventType.syn, 0, 0)]
        XCTAssertEqual(KeyboardKeys.obfuscate(frame: &at), 2)
        XCTAssertEqual(at, [event(EventType.msc, KeyboardKeys.mscScan, 0x1e), event(EventType.key, KeyboardKeys.keyA, 1), event(EventType.syn, 0, 0)])
        var hid = [event(EventType.msc, KeyboardKeys.mscScan, 0x70016), event(EventType.key, Self.keyS, 0), event(EventType.syn, 0, 0)]
        KeyboardKeys.obfuscate(frame: &hid)
        XCTAssertEqual(hid.map(\.value), [0x70004, 0, 0])
        XCTAssertEqual(hid[1].code, KeyboardKeys.keyA)
    }

    func testButtonsTouchAndOtherKeysAreKept() {
        let frame = [event(EventType.msc, KeyboardKeys.mscScan, 0x90001), event(EventType.key, Self.btnLeft, 1),
                     event(EventType.key, Button.touch, 1), event(EventType.abs, AbsoluteAxis.mtPressure, 40), event(EventType.syn, 0, 0)]
        var copy = frame
        XCTAssertEqual(KeyboardKeys.obfuscate(frame: &copy), 0)
        XCTAssertEqual(copy, frame)
        var escape = [event(EventType.msc, KeyboardKeys.mscScan, 0x01), event(EventType.key, Self.keyEsc, 1), event(EventType.syn, 0, 0)]
        let original = escape
        KeyboardKeys.obfuscate(frame: &escape)
        XCTAssertEqual(escape, original)
    }

    func testDeviceWithLettersIsAKeyboardAndRefusedWithoutPressure() throws {
        var keyboard = DeviceDescription(name: "AT keyboard")
        for code: UInt16 in 1...88 { keyboard.enable(type: EventType.key, code: code) }
        XCTAssertTrue(keyboard.hasKeyboardKeys)
        XCTAssertThrowsError(try KeyboardPolicy.check(keyboard, path: "/dev/input/event0", allowKeyboard: false, command: "record")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("/dev/input/event0: \"AT keyboard\" is a keyboard (letter keys, no pressure axis)"), text)
            XCTAssertTrue(text.contains("pass --allow-keyboard"), text)
        }
        XCTAssertNoThrow(try KeyboardPolicy.check(keyboard, path: "/dev/input/event0", allowKeyboard: true, command: "record"))
        var pad = slottedDevice()
        XCTAssertFalse(pad.hasKeyboardKeys)
        XCTAssertNil(KeyboardPolicy.warning(pad, path: "/dev/input/event3", handling: .obfuscated))
        pad.enable(type: EventType.key, code: Self.keyP)
        XCTAssertNoThrow(try KeyboardPolicy.check(pad, path: "/dev/input/event3", allowKeyboard: false, command: "record"))
        XCTAssertTrue(KeyboardPolicy.warning(pad, path: "/dev/input/event3", handling: .obfuscated)!.contains("key codes are obfuscated"))
        XCTAssertTrue(KeyboardPolicy.warning(pad, path: "/dev/input/event3", handling: .asIs)!.contains("NOT obfuscated"))
    }

    /// A touchpad with keys: "pass" typed while a finger presses.
    static func typingWhilePressing() -> Recording {
        var device = slottedDevice()
        device.name = "keys and touchpad"
        for code in [keyP, KeyboardKeys.keyA, keyS] { device.enable(type: EventType.key, code: code) }
        device.enable(type: EventType.msc, code: KeyboardKeys.mscScan)
        var script = EventScript()
        script.time = 1_000_000_000
        script.abs(AbsoluteAxis.mtSlot, 0); script.abs(AbsoluteAxis.mtTrackingID, 5); script.abs(AbsoluteAxis.mtPositionX, 100)
        script.abs(AbsoluteAxis.mtPositionY, 100); script.abs(AbsoluteAxis.mtPressure, 20); script.key(Button.touch, 1); script.report()
        for (index, key) in [(0x19, keyP), (0x1e, KeyboardKeys.keyA), (0x1f, keyS), (0x1f, keyS)].enumerated() {
            script.abs(AbsoluteAxis.mtPressure, Int32(30 + 20 * index)); script.report()
            for value: Int32 in [1, 0] {
                script.events.append(InputEvent(timeNs: script.time, type: EventType.msc, code: KeyboardKeys.mscScan, value: Int32(key.0)))
                script.key(key.1, value); script.report()
            }
        }
        script.abs(AbsoluteAxis.mtTrackingID, -1); script.key(Button.touch, 0); script.report()
        return Recording(device: device, events: script.events, clock: .monotonic, source: .other("test"), name: "typing")
    }

    private func record(_ recording: Recording, handling: KeyCodeHandling, limit: Int64? = nil, speed: Double? = nil) throws -> TraceRecording {
        let path = try makeTemporaryDirectory(self).appendingPathComponent("keys.h5").path
        let replay = ReplaySource(recording: recording, speed: speed)
        var options = RecorderOptions()
        options.keyCodes = handling
        options.maxEvents = limit
        let source: any CaptureSource = handling == .obfuscated ? KeyObfuscatingSource(replay) : replay
        _ = try Recorder(source: source, path: path, name: "typing", options: options).run(stop: nil)
        return try TraceReader(path: path).recording("typing")
    }

    private func keys(_ trace: TraceRecording) throws -> [UInt16] {
        var codes: [UInt16] = []
        try trace.forEachEventBlock { block in
            codes += block.filter { $0.type == EventType.key && $0.value == 1 && $0.code < 0x100 }.map(\.code)
        }
        return codes
    }

    func testRecorderStoresKeyAAndMatchingScancodesButTheSameContacts() throws {
        let recording = Self.typingWhilePressing()
        let hidden = try record(recording, handling: .obfuscated)
        let shown = try record(recording, handling: .asIs)
        XCTAssertEqual(hidden.keyCodeHandling, .obfuscated)
        XCTAssertEqual(shown.keyCodeHandling, .asIs)
        XCTAssertEqual(try keys(hidden), [30, 30, 30, 30])
        XCTAssertEqual(try keys(shown), [Self.keyP, 30, Self.keyS, Self.keyS])
        var scancodes: [Int32] = []
        try hidden.forEachEventBlock { block in scancodes += block.filter { $0.type == EventType.msc }.map(\.value) }
        XCTAssertEqual(scancodes, Array(repeating: 0x1e, count: 8))
        XCTAssertEqual(try hidden.rowCount(.events), recording.events.count)
        XCTAssertEqual(try hidden.read(TraceSchema.Samples.tNs), try shown.read(TraceSchema.Samples.tNs))
        XCTAssertEqual(try hidden.read(TraceSchema.Samples.pressure), try shown.read(TraceSchema.Samples.pressure))
        XCTAssertEqual(try hidden.contacts().count, 1)
        XCTAssertNil(try hidden.unobfuscatedKeysWarning())
        XCTAssertTrue(try shown.unobfuscatedKeysWarning()!.contains("recorded with --show-keycodes"))
    }

    /// Paced, like a live device: most reads return nothing.
    func testObfuscatingSourceAtTheOriginalPace() throws {
        let trace = try record(Self.typingWhilePressing(), handling: .obfuscated, speed: 1)
        XCTAssertEqual(try trace.rowCount(.events), Self.typingWhilePressing().events.count)
        XCTAssertEqual(try keys(trace), [30, 30, 30, 30])
    }

    func testObfuscatingSourceKeepsAnEventLimitExact() throws {
        let trace = try record(Self.typingWhilePressing(), handling: .obfuscated, limit: 9)
        XCTAssertEqual(try trace.rowCount(.events), 9)
    }

    func testAnImportKeepsKeysAndIsFlagged() throws {
        let path = try makeTemporaryDirectory(self).appendingPathComponent("import.h5").path
        let writer = try TraceWriter(creating: path)
        try writer.write(Self.typingWhilePressing())
        try writer.close()
        let trace = try TraceReader(path: path).recording("typing")
        XCTAssertNil(trace.keyCodeHandling)
        XCTAssertEqual(try keys(trace), [Self.keyP, 30, Self.keyS, Self.keyS])
        XCTAssertEqual(try trace.keyPressCensus(), { var census = KeyPressCensus(); census.commonPresses = 4; census.revealingPresses = 3; return census }())
        XCTAssertTrue(try trace.unobfuscatedKeysWarning()!.hasPrefix("holds 4 key presses of letters, digits or other common keys, not obfuscated"))
    }
}

/// Hands out one item per read with empty reads between, never ending on its own: as a live device does.
final class TrickleSource: CaptureSource {
    let recording: Recording
    private var next = 0, calls = 0
    init(_ recording: Recording) { self.recording = recording }
    var device: DeviceDescription { recording.device }
    var clock: RecordingClock { recording.clock }
    var t0Ns: Int64 { recording.t0Ns }
    var sourceName: RecordingSource { .other("trickle") }
    var defaultRecordingName: String { "trickle" }
    var synDroppedPolicy: TraceDecoder.SynDroppedPolicy { .applyFollowingEvents }
    var initialEvents: [InputEvent] { [] }
    func read(timeoutNs: Int64, wakeDescriptor: FileDescriptor?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?) {
        calls += 1
        guard calls % 2 == 0, next < recording.events.count else { return ([], nil) }
        next += 1
        return ([.event(recording.events[next - 1])], nil)
    }
    func close() {}
}

extension KeyCodesTests {
    func testObfuscatingSourceOverATrickle() throws {
        let recording = Self.typingWhilePressing()
        let path = try makeTemporaryDirectory(self).appendingPathComponent("trickle.h5").path
        var options = RecorderOptions()
        options.maxEvents = Int64(recording.events.count)
        options.durationNs = 5_000_000_000
        let result = try Recorder(source: KeyObfuscatingSource(TrickleSource(recording)), path: path, name: "t", options: options).run(stop: nil)
        XCTAssertEqual(result.reason, .maxEvents)
        XCTAssertEqual(try TraceReader(path: path).recording("t").rowCount(.events), recording.events.count)
    }
}

/// Everything the device sent is already queued, as when the recorder's
/// main thread starts slowly; it never ends on its own.
final class QueuedSource: CaptureSource {
    let recording: Recording
    private var given = false
    init(_ recording: Recording) { self.recording = recording }
    var device: DeviceDescription { recording.device }
    var clock: RecordingClock { recording.clock }
    var t0Ns: Int64 { recording.t0Ns }
    var sourceName: RecordingSource { .other("queued") }
    var defaultRecordingName: String { "queued" }
    var synDroppedPolicy: TraceDecoder.SynDroppedPolicy { .applyFollowingEvents }
    var initialEvents: [InputEvent] { [] }
    func read(timeoutNs: Int64, wakeDescriptor: FileDescriptor?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?) {
        defer { given = true }
        return (given ? [] : recording.events.map(CaptureItem.event), nil)
    }
    func close() {}
}

extension KeyCodesTests {
    /// A stop signal that comes before the first read keeps what the device already delivered.
    func testAStopBeforeTheFirstReadKeepsQueuedEvents() throws {
        let recording = Self.typingWhilePressing()
        let path = try makeTemporaryDirectory(self).appendingPathComponent("queued.h5").path
        let stop = try StopSignal()
        let recorder = try Recorder(source: KeyObfuscatingSource(QueuedSource(recording)), path: path, name: "q")
        raise(SIGINT)
        let result = try recorder.run(stop: stop)
        XCTAssertEqual(result.reason, .signal)
        XCTAssertEqual(result.summary.events, Int64(recording.events.count))
    }
}
