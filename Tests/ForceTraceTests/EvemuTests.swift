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
        func fast(_ line: String) -> InputEvent? { Array(line.utf8).withUnsafeBufferPointer(Evemu.fastEvent) }
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
}
