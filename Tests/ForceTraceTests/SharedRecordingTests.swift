import HDF5
import XCTest
@testable import ForceTrace

/// The four genuine recordings in ../shared/recordings: import, decode, round trip.
final class SharedRecordingTests: XCTestCase {
    /// E: lines of a file, as (µs timestamp text, type, code, value) tuples compared textually.
    private func eventLines(_ path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").filter { $0.hasPrefix("E:") }.map { line in
            let fields = line.split(separator: "#")[0].split(whereSeparator: { $0 == " " || $0 == "\t" })
            // Normalise padding: compare numbers, not spelling.
            return "\(fields[1]) \(Int(fields[2], radix: 16)!) \(Int(fields[3], radix: 16)!) \(Int(fields[4])!)"
        }
    }

    private func importAndExport(_ recording: SharedRecording, expectedContacts: Int, file: StaticString = #filePath, line: UInt = #line) throws -> TraceRecording {
        let path = try recording.path()
        let directory = try makeTemporaryDirectory(self)
        let trace = directory.appendingPathComponent("trace.h5").path
        let parsed = try Evemu.read(path)
        let writer = try TraceWriter(creating: trace)
        let summary = try writer.write(parsed)
        try writer.close()
        XCTAssertEqual(summary.contacts, Int64(expectedContacts), "contacts in \(recording.rawValue)", file: file, line: line)

        let reader = try TraceReader(path: trace)
        let stored = try reader.recording(reader.recordingNames[0])
        XCTAssertEqual(try stored.rowCount(.contacts), expectedContacts, file: file, line: line)
        XCTAssertEqual(stored.importStatus, .complete)

        // Export and compare every E: line with the original.
        var text = ""
        Evemu.write(try stored.loadRecording(), to: &text)
        let exported = directory.appendingPathComponent("exported.evemu")
        try text.write(to: exported, atomically: true, encoding: .utf8)
        XCTAssertEqual(try eventLines(exported.path), try eventLines(path), file: file, line: line)
        let reparsed = try Evemu.read(exported.path)
        XCTAssertEqual(reparsed.device.axes, parsed.device.axes, file: file, line: line)
        XCTAssertEqual(reparsed.device, parsed.device, file: file, line: line)
        return stored
    }

    func testCypressThreeFingerPress() throws {
        let trace = try importAndExport(.cypress, expectedContacts: 3)
        XCTAssertEqual(trace.device.contactProtocol, .slots)
        XCTAssertEqual(trace.device.slotCount, 2)
        XCTAssertEqual(trace.device.contactPressureAxis?.code, AbsoluteAxis.mtPressure)
        XCTAssertEqual(trace.clock, .realtime)
        XCTAssertEqual(trace.t0Ns, 1_382_570_977_035_628_000)
    }

    func testSynapticsSplitFormWithDesc() throws {
        let trace = try importAndExport(.synaptics, expectedContacts: 1)
        XCTAssertEqual(trace.device.name, "SynPS/2 Synaptics TouchPad")
        XCTAssertEqual(trace.device.axis(AbsoluteAxis.x)?.minimum, 1472)
        XCTAssertEqual(trace.device.slotCount, 2)
    }

    func testBcm5974ProtocolAFollowsBTNTouch() throws {
        let trace = try importAndExport(.bcm5974, expectedContacts: 5)
        XCTAssertEqual(trace.device.contactProtocol, .singleTouch)
        XCTAssertEqual(trace.device.contactPressureAxis?.maximum, 256)
        let contacts = try trace.contacts()
        XCTAssertEqual(contacts.map(\.slot), Array(repeating: -1, count: 5))
        XCTAssertTrue(contacts.allSatisfy { $0.tUpNs > $0.tDownNs })
    }

    func testDellCanvasPen() throws {
        let trace = try importAndExport(.pen, expectedContacts: 1)
        XCTAssertTrue(trace.device.isPen)
        XCTAssertEqual(trace.clock, .relative)
        let contacts = try trace.contacts()
        XCTAssertEqual(contacts.first?.tool, Button.toolPen)
        let pressure: [Int32] = try trace.read(TraceSchema.Samples.pressure)
        XCTAssertGreaterThan(pressure.max() ?? 0, 100, "the pen presses well into its 0..4095 range")
    }

    func testSeveralRecordingsInOneFile() throws {
        let directory = try makeTemporaryDirectory(self)
        let trace = directory.appendingPathComponent("all.h5").path
        let writer = try TraceWriter(creating: trace)
        var expected: [String: Int] = [:]
        for recording in SharedRecording.allCases {
            let parsed = try Evemu.read(try recording.path())
            let summary = try writer.write(parsed)
            expected[summary.name] = parsed.events.count
        }
        // The same input twice gets a distinct group name.
        let again = try writer.write(try Evemu.read(try SharedRecording.pen.path()))
        XCTAssertEqual(again.name, "dell_canvas_pen-2")
        try writer.close()
        let reader = try TraceReader(path: trace)
        XCTAssertEqual(reader.recordingNames.count, 5)
        for (name, events) in expected {
            XCTAssertEqual(try reader.recording(name).rowCount(.events), events, name)
        }
    }
}
