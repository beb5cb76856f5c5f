import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// The recorder with a scale beside the device: the `force` table it
/// writes, read back, and what a scale that goes away leaves.
final class ForceTableTests: XCTestCase {
    private func sample() throws -> Recording {
        try Evemu.read(packageRoot.appendingPathComponent("samples/touchscreen-mixed.evemu").path)
    }

    /// A scale capture on a pty with `lines` already read.
    private func capture(_ lines: String, expecting count: Int) throws -> (ScaleCapture, Int32) {
        let (master, slave) = try PseudoTerminal.open()
        let capture = try ScaleCapture(try ScaleAddress(path: slave, baud: 9600).open())
        PseudoTerminal.send(master, lines)
        for _ in 0..<200 where capture.count < count { usleep(5000) }
        XCTAssertEqual(capture.count, count)
        return (capture, master)
    }

    /// The sample as recording "r" of a trace at `path`, with `table` beside it.
    private func sampleTrace(at path: String, forceTable table: ForceTable) throws {
        let writer = try TraceWriter(creating: path)
        try writer.write(try sample(), name: "r")
        try writer.close()
        let file = try File.open(path, mode: .readWrite)
        try file.root.openGroup(TraceSchema.recordingsGroup).openGroup("r").writeForceTable(table)
        try file.close()
    }

    private func record(_ capture: ScaleCapture, to path: String) throws -> RecorderResult {
        let recorder = try Recorder(source: ReplaySource(recording: try sample(), speed: nil), path: path, scale: capture)
        return try recorder.run(stop: nil)
    }

    func testTheRecorderWritesTheForceTableBesideTheEvents() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("force.h5").path
        let before = Syscall.monotonicNs()
        let (capture, master) = try capture("ST,+00012.30  g\r\nUS,+00015.00  g\r\nOL,+999999.9  g\r\nST,+0001.000 oz\r\n", expecting: 4)
        defer { close(master) }
        let result = try record(capture, to: path)
        let after = Syscall.monotonicNs()
        XCTAssertNil(result.force?.scaleError)

        let reader = try TraceReader(path: path)
        let trace = try reader.recording(reader.recordingNames[0])
        let force = try XCTUnwrap(try trace.force())
        XCTAssertEqual(force.kind, .serial)
        XCTAssertTrue(force.device.hasPrefix("/dev/pts/"), force.device)
        XCTAssertEqual(force.name, "serial 9600 baud")
        XCTAssertEqual(force.unit, "g", "the unit most weights came in")
        XCTAssertNil(force.lagNs)
        XCTAssertEqual(force.readings.map(\.status), [.stable, .inMotion, .overload, .stable])
        XCTAssertEqual(force.readings[0].grams, 12.3)
        XCTAssertTrue(force.readings[2].grams.isNaN)
        XCTAssertEqual(force.readings[2].rawValue, 999_999.9)
        XCTAssertEqual(force.readings[3].grams, 28.349523125, accuracy: 1e-12)
        XCTAssertEqual(force.readings.map(\.rawUnit), ["g", "g", "g", "oz"])
        // Times are relative to the recording's t0 (a replay's t0 is its own), stamped between before and after.
        for reading in force.readings {
            XCTAssertGreaterThanOrEqual(reading.timeNs + trace.t0Ns, before)
            XCTAssertLessThanOrEqual(reading.timeNs + trace.t0Ns, after)
        }

        // The table as h5py sees it: its columns with units and long names, a dimension scale, the attributes.
        let file = try File.open(path)
        defer { try? file.close() }
        let group = try file.root.openGroup(TraceSchema.recordingsGroup).openGroup(reader.recordingNames[0]).openGroup("force")
        XCTAssertEqual(Set(try group.memberNames()), Set(TraceSchema.Table.force.columns.map(\.name) + ["force_reading"]))
        XCTAssertTrue(try group.isDimensionScale("force_reading"))
        for column in TraceSchema.Table.force.columns {
            XCTAssertEqual(try group.attribute("units", ofMember: column.name), .string(column.units), column.name)
            XCTAssertEqual(try group.attribute("long_name", ofMember: column.name), .string(column.longName), column.name)
        }
        XCTAssertEqual(try group.attribute("scale_kind"), .string("serial"))
        XCTAssertEqual(try group.attribute("status_flags"),
                       .string("1=stable,2=in_motion,4=overload,8=under_zero,16=fault,32=stable_at_zero,64=requires_calibration,128=requires_rezeroing,256=net,512=unreadable"))
        XCTAssertEqual(try group.attribute("unit_exponent"), .int(0))

