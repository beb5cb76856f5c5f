import Foundation
import XCTest
@testable import ForceTrace

/// Browser captures (docs/FORMAT.md, "Browser captures"): each kind of input
/// becomes its described device, values scaled as documented, the trials
/// become the labels table `calibrate` writes, and damaged captures fail
/// naming the file and the JSON path.
final class BrowserCaptureTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try FormatTestSupport.temporaryDirectory(self)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A capture as the page writes it, built from the format's members.
    struct Capture {
        var top: [String: Any] = [
            "format": "forcetrace-browser-capture", "version": 1, "userAgent": "TestBrowser/1.0",
            "screen": ["width": 400, "height": 800, "devicePixelRatio": 2], "timeOrigin": 1_764_400_000_000.25,
            "protocol": "app",
        ]
        var touch: [[String: Any]] = []
        var pointer: [[String: Any]] = []
        var mouseForce: [[String: Any]] = []
        var trials: [[String: Any]] = []
        var t = 1000.0
        var nextID = 1

        /// A touch press rising to `peak` and back over `frames` frames 8 ms apart.
        @discardableResult
        mutating func press(_ trialClass: String, peak: Double, frames: Int = 40) -> Int {
            let id = nextID
            nextID += 1
            for step in 0...frames {
                let fraction = Double(step) / Double(frames)
                let force = step == frames / 2 ? peak : peak * min(1, 2 * min(fraction, 1 - fraction))
                let type = step == 0 ? "start" : step == frames ? "end" : "move"
                touch.append(["t": t + Double(step) * 8, "type": type, "id": id, "x": 100.0 + Double(step), "y": 200.25,
                              "force": step == frames ? 0 : force, "radiusX": 10, "radiusY": 6, "touchType": "direct"])
            }
            trials.append(["class": trialClass, "input": "touch", "id": id, "start": t, "end": t + Double(frames) * 8])
            t += Double(frames) * 8 + 500
            return id
        }

        func json() throws -> Data {
            var object = top
            if !touch.isEmpty { object["touch"] = touch }
            if !pointer.isEmpty { object["pointer"] = pointer }
            if !mouseForce.isEmpty { object["mouseForce"] = mouseForce }
            if !trials.isEmpty { object["trials"] = trials }
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
    }

    private func importCapture(_ capture: Capture, _ name: String = "capture.json") throws -> String {
        let input = path(name)
        try capture.json().write(to: URL(fileURLWithPath: input))
        let output = path(name + ".h5")
        let run = try FormatTestSupport.run(["import", input, "-o", output])
        XCTAssertEqual(run.status, 0, run.stderr)
        return output
    }

    private func decode(_ capture: Capture) throws -> [ParsedRecording] {
        try BrowserCaptureCodec().decode([UInt8](try capture.json()), file: "capture.json")
    }

    private func assertFails(_ capture: Capture, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertThrowsError(try decode(capture), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(expected), "\(error)", file: file, line: line)
        }
    }

    func testAppSessionImportsAsTheLabelsCalibrateWritesAndSuggestRecoversThem() throws {
        var capture = Capture()
        for _ in 0..<5 {
            capture.press("tap", peak: 0.1)
            capture.press("peek-press", peak: 0.4)
            capture.press("pop-press", peak: 0.8)
        }
        let trace = try importCapture(capture)
        let reader = try TraceReader(path: trace)
        let recording = try reader.recording(XCTUnwrap(reader.recordingNames.first))
        XCTAssertEqual(reader.recordingNames, ["capture-touch"])
        XCTAssertEqual(recording.device.contactPressureAxis?.maximum, 65535)
        XCTAssertEqual(try recording.calibrationProtocol(), .app)
        XCTAssertEqual(try recording.read(TraceSchema.Labels.kind), Array(repeating: "calibration", count: 15))
        XCTAssertEqual(try recording.read(TraceSchema.Labels.contact), (0..<15).map(Int32.init))
        // 0.4 of 65535 is 26214; 0.8 is 52428.
        XCTAssertEqual(try recording.read(TraceSchema.Labels.peak).prefix(3), [6554, 26214, 52428])
        let ends = try recording.read(TraceSchema.Labels.tEndNs), starts = try recording.read(TraceSchema.Labels.tNs)
        XCTAssertEqual(ends[0] - starts[0], 320_000_000, "40 frames of 8 ms")
        let trials = try recording.labelledTrials(for: .app)
        let suggestion = CalibrationSuggestion(protocol: .app, trials: trials, device: recording.device,
                                               axis: try XCTUnwrap(recording.device.contactPressureAxis), file: trace, recording: recording.name)
        let app = try XCTUnwrap(suggestion.app)
        XCTAssertGreaterThan(app.peekRaw, 6554)
        XCTAssertLessThanOrEqual(app.peekRaw, 26214)
        XCTAssertGreaterThan(app.popRaw, 26214)
        XCTAssertLessThanOrEqual(app.popRaw, 52428)
        let run = try FormatTestSupport.run(["suggest", trace])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("trials: 5 tap, 5 peek-press, 5 pop-press"), run.stdout)
    }

    func testTouchValuesAreScaledAsDocumented() throws {
        var capture = Capture()
        capture.press("tap", peak: 0.5, frames: 2)
        let recording = try XCTUnwrap(try decode(capture).first?.recording)
        let device = recording.device
        XCTAssertEqual(device.name, "forcetrace browser touch: TestBrowser/1.0")
        XCTAssertEqual(device.properties, [InputProperty.direct])
        // 400 x 800 CSS px at 2 device px each; 2 * 96 / 25.4 = 7.56 units per mm.
        XCTAssertEqual(device.axis(AbsoluteAxis.mtPositionX), AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: 799, resolution: 8))
        XCTAssertEqual(device.axis(AbsoluteAxis.mtPositionY)?.maximum, 1599)
        XCTAssertEqual(device.slotCount, 10)
        let values = Dictionary(recording.events.prefix { !$0.isSynReport }.map { ($0.code, $0.value) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(values[AbsoluteAxis.mtPressure], 0, "the first frame's force is 0")
        XCTAssertEqual(values[AbsoluteAxis.mtPositionX], 200, "100 CSS px at ratio 2")
        XCTAssertEqual(values[AbsoluteAxis.mtPositionY], 401, "200.25 CSS px at ratio 2, rounded")
        XCTAssertEqual(values[0x30], 40, "major: the larger radius 10 as a diameter, in device px")
        XCTAssertEqual(values[0x31], 24)
        // force 0.5 at the middle frame: 32767.5 rounds to 32768.
        XCTAssertTrue(recording.events.contains { $0.code == AbsoluteAxis.mtPressure && $0.value == 32768 })
        // Times: timeOrigin 1764400000000.25 ms plus t = 1000 ms, to the nanosecond.
        XCTAssertEqual(recording.events.first?.timeNs, 1_764_400_001_000_250_000)
        XCTAssertEqual(recording.events.last?.timeNs, 1_764_400_001_016_250_000)
    }

    func testPenBecomesAToolWithPressureAndTilt() throws {
        var capture = Capture()
        capture.top["protocol"] = "pen"
        let samples: [(String, Double, Double, Int)] = [("move", 0, 0, 0), ("down", 0.25, 30, 1), ("move", 0.75, -45.4, 1), ("up", 0, 0, 0), ("leave", 0, 0, 0)]
        for (index, (type, pressure, tilt, buttons)) in samples.enumerated() {
            capture.pointer.append(["t": 2000.0 + Double(index) * 10, "type": type, "pointerType": "pen", "id": 7, "x": 10, "y": 20,
                                    "pressure": pressure, "tiltX": tilt, "tiltY": -tilt, "buttons": buttons])
        }
        capture.pointer.append(["t": 2100.0, "type": "move", "pointerType": "pen", "id": 7, "x": 10, "y": 20, "pressure": 0,
                                "altitudeAngle": Double.pi / 4, "azimuthAngle": 0, "buttons": 0])
        capture.trials = [["class": "stroke-light", "input": "pen", "id": 7, "start": 2010.0, "end": 2030.0],
                          ["class": "hover", "input": "pen", "start": 2100.0, "end": 2100.0]]
        let recording = try XCTUnwrap(try decode(capture).first?.recording)
        XCTAssertEqual(recording.name, "capture-pen")
        XCTAssertTrue(recording.device.has(type: EventType.key, code: Button.toolPen))
        XCTAssertEqual(recording.device.axis(0x1a), AxisInfo(code: 0x1a, minimum: -90, maximum: 90, resolution: 57))
        XCTAssertEqual(recording.device.contactProtocol, .singleTouch)
        let abs = recording.events.filter { $0.type == EventType.abs }
        XCTAssertEqual(abs.filter { $0.code == AbsoluteAxis.pressure }.map(\.value), [16384, 49151, 0])
        XCTAssertEqual(abs.filter { $0.code == 0x1a }.map(\.value), [30, -45, 0, 45], "altitude 45°, azimuth 0: tiltX 45°")
        XCTAssertEqual(recording.events.filter { $0.code == Button.toolPen }.map(\.value), [1, 0, 1, 0])
        XCTAssertEqual(recording.events.filter { $0.code == Button.touch }.map(\.value), [1, 0])
        let session = try XCTUnwrap(recording.groundTruth.session)
        XCTAssertEqual(session.calibrationProtocol, .pen)
        XCTAssertEqual(session.trials.map(\.trialClass), [.strokeLight, .hover])
        XCTAssertEqual(session.trials.map(\.peak), [49151, 0])
        XCTAssertEqual(session.trials.map(\.slot), [-1, -1])
    }

    func testConstantHalfPressureMeansNoPressureAxis() throws {
        var capture = Capture()
        for (index, type) in ["down", "move", "up"].enumerated() {
            capture.pointer.append(["t": 10.0 + Double(index), "type": type, "pointerType": "touch", "id": 2, "x": 1, "y": 1,
                                    "pressure": type == "up" ? 0 : 0.5, "buttons": type == "up" ? 0 : 1])
        }
        XCTAssertNil(try decode(capture).first?.recording.device.contactPressureAxis)
        capture.pointer[1]["pressure"] = 0.5001
        XCTAssertEqual(try decode(capture).first?.recording.device.contactPressureAxis?.maximum, 65535)
    }

    func testTouchForceZeroThroughoutMeansNoPressureAxis() throws {
        var capture = Capture()
        capture.press("tap", peak: 0, frames: 4)
        XCTAssertNil(try decode(capture).first?.recording.device.contactPressureAxis, "an iPhone without 3D Touch")
        capture.touch[2]["force"] = 0.0001
        XCTAssertEqual(try decode(capture).first?.recording.device.contactPressureAxis?.maximum, 65535)
    }

    func testWebkitForceBecomesAForceTouchpad() throws {
        var capture = Capture()
        let events: [(String, Double)] = [("willbegin", 0.5), ("mousedown", 1), ("down", 2), ("changed", 3), ("mouseup", 0.2), ("changed", 0.1)]
        for (index, (type, force)) in events.enumerated() {
            capture.mouseForce.append(["t": 50.0 + Double(index) * 10, "type": type, "x": 5, "y": 5, "force": force])
        }
        capture.trials = [["class": "pop-press", "input": "mouse", "id": 0, "start": 60.0, "end": 90.0]]
        let recording = try XCTUnwrap(try decode(capture).first?.recording)
        XCTAssertEqual(recording.name, "capture-mouse")
        XCTAssertEqual(recording.device.properties, [InputProperty.pointer, InputProperty.buttonpad])
        XCTAssertTrue(recording.device.has(type: EventType.key, code: 0x110))
        XCTAssertEqual(recording.device.slotCount, 1)
        // webkitForce / 3 of 65535: 1 (at mouse down) 21845, 2 (force click) 43690, 3 is the top.
        XCTAssertEqual(recording.events.filter { $0.code == AbsoluteAxis.mtPressure }.map(\.value), [21845, 43690, 65535])
        XCTAssertEqual(recording.events.filter { $0.code == 0x110 }.map(\.value), [1, 0])
        XCTAssertEqual(recording.groundTruth.session?.trials.first?.peak, 65535)
    }

    /// A touch capture's device, whole: every axis from 0, and no mouse button.
    func testATouchCapturesDeviceIsTheDocumentedOne() throws {
        var capture = Capture()
        capture.press("tap", peak: 0.5, frames: 2)
        let device = try XCTUnwrap(try decode(capture).first?.recording.device)
        XCTAssertFalse(device.has(type: EventType.key, code: 0x110), "BTN_LEFT is a mouse's")
        XCTAssertTrue(device.has(type: EventType.key, code: Button.toolFinger))
        let expected: [UInt16: (Int32, Int32)] = [
            AbsoluteAxis.x: (0, 799), AbsoluteAxis.y: (0, 1599), AbsoluteAxis.pressure: (0, 65535), AbsoluteAxis.mtSlot: (0, 9),
            AbsoluteAxis.mtPositionX: (0, 799), AbsoluteAxis.mtPositionY: (0, 1599), AbsoluteAxis.mtTrackingID: (0, 65535),
            AbsoluteAxis.mtPressure: (0, 65535),
        ]
        for (code, range) in expected {
            let axis = try XCTUnwrap(device.axis(code), "axis \(code)")
            XCTAssertEqual([axis.minimum, axis.maximum], [range.0, range.1], "axis \(code)")
        }
    }

    /// Each bound at its edge: radii below 10^6 CSS px, times from -10^9 to 10^11 ms.
    func testRadiiAndTimesAtTheirBounds() throws {
        var capture = Capture()
        capture.press("tap", peak: 0.5, frames: 2)
        var edge = capture
        edge.touch[1]["radiusX"] = 999_999.0
        XCTAssertNoThrow(try decode(edge))
        edge.touch[1]["radiusX"] = 1_000_000.0
        try assertFails(edge, "$.touch[1].radiusX: radii must be 0 or more CSS pixels")
        edge = capture
        edge.touch[1]["radiusY"] = 999_999.0
        XCTAssertNoThrow(try decode(edge))
        edge.touch[1]["radiusY"] = 1_000_000.0
        try assertFails(edge, "$.touch[1].radiusX: radii must be 0 or more CSS pixels")
        for (t, accepted) in [(-1e9, true), (-1e9 - 1, false), (1e11, true), (1e11 + 1, false)] {
            var timed = Capture()
            timed.touch = [["t": t, "type": "start", "id": 1, "x": 1, "y": 1, "force": 0.1],
                           ["t": t, "type": "end", "id": 1, "x": 1, "y": 1, "force": 0]]
            if accepted {
                XCTAssertNoThrow(try decode(timed), "t \(t)")
            } else {
                try assertFails(timed, "$.touch[0].t: is ")
            }
        }
    }

    /// A capture is read whole, up to 64 MiB: one byte more is refused by its size.
    func testACaptureOfSixtyFourMiBIsReadAndOneByteMoreIsNot() throws {
        var capture = Capture()
        capture.press("tap", peak: 0.5, frames: 2)
        var bytes = [UInt8](try capture.json())
        bytes += [UInt8](repeating: UInt8(ascii: " "), count: (64 << 20) - bytes.count)
        XCTAssertEqual(bytes.count, 64 << 20)
        XCTAssertEqual(try BrowserCaptureCodec().decode(bytes, file: "capture.json").count, 1)
        bytes.append(UInt8(ascii: " "))
        XCTAssertThrowsError(try BrowserCaptureCodec().decode(bytes, file: "capture.json")) {
            XCTAssertTrue("\($0)".contains("is larger than 64 MiB"), "\($0)")
        }
    }

    func testEveryKindOfInputBecomesItsOwnRecording() throws {
        var capture = Capture()
        capture.press("tap", peak: 0.2, frames: 2)
        capture.pointer.append(["t": 10.0, "type": "down", "pointerType": "pen", "id": 3, "x": 1, "y": 1, "pressure": 0.3, "buttons": 1])
        capture.pointer.append(["t": 11.0, "type": "down", "pointerType": "touch", "id": 4, "x": 1, "y": 1, "pressure": 0.3, "buttons": 1])
        let parsed = try decode(capture)
        XCTAssertEqual(parsed.map(\.recording.name), ["capture-touch", "capture-pen"], "touch pointer events repeat the touch events")
    }

    func testDamagedCapturesNameTheFileAndThePath() throws {
        var capture = Capture()
        capture.press("tap", peak: 0.2, frames: 2)
        var bad = capture
        bad.touch[1]["force"] = 1.5
        try assertFails(bad, "capture.json: $.touch[1].force: is 1.5; expected 0 to 1")
        bad = capture
        bad.touch[1]["force"] = "high"
        try assertFails(bad, "$.touch[1].force: expected a number, found a string")
        bad = capture
        bad.top["version"] = 2
        try assertFails(bad, "$.version: is 2.0; this forcetrace reads version 1")
        bad = capture
        bad.top["format"] = "something\u{1b}else"
        try assertFails(bad, "$.format: is 'something\\x1belse'")
        bad = capture
        bad.trials[0]["start"] = 1101.0
        bad.trials[0]["end"] = 1200.0
        try assertFails(bad, "$.trials[0]: no touch contact with id 1 went down within 100 ms of its start")
        bad.trials[0]["start"] = 1100.0
        XCTAssertNoThrow(try decode(bad), "100 ms away is still the trial's contact")
        bad = capture
        bad.trials[0]["class"] = "stroke-light"
        try assertFails(bad, "$.trials[0].class: is 'stroke-light'; expected tap, peek-press, pop-press")
        bad = capture
        bad.top["screen"] = ["width": 400, "height": 800, "devicePixelRatio": 0]
        try assertFails(bad, "$.screen.devicePixelRatio: is 0.0")
        bad = capture
        bad.touch = []
        bad.trials = []
        try assertFails(bad, "capture.json: holds no touch, pen or force-touch samples")
        var crowd = Capture()
        for id in 0..<11 { crowd.touch.append(["t": 1.0, "type": "start", "id": id, "x": 1, "y": 1, "force": 0.1]) }
        try assertFails(crowd, "more than 10 touch contacts at once")
        crowd.touch.removeLast()
        XCTAssertNoThrow(try decode(crowd), "10 at once fit the slots")
    }

    func testDetectedFromContentAndNotMistakenForLibinputJSON() throws {
        var capture = Capture()
        capture.press("tap", peak: 0.2, frames: 2)
        let pretty = try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: capture.json()), options: [.prettyPrinted])
        XCTAssertEqual(try RecordingImporter.detect([UInt8](pretty), file: "pretty.json"), .browserCapture)
        XCTAssertEqual(try RecordingImporter.detect([UInt8](try capture.json()), file: "one-line.json"), .browserCapture)
        let libinputJSON = #"{"version": 1, "ndevices": 1, "devices": [{"name": "forcetrace-browser-capture"}]}"#
        XCTAssertEqual(try RecordingImporter.detect(Array(libinputJSON.utf8), file: "record.json"), .libinput)
    }

    /// import -> export --format evemu -> import keeps every event, and so every sample.
    func testEvemuRoundTripKeepsTheSamples() throws {
        var capture = Capture()
        capture.press("tap", peak: 0.1)
        capture.press("peek-press", peak: 0.45)
        let first = try importCapture(capture)
        let evemu = path("capture.evemu"), second = path("again.h5")
        XCTAssertEqual(try FormatTestSupport.run(["export", first, "--format", "evemu", "-o", evemu]).status, 0)
        let back = try FormatTestSupport.run(["import", evemu, "-o", second])
        XCTAssertEqual(back.status, 0, back.stderr)
        let a = try TraceReader(path: first), b = try TraceReader(path: second)
        let ra = try a.recording(a.recordingNames[0]), rb = try b.recording(b.recordingNames[0])
        XCTAssertEqual(try rb.loadRecording().events, try ra.loadRecording().events)
        XCTAssertEqual(try rb.loadRecording().device, try ra.loadRecording().device)
        typealias S = TraceSchema.Samples
        XCTAssertEqual(try rb.read(S.tNs), try ra.read(S.tNs))
        XCTAssertEqual(try rb.read(S.contact), try ra.read(S.contact))
        XCTAssertEqual(try rb.read(S.pressure), try ra.read(S.pressure))
        XCTAssertEqual(try ra.read(S.pressure).max(), 29491, "0.45 of 65535")
    }

    func testExportDoesNotOfferTheReadOnlyFormat() throws {
        XCTAssertFalse(RecordingCodecs.writable.map(\.format).contains(.browserCapture))
        XCTAssertTrue(RecordingCodecs.formats.contains(.browserCapture))
        let run = try FormatTestSupport.run(["export", "x.h5", "--format", "browser"])
        XCTAssertEqual(run.status, 2, run.stderr)
    }

    /// What the fuzz harness does, over damaged copies of the fixture: every
    /// cut and every flipped byte ends in an error or a recording that
    /// survives the evemu round trip, never a trap.
    func testDamagedCapturesEndInAnErrorNeverATrap() throws {
        let fixture = [UInt8](try Data(contentsOf: FormatTestSupport.packageRoot.appendingPathComponent("Tests/fixtures/browser-ios-app.json")))
        XCTAssertEqual(try BrowserCaptureCodec().decode(fixture, file: "fixture.json").count, 1)
        var random = SeededRandom(seed: 11)  // the same damage every run
        var cuts = Array(stride(from: 0, to: fixture.count, by: max(1, fixture.count / 150)))
        cuts += (0..<50).map { _ in Int.random(in: 0..<fixture.count, using: &random) }
        for cut in cuts { ParserFuzzing.browser(Array(fixture[..<cut])) }
        for _ in 0..<300 {
            var damaged = fixture
            damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            ParserFuzzing.browser(damaged)
        }
        ParserFuzzing.browser(Array(String(repeating: "[", count: 100_000).utf8))
    }
}
