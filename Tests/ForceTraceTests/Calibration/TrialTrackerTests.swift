import Foundation
import XCTest
@testable import ForceTrace

/// Calibration's trial tracker: which contact a trial follows and how many fingers it saw.
final class TrialTrackerTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// Tracking id 0 is a real id: a trial that starts with slot 0 (id 0)
    /// and slot 1 (id 1) down is slot 0's, id 0, and its curve follows slot
    /// 0's pressure (30, 35), not slot 1's (60, 70) nor the largest.
    func testTrialStartingWithTrackingIDZeroIsThatSlots() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 0), (F.x, 100), (F.y, 100), (F.p, 30),
                          (F.slot, 1), (F.id, 1), (F.x, 500), (F.y, 500), (F.p, 60)])
        builder.frame(10, [(F.slot, 0), (F.p, 35), (F.slot, 1), (F.p, 70)])
        builder.frame(20, [(F.slot, 0), (F.id, -1), (F.slot, 1), (F.id, -1)])
        var tracker = TrialTracker(device: builder.device)
        let trials = builder.events.compactMap { tracker.feed($0) }
        XCTAssertEqual(trials.count, 1)
        let trial = try XCTUnwrap(trials.first)
        XCTAssertEqual(trial.slot, 0)
        XCTAssertEqual(trial.trackingID, 0)
        XCTAssertEqual(trial.curve.map(\.pressure), [30, 35])
        XCTAssertEqual(trial.peak, 70)
        XCTAssertEqual(trial.maxContacts, 2)
    }

    /// On a device without slots the finger count comes from BTN_TOOL_*: a
    /// three-finger trial counts 3 contacts, and the next trial, whose frame
    /// says BTN_TOOL_FINGER 1, counts 1 again (a kernel leaves the old tool
    /// bit to the frame that sets the new one, so FINGER 1 must reset it).
    func testOneFingerAfterThreeCountsOneOnASingleTouchDevice() throws {
        var device = DeviceDescription(name: "single-touch pad")
        device.axes = [AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: 1000), AxisInfo(code: AbsoluteAxis.y, minimum: 0, maximum: 1000),
                       AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 255)]
        XCTAssertEqual(device.contactProtocol, .singleTouch)
        func frame(_ ms: Int64, _ events: [(UInt16, UInt16, Int32)]) -> [InputEvent] {
            events.map { InputEvent(timeNs: ms * 1_000_000, type: $0.0, code: $0.1, value: $0.2) }
                + [InputEvent(timeNs: ms * 1_000_000, type: EventType.syn, code: Synchronization.report, value: 0)]
        }
        let abs = EventType.abs, key = EventType.key
        let events = frame(0, [(key, Button.touch, 1), (key, 0x14e, 1), (abs, AbsoluteAxis.pressure, 40)])
            + frame(10, [(abs, AbsoluteAxis.pressure, 50)])
            + frame(20, [(key, Button.touch, 0), (abs, AbsoluteAxis.pressure, 0)])
            + frame(500, [(key, Button.touch, 1), (key, 0x14e, 0), (key, Button.toolFinger, 1), (abs, AbsoluteAxis.pressure, 30)])
            + frame(510, [(abs, AbsoluteAxis.pressure, 60)])
            + frame(520, [(key, Button.touch, 0), (key, Button.toolFinger, 0), (abs, AbsoluteAxis.pressure, 0)])
            // Two fingers (DOUBLETAP 1), then one again (DOUBLETAP 0 with FINGER 1).
            + frame(900, [(key, Button.touch, 1), (key, Button.toolDoubleTap, 1), (abs, AbsoluteAxis.pressure, 45)])
            + frame(920, [(key, Button.touch, 0), (key, Button.toolDoubleTap, 0), (abs, AbsoluteAxis.pressure, 0)])
            + frame(1300, [(key, Button.touch, 1), (key, Button.toolFinger, 1), (abs, AbsoluteAxis.pressure, 35)])
            + frame(1320, [(key, Button.touch, 0), (key, Button.toolFinger, 0), (abs, AbsoluteAxis.pressure, 0)])
        var tracker = TrialTracker(device: device)
        let trials = events.compactMap { tracker.feed($0) }
        XCTAssertEqual(trials.map(\.maxContacts), [3, 1, 2, 1])
        XCTAssertEqual(trials.map(\.peak), [50, 60, 45, 35])
    }

    /// Tracking ID 0 is a contact like any other (the kernel hands out ids
    /// from 0); -1 is the only "no contact". The live bar shows its pressure.
    func testTrackingIDZeroIsAContactDown() {
        var tracker = TrialTracker(device: RecordingBuilder().device)
        func frame(_ pairs: [(UInt16, Int32)]) {
            for (code, value) in pairs { _ = tracker.feed(InputEvent(timeNs: 0, type: EventType.abs, code: code, value: value)) }
            _ = tracker.feed(InputEvent(timeNs: 0, type: EventType.syn, code: Synchronization.report, value: 0))
        }
        XCTAssertNil(tracker.currentPressure)
        frame([(F.slot, 0), (F.id, 0), (F.x, 100), (F.y, 100), (F.p, 42)])
        XCTAssertEqual(tracker.contactsDown, 1)
        XCTAssertEqual(tracker.currentPressure, 42)
        frame([(F.id, -1)])
        XCTAssertEqual(tracker.contactsDown, 0)
        XCTAssertNil(tracker.currentPressure)
    }
}
