import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// `calibrate --protocol force` after the session: the lag estimated from
/// the file and stored in its force table, and the suggestion's text and
/// JSON, on a scripted session written as the recorder writes one.
final class ForceCalibrationTests: XCTestCase {
    /// The scripted session as a trace file with its force table (no lag stored yet).
    private func sessionFile(_ script: ForceScript) throws -> String {
        let path = try makeTemporaryDirectory(self).appendingPathComponent("force.h5").path
        let (recording, readings) = script.run()
        let writer = try TraceWriter(creating: path)
        try writer.write(recording, name: "force")
        try writer.close()
        let file = try File.open(path, mode: .readWrite)
        let relative = readings.map { reading -> ScaleReading in
            var copy = reading
            copy.timeNs -= recording.t0Ns
            return copy
        }
        try file.root.openGroup(TraceSchema.recordingsGroup).openGroup("force")
            .writeForceTable(ForceTable(kind: .serial, device: "/dev/ttyS0", name: "serial 9600 baud", unit: "g", readings: relative))
        try file.close()
        return path
    }

    func testTheLagIsEstimatedStoredAndThenUsed() throws {
        let path = try sessionFile(ForceScript())
        let analysis = try XCTUnwrap(try ForceCalibration.analyzeAndStoreLag(file: path, recording: "force"))
        let lag = try XCTUnwrap(analysis.lag)
        XCTAssertEqual(Double(lag.lagNs) / 1e6, 150, accuracy: 5)
        let reader = try TraceReader(path: path)
        let stored = try XCTUnwrap(try reader.recording("force").force())
        XCTAssertEqual(stored.lagNs, lag.lagNs)
        XCTAssertEqual(stored.lagUncertaintyNs, lag.uncertaintyNs)
        // suggest's reading: the stored lag, not a new estimate, and the same figures.
        let again = try XCTUnwrap(try ForceAnalysis.analyze(reader.recording("force")))
        XCTAssertNil(again.lag)
        XCTAssertEqual(again.lagNs, lag.lagNs)
        XCTAssertEqual(again.lagUncertaintyNs, lag.uncertaintyNs, "suggest reports the stored uncertainty")
        XCTAssertEqual(again.activation, analysis.activation)
        XCTAssertEqual(again.curve, analysis.curve)
    }

    func testTheSuggestionShowsTheForceFigures() throws {
        let path = try sessionFile(ForceScript())
        let analysis = try XCTUnwrap(try ForceCalibration.analyzeAndStoreLag(file: path, recording: "force"))
        let script = ForceScript()
        let suggestion = CalibrationSuggestion(protocol: .force, trials: [], device: script.device,
                                               axis: script.device.contactPressureAxis!, file: path, recording: "force", force: analysis)
        XCTAssertEqual(suggestion.calibrationProtocol, .force)
        let text = suggestion.text.rendered
        XCTAssertTrue(text.contains("scale lag"), text)
        XCTAssertTrue(text.contains("initial activation"), text)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(suggestion.json.utf8)) as? [String: Any])
        let force = try XCTUnwrap(json["force"] as? [String: Any])
        let lag = try XCTUnwrap(force["lag"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(lag["ms"] as? Double), 150, accuracy: 5)
        XCTAssertEqual((force["curve"] as? [Any])?.count, 5)
        XCTAssertEqual(try XCTUnwrap((force["activation"] as? [String: Any])?["gf"] as? Double), 8, accuracy: 5)
        XCTAssertNotNil(force["saturation_gf"] as? Double)
        guard case .failure(let error) = suggestion.quirks() else { return XCTFail("a force calibration made a quirk") }
        XCTAssertTrue(error.message.contains("no libinput quirk"), error.message)
        // Without a force table: a note that says how to get one, and null figures.
        let bare = CalibrationSuggestion(protocol: .force, trials: [], device: script.device,
                                         axis: script.device.contactPressureAxis!, file: path, recording: "force")
        XCTAssertTrue(bare.notes.contains { $0.contains("--scale") }, "\(bare.notes)")
        XCTAssertTrue(bare.json.contains("\"force\": null"), bare.json)
    }
}
