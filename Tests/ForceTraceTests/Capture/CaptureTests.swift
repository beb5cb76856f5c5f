import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// Capture without hardware: bad device nodes, name matching, the initial
/// state frame, and the live pipeline fed by a replay.
final class CaptureTests: XCTestCase {
    // MARK: Opening things that are not evdev devices

    func testDevNullIsNotAnEvdevDevice() {
        XCTAssertThrowsError(try EvdevDevice(path: "/dev/null")) { error in
            guard let error = error as? ForceTraceError, error.kind == .device else { return XCTFail("\(error)") }
            XCTAssertEqual(error.errno, ENOTTY)
            XCTAssertEqual(error.file, "/dev/null")
            XCTAssertTrue(error.description.hasPrefix("/dev/null: is not an evdev device (libevdev_new_from_fd: "), error.description)
            XCTAssertNotNil(error.hint)
        }
    }

    func testRegularFileIsNotADeviceAndHintsAtReplay() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("press.evemu").path
        try "# EVEMU 1.3\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try EvdevDevice(path: path)) { error in
            guard let error = error as? ForceTraceError, error.kind == .device else { return XCTFail("\(error)") }
            XCTAssertEqual(error.description, """
                \(path): is a regular file or directory, not an evdev device node
                  hint: to feed a recording through the recorder use 'forcetrace record --replay \(path)'
                """)
        }
    }

    func testMissingNodeSaysSo() {
        XCTAssertThrowsError(try EvdevDevice(path: "/nonexistent/event99")) { error in
            XCTAssertEqual((error as? ForceTraceError)?.errno, ENOENT)
            XCTAssertEqual((error as? ForceTraceError)?.message, "does not exist")
        }
    }

    func testPermissionDeniedNamesTheDeviceAndTheInputGroup() {
        let error = ForceTraceError.device(SystemCallError(function: "open", path: "/dev/input/event7", errno: EACCES), path: "/dev/input/event7")
        XCTAssertEqual(error.description, """
            /dev/input/event7: cannot be opened: Permission denied
              hint: evdev nodes belong to the 'input' group: add yourself (usermod -aG input $USER, then log in again) or run as root
            """)
    }

    // MARK: Enumeration and name matching

    func testEventNodesAreNumericallySortedAndOthersIgnored() throws {
        let directory = try makeTemporaryDirectory(self)
        for name in ["event10", "event2", "mouse0", "eventX", "event0", "by-id"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data()))
        }
        XCTAssertEqual(try InputDevices.eventNodes(in: directory.path).map { URL(fileURLWithPath: $0).lastPathComponent },
                       ["event0", "event2", "event10"])
    }

    func testMissingInputDirectoryIsAPlainError() {
        XCTAssertThrowsError(try InputDevices.eventNodes(in: "/nonexistent/input")) { error in
            XCTAssertTrue("\(error)".hasPrefix("/nonexistent/input: does not exist: this machine (or container) has no input devices"), "\(error)")
        }
    }

    func testListReportsNodesThatAreNotDevices() throws {
        let directory = try makeTemporaryDirectory(self)
        XCTAssertTrue(FileManager.default.createFile(atPath: directory.appendingPathComponent("event3").path, contents: Data("x".utf8)))
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("event4").path, withDestinationPath: "/dev/null")
        let entries = try InputDevices.list(in: directory.path)
        XCTAssertEqual(entries.count, 2)
        XCTAssertNil(entries[0].description)
        XCTAssertEqual(entries[0].error?.message, "is a regular file or directory, not an evdev device node")
        XCTAssertEqual(entries[1].error?.errno, ENOTTY)
    }

    private let devices: [(path: String, name: String?)] = [
        ("/dev/input/event0", "AT Translated Set 2 keyboard"),
        ("/dev/input/event4", "ELAN Touchscreen"),
        ("/dev/input/event5", "ELAN Touchscreen Stylus"),
        ("/dev/input/event6", "Wacom Intuos Pen"),
        ("/dev/input/event9", nil),
    ]

    func testNameMatching() throws {
        XCTAssertEqual(try InputDevices.match("wacom", among: devices), "/dev/input/event6")
        XCTAssertEqual(try InputDevices.match("Stylus", among: devices), "/dev/input/event5")
        // An exact name wins over names that contain it.
        XCTAssertEqual(try InputDevices.match("elan touchscreen", among: devices), "/dev/input/event4")
    }

    func testNameMatchingSeveralDevicesListsThem() {
        XCTAssertThrowsError(try InputDevices.match("ELAN", among: devices)) { error in
            XCTAssertEqual("\(error)", """
                /dev/input: 2 devices match 'ELAN': /dev/input/event4 (ELAN Touchscreen), /dev/input/event5 (ELAN Touchscreen Stylus)
                  hint: give a longer part of the name, or the /dev/input/eventN path
                """)
        }
    }

    func testNameMatchingNothingMentionsUnreadableDevices() {
        XCTAssertThrowsError(try InputDevices.match("trackpoint", among: devices)) { error in
            XCTAssertEqual("\(error)", """
                /dev/input: no device's name contains 'trackpoint'
                  hint: 1 device(s) could not be opened and were not searched: join the 'input' group or run as root; 'forcetrace devices' lists the devices and their names
                """)
        }
    }

    func testForceCapability() {
        XCTAssertEqual(slottedDevice(pressure: true).forceCapability, .available)
        XCTAssertEqual(slottedDevice(pressure: false).forceCapability, .shared)
        var pen = DeviceDescription(name: "pen")
        pen.setAxis(AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: 1000))
        XCTAssertEqual(pen.forceCapability, .unavailable)
        pen.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 4095))
        XCTAssertEqual(pen.forceCapability, .available)
        pen.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 1))
        XCTAssertEqual(pen.forceCapability, .unavailable)
    }

    // MARK: The initial state frame

    func testTouchAlreadyDownIsAContactFromTimeZero() {
        let device = slottedDevice(slots: 2)
        let state = DeviceState(slots: [
            [AbsoluteAxis.mtTrackingID: -1, AbsoluteAxis.mtPositionX: 0, AbsoluteAxis.mtPositionY: 0, AbsoluteAxis.mtPressure: 0],
            [AbsoluteAxis.mtTrackingID: 7, AbsoluteAxis.mtPositionX: 300, AbsoluteAxis.mtPositionY: 410, AbsoluteAxis.mtPressure: 52],
        ], currentSlot: 1, keysDown: [Button.touch])
        let start: Int64 = 5_000_000_000
        let events = InitialState.events(description: device, state: state, timeNs: start)
        let described = events.map { "\(EventNames.code(type: $0.type, code: $0.code)) \($0.value)" }
        XCTAssertEqual(described, ["BTN_TOUCH 1", "ABS_MT_SLOT 1", "ABS_MT_TRACKING_ID 7", "ABS_MT_POSITION_X 300",
                                   "ABS_MT_POSITION_Y 410", "ABS_MT_PRESSURE 52", "SYN_REPORT 0"])
        XCTAssertTrue(events.allSatisfy { $0.timeNs == start })

        // Then the touch only changes pressure: the decoder must know x and y.
        var script = EventScript()
        script.time = start + 10_000_000
        script.abs(AbsoluteAxis.mtPressure, 60)
        script.report()
        script.abs(AbsoluteAxis.mtTrackingID, -1)
        script.report()
        let (output, _) = decode((events + script.events).map { var event = $0; event.timeNs -= start; return event }, device: device,
                                 policy: .applyFollowingEvents)
        XCTAssertEqual(output.contacts.count, 1)
        XCTAssertEqual(output.contacts[0].tDownNs, 0)
        XCTAssertEqual(output.contacts[0].slot, 1)
        XCTAssertEqual(output.contacts[0].trackingID, 7)
        XCTAssertEqual(output.samples.map { [$0.tNs, Int64($0.x), Int64($0.y), Int64($0.pressure)] },
                       [[0, 300, 410, 52], [10_000_000, 300, 410, 60]])
    }

    func testStaleSlotValuesAreSetSoANewTouchInheritsTheRightPressure() {
        let device = slottedDevice(slots: 2)
        // No touch down, but slot 1 last had pressure 80 at (500, 600).
        let state = DeviceState(slots: [
            [AbsoluteAxis.mtTrackingID: -1, AbsoluteAxis.mtPositionX: 0, AbsoluteAxis.mtPositionY: 0, AbsoluteAxis.mtPressure: 0],
            [AbsoluteAxis.mtTrackingID: -1, AbsoluteAxis.mtPositionX: 500, AbsoluteAxis.mtPositionY: 600, AbsoluteAxis.mtPressure: 80],
        ], currentSlot: 0)
        let events = InitialState.events(description: device, state: state, timeNs: 0)
        XCTAssertEqual(events.map { "\(EventNames.code(type: $0.type, code: $0.code)) \($0.value)" },
                       ["ABS_MT_SLOT 1", "ABS_MT_POSITION_X 500", "ABS_MT_POSITION_Y 600", "ABS_MT_PRESSURE 80",
                        "ABS_MT_SLOT 0", "SYN_REPORT 0"])
        // The kernel sends only changes: a new touch at the same place sends no pressure.
        var script = EventScript()
        script.time = 1_000_000
        script.abs(AbsoluteAxis.mtSlot, 1)
        script.abs(AbsoluteAxis.mtTrackingID, 9)
        script.report()
        let (output, _) = decode(events + script.events, device: device, policy: .applyFollowingEvents)
        XCTAssertEqual(output.samples.map(\.pressure), [80])
        XCTAssertEqual(output.samples.map(\.x), [500])
    }

    func testNoFrameWhenTheDeviceMatchesItsDescription() {
        let device = slottedDevice(slots: 2)
        let idle: [UInt16: Int32] = [AbsoluteAxis.mtTrackingID: -1, AbsoluteAxis.mtPositionX: 0, AbsoluteAxis.mtPositionY: 0, AbsoluteAxis.mtPressure: 0]
        XCTAssertEqual(InitialState.events(description: device, state: DeviceState(slots: [idle, idle]), timeNs: 0), [])
    }

    // MARK: The live pipeline, fed by a replay

    private struct Tables: Equatable {
        var columns: [String: [Int64]] = [:]
    }

    private func tables(_ path: String) throws -> (Tables, TraceRecording, TraceReader) {
        let reader = try TraceReader(path: path)
        let recording = try reader.recording(reader.recordingNames[0])
        var tables = Tables()
        for table in [TraceSchema.Table.events, .samples, .contacts, .markers, .axes] {
            for column in table.columns where column.element != .string {
                tables.columns["\(table.rawValue)/\(column.name)"] = try recording.readNumbers(column, as: Int64.self)
            }
        }
        return (tables, recording, reader)
    }

    private func assertReplayEqualsImport(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let directory = try makeTemporaryDirectory(self)
        let imported = directory.appendingPathComponent("imported.h5").path
        let replayed = directory.appendingPathComponent("replayed.h5").path
        let recording = try Evemu.read(path)
        let writer = try TraceWriter(creating: imported)
        try writer.write(recording)
        try writer.close()

        let recorder = try Recorder(source: ReplaySource(recording: recording, speed: nil), path: replayed)
        let result = try recorder.run(stop: nil)
        XCTAssertEqual(result.reason, .endOfInput, file: file, line: line)
        XCTAssertEqual(result.summary.events, Int64(recording.events.count), file: file, line: line)

        let (expected, _, importReader) = try tables(imported)
        let (actual, trace, replayReader) = try tables(replayed)
        defer { try? importReader.close(); try? replayReader.close() }
        XCTAssertFalse(expected.columns["events/t_ns"]?.isEmpty ?? true, file: file, line: line)
        XCTAssertEqual(Set(actual.columns.keys), Set(expected.columns.keys), file: file, line: line)
        for (name, column) in expected.columns.sorted(by: { $0.key < $1.key }) {
            let replayedColumn = actual.columns[name] ?? []
            guard replayedColumn != column else { continue }
            let first = zip(replayedColumn, column).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            XCTFail("\(path): \(name) differs: \(replayedColumn.count) rows replayed, \(column.count) imported, first difference at row \(first.map(String.init) ?? "end")",
                    file: file, line: line)
        }
        XCTAssertEqual(trace.importStatus, .complete, file: file, line: line)
        XCTAssertEqual(trace.stopReason, .endOfInput, file: file, line: line)
        XCTAssertEqual(trace.source, .replay(.evemu(path: path)), file: file, line: line)
        XCTAssertEqual(trace.t0Ns, recording.t0Ns, file: file, line: line)
        // Both pipelines share the decoder and writer: check one of them against the evemu text itself.
        let replayedTrace = try BlackBox.Trace(replayed)
        defer { try? replayedTrace.close() }
        try EvemuOracle(path: path).assertMatches(replayedTrace, "replay of \(path)", file: file, line: line)
    }

    func testReplayThroughTheLivePipelineEqualsImportForTheSamples() throws {
        for name in ["touchscreen-mixed.evemu", "touchscreen-deep-presses.evemu"] {
            try assertReplayEqualsImport(packageRoot.appendingPathComponent("samples/\(name)").path)
        }
    }

    func testReplayThroughTheLivePipelineEqualsImportForTheSharedRecordings() throws {
        for recording in SharedRecording.allCases {
            try assertReplayEqualsImport(try recording.path())
        }
    }

    func testMaxEventsStopsExactlyAndTheFileIsComplete() throws {
        let directory = try makeTemporaryDirectory(self)
        let output = directory.appendingPathComponent("limited.h5").path
        let recording = try Evemu.read(packageRoot.appendingPathComponent("samples/touchscreen-mixed.evemu").path)
        var options = RecorderOptions()
        options.maxEvents = 1000
        options.label = "first thousand"
        let result = try Recorder(source: ReplaySource(recording: recording, speed: nil), path: output, name: "limited", options: options).run(stop: nil)
        XCTAssertEqual(result.reason, .maxEvents)
        let reader = try TraceReader(path: output)
        let trace = try reader.recording("limited")
        XCTAssertEqual(try trace.rowCount(.events), 1000)
        XCTAssertEqual(try trace.read(TraceSchema.Events.value), recording.events.prefix(1000).map(\.value))
        XCTAssertEqual(trace.label, "first thousand")
        XCTAssertEqual(trace.stopReason, .maxEvents)
    }

    func testAPacedReplayIsTakenInBatchesNotFrameByFrame() throws {
        let directory = try makeTemporaryDirectory(self)
        let output = directory.appendingPathComponent("batched.h5").path
        let recording = try Evemu.read(packageRoot.appendingPathComponent("samples/touchscreen-mixed.evemu").path)
        var options = RecorderOptions()
        options.durationNs = 1_000_000_000
        // 120 Hz frames at 8 times their pace: one about every millisecond while a finger is down.
        let recorder = try Recorder(source: ReplaySource(recording: recording, speed: 8), path: output, options: options)
        var passes = 0
        let result = try recorder.run(stop: nil) { _ in passes += 1 }
        // A pass per batch interval, plus per flush one whose pause the flush cut short and one that
        // only waited for it, plus the first and the last.
        let bound = Int(result.elapsedNs / options.batchIntervalNs) + 2 * result.flushes + 2
        XCTAssertLessThanOrEqual(passes, bound)
        XCTAssertGreaterThan(result.summary.events, 1000)
    }

    func testStopSignalEndsAPacedReplayCleanly() throws {
        let directory = try makeTemporaryDirectory(self)
        let output = directory.appendingPathComponent("stopped.h5").path
        let recording = try Evemu.read(packageRoot.appendingPathComponent("samples/touchscreen-mixed.evemu").path)
        let stop = try StopSignal()
        var options = RecorderOptions()
        options.flushIntervalNs = 50_000_000
        let recorder = try Recorder(source: ReplaySource(recording: recording, speed: 1), path: output, options: options)
        var raised = false
        let result = try recorder.run(stop: stop) { status in
            // Half a second in, as a user's Ctrl-C would.
            if !raised && status.elapsedNs > 500_000_000 { raised = true; raise(SIGINT) }
        }
        XCTAssertEqual(result.reason, .signal)
        XCTAssertEqual(result.signalName, "SIGINT")
        XCTAssertLessThan(result.summary.events, Int64(recording.events.count))
        XCTAssertGreaterThan(result.summary.events, 0)
        let reader = try TraceReader(path: output)
        let trace = try reader.recording(reader.recordingNames[0])
        XCTAssertEqual(trace.importStatus, .complete)
        XCTAssertEqual(try trace.rowCount(.events), Int(result.summary.events))
    }
}
