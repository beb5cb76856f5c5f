import Foundation
import XCTest
@testable import ForceTrace

/// The package root, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// ../shared/recordings beside the checkout; absent in a user's clone.
let sharedRecordings = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/recordings")

enum SharedRecording: String, CaseIterable {
    case cypress = "CyPS2 Cypress Trackpad.three_finger_press.events"
    case synaptics = "SynPS2 Synaptics TouchPad.leftmove.events"
    case bcm5974 = "bcm5974.three-finger-click.events"
    case pen = "dell_canvas_pen.evemu"

    /// The recording's path, or a skip when ../shared is not there.
    func path() throws -> String {
        let url = sharedRecordings.appendingPathComponent(rawValue)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw XCTSkip("\(url.path) is absent (../shared/recordings is only beside the project's own checkouts)")
        }
        return url.path
    }
}

/// A fresh temporary directory, removed by the test's teardown block.
func makeTemporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("forcetrace-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Builds event streams frame by frame for decoder tests.
struct EventScript {
    var events: [InputEvent] = []
    var time: Int64 = 0

    mutating func abs(_ code: UInt16, _ value: Int32) { events.append(InputEvent(timeNs: time, type: EventType.abs, code: code, value: value)) }
    mutating func key(_ code: UInt16, _ value: Int32) { events.append(InputEvent(timeNs: time, type: EventType.key, code: code, value: value)) }
    /// Ends the frame and advances the clock by 10 ms.
    mutating func report() {
        events.append(InputEvent(timeNs: time, type: EventType.syn, code: Synchronization.report, value: 0))
        time += 10_000_000
    }
    mutating func dropped() { events.append(InputEvent(timeNs: time, type: EventType.syn, code: Synchronization.dropped, value: 0)) }
}

/// A protocol-B device with `slots` slots and, optionally, ABS_MT_PRESSURE.
func slottedDevice(slots: Int32 = 2, pressure: Bool = true) -> DeviceDescription {
    var device = DeviceDescription(name: "test touchscreen")
    device.setAxis(AxisInfo(code: AbsoluteAxis.mtSlot, minimum: 0, maximum: slots - 1))
    device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: 1000, resolution: 10))
    device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionY, minimum: 0, maximum: 1000, resolution: 10))
    device.setAxis(AxisInfo(code: AbsoluteAxis.mtTrackingID, minimum: 0, maximum: 65535))
    if pressure { device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255)) }
    device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 255))
    return device
}

/// Decodes `events` fully and returns everything the decoder produced.
func decode(_ events: [InputEvent], device: DeviceDescription,
            policy: TraceDecoder.SynDroppedPolicy = .discardUntilReport) -> (TraceDecoder.Output, TraceDecoder) {
    var decoder = TraceDecoder(device: device, synDroppedPolicy: policy)
    for (index, event) in events.enumerated() { decoder.feed(event, index: Int64(index)) }
    decoder.finish()
    return (decoder.takeOutput(), decoder)
}

/// An evemu header of a pen tablet with x, y and pressure, for tests that
/// parse a few event lines after it.
let testPadEvemuHeader = """
# EVEMU 1.3
N: Test Pad
I: 0003 056a 4200 0110
P: 02 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
B: 03 03 00 00 01 00 00 00 00
A: 00 0 59674 4 0 100
A: 01 0 33566 4 0 100
A: 18 0 4095 0 0

"""
