import Foundation
import XCTest
@testable import ForceTrace

/// Android getevent captures (toolbox/getevent.c's output) as recordings.
final class GeteventTests: XCTestCase {
    static let labelled = BlackBox.fixture("getevent-lp-lt.txt")
    static let numeric = BlackBox.fixture("getevent-p-t.txt")

    private func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// The numeric fixture read the plain way: every event line split into
    /// its node and three hex fields, without the importer.
    private func oracle(_ path: String) throws -> [String: [InputEvent]] {
        var events: [String: [InputEvent]] = [:]
        for line in try text(path).split(separator: "\n") where line.hasPrefix("[") {
            let close = line.firstIndex(of: "]")!
            let stamp = line[line.index(after: line.startIndex)..<close].trimmingCharacters(in: .whitespaces).split(separator: ".")
            let rest = line[line.index(close, offsetBy: 2)...].components(separatedBy: ": ")
            let fields = rest[1].split(separator: " ")
            let time = Int64(stamp[0])! * 1_000_000_000 + Int64(stamp[1])! * 1000
            events[rest[0], default: []].append(InputEvent(timeNs: time, type: UInt16(fields[0], radix: 16)!, code: UInt16(fields[1], radix: 16)!,
                                                           value: Int32(bitPattern: UInt32(fields[2], radix: 16)!)))
        }
        return events
    }

