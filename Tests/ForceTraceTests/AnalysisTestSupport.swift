import Foundation
import XCTest
@testable import ForceTrace

/// Builds small protocol-B recordings event by event for hand-computed cases.
struct RecordingBuilder {
    static let abs = EventType.abs

    var device: DeviceDescription
    var events: [InputEvent] = []
    var groundTruth = GroundTruth()

    /// 2 slots, x/y 0...1000 at 10 units/mm, ABS_MT_PRESSURE 0...100 when `pressure`.
    init(pressure: Bool = true, slots: Int32 = 2, resolution: Int32 = 10) {
        var device = DeviceDescription(name: "test touchscreen")
        device.codes[EventType.syn] = [EventType.syn, EventType.key, EventType.abs]
        device.codes[EventType.key] = [Button.touch]
        device.setAxis(AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: 1000, resolution: resolution))
        device.setAxis(AxisInfo(code: AbsoluteAxis.y, minimum: 0, maximum: 1000, resolution: resolution))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtSlot, minimum: 0, maximum: slots - 1))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: 1000, resolution: resolution))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionY, minimum: 0, maximum: 1000, resolution: resolution))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtTrackingID, minimum: 0, maximum: 65535))
        if pressure { device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 100)) }
        self.device = device
    }

    /// One frame at `ms` milliseconds: (code, value) pairs of EV_ABS, then SYN_REPORT.
    mutating func frame(_ ms: Int64, _ pairs: [(UInt16, Int32)]) {
        for (code, value) in pairs { events.append(InputEvent(timeNs: ms * 1_000_000, type: Self.abs, code: code, value: value)) }
        events.append(InputEvent(timeNs: ms * 1_000_000, type: EventType.syn, code: Synchronization.report, value: 0))
    }

    var recording: Recording {
        var recording = Recording(device: device, events: events, clock: .relative, source: .other("test"), name: "test")
        recording.groundTruth = groundTruth
        return recording
    }
}

enum AnalysisFixtures {
    static let slot = AbsoluteAxis.mtSlot, id = AbsoluteAxis.mtTrackingID
    static let x = AbsoluteAxis.mtPositionX, y = AbsoluteAxis.mtPositionY, p = AbsoluteAxis.mtPressure

    static func temporaryPath(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("forcetrace-analysis-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    /// Writes `recordings` to a trace file and returns its path.
    static func write(_ recordings: [Recording], name: String) throws -> String {
        let path = temporaryPath(name)
        let writer = try TraceWriter(creating: path)
        for recording in recordings { try writer.write(recording) }
        try writer.close()
        return path
    }

    static func analyze(_ recording: Recording, options: AnalysisOptions = AnalysisOptions(), name: String = UUID().uuidString + ".h5") throws -> RecordingAnalysis {
        let path = try write([recording], name: name)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try TraceReader(path: path)
        return try PressureAnalyzer.analyze(try reader.recording(reader.recordingNames[0]), options: options)
    }

    static func analyzeFile(_ path: String, options: AnalysisOptions = AnalysisOptions()) throws -> [RecordingAnalysis] {
        let reader = try TraceReader(path: path)
        return try reader.recordingNames.map { try PressureAnalyzer.analyze(try reader.recording($0), options: options) }
    }

    /// ../shared/recordings from the package root, or nil when absent.
    static var sharedRecordings: URL? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let url = root.appendingPathComponent("../shared/recordings").standardizedFileURL
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    static func shared(_ name: String) throws -> String {
        guard let directory = sharedRecordings else { throw XCTSkip("../shared/recordings is absent") }
        let path = directory.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("\(name) is absent") }
        return path
    }
}
