import Foundation
import XCTest
@testable import ForceTrace

final class EvemuTests: XCTestCase {
    private func parse(_ text: String, file: String = "test.evemu") throws -> Recording {
        try Evemu.parse(Array(text.utf8), file: file)
    }

    private let header = """
    # EVEMU 1.3
    N: Test Pad # not a comment inside the name
    I: 0003 056a 4200 0110
    P: 02 00 00 00 00 00 00 00
    B: 00 0b 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 01 04 00 00 00 00 00 00
    B: 03 03 00 00 01 00 00 00 00
    A: 00 0 59674 4 0 100
    A: 01 0 33566 4 0 100
    A: 18 0 4095 0 0

    """

    func testHeaderFieldsAndEvents() throws {
        let recording = try parse(header + """
        E: 0.000001 0003 0000 38433\t# EV_ABS / ABS_X 38433
        # a comment between events
        E: 0.000001 0001 014a 0001
        E: 0.012842 0003 0018 -001
        E: 0.012842 0000 0000 0000
        """)
        let device = recording.device
        XCTAssertEqual(device.name, "Test Pad # not a comment inside the name")
        XCTAssertEqual([device.bus, device.vendor, device.product, device.version], [3, 0x56a, 0x4200, 0x110])
        XCTAssertEqual(device.properties, [InputProperty.direct])
        XCTAssertEqual(device.codes[EventType.syn], [0, 1, 3])
        XCTAssertEqual(device.codes[EventType.key], [0x140, 0x14a])
        XCTAssertEqual(device.codes[EventType.abs], [0, 1, 0x18])
        XCTAssertEqual(device.axis(0), AxisInfo(code: 0, minimum: 0, maximum: 59674, fuzz: 4, flat: 0, resolution: 100))
        XCTAssertEqual(device.axis(0x18)?.resolution, 0, "evemu 1.0 axes have no resolution field")
        XCTAssertEqual(recording.events, [
            InputEvent(timeNs: 1000, type: 3, code: 0, value: 38433),
            InputEvent(timeNs: 1000, type: 1, code: 0x14a, value: 1),
            InputEvent(timeNs: 12_842_000, type: 3, code: 0x18, value: -1),
            InputEvent(timeNs: 12_842_000, type: 0, code: 0, value: 0),
        ])
        XCTAssertEqual(recording.clock, .relative)
    }

    func testCRLFAndAbsoluteTimestamps() throws {
        let text = (header + "E: 1330050511.580726 0003 0000 3762\nE: 1330050511.580747 0000 0000 0\n")
            .replacingOccurrences(of: "\n", with: "\r\n")
        let recording = try parse(text)
        XCTAssertEqual(recording.clock, .realtime)
        XCTAssertEqual(recording.events.map(\.timeNs), [1_330_050_511_580_726_000, 1_330_050_511_580_747_000])
        XCTAssertEqual(recording.device.name, "Test Pad # not a comment inside the name")
    }

    func testErrorsNameFileLineAndExpectation() {
        func message(_ text: String) -> String {
            do { _ = try parse(text, file: "bad.evemu"); return "no error" } catch { return "\(error)" }
        }
        XCTAssertEqual(message(""), "bad.evemu: the file is empty; expected an evemu recording (N:, I:, B:, A: and E: lines)")
        XCTAssertTrue(message(header + "E: 0.1 0003 zz 1\n").hasPrefix("bad.evemu:16: expected the event code in hex"), message(header + "E: 0.1 0003 zz 1\n"))
        XCTAssertTrue(message(header + "E: 0.1 0003 0000\n").hasPrefix("bad.evemu:16: expected a decimal 32-bit event value"))
        XCTAssertTrue(message(header + "E: 0.1 0003 0000 99999999999\n").contains("32-bit"))
        XCTAssertTrue(message(header + "hello\n").hasPrefix("bad.evemu:16: expected an evemu line"))
        XCTAssertTrue(message("I: 0003 056a\n").hasPrefix("bad.evemu:1: expected 'I: BUS VENDOR PRODUCT VERSION'"))
        XCTAssertTrue(message(header + "E: 0.1 0003 0000 1\nA: 00 0 1 0 0 0\n").contains("after the first event"))
        XCTAssertTrue(message("E: 0.1 0003 0000 1\n").contains("no device description"))
        XCTAssertTrue(message("E: 0.1 0003 0000 1\n").contains("--desc"))
        XCTAssertTrue(message(header + "E: 0.1 0003\u{0}0000 1\n").contains("binary data"))
        let huge = header + "# " + String(repeating: "x", count: LineReader.maximumLineLength + 10) + "\n"
        XCTAssertTrue(message(huge).contains("longer than"))
    }

