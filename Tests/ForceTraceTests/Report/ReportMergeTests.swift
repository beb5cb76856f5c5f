import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// `report --merge` through the library (ReportMerge.read). Parts are written by
/// ReportFile.write, as `report --save` writes them.
final class ReportMergeTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// A saved part holding one simulated recording, analysed with `options`.
    private func part(_ name: String, seed: UInt64, options: AnalysisOptions) throws -> (path: String, input: String) {
        var simulation = SimulationOptions()
        simulation.presses = 4
        simulation.seed = seed
        let analysis = try F.analyze(Simulator.run(simulation).recording, options: options)
        let report = PressureReport(options: options, files: [FileAnalysis(file: analysis.file, recordings: [analysis])])
        let path = F.temporaryPath("\(name)-\(UUID().uuidString).h5")
        try ReportFile.write(report, to: path, replace: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return (path, analysis.file)
    }

    private func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return "\(error)" }
        return "(no error)"
    }

    /// Sets `name` on the root (or on `group`) of a saved part to `value`.
    private func plant(_ path: String, _ name: String, _ value: AttributeValue, group: String? = nil) throws {
        let file = try File.open(path, mode: .readWrite)
        var target = try file.root
        if let group { target = try target.openGroup("recordings").openGroup(group) }
        try target.setAttribute(name, value)
        try file.close()
    }

    /// Every attribute --merge reads goes through its SavedReportLayout key,
    /// whose type names what the file should have held.
    func testAnAttributeOfTheWrongTypeIsNamedWithItsType() throws {
        let cases: [(name: String, value: AttributeValue, group: Bool, expected: String)] = [
            ("curve_points", .string("64"), false, "'curve_points' is not an integer"),
            ("peek", .string("0.6"), false, "'peek' is not a number"),
            ("inputs", .ints([1]), false, "'inputs' is not a list of strings"),
            ("device_id", .string("1 2 3 4"), true, "recordings/REC: 'device_id' is not a list of integers"),
            ("device_name", .int(3), true, "recordings/REC: 'device_name' is not a string"),
            // Optional attributes too, which could otherwise be dropped without a word.
            ("scripted_peek", .string("0.6"), true, "recordings/REC: 'scripted_peek' is not a number"),
        ]
        for entry in cases {
            let a = try part("a", seed: 3, options: AnalysisOptions())
            let group = try File.open(a.path).root.openGroup("recordings").memberNames()[0]
            try plant(a.path, entry.name, entry.value, group: entry.group ? group : nil)
            let text = message { _ = try ReportMerge.read([a.path], curves: false) }
            XCTAssertTrue(text.contains(entry.expected.replacingOccurrences(of: "REC", with: group)), "\(entry.name): \(text)")
        }
    }

    /// The pressure axis code is the device's contact pressure axis (58, ABS_MT_PRESSURE, for the
    /// simulator's slotted screen) or -1. 0 (ABS_X), 24 (ABS_PRESSURE, absent here) and a code past
    /// UInt16 (which would trap a narrowing) are refused by name; -1 merges without a pressure axis.
    func testAPressureAxisCodeOtherThanTheDevicesIsRefused() throws {
        for code: Int64 in [0, 24, 70_000, -2] {
            let a = try part("a", seed: 3, options: AnalysisOptions())
            let group = try File.open(a.path).root.openGroup("recordings").memberNames()[0]
            try plant(a.path, "pressure_axis_code", .int(code), group: group)
            let text = message { _ = try ReportMerge.read([a.path], curves: false) }
            XCTAssertTrue(text.contains("recordings/\(group): 'pressure_axis_code' is \(code), but the recording's pressure axis is code 58"), text)
        }
        let a = try part("a", seed: 3, options: AnalysisOptions())
        let group = try File.open(a.path).root.openGroup("recordings").memberNames()[0]
        XCTAssertEqual(try ReportMerge.read([a.path], curves: false).recordings.first?.analysis.pressureAxis?.code, AbsoluteAxis.mtPressure)
        try plant(a.path, "pressure_axis_code", .int(-1), group: group)
        XCTAssertNil(try ReportMerge.read([a.path], curves: false).recordings.first?.analysis.pressureAxis)
    }

    func testNoPartsIsAnError() {
        XCTAssertTrue(message { _ = try ReportMerge.read([], curves: false) }.contains("no part files given"))
    }

    /// Two parts with the same options merge; in device units and in millimetres
    /// (the tolerance attribute is "VALUE units" or "VALUE mm", two words).
    func testPartsWithTheSameOptionsMergeInUnitsAndMillimetres() throws {
        for tolerance in [Tolerance.deviceUnits(3), .millimetres(1.5)] {
            var options = AnalysisOptions()
            options.tolerance = tolerance
            let a = try part("a", seed: 3, options: options), b = try part("b", seed: 4, options: options)
            let merged = try ReportMerge.read([a.path, b.path], curves: false)
            XCTAssertEqual(merged.report.files.map(\.file), [a.input, b.input])
            XCTAssertEqual(merged.recordings.map(\.part), [a.path, b.path])
            XCTAssertEqual(merged.report.options.tolerance, tolerance)
            XCTAssertEqual(merged.report.options.thresholds, options.thresholds)
            // The device's axes come back whole (7 numbers a row).
            XCTAssertEqual(merged.recordings[0].analysis.device.axes.count, try F.analyze(
                Simulator.run({ var s = SimulationOptions(); s.presses = 4; s.seed = 3; return s }()).recording).device.axes.count)
            XCTAssertFalse(merged.recordings[0].analysis.device.axes.isEmpty)
        }
    }

    func testPartsWithOtherOptionsAreRefused() throws {
        var other = AnalysisOptions()
        other.tolerance = .deviceUnits(5)
        let a = try part("a", seed: 3, options: AnalysisOptions()), b = try part("b", seed: 4, options: other)
        XCTAssertTrue(message { _ = try ReportMerge.read([a.path, b.path], curves: false) }.contains("was saved with other options"))
    }

    func testTheSameInputTwiceIsRefused() throws {
        let a = try part("a", seed: 3, options: AnalysisOptions())
        XCTAssertTrue(message { _ = try ReportMerge.read([a.path, a.path], curves: false) }.contains("which \(a.path) holds too"))
    }

    /// A trace file is HDF5 but not a saved report: its 'format' attribute differs.
    func testATraceFileIsNotASavedReport() throws {
        var simulation = SimulationOptions()
        simulation.presses = 2
        let trace = try F.write([Simulator.run(simulation).recording], name: "trace-\(UUID().uuidString).h5")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        XCTAssertTrue(message { _ = try ReportMerge.read([trace], curves: false) }.contains("is not a saved report"))
    }
}