    /// `getevent -p` then `-t`, numeric: each device with events becomes a
    /// recording with its events as printed, its absinfo and properties;
    /// the keys device, which sent none, becomes none.
    func testNumericCaptureBecomesOneRecordingPerDeviceWithEvents() throws {
        let recordings = try RecordingImporter.read(Self.numeric).map(\.recording)
        let expected = try oracle(Self.numeric)
        XCTAssertEqual(recordings.map(\.name), ["getevent-p-t-event1", "getevent-p-t-event2"])
        XCTAssertEqual(recordings[0].events, expected["/dev/input/event1"])
        XCTAssertEqual(recordings[1].events, expected["/dev/input/event2"])
        XCTAssertEqual(recordings.map(\.source.description), ["getevent:\(Self.numeric)#device2", "getevent:\(Self.numeric)#device3"])
        let pen = recordings[0].device
        XCTAssertEqual(pen.name, "sec_e-pen")
        XCTAssertEqual(pen.axis(AbsoluteAxis.pressure), AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 4095))
        XCTAssertEqual(pen.axis(AbsoluteAxis.x), AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: 11520, fuzz: 4, resolution: 40))
        XCTAssertEqual(pen.axis(0x1a)?.minimum, -63)
        XCTAssertEqual(pen.codes[EventType.key], [Button.toolPen, Button.toolRubber, Button.touch, 0x14b])
        XCTAssertEqual(pen.codes[EventType.syn], [EventType.syn, EventType.key, EventType.abs])
        XCTAssertEqual(pen.properties, [InputProperty.direct])
        XCTAssertTrue(pen.isPen)
        XCTAssertEqual(recordings[1].device.slotCount, 10)
        XCTAssertEqual(recordings[1].device.contactPressureAxis?.maximum, 63)
        XCTAssertEqual(recordings[0].clock, .monotonic)
        // -1 is printed ffffffff.
        XCTAssertTrue(recordings[1].events.contains { $0.code == AbsoluteAxis.mtTrackingID && $0.value == -1 })
    }

    /// `-lp` and `-lt` (labels, padded and with UP/DOWN values) read as the
    /// numeric form of the same capture does.
    func testLabelledCaptureReadsAsTheNumericOne() throws {
        let labelled = try RecordingImporter.read(Self.labelled).map(\.recording)
        let numeric = try RecordingImporter.read(Self.numeric).map(\.recording)
        XCTAssertEqual(labelled.count, 2)
        XCTAssertEqual(labelled.map(\.events), numeric.map(\.events))
        XCTAssertEqual(labelled.map(\.device), numeric.map(\.device))
    }

    /// Without `-p` the capture has no ranges: import says how to get them,
    /// and --desc (an evemu header) supplies them.
    func testEventsWithoutDescriptionNeedDesc() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let pen = try RecordingImporter.read(Self.labelled).map(\.recording)[0]
        let eventsOnly = try text(Self.labelled).split(separator: "\n").filter { $0.contains("/dev/input/event1: ") }
        let capture = directory.appendingPathComponent("pen.txt").path
        try (eventsOnly.joined(separator: "\n") + "\n").write(toFile: capture, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try RecordingImporter.read(capture)) { error in
            XCTAssertTrue("\(error)".contains("pen.txt:1: '/dev/input/event1' has events but no description"), "\(error)")
            XCTAssertTrue("\(error)".contains("--desc"), "\(error)")
        }
        let description = directory.appendingPathComponent("pen.desc").path
        try EvemuCodec().encode([Recording(device: pen.device, events: [], clock: .monotonic, source: .other("x"), name: "x")],
                                to: try ByteOutput(path: description))
        let read = try RecordingImporter.read(capture, descriptionPath: description).map(\.recording)
        XCTAssertEqual(read.count, 1)
        XCTAssertEqual(read[0].events, pen.events)
        XCTAssertEqual(read[0].device, pen.device)
    }

    /// `getevent -l NODE` prints neither times nor nodes: one device, times 0.
    func testCaptureOfOneNodeWithoutTimes() throws {
        let lines = try text(Self.labelled).split(separator: "\n").filter { $0.contains("/dev/input/event1: ") }
            .map { $0.components(separatedBy: "/dev/input/event1: ")[1] }
        let recording = try Getevent.read(Array((lines.joined(separator: "\n") + "\n").utf8),
                                          description: RecordingImporter.read(Self.labelled)[0].recording.device)
        let pen = try RecordingImporter.read(Self.labelled)[0].recording
        XCTAssertEqual(recording.count, 1)
        XCTAssertEqual(recording[0].events.map { [$0.type, $0.code] }, pen.events.map { [$0.type, $0.code] })
        XCTAssertEqual(recording[0].events.map(\.value), pen.events.map(\.value))
        XCTAssertEqual(Set(recording[0].events.map(\.timeNs)), [0])
        XCTAssertEqual(recording[0].name, "getevent-bytes")
    }

    /// An empty name ("") is a name; an absinfo line naming a field twice is refused.
    func testAnEmptyNameAndARepeatedAbsinfoField() throws {
        func capture(name: String, absinfo: String) -> [UInt8] {
            Array("""
            add device 1: /dev/input/event3
              name:     \(name)
              events:
                ABS (0003): 0018  : \(absinfo)
              input props:
                <none>
            [    1.000000] /dev/input/event3: 0003 0018 00000001
            [    1.000000] /dev/input/event3: 0000 0000 00000000

            """.utf8)
        }
        let plain = "value 0, min 0, max 255, fuzz 0, flat 0, resolution 0"
        XCTAssertEqual(try Getevent.read(capture(name: "\"\"", absinfo: plain)).first?.device.name, "")
        XCTAssertThrowsError(try Getevent.read(capture(name: "\"", absinfo: plain)))
        XCTAssertThrowsError(try Getevent.read(capture(name: "\"pad\"", absinfo: "value 0, min 0, min 5, max 255, fuzz 0, flat 0"))) {
            XCTAssertTrue("\($0)".contains("getevent-bytes:4: expected 'value V, min A, max B, fuzz F, flat L, resolution R'") && "\($0)".hasSuffix("found 'min 5'"), "\($0)")
        }
        XCTAssertEqual(try Getevent.read(capture(name: "\"pad\"", absinfo: plain)).first?.device.axis(AbsoluteAxis.pressure)?.maximum, 255)
    }

    /// `getevent -i`'s identity lines: "version 0001" is the device's,
    /// "version:  1.0.1" the driver's, which evdev does not keep; and `-r`'s
    /// " rate N" after a SYN_REPORT is skipped, the event read as without it.
    func testIdentityVersionsAndTheRateSuffix() throws {
        let capture = """
        add device 1: /dev/input/event3
          bus:      0018
          vendor    04f3
          product   2a1c
          version   0100
          name:     "ELAN touch"
          location: "i2c"
          id:       ""
          version:  1.0.1
          events:
            KEY (0001): 014a
            ABS (0003): 002f  : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
                        0035  : value 0, min 0, max 1079, fuzz 0, flat 0, resolution 0
                        0036  : value 0, min 0, max 2399, fuzz 0, flat 0, resolution 0
                        0039  : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0
                        003a  : value 0, min 0, max 63, fuzz 0, flat 0, resolution 0
          input props:
            INPUT_PROP_DIRECT
        [    1.000000] /dev/input/event3: 0003 0039 00000001
        [    1.000000] /dev/input/event3: 0003 003a 00000010
        [    1.000000] /dev/input/event3: 0000 0000 00000000
        [    1.010000] /dev/input/event3: 0003 003a 00000012
        [    1.010000] /dev/input/event3: 0000 0000 00000000 rate 100

        """
        let recording = try XCTUnwrap(try Getevent.read(Array(capture.utf8)).first)
        XCTAssertEqual([recording.device.bus, recording.device.vendor, recording.device.product, recording.device.version],
                       [0x18, 0x04f3, 0x2a1c, 0x0100])
        XCTAssertEqual(recording.events.map { [Int64($0.type), Int64($0.code), Int64($0.value)] },
                       [[3, 0x39, 1], [3, 0x3a, 16], [0, 0, 0], [3, 0x3a, 18], [0, 0, 0]])
        XCTAssertEqual(recording.events.last?.timeNs, 1_010_000_000)
        // A word in place of the rate's number is no rate: the line is refused.
        XCTAssertThrowsError(try Getevent.read(Array(capture.replacingOccurrences(of: "rate 100", with: "rate fast").utf8)))
    }

    /// A capture mixing timed and untimed lines is two captures pasted
    /// together: refused at the first line that differs.
    func testMixedTimestampsAreRefusedAtTheLine() throws {
        var lines = try text(Self.numeric).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = lines.firstIndex { $0.hasPrefix("[") }! + 2
        lines[index] = String(lines[index].drop { $0 != "]" }.dropFirst(2))
        XCTAssertThrowsError(try GeteventCodec().decode(Array(lines.joined(separator: "\n").utf8), file: "mixed.txt")) { error in
            XCTAssertTrue("\(error)".hasPrefix("mixed.txt:\(index + 1): an event line without the timestamp"), "\(error)")
        }
    }

    /// getevent prints at most 20 characters of a code's name: a cut name
    /// is read when one code's name starts with it, refused when two do.
    func testCutLabelsAreReadWhenUnambiguous() {
        XCTAssertEqual(Getevent.code("ABS_MT_PRESSURE", type: EventType.abs), AbsoluteAxis.mtPressure)
        // KEY_ONSCREEN_KEYBOARD (0x278) has 21 characters.
        XCTAssertEqual(Getevent.code("KEY_ONSCREEN_KEYBOAR", type: EventType.key), 0x278)
        // KEY_KBDINPUTASSIST_PREV and _PREVGROUP share their first 20.
        XCTAssertNil(Getevent.code("KEY_KBDINPUTASSIST_P", type: EventType.key))
        // 19 characters are no cut name.
        XCTAssertNil(Getevent.code("KEY_ONSCREEN_KEYBOA", type: EventType.key))
        XCTAssertEqual(Getevent.code("014a", type: EventType.key), Button.touch)
    }

    /// The device name is the file's text: kept as written (controls and
    /// all), for the exports to escape.
    func testDeviceNameIsKeptAsWritten() throws {
        let name = "pen\u{1b}[31m \u{202e}x"
        let capture = "add device 1: /dev/input/event1\n  name:     \"\(name)\"\n  events:\n"
            + "    ABS (0003): 0018  : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0\n"
            + "[     1.000000] /dev/input/event1: 0003 0018 00000001\n[     1.000000] /dev/input/event1: 0000 0000 00000000\n"
        let recording = try GeteventCodec().decode(Array(capture.utf8), file: "name.txt")[0].recording
        XCTAssertEqual(recording.device.name, name)
        let output = ByteOutput()
        try EvemuCodec().encode([recording], to: output)
        let exported = String(decoding: output.memory, as: UTF8.self)
        XCTAssertFalse(exported.contains("\u{1b}"))
        XCTAssertEqual(try Evemu.parse(output.memory, file: "back").device.name, name)
    }

    /// Bounded work: 256 devices are read, the 257th is refused; a name of
    /// 1024 bytes is kept, one of 1025 refused.
    func testDeviceCountAndNameLengthAreBounded() throws {
        func capture(devices: Int, name: String = "n") -> [UInt8] {
            var text = ""
            for index in 0..<devices { text += "add device \(index): /dev/input/event\(index)\n  name:     \"\(name)\"\n" }
            text += "  events:\n    ABS (0003): 0018  : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0\n"
            text += "[     1.000000] /dev/input/event\(devices - 1): 0000 0000 00000000\n"
            return Array(text.utf8)
        }
        XCTAssertEqual(try GeteventCodec().decode(capture(devices: 256), file: "many").count, 1)
        XCTAssertThrowsError(try GeteventCodec().decode(capture(devices: 257), file: "many")) { error in
            XCTAssertTrue("\(error)".contains("many:513: more than 256 'add device' blocks"), "\(error)")
        }
        XCTAssertEqual(try GeteventCodec().decode(capture(devices: 1, name: String(repeating: "a", count: 1024)), file: "long")[0]
            .recording.device.name.count, 1024)
        XCTAssertThrowsError(try GeteventCodec().decode(capture(devices: 1, name: String(repeating: "a", count: 1025)), file: "long")) { error in
            XCTAssertTrue("\(error)".contains("long:2: the device name is longer than 1024 bytes"), "\(error)")
        }
    }

    /// Lines getevent does not print are errors naming the line.
    func testMalformedLinesNameTheLine() {
        let cases: [(String, String)] = [
            ("[  1.5] /dev/input/event1: 0003 0018 00000001\n", "x:1: expected a timestamp"),
            ("[     1.000000] /dev/input/event1: 0003 0018 1\n", "x:1: expected the value as eight hex digits"),
            ("[     1.000000] /dev/input/event1: EV_NOPE ABS_X 00000001\n", "x:1: unknown event type 'EV_NOPE'"),
            ("add device 1: /dev/input/event1\n  events:\n    ABS (0003): 0018  : value 0, min 0, max 9999999999, fuzz 0, flat 0\n",
             "x:3: expected 'value V, min A, max B, fuzz F, flat L, resolution R'"),
            ("add device 1: /dev/input/event1\n  events:\n    ABS (0003): 0018  : value 0, min 0, max 1, fuzz 0, flat 0, resolution 0\n",
             "x: holds device descriptions but no events"),
        ]
        for (capture, message) in cases {
            XCTAssertThrowsError(try GeteventCodec().decode(Array(capture.utf8), file: "x")) { error in
                XCTAssertTrue("\(error)".hasPrefix(message), "\(error)")
            }
        }
    }

    /// Detection tells every form getevent prints from its first line, and
    /// takes no evemu or libinput file for it.
    func testDetectionTellsGeteventFromItsFirstLine() throws {
        for line in ["add device 1: /dev/input/event1", "[    5123.400000] /dev/input/event1: 0003 0018 00000001",
                     "/dev/input/event1: EV_ABS       ABS_PRESSURE         00000001            ",
                     "0003 0018 00000001", "EV_KEY       BTN_TOUCH            DOWN                ",
                     "could not get driver version for /dev/input/mice, Not a typewriter"] {
            XCTAssertEqual(try RecordingImporter.detect(Array((line + "\n").utf8), file: "x"), .getevent, line)
        }
        XCTAssertEqual(try RecordingImporter.detect(Array("N: name\n".utf8), file: "x"), .evemu)
        XCTAssertEqual(try RecordingImporter.detect(Array("version: 1\n".utf8), file: "x"), .libinput)
        XCTAssertThrowsError(try RecordingImporter.detect(Array("0003 0018 0000001\n".utf8), file: "x"))
    }

    /// import → export --format evemu → import gives the same samples.
    func testRoundTripThroughEvemuKeepsTheSamples() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let (trace, run) = try BlackBox.importTrace(Self.labelled, into: directory)
        XCTAssertTrue(run.stdout.contains("(from getevent:"), run.stdout)
        for name in ["getevent-lp-lt-event1", "getevent-lp-lt-event2"] {
            let evemu = directory.appendingPathComponent("\(name).evemu").path
            try BlackBox.run(["export", trace, "--recording", name, "--format", "evemu", "-o", evemu])
            let (again, _) = try BlackBox.importTrace(evemu, into: directory)
            let first = try BlackBox.Trace(trace, recording: name), second = try BlackBox.Trace(again)
            let samples = try first.table("samples")
            XCTAssertFalse(samples["pressure"]?.isEmpty ?? true, name)
            XCTAssertEqual(samples, try second.table("samples"), name)
            XCTAssertEqual(try first.table("axes"), try second.table("axes"), name)
            try first.close(); try second.close()
        }
    }

    /// export does not offer getevent, which forcetrace only reads.
    func testExportRefusesGetevent() throws {
        let run = try FormatTestSupport.run(["export", "x.h5", "--format", "getevent", "-o", "/dev/null"])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertFalse(RecordingCodecs.writableNames.contains("getevent"))
        XCTAssertTrue(RecordingCodecs.names.contains("getevent"))
    }
}
