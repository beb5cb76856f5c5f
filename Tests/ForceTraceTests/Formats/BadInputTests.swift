import ForceTrace
import Foundation
import XCTest

/// One test per kind of bad input, through the command-line tool: the
/// message names file, line or byte and what was expected; errors exit 1
/// and leave no output (and an existing one untouched); --salvage keeps
/// exactly the complete frames; oddities the kernel passes on are kept
/// with a warning.
final class BadInputTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try FormatTestSupport.temporaryDirectory(self)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A protocol-B touchscreen: 5 slots, x/y 0..4095, pressure 0..255.
    private let device: DeviceDescription = {
        var device = DeviceDescription(name: "bad input touchscreen")
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtSlot, minimum: 0, maximum: 4))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtTrackingID, minimum: 0, maximum: 65535))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: 4095))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionY, minimum: 0, maximum: 4095))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255))
        device.enable(type: EventType.key, code: Button.touch)
        device.enable(type: EventType.syn, code: EventType.key)
        return device
    }()

    /// A press in slot 0 over `frames` frames, 10 ms apart.
    private func press(frames: Int = 10, trackingID: Int32 = 7, start: Int64 = 1_000_000_000) -> [InputEvent] {
        var events: [InputEvent] = []
        func add(_ t: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(timeNs: t, type: type, code: code, value: value))
        }
        for frame in 0..<frames {
            let t = start + Int64(frame) * 10_000_000
            if frame == 0 {
                add(t, 3, AbsoluteAxis.mtSlot, 0)
                add(t, 3, AbsoluteAxis.mtTrackingID, trackingID)
                add(t, 1, Button.touch, 1)
            }
            add(t, 3, AbsoluteAxis.mtPositionX, 1000 + Int32(frame))
            add(t, 3, AbsoluteAxis.mtPressure, 20 + Int32(frame) * 3)
            if frame == frames - 1 {
                add(t, 3, AbsoluteAxis.mtTrackingID, -1)
                add(t, 1, Button.touch, 0)
            }
            add(t, 0, 0, 0)
        }
        return events
    }

    private func evemuText(_ events: [InputEvent]) -> String {
        var text = ""
        Evemu.write(Recording(device: device, events: events, clock: .relative, source: .other("test"), name: "test"), to: &text)
        return text
    }

    private func write(_ text: String, _ name: String) throws -> String {
        try write(Array(text.utf8), name)
    }

    private func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let file = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// Runs a failing import twice: into a new path (nothing may appear) and
    /// over an existing file with --force (it must stay as it was).
    @discardableResult
    private func assertImportFails(_ inputs: [String], _ extra: [String] = [], status: Int32 = 1, messages: [String],
                                   file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let output = path("out-\(UUID().uuidString).h5")
        let run = try FormatTestSupport.run(["import"] + inputs + extra + ["-o", output])
        XCTAssertEqual(run.status, status, run.stderr, file: file, line: line)
        for message in messages {
            XCTAssertTrue(run.stderr.contains(message), "expected '\(message)' in: \(run.stderr)", file: file, line: line)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "a failed import left \(output)", file: file, line: line)
        let existing = path("existing.h5")
        let before = Data("previous contents".utf8)
        try before.write(to: URL(fileURLWithPath: existing))
        let again = try FormatTestSupport.run(["import"] + inputs + extra + ["-o", existing, "--force"])
        XCTAssertEqual(again.status, status, file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: existing)), before, "a failed import changed \(existing)", file: file, line: line)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".partial") }
        XCTAssertEqual(leftovers, [], "temporary files left behind", file: file, line: line)
        return run.stderr
    }

    /// Imports with --salvage and returns the single recording.
    private func salvage(_ inputs: [String], _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> (TraceRecording, Recording) {
        let output = path("salvaged-\(UUID().uuidString).h5")
        let run = try FormatTestSupport.run(["import"] + inputs + extra + ["--salvage", "-o", output])
        XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
        XCTAssertTrue(run.stderr.contains("import_status = \"partial\""), run.stderr, file: file, line: line)
        let reader = try TraceReader(path: output)
        let recording = try reader.recording(reader.recordingNames[0])
        XCTAssertEqual(recording.importStatus, .partial, file: file, line: line)
        XCTAssertNotNil(recording.importError, file: file, line: line)
        return (recording, try recording.loadRecording())
    }

    /// Imports successfully and returns stderr (the warnings) and the recording.
    private func importWithWarnings(_ inputs: [String], _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> (String, Recording) {
        let output = path("ok-\(UUID().uuidString).h5")
        let run = try FormatTestSupport.run(["import"] + inputs + extra + ["-o", output])
        XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
        let reader = try TraceReader(path: output)
        let recording = try reader.recording(reader.recordingNames[0])
        XCTAssertEqual(recording.importStatus, .complete, file: file, line: line)
        return (run.stderr, try recording.loadRecording())
    }

    private func completeFrames(_ events: [InputEvent]) -> [InputEvent] {
        Array(events[..<((events.lastIndex(where: \.isSynReport) ?? -1) + 1)])
    }

    // MARK: - Truncation

    func testEvemuTruncatedMidLine() throws {
        let events = press(frames: 20)
        let text = evemuText(events)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let firstEvent = lines.firstIndex { $0.hasPrefix("E:") }!
        // Cut the 30th event line in half.
        let cutLine = firstEvent + 29
        let cut = lines[..<cutLine].joined(separator: "\n") + "\n" + lines[cutLine].prefix(20)
        let file = try write(String(cut), "cut.evemu")
        try assertImportFails([file], messages: ["cut.evemu:\(cutLine + 1): the file ends in the middle of a line", "--salvage"])
        let (_, salvaged) = try salvage([file])
        XCTAssertEqual(salvaged.events, completeFrames(Array(events[..<29])))
        XCTAssertGreaterThan(salvaged.events.count, 10)
    }

    /// Salvage keeps a recording from its first complete frame on: one frame
    /// before the damage is kept (none would be refused).
    func testEvemuSalvageKeepsASingleCompleteFrame() throws {
        let events = press(frames: 3)
        let firstFrame = Array(events[...(events.firstIndex(where: \.isSynReport)!)])
        let text = evemuText(events)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let firstEvent = lines.firstIndex { $0.hasPrefix("E: ") }!
        // The first frame's lines, then half of the next event line.
        let cut = lines[..<(firstEvent + firstFrame.count)].joined(separator: "\n") + "\n" + lines[firstEvent + firstFrame.count].prefix(8)
        let file = try write(String(cut), "one-frame.evemu")
        let (_, salvaged) = try salvage([file])
        XCTAssertEqual(salvaged.events, firstFrame)
    }

    func testEvemuEndingMidFrameAtALineEndIsKeptWithAWarning() throws {
        let events = press(frames: 20)
        let keep = events.count - 3
        let text = evemuText(Array(events[..<keep]))
        let (warnings, recording) = try importWithWarnings([try write(text, "midframe.evemu")])
        XCTAssertTrue(warnings.contains("the recording ends mid-frame: 2 events after the last SYN_REPORT"), warnings)
        XCTAssertEqual(recording.events, Array(events[..<keep]))
    }

    func testRawTruncatedMidRecord() throws {
        let events = press(frames: 20)
        var raw: [UInt8] = []
        RawEventStream.write(Recording(device: device, events: events, clock: .relative, source: .other(""), name: "")) { raw.append(contentsOf: $0) }
        let cutAt = 24 * 40 + 10
        let file = try write(Array(raw[..<cutAt]), "cut.raw")
        let description = try write(evemuText([]), "device.desc")
        try assertImportFails([file], ["--raw", "--desc", description],
                              messages: ["cut.raw: at byte \(24 * 40): the stream ends mid-record: 10 trailing bytes"])
        let (_, salvaged) = try salvage([file], ["--raw", "--desc", description])
        XCTAssertEqual(salvaged.events, completeFrames(Array(events[..<40])))
    }

    func testLibinputTruncatedMidFrame() throws {
        let events = press(frames: 20)
        var yaml = ""
        LibinputRecord.write([Recording(device: device, events: events, clock: .relative, source: .other(""), name: "")], to: &yaml)
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
        let eventLines = lines.indices.filter { lines[$0].hasPrefix("        - [") }
        // Inside a frame: mid-line, and exactly at a line end (still valid YAML).
        let cutLine = eventLines[30]
        let midLine = lines[..<cutLine].joined(separator: "\n") + "\n" + lines[cutLine].prefix(18)
        let atLineEnd = lines[..<cutLine].joined(separator: "\n") + "\n"
        let expected = completeFrames(Array(events[..<30]))
        // Blank lines after the cut (spaces, CR) are not content: the file still ends at the cut.
        for (name, text) in [("midline.yml", midLine), ("lineend.yml", atLineEnd), ("blanks.yml", atLineEnd + "   \n  \r\n  ")] {
            let file = try write(String(text), name)
            let stderr = try assertImportFails([file], messages: ["\(name):", "--salvage"])
            XCTAssertTrue(stderr.contains("cut off") || stderr.contains("truncated"), stderr)
            let (_, salvaged) = try salvage([file])
            XCTAssertEqual(salvaged.events, expected, name)
        }
    }

    // MARK: - Streams the kernel could send: kept, with a warning

    func testUnknownEventTypesAreKept() throws {
        var events = press()
        events.insert(InputEvent(timeNs: events[4].timeNs, type: 0x1e, code: 2, value: 9), at: 4)
        let (warnings, recording) = try importWithWarnings([try write(evemuText(events), "unknown-type.evemu")])
        XCTAssertTrue(warnings.contains("1 events of type EV_0x1e, which the device does not declare, first event 4"), warnings)
        XCTAssertEqual(recording.events, events)
    }

    func testValuesOutsideAbsinfoAreKept() throws {
        var events = press()
        let index = events.firstIndex { $0.code == AbsoluteAxis.mtPressure }!
        events[index].value = 300
        let (warnings, recording) = try importWithWarnings([try write(evemuText(events), "range.evemu")])
        XCTAssertTrue(warnings.contains("1 ABS_MT_PRESSURE values outside its absinfo range 0..255 (seen 300..300)"), warnings)
        XCTAssertTrue(warnings.contains("kept as recorded, the kernel does not clamp"), warnings)
        XCTAssertEqual(recording.events, events)
        XCTAssertTrue(recording.events.contains { $0.code == AbsoluteAxis.mtPressure && $0.value == 300 })
    }

    func testSlotBeyondDeclaredSlots() throws {
        var events = press()
        let t = events.last!.timeNs + 10_000_000
        events += [InputEvent(timeNs: t, type: 3, code: AbsoluteAxis.mtSlot, value: 7),
                   InputEvent(timeNs: t, type: 3, code: AbsoluteAxis.mtTrackingID, value: 9),
                   InputEvent(timeNs: t, type: 0, code: 0, value: 0)]
        let (warnings, recording) = try importWithWarnings([try write(evemuText(events), "slot.evemu")])
        XCTAssertTrue(warnings.contains("ABS_MT_SLOT 7 is beyond the 5 declared slots"), warnings)
        XCTAssertFalse(warnings.contains("ABS_MT_SLOT values outside"), "one warning per cause: \(warnings)")
        XCTAssertEqual(recording.events, events)
    }

    func testTrackingIDReusedWithoutRelease() throws {
        var events = press()
        // A new tracking id in slot 0 while 7 is still down.
        let t = events[5].timeNs
        events.insert(InputEvent(timeNs: t, type: 3, code: AbsoluteAxis.mtTrackingID, value: 8), at: 5)
        let (warnings, recording) = try importWithWarnings([try write(evemuText(events), "reuse.evemu")])
        XCTAssertTrue(warnings.contains("slot 0: tracking id 8 replaced 7 without -1 in between"), warnings)
        XCTAssertEqual(recording.events, events)
    }

    /// A frame ending before the one before it would put samples and
    /// contacts out of order, which every reader refuses: refused on import.
    func testAClockSteppingBackBetweenFramesIsRefused() throws {
        var events = press()
        for index in 10..<14 { events[index].timeNs -= 50_000_000 }
        try assertImportFails([try write(evemuText(events), "backwards.evemu")],
                              messages: ["recording 'backwards': the clock steps back at event 11", "pass --salvage"])
    }

    // MARK: - Errors

    func testMissingDescription() throws {
        let events = evemuText(press()).split(separator: "\n").filter { $0.hasPrefix("E:") }.joined(separator: "\n") + "\n"
        let eventsOnly = try write(events, "alone.events")
        try assertImportFails([eventsOnly], messages: ["alone.events: has events but no device description", "--desc FILE.desc"])

        var raw: [UInt8] = []
        RawEventStream.write(Recording(device: device, events: press(), clock: .relative, source: .other(""), name: "")) { raw.append(contentsOf: $0) }
        let rawFile = try write(raw, "alone.raw")
        try assertImportFails([rawFile], messages: ["alone.raw: holds binary data, read as a raw input_event stream, which carries no device description", "--desc DESC"])
        try assertImportFails([rawFile], ["--raw"], status: 2, messages: ["pass --desc DESC"])

        let yaml = "version: 1\nndevices: 1\ndevices:\n  - node: /dev/input/event3\n    events:\n      - evdev:\n        - [0, 0, 0, 0, 0]\n"
        try assertImportFails([try write(yaml, "nodesc.yml")], messages: ["nodesc.yml:5: device 0: 'events' before its 'evdev' description"])
        let noEvdev = "version: 1\nndevices: 1\ndevices:\n  - node: /dev/input/event3\n"
        try assertImportFails([try write(noEvdev, "noevdev.yml")], messages: ["noevdev.yml:4: device 0 has no 'evdev' description"])
    }

    func testBinaryGarbage() throws {
        // Fixed, NUL-containing bytes: the same garbage on every run.
        var state: UInt64 = 0x9e3779b97f4a7c15
        let garbage: [UInt8] = (0..<4096).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        } + [0]
        let file = try write(garbage, "garbage.bin")
        let description = try write(evemuText([]), "device.desc")
        try assertImportFails([file], messages: ["garbage.bin: holds binary data"])
        try assertImportFails([file], ["--desc", description],
                              messages: ["garbage.bin: at byte 0: record 0 has tv_sec", "expected a struct input_event with 0 <= tv_usec < 1000000"])
        try assertImportFails([file], ["--format", "evemu"], messages: ["garbage.bin:1:"])
        try assertImportFails([file], ["--format", "libinput"], messages: ["garbage.bin:"])
        // Text garbage (no NUL) matches no format.
        try assertImportFails([try write("lorem ipsum dolor\nsit amet\n", "prose.txt")],
                              messages: ["prose.txt: cannot tell the format", "--format evemu|browser|libinput|raw"])
        // Garbage after good frames is damage: the frames before it survive.
        let events = press(frames: 20)
        let good = evemuText(events)
        let file2 = try write(Array(good.utf8) + [0x00, 0xff, 0x13, 0x37] + Array("\n".utf8), "tail-garbage.evemu")
        let lineCount = good.split(separator: "\n").count
        try assertImportFails([file2], messages: ["tail-garbage.evemu:\(lineCount + 1): binary data"])
        let (_, salvaged) = try salvage([file2])
        XCTAssertEqual(salvaged.events, events)
    }

    func testEmptyFiles() throws {
        let empty = try write([UInt8](), "empty.evemu")
        try assertImportFails([empty], messages: ["empty.evemu: the file is empty"])
        for format in RecordingFormat.allCases {
            let description = try write(evemuText([]), "device.desc")
            try assertImportFails([empty], ["--format", format.rawValue, "--desc", description], messages: ["empty.evemu: the file is empty"])
        }
        try assertImportFails([try write("\n# only a comment\n\n", "blank.evemu")], messages: ["blank.evemu: holds only blank lines and comments"])
        try assertImportFails([try write("# only a comment\n", "blank.yml")], ["--format", "libinput"], messages: ["blank.yml: holds no YAML document"])
    }

    func testCRLFLineEndings() throws {
        let events = press(frames: 15)
        let lf = evemuText(events)
        let (_, fromEvemu) = try importWithWarnings([try write(lf.replacingOccurrences(of: "\n", with: "\r\n"), "crlf.evemu")])
        XCTAssertEqual(fromEvemu.events, events)
        var yaml = ""
        LibinputRecord.write([Recording(device: device, events: events, clock: .relative, source: .other(""), name: "")], to: &yaml)
        let (_, fromYAML) = try importWithWarnings([try write(yaml.replacingOccurrences(of: "\n", with: "\r\n"), "crlf.yml")])
        XCTAssertEqual(fromYAML.events.map(\.value), events.map(\.value))
        XCTAssertEqual(fromYAML.device, fromEvemu.device)
    }

    func testHugeLines() throws {
        let events = press(frames: 15)
        let text = evemuText(events)
        let huge = String(repeating: "x", count: 200_000)
        // In the header: an error, nothing to keep.
        try assertImportFails([try write("# " + huge + "\n" + text, "huge-header.evemu")],
                              messages: ["huge-header.evemu:1: line is longer than 65536 bytes"])
        // Among the events: damage after complete frames.
        let file = try write(text + "E: 9.000000 0003 0035 " + huge + "\n", "huge-event.evemu")
        let lineCount = text.split(separator: "\n").count
        try assertImportFails([file], messages: ["huge-event.evemu:\(lineCount + 1): line is longer than 65536 bytes"])
        let (_, salvaged) = try salvage([file])
        XCTAssertEqual(salvaged.events, events)
        // libyaml takes long lines in its stride: a long comment is fine.
        var yaml = ""
        LibinputRecord.write([Recording(device: device, events: events, clock: .relative, source: .other(""), name: "")], to: &yaml)
        let (_, fromYAML) = try importWithWarnings([try write("# " + huge + "\n" + yaml, "huge.yml")])
        XCTAssertEqual(fromYAML.events.count, events.count)
    }

    /// One bad input among good ones: nothing is written; with --salvage the
    /// good ones are complete and the bad one is marked partial.
    func testOneBadInputAmongGoodOnes() throws {
        let events = press(frames: 20)
        let good = try write(evemuText(events), "good.evemu")
        let text = evemuText(events)
        let bad = try write(String(text.prefix(text.count - 7)), "bad.evemu")
        try assertImportFails([good, bad], messages: ["bad.evemu:"])
        let output = path("mixed.h5")
        let run = try FormatTestSupport.run(["import", good, bad, "--salvage", "-o", output])
        XCTAssertEqual(run.status, 0, run.stderr)
        let reader = try TraceReader(path: output)
        XCTAssertEqual(try reader.recording("good").importStatus, .complete)
        XCTAssertEqual(try reader.recording("good").loadRecording().events, events)
        XCTAssertEqual(try reader.recording("bad").importStatus, .partial)
        XCTAssertEqual(try reader.recording("bad").loadRecording().events, completeFrames(Array(events.dropLast())))
    }

    func testLibinputVersionAndStructureErrors() throws {
        try assertImportFails([try write("version: 2\nndevices: 1\ndevices: []\n", "v2.yml")],
                              messages: ["v2.yml:1: libinput record format version 2 is not supported; this forcetrace reads version 1"])
        try assertImportFails([try write("version: 1\nndevices: 1\ndevices:\n  - evdev:\n      name: x\n    events:\n      - evdev:\n        - [0, 0, 3, 53]\n", "short.yml")],
                              messages: ["short.yml:8: expected an event [sec, usec, type, code, value] with 5 integers, found 4"])
        try assertImportFails([try write("version: 1\nndevices: 1\ndevices:\n  - evdev:\n      name: x\n      absinfo:\n        47: [0, 99999, 0, 0, 0]\n    events: []\n", "slots.yml")],
                              messages: ["slots.yml:5: ABS_MT_SLOT's range 0..99999 is not a slot count"])
        try assertImportFails([try write("version: 1\nanchor: &a [1]\nalias: *a\n", "alias.yml")],
                              messages: ["alias.yml:3: YAML aliases"])
    }
}