    func testSplitFormFindsSiblingDescription() throws {
        let directory = try makeTemporaryDirectory(self)
        try header.write(to: directory.appendingPathComponent("Pad.desc"), atomically: true, encoding: .utf8)
        let events = directory.appendingPathComponent("Pad.leftmove.events")
        try "E: 1.000000 0003 0000 5\nE: 1.000000 0000 0000 0\n".write(to: events, atomically: true, encoding: .utf8)
        let recording = try Evemu.read(events.path)
        XCTAssertEqual(recording.device.codes[EventType.abs], [0, 1, 0x18])
        XCTAssertEqual(recording.events.count, 2)
        XCTAssertEqual(recording.name, "Pad.leftmove")
    }

    func testWriterOutputParsesBackIdentically() throws {
        let simulation = Simulator.run(SimulationOptions())
        var text = ""
        Evemu.write(simulation.recording, comment: "round trip", to: &text)
        let back = try parse(text)
        XCTAssertEqual(back.device, simulation.recording.device)
        XCTAssertEqual(back.events, simulation.recording.events)
        XCTAssertTrue(text.contains("E: 1764400000."), "absolute times stay absolute")
    }

    func testLEDAndSwitchStatesRoundTrip() throws {
        let recording = try parse(header + "L: 00 1\nL: 01 0\nS: 05 1\nE: 0.000001 0000 0000 0000\n")
        XCTAssertEqual(recording.device.ledStates.map { [Int($0.0), Int($0.1)] }, [[0, 1], [1, 0]])
        XCTAssertEqual(recording.device.switchStates.map { [Int($0.0), Int($0.1)] }, [[5, 1]])
        var text = ""
        Evemu.write(recording, to: &text)
        XCTAssertEqual(try parse(text).device, recording.device)
        XCTAssertTrue(text.contains("L: 00 1\n") && text.contains("S: 05 1\n"), text)
    }

    func testNegativeValuesKeepEvemuPadding() {
        var line = ""
        Evemu.formatEvent(InputEvent(timeNs: 1_000_001_000, type: 3, code: 0x39, value: -1), into: &line)
        XCTAssertEqual(line, "E: 1.000001 0003 0039 -001\n")
    }

