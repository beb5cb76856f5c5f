import Foundation
import XCTest
@testable import ForceTrace

/// Survivors in Formats, Support and Events of the seed-26 sample of 150
/// (issue 26, the run of 2026-12-03 afternoon): each test pins the boundary
/// or case one of them moved.
final class MutantKill6Tests: XCTestCase {
    typealias F = AnalysisFixtures

    /// A minimal libinput record file of the fixture device, with `extra`
    /// lines put after "ndevices: 1" (top-level keys).
    private func libinputYAML(extra: String) -> [UInt8] {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.id, -1)])
        var yaml = ""
        LibinputRecord.write([builder.recording], to: &yaml)
        return Array(yaml.replacingOccurrences(of: "\nndevices: 1\n", with: "\nndevices: 1\n" + extra).utf8)
    }

    /// A key that is a list or mapping (YAML's "? KEY : VALUE") is skipped
    /// whole, however deep it nests: one level ([1]), two ([1, [2]]) and a
    /// mapping holding a list. Skipping stops when the depth is back at 0; a
    /// skip that stopped at depth 1 would leave the key's items to be read as
    /// keys and fail at the list's end.
    func testListAndMappingKeysAreSkippedWhole() throws {
        for key in ["[1]", "[1, [2]]", "{a: [1]}"] {
            let bytes = libinputYAML(extra: "? \(key)\n: 3\n")
            XCTAssertTrue(String(decoding: bytes, as: UTF8.self).contains("\n? \(key)\n: 3\n"), key)
            let recordings = try LibinputRecord.parse(bytes, file: "complex-key.yml")
            XCTAssertEqual(recordings.count, 1, key)
            XCTAssertEqual(recordings.first?.events.count, 8, key)
        }
    }

    /// The event types up to EV_MAX (0x1f) are looked up in the device's
    /// EV_SYN list; only above it is a type unknown by range. A device that
    /// declares type 0x1f with code 0: an event (0x1f, 0) gives no warning;
    /// (0x1e, 0), undeclared, is "of type ..., which the device does not
    /// declare"; (0x20, 0), past EV_MAX, is too.
    func testTheLastEventTypeIsLookedUpNotRefused() throws {
        func warnings(type: UInt16) -> [String] {
            var builder = RecordingBuilder()
            builder.device.codes[EventType.syn, default: []].append(0x1f)
            builder.device.codes[0x1f] = [0]
            builder.events.append(InputEvent(timeNs: 0, type: type, code: 0, value: 1))
            builder.frame(0, [(F.slot, 0)])
            return StreamCheck.warnings(for: builder.recording)
        }
        XCTAssertEqual(warnings(type: 0x1f), [])
        for type: UInt16 in [0x1e, 0x20] {
            let found = warnings(type: type)
            XCTAssertEqual(found.count, 1, "\(type): \(found)")
            XCTAssertTrue(found.first?.hasPrefix("1 events of type \(EventNames.type(type)), which the device does not declare") ?? false,
                          "\(type): \(found)")
        }
    }

    /// A head's control bytes below the tab (0x08) make it binary; the tab
    /// (0x09) and the next bytes kept in text (0x0b vertical tab; 0x0a is the
    /// line end) do not: "\tN: x" is a text line whose first field is "N: x".
    func testTheTabIsTextInAHead() {
        func head(_ byte: UInt8) -> RecordingHead {
            RecordingHead(ArraySlice([byte] + Array("N: x\n".utf8)), complete: true)
        }
        XCTAssertTrue(head(0x08).isBinary)
        XCTAssertFalse(head(0x09).isBinary)
        XCTAssertEqual(head(0x09).firstLine.map { Array($0) }, Array("N: x".utf8))
        XCTAssertFalse(head(0x0b).isBinary)
    }

    /// The leftover of a run killed before the temporary folders came is a
    /// bare file, ".NAME.KIND-PID" (one part after the kind); a folder is
    /// ".NAME.KIND-PID-XXXXXX" (two parts, the second of 6 characters). Two
    /// parts with a second of 3 characters are neither.
    func testABareLeftoverFileHasOnePart() {
        let bare = TemporaryFiles.leftover(named: ".out.h5.partial-123", in: "/d", outputName: "out.h5")
        XCTAssertEqual(bare?.path, "/d/.out.h5.partial-123")
        XCTAssertEqual(bare?.pid, 123)
        XCTAssertEqual(bare?.isFolder, false)
        XCTAssertNil(TemporaryFiles.leftover(named: ".out.h5.partial-123-abc", in: "/d", outputName: "out.h5"))
        XCTAssertEqual(TemporaryFiles.leftover(named: ".out.h5.partial-123-abcdef", in: "/d", outputName: "out.h5")?.isFolder, true)
    }

    /// An input named by file only (no path) is "stdin" when the file is
    /// "standard input", and named after the file otherwise.
    func testStandardInputWithoutAPathIsNamedStdin() throws {
        func name(file: String, path: String?) throws -> String? {
            let collector = RecordingCollector()
            let builder = ForceTrace.RecordingBuilder(sink: collector, file: file, path: path, codec: EvemuCodec(), options: DecodeOptions())
            builder.startRecording(device: DeviceDescription(name: "d"))
            try builder.add(InputEvent(timeNs: 0, type: EventType.syn, code: Synchronization.report, value: 0))
            try builder.finish()
            return collector.recordings.first?.recording.name
        }
        XCTAssertEqual(try name(file: "standard input", path: nil), "stdin")
        XCTAssertEqual(try name(file: "other.evemu", path: nil), "other")
        XCTAssertEqual(try name(file: "standard input", path: "-"), "stdin")
        // A path, when given, names the recording, whatever the file is called.
        XCTAssertEqual(try name(file: "standard input", path: "in.evemu"), "in")
    }

    /// One 6631-byte write to a full device (the bash completion script,
    /// printed at once) fails inside fputs and leaves stdio's buffer empty,
    /// so the final flush has nothing to report: the errno kept from the
    /// failed fputs (ENOSPC) is what names the full device.
    func testAOneWriteOutputToAFullDeviceNamesTheFullDevice() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("/dev/full is absent") }
        let result = try FormatTestSupport.run(["--help-completion", "bash"], stdoutFile: "/dev/full")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("no space left on the device holding it"), result.stderr)
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

    /// libyaml reads its input in 16384-byte blocks, and the reader lets it
    /// read while at most 1 MiB came since the last event. After the "name"
    /// key's event (libyaml then holds the first block) it may take 1 MiB
    /// more and one block past it: 16384 + 1 MiB + 16384 = 1081344 bytes. A
    /// name scalar starting at byte `offset` ends with its quote and needs one
    /// byte of lookahead, so the longest name read is 1081344 - offset - 2;
    /// one byte more needs another block, refused.
    func testAScalarMayRunToTheLastBlockOfTheLimit() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0)])
        var yaml = ""
        LibinputRecord.write([builder.recording], to: &yaml)
        let start = try XCTUnwrap(yaml.range(of: "      name: \""))
        let end = try XCTUnwrap(yaml[start.upperBound...].firstIndex(of: "\n"))
        let offset = yaml.utf8.distance(from: yaml.startIndex, to: start.upperBound)
        XCTAssertLessThan(offset, 16384)
        let longest = (1 << 20) + 2 * 16384 - offset - 2
        func parse(_ length: Int) throws -> [Recording] {
            let text = yaml[..<start.upperBound] + String(repeating: "x", count: length) + "\"" + yaml[end...]
            return try LibinputRecord.parse(Array(text.utf8), file: "long-name.yml")
        }
        for length in [longest - 1, longest] {
            XCTAssertEqual(try parse(length).first?.device.name.count, length)
        }
        XCTAssertThrowsError(try parse(longest + 1)) { error in
            XCTAssertTrue("\(error)".contains("a YAML value (or the comments and blanks before one) runs over 1 MiB"), "\(error)")
        }
    }

    /// An output file gets each full 65536-byte block as soon as it is
    /// full, not at close: after 65535 bytes the file is still empty, after
    /// 65536 it holds them all, and after 65537 all 65537 (a block passed).
    /// The same for each way of writing: text, raw bytes and `append`.
    func testAFullBlockReachesTheFileBeforeClose() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let writers: [(String, (ByteOutput, Int) throws -> Void)] = [
            ("text", { try $0.write(String(repeating: "x", count: $1)) }),
            ("raw", { output, count in try [UInt8](repeating: 0x78, count: count).withUnsafeBytes { try output.write($0) } }),
            ("append", { output, count in try output.append { $0.append(contentsOf: repeatElement(0x78, count: count)) } }),
        ]
        for (how, write) in writers {
            for (count, onDisk) in [(65535, 0), (65536, 65536), (65537, 65537)] {
                let path = directory.appendingPathComponent("\(how)-\(count).out").path
                let output = try ByteOutput(path: path)
                try write(output, count)
                let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
                XCTAssertEqual(size, onDisk, "\(how) \(count)")
                try output.close()
                XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, count, "\(how) \(count)")
            }
        }
    }

    /// With standard error not a terminal the progress line is off, and
    /// clearing a line never drawn writes nothing: import, report and export
    /// of the sample leave standard error empty (no "\r", no ESC [ K).
    func testAProgressLineNeverDrawnIsNotCleared() throws {
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let trace = directory.appendingPathComponent("mixed.h5").path
        let runs = [["import", sample, "-o", trace], ["report", trace],
                    ["export", trace, "--format", "evemu", "-o", directory.appendingPathComponent("mixed.evemu").path]]
        for arguments in runs {
            let result = try FormatTestSupport.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr, "", "\(arguments)")
        }
    }

    /// A libinput record file without devices: with no "ndevices" either it
    /// has no 'devices' list; with "ndevices: 1" it is cut (declares 1, holds
    /// 0); with "ndevices: 0" it has no devices. Without "ndevices" but with a
    /// device it is read.
    func testAFileWithoutDevicesSaysWhichWay() throws {
        func message(_ text: String) -> String {
            do { _ = try LibinputRecord.parse(Array(text.utf8), file: "none.yml"); return "read" } catch { return "\(error)" }
        }
        XCTAssertTrue(message("version: 1\n").contains("has no 'devices' list"), message("version: 1\n"))
        XCTAssertTrue(message("version: 1\nndevices: 1\n").contains("declares ndevices: 1 but holds 0 devices"),
                      message("version: 1\nndevices: 1\n"))
        XCTAssertTrue(message("version: 1\nndevices: 0\n").contains("has no devices; expected at least one device"),
                      message("version: 1\nndevices: 0\n"))
        let withDevice = String(decoding: libinputYAML(extra: ""), as: UTF8.self).replacingOccurrences(of: "\nndevices: 1\n", with: "\n")
        XCTAssertFalse(withDevice.contains("ndevices"))
        XCTAssertEqual(message(withDevice), "read")
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

    /// A description may list 4096 properties (what one HDF5 attribute
    /// holds, `maximumProperties`): 4095 and 4096 pass, 4097 is refused.
    func testPropertiesStopAt4096() throws {
        func validate(_ count: Int) throws {
            var device = DeviceDescription(name: "many properties")
            device.properties = (0..<count).map { UInt16($0) }
            try device.validate(file: "props.evemu")
        }
        XCTAssertNoThrow(try validate(4095))
        XCTAssertNoThrow(try validate(4096))
        XCTAssertThrowsError(try validate(4097)) { error in
            XCTAssertTrue("\(error)".contains("the description lists 4097 properties; at most 4096 are accepted"), "\(error)")
        }
    }

    /// The byte-level evemu parser's decimal digits are '0' (0x30) to '9'
    /// (0x39): in the seconds, the fraction and the value, '9' is a digit
    /// and the bytes either side, '/' (0x2f) and ':' (0x3a), end the number,
    /// so a line with one of them there is not a plain line (nil), and the
    /// general parser refuses it too. ":" read as digit 10 would make
    /// "1:" 20 seconds.
    func testFastEventDigitsStopAtNine() throws {
        func fast(_ line: String) -> InputEvent? { Array(line.utf8).withUnsafeBufferPointer(Evemu.fastEvent) }
        XCTAssertEqual(fast("E: 9.000009 0003 0035 9"), InputEvent(timeNs: 9_000_009_000, type: 3, code: 0x35, value: 9))
        for bad in ["/", ":"] {
            for line in ["E: 1\(bad) 0003 0035 7", "E: 1\(bad).000001 0003 0035 7", "E: 1.00000\(bad) 0003 0035 7", "E: 1.000001 0003 0035 7\(bad)"] {
                XCTAssertNil(fast(line), line)
                XCTAssertThrowsError(try Evemu.parse(Array((testPadEvemuHeader + line + "\n").utf8), file: "colon.evemu"), line)
            }
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

    /// An escaped character below U+0100 is `\xHH`, from U+0100 on `\uHHHH`
    /// (two hex digits cannot hold 0x100): with `also` naming them, U+00FF is
    /// "\xff", U+0100 "\u0100", U+0101 "\u0101", and each reads back.
    func testEscapesSwitchToFourDigitsAtU0100() {
        let text = "\u{FF}\u{100}\u{101}"
        let escaped = TextEscaping.escaped(text, also: ["\u{FF}", "\u{100}", "\u{101}"])
        XCTAssertEqual(escaped, "\\xff\\u0100\\u0101")
        XCTAssertEqual(TextEscaping.unescaped(escaped), text)
    }

    /// libevdev returns 0 or more on success and -errno on failure: 1 and 0
    /// are values, -1 is EPERM, and -EINTR is retried.
    func testLibevdevZeroIsSuccess() {
        func result(_ values: [Int32]) -> Result<Int32, SystemCallError> {
            var left = values
            return Syscall.negativeErrno("libevdev_f", "/dev/input/event0") { left.removeFirst() }
        }
        XCTAssertEqual(try result([1]).get(), 1)
        XCTAssertEqual(try result([0]).get(), 0)
        XCTAssertEqual(try result([-EINTR, 0]).get(), 0)
        guard case .failure(let error) = result([-1]) else { return XCTFail("-1 is a failure") }
        XCTAssertEqual(error.errno, EPERM)
    }

    /// With ABS_MT_TOOL_TYPE declared, a slot's tool is its tool type:
    /// MT_TOOL_FINGER (0) a finger, MT_TOOL_PEN (1) a pen, MT_TOOL_PALM (2)
    /// neither (0). Without the axis every slot is a finger.
    func testToolTypeNamesTheContactsTool() {
        func tool(_ type: Int32, declared: Bool) -> UInt16? {
            var device = slottedDevice()
            if declared { device.setAxis(AxisInfo(code: AbsoluteAxis.mtToolType, minimum: 0, maximum: 2)) }
            var script = EventScript()
            script.abs(AbsoluteAxis.mtSlot, 0)
            script.abs(AbsoluteAxis.mtTrackingID, 7)
            script.abs(AbsoluteAxis.mtToolType, type)
            script.abs(AbsoluteAxis.mtPositionX, 100)
            script.abs(AbsoluteAxis.mtPositionY, 100)
            script.abs(AbsoluteAxis.mtPressure, 30)
            script.report()
            script.abs(AbsoluteAxis.mtTrackingID, -1)
            script.report()
            return decode(script.events, device: device).0.contacts.first?.tool
        }
        XCTAssertEqual(tool(0, declared: true), Button.toolFinger)
        XCTAssertEqual(tool(1, declared: true), Button.toolPen)
        XCTAssertEqual(tool(2, declared: true), 0)
        XCTAssertEqual(tool(1, declared: false), Button.toolFinger)
    }

    /// The stream check's table of declared codes holds codes 0...1023 of
    /// each type; code 1024 is looked up in the description instead. A
    /// device declaring EV_KEY codes 1023 and 1024 (and EV_REL with no
    /// codes): events (EV_KEY 1023) and (EV_KEY 1024) are declared, and
    /// (EV_REL 0), the cell just past EV_KEY's row, is not.
    func testTheCodeTableEndsAt1023() {
        var builder = RecordingBuilder()
        builder.device.codes[EventType.syn, default: []].append(EventType.rel)
        builder.device.codes[EventType.key] = [1023, 1024]
        builder.device.codes[EventType.rel] = []
        for (type, code) in [(EventType.key, 1023), (EventType.key, 1024), (EventType.rel, 0)] as [(UInt16, UInt16)] {
            builder.events.append(InputEvent(timeNs: 0, type: type, code: code, value: 1))
        }
        builder.frame(0, [(F.slot, 0)])
        let warnings = StreamCheck.warnings(for: builder.recording)
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.hasPrefix("1 REL_X events, a code the device does not declare") ?? false, "\(warnings)")
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
}
