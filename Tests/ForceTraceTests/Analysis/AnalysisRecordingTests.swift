import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// The simulator's ground truth, and the genuine recordings in ../shared.
final class AnalysisRecordingTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// A recording its recorder did not finish is analysed from its events,
    /// and the warning counts the contacts still down at its end: t_up −1,
    /// not a contact that lifted at time 0 (the recording's first instant).
    func testAnUnfinishedRecordingCountsOnlyTheContactsStillDown() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 50)])
        builder.frame(0, [(F.slot, 0), (F.id, -1)])
        builder.frame(5, [(F.slot, 1), (F.id, 2), (F.x, 300), (F.y, 300), (F.p, 40)])
        builder.frame(10, [(F.slot, 1), (F.p, 60)])
        let path = F.temporaryPath(UUID().uuidString + ".h5")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceWriter(creating: path)
        let recording = builder.recording
        let live = try writer.addRecording(name: "live", device: recording.device, source: recording.source,
                                           clock: recording.clock, t0Ns: 0)
        for event in recording.events { try live.append(event) }
        _ = try live.finish(markComplete: false)
        try writer.close()
        let trace = try TraceReader(path: path).recording("live")
        XCTAssertTrue(trace.isUnfinished)
        let analysis = try PressureAnalyzer.analyze(trace)
        XCTAssertEqual(analysis.contacts.map(\.tUpNs), [0, -1])
        let warning = try XCTUnwrap(analysis.warnings.first)
        XCTAssertTrue(warning.contains("1 of its 2 contacts were still down at its end"), warning)
    }

    /// Simulate → evemu text → import → analyse: every press keeps its label
    /// and is classified as scripted.
    func testSimulatorGroundTruthIsRecovered() throws {
        var options = SimulationOptions()
        options.seed = 11
        options.presses = 40
        let simulation = Simulator.run(options)
        var text = ""
        Evemu.write(simulation.recording, to: &text)
        XCTAssertTrue(text.contains("# forcetrace-label: thresholds peek=0.6 pop=0.8"))
        let parsed = try Evemu.parse(Array(text.utf8), file: "sim.evemu")
        XCTAssertEqual(parsed.groundTruth, simulation.recording.groundTruth, "labels survive the evemu text")
        let analysis = try F.analyze(parsed)
        XCTAssertEqual(analysis.scriptedPeek, 0.6)
        XCTAssertEqual(analysis.scriptedPop, 0.8)
        XCTAssertEqual(analysis.contacts.count, simulation.presses.count)
        let byTracking = Dictionary(uniqueKeysWithValues: simulation.presses.map { ($0.trackingID, $0) })
        var seen = Set<PressClass>()
        for contact in analysis.contacts {
            let press = try XCTUnwrap(byTracking[contact.trackingID])
            XCTAssertEqual(contact.label, press.intendedClass, "contact \(contact.id) kept its label")
            XCTAssertEqual(contact.pressClass, press.intendedClass, "contact \(contact.id) (\(press.kind), peak \(press.peak)) classified as scripted")
            XCTAssertEqual(contact.peakNorm!, press.peak, accuracy: 0.03, "measured peak near the scripted one")
            seen.insert(press.intendedClass)
        }
        XCTAssertEqual(seen, Set(PressClass.allCases))
        let suggestion = try XCTUnwrap(ThresholdSuggestion.fromLabels(analysis.statistics.labelledPeakBins))
        XCTAssertEqual(suggestion.balancedAccuracy, 1.0)
        // The suggested thresholds separate the classes the script separated at 0.6 and 0.8.
        let peaks = { (kind: PressClass) in analysis.contacts.filter { $0.label == kind }.compactMap(\.signalPeak) }
        XCTAssertGreaterThan(suggestion.peek, peaks(.tap).max()!)
        XCTAssertLessThanOrEqual(suggestion.peek, peaks(.peekPress).min()!)
        XCTAssertGreaterThan(suggestion.pop, peaks(.peekPress).max()!)
        XCTAssertLessThanOrEqual(suggestion.pop, peaks(.popPress).min()!)
        XCTAssertEqual(analysis.statistics.confusion.balancedAccuracy, 1.0)
    }

    func testLabelsSurviveImportAndExport() throws {
        var options = SimulationOptions()
        options.presses = 6
        let recording = Simulator.run(options).recording
        let path = try F.write([recording], name: "labels-roundtrip.h5")
        let reader = try TraceReader(path: path)
        let trace = try reader.recording(reader.recordingNames[0])
        XCTAssertEqual(try trace.groundTruth(), recording.groundTruth)
        let labels = try trace.contactLabels(count: 7)
        XCTAssertEqual(labels.compactMap { $0 }.count, 7, "6 presses, one of them two fingers")
        var text = ""
        Evemu.write(try trace.loadRecording(), to: &text)
        XCTAssertEqual(text.components(separatedBy: "\n").filter { $0.hasPrefix("# forcetrace-label: press") }.count, 7)
    }

    func testBadLabelLineNamesTheLine() throws {
        let text = "# EVEMU 1.3\n# forcetrace-label: press slot=0 tracking_id=1 t=0.5 class=hard\nN: x\n"
        XCTAssertThrowsError(try Evemu.parse(Array(text.utf8), file: "bad.evemu")) { error in
            XCTAssertTrue("\(error)".hasPrefix("bad.evemu:2: unknown class 'hard'"), "\(error)")
        }
    }

    func testCypressThreeFingerPress() throws {
        let path = try F.shared("CyPS2 Cypress Trackpad.three_finger_press.events")
        let analysis = try F.analyze(try Evemu.read(path))
        XCTAssertEqual(analysis.contacts.count, 3)
        XCTAssertEqual(analysis.pressureAxis?.code, AbsoluteAxis.mtPressure)
        // Count pressure-only rows straight from the samples flags, then compare.
        let trace = try F.write([try Evemu.read(path)], name: "cypress.h5")
        let reader = try TraceReader(path: trace)
        let flags = try reader.recording(reader.recordingNames[0]).read(TraceSchema.Samples.flags)
        let motion = flags.filter { $0 & 1 == 0 }.count
        let pressureOnly = flags.filter { $0 & 1 == 0 && $0 & 2 == 0 && $0 & 4 != 0 }.count
        XCTAssertEqual(analysis.statistics.motionEvents, Int64(motion))
        XCTAssertEqual(analysis.statistics.stationary[0], Int64(pressureOnly))
        XCTAssertGreaterThan(Double(pressureOnly) / Double(motion), 0.5, "most motion events are pressure-only")
        XCTAssertGreaterThan(analysis.statistics.inflation().ratio!, 2)
        // Raw 0...255: the peaks are small integers over 255.
        for contact in analysis.contacts { XCTAssertEqual(contact.peakNorm!, Double(contact.peakRaw) / 255, accuracy: 1e-15) }
        XCTAssertNotNil(analysis.contacts[0].displacementMM, "Cypress reports x/y resolution")
    }

    func testBcm5974WithoutSlotsUsesAbsPressure() throws {
        let analysis = try F.analyze(try Evemu.read(try F.shared("bcm5974.three-finger-click.events")))
        XCTAssertEqual(analysis.device.contactProtocol, .singleTouch)
        XCTAssertEqual(analysis.pressureAxis?.code, AbsoluteAxis.pressure)
        XCTAssertEqual(analysis.pressureAxis?.maximum, 256)
        XCTAssertEqual(analysis.contacts.count, 5)
        XCTAssertTrue(analysis.contacts.allSatisfy { $0.slot == -1 && $0.pressClass != nil })
        XCTAssertEqual(analysis.contacts.map(\.peakRaw).max(), 255)
        XCTAssertNil(analysis.contacts[0].displacementMM, "no resolution in the description")
    }

    func testSynapticsSplitFormAndDellPen() throws {
        let synaptics = try F.analyze(try Evemu.read(try F.shared("SynPS2 Synaptics TouchPad.leftmove.events")))
        XCTAssertEqual(synaptics.contacts.count, 1)
        XCTAssertEqual(synaptics.contacts[0].samples, synaptics.statistics.samples)
        XCTAssertEqual(synaptics.contacts[0].motionEvents, synaptics.contacts[0].samples - 1)
        let pen = try F.analyze(try Evemu.read(try F.shared("dell_canvas_pen.evemu")))
        XCTAssertEqual(pen.contacts.count, 1)
        XCTAssertEqual(pen.pressureAxis?.maximum, 4095)
        XCTAssertEqual(pen.contacts[0].peakNorm!, Double(pen.contacts[0].peakRaw) / 4095, accuracy: 1e-15)
        XCTAssertEqual(pen.contacts[0].tool, Button.toolPen)
    }

    /// --save writes matrices and tables h5py can read; the curves match the analysis.
    func testSavedReportHoldsCurvesAndTables() throws {
        var options = SimulationOptions()
        options.presses = 5
        var analysisOptions = AnalysisOptions()
        analysisOptions.curves = true
        let analysis = try F.analyze(Simulator.run(options).recording, options: analysisOptions)
        let report = PressureReport(options: analysisOptions, files: [FileAnalysis(file: "sim.h5", recordings: [analysis])])
        let path = F.temporaryPath("report.h5")
        try ReportFile.write(report, to: path, replace: true)
        XCTAssertThrowsError(try ReportFile.write(report, to: path, replace: false), "no silent replacement")
        let file = try File.open(path)
        let group = try file.root.openGroup("recordings").openGroup(analysis.name)
        let peaks = try group.openGroup("contacts").readArray("peak_norm", of: Double.self)
        XCTAssertEqual(peaks, analysis.contacts.map { $0.peakNorm! })
        XCTAssertEqual(try group.openGroup("sweep").readArray("reached", of: Int64.self), analysis.statistics.peakBins.reached)
        XCTAssertEqual(try group.openGroup("contacts").readStrings("class"), analysis.contacts.map { $0.pressClass!.rawValue })
        try file.close()
    }
}