    /// The byte-level event parser takes only the plain form and gives what
    /// the general parser gives; every other form falls back (nil) to it.
    func testFastEventLinesAndTheirFallbacks() throws {
        let plain: [(String, InputEvent)] = [
            ("E: 1382570977.035628 0003 0035 0367", InputEvent(timeNs: 1_382_570_977_035_628_000, type: 3, code: 0x35, value: 367)),
            ("E: 0.000001 0003 002f -001", InputEvent(timeNs: 1000, type: 3, code: 0x2f, value: -1)),
            ("E:\t12.5\t3 3A +7  ", InputEvent(timeNs: 12_500_000_000, type: 3, code: 0x3a, value: 7)),
            ("E: 7 0000 0000 0000", InputEvent(timeNs: 7_000_000_000, type: 0, code: 0, value: 0)),
            ("E: 1.123456789 ffff FFFF 2147483647", InputEvent(timeNs: 1_123_456_789, type: 0xffff, code: 0xffff, value: .max)),
            ("E: 1.000000 0003 0039 -2147483648", InputEvent(timeNs: 1_000_000_000, type: 3, code: 0x39, value: .min)),
        ]
        for (line, event) in plain {
            XCTAssertEqual(fast(line), event, line)
            // The general parser, on the same line made unusual by a comment, agrees.
            XCTAssertNil(fast(line + " # note"))
            XCTAssertEqual(try parse(header + line + " # note\n").events, [event], line)
        }
        for odd in ["E: -1.000001 0003 0035 1", "E: 1.0000000001 0003 0035 1", "E: 1.000001 0x3 0035 1",
                    "E: 1.000001 00003 0035 1", "E: 1.000001 0003 0035 2147483648", "E: 1.000001 0003 0035",
                    "E: 1.000001 0003 0035 1 2", "E:1.000001 0003 0035 1", " E: 1.000001 0003 0035 1", "E: 1. 0003 0035 1",
                    "E: 99999999999.000001 0003 0035 1", "E: 1.000001 0003 0035 12345678901"] {
            XCTAssertNil(fast(odd), odd)
        }
        // Forms the fast path leaves to the general parser still import.
        XCTAssertEqual(try parse(header + "E: 1.000001 00003 0035 0001\n E: 2.5 0x0 0 0\n").events,
                       [InputEvent(timeNs: 1_000_001_000, type: 3, code: 0x35, value: 1), InputEvent(timeNs: 2_500_000_000, type: 0, code: 0, value: 0)])
        XCTAssertThrowsError(try parse(header + "E: 1.000001 0003 0035 2147483648\n"))
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

    /// The fast evemu parser reads only the line it is given: a space or tab
    /// just past its end (the next line's, or the buffer's) neither ends a
    /// field nor counts as trailing blank. The line is one view of a larger
    /// buffer, followed by a blank.
    func testFastEventReadsNothingPastTheLine() throws {
        let line = "E: 1.000001 0003 0035 7"
        for after in [" ", "\t", " 9"] {
            let buffer = Array((line + after).utf8)
            let parsed = buffer.withUnsafeBufferPointer { Evemu.fastEvent(UnsafeBufferPointer(rebasing: $0[..<line.utf8.count])) }
            XCTAssertEqual(parsed, InputEvent(timeNs: 1_000_001_000, type: 3, code: 0x35, value: 7), "followed by \(after.debugDescription)")
        }
    }

    /// The byte-level evemu parser's decimal digits are '0' (0x30) to '9'
    /// (0x39): in the seconds, the fraction and the value, '9' is a digit
    /// and the bytes either side, '/' (0x2f) and ':' (0x3a), end the number,
    /// so a line with one of them there is not a plain line (nil), and the
    /// general parser refuses it too. ":" read as digit 10 would make
    /// "1:" 20 seconds.
    func testFastEventDigitsStopAtNine() throws {
        XCTAssertEqual(fast("E: 9.000009 0003 0035 9"), InputEvent(timeNs: 9_000_009_000, type: 3, code: 0x35, value: 9))
        for bad in ["/", ":"] {
            for line in ["E: 1\(bad) 0003 0035 7", "E: 1\(bad).000001 0003 0035 7", "E: 1.00000\(bad) 0003 0035 7", "E: 1.000001 0003 0035 7\(bad)"] {
                XCTAssertNil(fast(line), line)
                XCTAssertThrowsError(try Evemu.parse(Array((testPadEvemuHeader + line + "\n").utf8), file: "colon.evemu"), line)
            }
        }
    }

    /// An integer field takes up to 18 digits (every one fits in Int64) and
    /// refuses 19, which could overflow, as not a number.
    func testDecimalFieldsTakeEighteenDigits() {
        XCTAssertEqual(FieldScanner.parseDecimal(ArraySlice(Array("999999999999999999".utf8))), 999_999_999_999_999_999)
        XCTAssertEqual(FieldScanner.parseDecimal(ArraySlice(Array("-999999999999999999".utf8))), -999_999_999_999_999_999)
        XCTAssertNil(FieldScanner.parseDecimal(ArraySlice(Array("1000000000000000000".utf8))))
        XCTAssertNil(FieldScanner.parseDecimal(ArraySlice(Array("+9999999999999999999".utf8))))
    }

    /// An LED or switch state line takes any 16-bit code, 0xffff included,
    /// and refuses 0x10000.
    func testStateLinesTakeSixteenBitCodes() throws {
        let header = testPadEvemuHeader.replacingOccurrences(of: "A: 00 ", with: "L: ffff 1\nS: fffe 0\nA: 00 ")
        let parsed = try Evemu.parse(Array((header + "E: 0.000001 0000 0000 0\n").utf8), file: "states.evemu")
        XCTAssertEqual(parsed.device.ledStates.map { [Int64($0.0), Int64($0.1)] }, [[0xffff, 1]])
        XCTAssertEqual(parsed.device.switchStates.map { [Int64($0.0), Int64($0.1)] }, [[0xfffe, 0]])
        let wide = testPadEvemuHeader.replacingOccurrences(of: "A: 00 ", with: "L: 10000 1\nA: 00 ")
        XCTAssertThrowsError(try Evemu.parse(Array((wide + "E: 0.000001 0000 0000 0\n").utf8), file: "wide.evemu"))
    }

    /// A trace file keeps at most 1024 LED and 1024 switch states
    /// (`DeviceDescription.maximumStates`): 1023 and 1024 'L:' (or 'S:')
    /// lines are read; the 1025th is refused where it stands, at line
    /// 9 + 1025 = 1034 (the header is 9 lines), with evemu's own message.
    func testTheStateLinesStopAtTheTraceFilesLimit() throws {
        for field in ["L", "S"] {
            func parse(_ count: Int) throws -> Recording {
                let lines = (0..<count).map { String(format: "\(field): %02x 1\n", $0) }.joined()
                return try Evemu.parse(Array((testPadEvemuHeader + lines).utf8), file: "states.evemu")
            }
            for count in [1023, 1024] {
                let recording = try parse(count)
                XCTAssertEqual(field == "L" ? recording.device.ledStates.count : recording.device.switchStates.count, count, field)
            }
            XCTAssertThrowsError(try parse(1025), field) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("states.evemu:1034:"), text)
                XCTAssertTrue(text.contains("more than 1024 '\(field):' lines"), text)
            }
        }
    }

    /// An evemu event's type and code are 16 bits: ffff is read, 10000
    /// (0xffff + 1) is refused with a message (a narrowing would trap).
    func testEventTypeAndCodeStopAt16Bits() throws {
        func parse(_ line: String) throws -> [InputEvent] {
            try Evemu.parse(Array((testPadEvemuHeader + line + "\n").utf8), file: "wide.evemu").events
        }
        XCTAssertEqual(try parse("E: 0.000001 0003 ffff 5"), [InputEvent(timeNs: 1000, type: 3, code: 0xffff, value: 5)])
        XCTAssertEqual(try parse("E: 0.000001 ffff 0000 5"), [InputEvent(timeNs: 1000, type: 0xffff, code: 0, value: 5)])
        XCTAssertThrowsError(try parse("E: 0.000001 0003 10000 5")) { error in
            XCTAssertTrue("\(error)".contains("wide.evemu:10: expected the event code in hex after the type"), "\(error)")
        }
        XCTAssertThrowsError(try parse("E: 0.000001 10000 0000 5")) { error in
            XCTAssertTrue("\(error)".contains("wide.evemu:10: expected the event type in hex after the timestamp"), "\(error)")
        }
    }

    /// A type's 'B:' bytes may number 8192 (65536 code bits, every 16-bit
    /// code): 8191 and 8192 are read, the 8193rd byte is refused where it
    /// stands (line 10, after the 9 header lines).
    func testTypeBitmaskStopsAt8192Bytes() throws {
        func parse(_ count: Int) throws -> Recording {
            let line = "B: 02" + String(repeating: " 00", count: count) + "\n"
            return try Evemu.parse(Array((testPadEvemuHeader + line).utf8), file: "bits.evemu")
        }
        XCTAssertNoThrow(try parse(8191))
        XCTAssertNoThrow(try parse(8192))
        XCTAssertThrowsError(try parse(8193)) { error in
            XCTAssertTrue("\(error)".contains("bits.evemu:10: 'B: 02' lines hold more than 65536 code bits"), "\(error)")
        }
    }

    /// A 'B:' byte is at most ff: ff is read, 100 (0xff + 1) is refused
    /// where it stands (a narrowing would trap).
    func testBitmaskBytesStopAtFF() throws {
        func parse(_ byte: String) throws -> Recording {
            try Evemu.parse(Array((testPadEvemuHeader + "B: 02 \(byte)\n").utf8), file: "bytes.evemu")
        }
        XCTAssertNoThrow(try parse("ff"))
        XCTAssertThrowsError(try parse("100")) { error in
            XCTAssertTrue("\(error)".contains("bytes.evemu:10: expected hex bytes after the type in 'B:'"), "\(error)")
        }
    }

    /// evemu 'B:' lines name event types 00 to 1f (EV_MAX): a line for 1f is
    /// read, one for 20 is an error naming the line.
    func testEvemuBitmaskTypesUpToEVMax() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let fixture = try String(contentsOfFile: BlackBox.fixture("axes-differ.evemu"), encoding: .utf8)
        for (type, accepted) in [("1f", true), ("20", false)] {
            var lines = fixture.components(separatedBy: "\n")
            let index = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("B: 00") })
            lines.insert("B: \(type) 00 00", at: index + 1)
            let source = directory.appendingPathComponent("b\(type).evemu")
            try lines.joined(separator: "\n").write(to: source, atomically: true, encoding: .utf8)
            let run = try FormatTestSupport.run(["import", source.path, "-o", directory.appendingPathComponent("b\(type).h5").path])
            XCTAssertEqual(run.status, accepted ? 0 : 1, run.stderr)
            if !accepted { XCTAssertTrue(run.stderr.contains("b20.evemu:\(index + 2): expected an event type (00 to 1f)"), run.stderr) }
        }
    }

    /// An input file is read in 1 MiB blocks. A line starting 65536 bytes
    /// before the end of the first block has, when reached, exactly 65536
    /// bytes in the window and its newline past them: the reader reads on
    /// and takes the line whole. Event lines there of 65535 and 65536 bytes
    /// (the longest accepted, trailing blanks padding them) import; 65537
    /// bytes is "longer than 65536 bytes". (Cut at the window instead, the
    /// 65536-byte line would look unterminated: "ends in the middle of a line".)
    func testALongestLineAtTheEndOfTheFirstBlockIsReadWhole() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let start = (1 << 20) - 65536
        func padded(_ text: String, to length: Int) -> String {
            text + String(repeating: " ", count: length - 1 - text.utf8.count) + "\n"
        }
        func run(lineLength: Int) throws -> FormatTestSupport.Run {
            var text = testPadEvemuHeader
            while start - text.utf8.count > 0 {
                let left = start - text.utf8.count
                text += padded("E: 0.000001 0003 0000 5", to: left > 60_100 ? 60_000 : left)
            }
            XCTAssertEqual(text.utf8.count, start)
            text += padded("E: 0.000002 0003 0000 6", to: lineLength + 1) + "E: 0.000002 0000 0000 0\n"
            let input = directory.appendingPathComponent("long-\(lineLength).evemu").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: input))
            return try FormatTestSupport.run(["import", input, "-o", directory.appendingPathComponent("long-\(lineLength).h5").path])
        }
        for length in [65535, 65536] {
            let result = try run(lineLength: length)
            XCTAssertEqual(result.status, 0, "\(length): \(result.stderr)")
        }
        let tooLong = try run(lineLength: 65537)
        XCTAssertEqual(tooLong.status, 1)
        XCTAssertTrue(tooLong.stderr.contains("line is longer than 65536 bytes"), tooLong.stderr)
    }

    /// A label line's words: split at spaces by bytes when the line is ASCII,
    /// by characters otherwise, the same words either way; a repeated key's
    /// last value wins; a word without '=' is named.
    func testLabelLineWordsAndFields() throws {
        for line in ["press slot=0", "  press   slot=0  t=1 ", "", "   ", "a=b=c d", "x"] {
            XCTAssertEqual(GroundTruth.words(Substring(line)), line.split(separator: " ", omittingEmptySubsequences: true), line)
            // As import passes it: the text after the prefix, a slice that does not start at 0.
            let comment = GroundTruth.evemuPrefix + line
            let after = comment.dropFirst(GroundTruth.evemuPrefix.count)
            XCTAssertEqual(GroundTruth.words(after), after.split(separator: " ", omittingEmptySubsequences: true), line)
        }
        // A space with a combining mark is one character: not a place to split.
        let marked = "press slot=0 \u{301}tracking_id=1"
        XCTAssertEqual(GroundTruth.words(Substring(marked)).count, 2)
        var truth = GroundTruth()
        XCTAssertNil(truth.parseEvemuComment(" press slot=1 slot=2 tracking_id=7 t=1.000000 class=tap"))
        XCTAssertEqual(truth.labels.map(\.slot), [2])
        XCTAssertEqual(truth.parseEvemuComment(" press slot=1 oops"), "expected KEY=VALUE, found 'oops'")
        XCTAssertNil(truth.parseEvemuComment(" thresholds pop=0.9 peek=0.5"))
        XCTAssertEqual([truth.peek, truth.pop], [0.5, 0.9])
    }
}