        // import copies it whole, attributes and all.
        let copyPath = directory.appendingPathComponent("copy.h5").path
        let copy = try TraceWriter(creating: copyPath)
        _ = try copy.copyRecordings(from: reader)
        try copy.close()
        let copied = try TraceReader(path: copyPath)
        let copiedForce = try XCTUnwrap(try copied.recording(copied.recordingNames[0]).force())
        XCTAssertEqual(copiedForce.readings, force.readings)
        XCTAssertEqual(copiedForce.device, force.device)
    }

    /// A scale unplugged before the stop: the readings so far are kept, the
    /// table says why it ends, and nothing after is invented.
    func testAScaleThatGoesAwayKeepsItsReadingsAndSaysWhy() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("gone.h5").path
        let (capture, master) = try capture("ST,+00001.00  g\r\n", expecting: 1)
        close(master)
        let result = try record(capture, to: path)
        XCTAssertNotNil(result.force?.scaleError)
        let reader = try TraceReader(path: path)
        let force = try XCTUnwrap(try reader.recording(reader.recordingNames[0]).force())
        XCTAssertEqual(force.readings.map(\.grams), [1])
        let error = try XCTUnwrap(force.scaleError)
        XCTAssertTrue(error.hasPrefix("the scale is gone"), error)
    }

    /// Files without the table (every file before it) read as before.
    func testARecordingWithoutAScaleHasNoForceTable() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("plain.h5").path
        _ = try Recorder(source: ReplaySource(recording: try sample(), speed: nil), path: path).run(stop: nil)
        let reader = try TraceReader(path: path)
        XCTAssertNil(try reader.recording(reader.recordingNames[0]).force())
    }

    /// Names from outside are stored escaped; a damaged table is an error naming it.
    func testNamesAreEscapedAndDamageIsNamed() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("escaped.h5").path
        let readings = [ScaleReading(timeNs: 5, grams: 1, status: .stable, rawValue: 1, rawUnit: "g\u{1b}[31m"),
                        ScaleReading(timeNs: 3, grams: 2, status: .stable, rawValue: 2, rawUnit: "g")]
        try sampleTrace(at: path, forceTable: ForceTable(kind: .hid, device: "/dev/hidraw0", name: "Scale\u{1b}]52;x\u{07}", readings: readings))
        let reader = try TraceReader(path: path)
        XCTAssertThrowsError(try reader.recording("r").force()) { error in
            XCTAssertEqual("\(error)".components(separatedBy: "\n")[0], "\(path): recording 'r': force: t_ns goes back in time at row 1")
        }
        // import validates a trace file whole before it copies: the damaged force table stops it.
        let copy = try TraceWriter(creating: directory.appendingPathComponent("copy.h5").path)
        XCTAssertThrowsError(try copy.copyRecordings(from: reader)) { error in
            XCTAssertTrue("\(error)".contains("force: t_ns goes back in time at row 1"), "\(error)")
        }
        try? copy.close()
        let group = try File.open(path).root.openGroup(TraceSchema.recordingsGroup).openGroup("r").openGroup("force")
        XCTAssertEqual(try group.attribute("scale_name"), .string("Scale\\x1b]52;x\\x07"))
        XCTAssertEqual(try group.readStrings("raw_unit"), ["g\\x1b[31m", "g"])
    }

    /// A damaged force table stops the analysis that draws the force panel
    /// (curves, as `report --html` asks), after the samples are measured,
    /// and not the summary, which draws none.
    func testADamagedForceTableStopsOnlyTheAnalysisThatDrawsItsPanel() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("damaged-force.h5").path
        let readings = [ScaleReading(timeNs: 5, grams: 1, status: .stable, rawValue: 1, rawUnit: "g"),
                        ScaleReading(timeNs: 3, grams: 2, status: .stable, rawValue: 2, rawUnit: "g")]
        try sampleTrace(at: path, forceTable: ForceTable(kind: .hid, device: "/dev/hidraw0", name: "Scale", readings: readings))
        let reader = try TraceReader(path: path)
        var summary = AnalysisOptions()
        summary.curves = false
        XCTAssertNil(try PressureAnalyzer.analyze(reader.recording("r"), options: summary).force)
        XCTAssertThrowsError(try PressureAnalyzer.analyze(reader.recording("r"), options: AnalysisOptions())) { error in
            XCTAssertEqual("\(error)".components(separatedBy: "\n")[0], "\(path): recording 'r': force: t_ns goes back in time at row 1")
        }
    }
}
