import Foundation
import XCTest
@testable import ForceTrace

final class DecoderTests: XCTestCase {
    func testProtocolBDownMovePressureAndUp() {
        var script = EventScript()
        script.abs(AbsoluteAxis.mtSlot, 0)
        script.abs(AbsoluteAxis.mtTrackingID, 45)
        script.abs(AbsoluteAxis.mtPositionX, 100)
        script.abs(AbsoluteAxis.mtPositionY, 200)
        script.abs(AbsoluteAxis.mtPressure, 30)
        script.report()                               // t=0: down
        script.abs(AbsoluteAxis.mtPressure, 31)
        script.report()                               // t=10ms: pressure only
        script.abs(AbsoluteAxis.mtPressure, 31)
        script.report()                               // t=20ms: a repeated value is no change
        script.abs(AbsoluteAxis.mtPositionX, 101)
        script.report()                               // t=30ms: moved
        script.abs(AbsoluteAxis.mtPositionY, 190)
        script.abs(AbsoluteAxis.mtPressure, 40)
        script.report()                               // t=40ms: moved and pressure
        script.abs(AbsoluteAxis.mtPressure, 0)
        script.abs(AbsoluteAxis.mtTrackingID, -1)
        script.report()                               // t=50ms: up; no row for the ending frame
        let (output, decoder) = decode(script.events, device: slottedDevice())
        XCTAssertEqual(output.samples.map(\.tNs), [0, 10_000_000, 30_000_000, 40_000_000])
        XCTAssertEqual(output.samples.map(\.flags), [.down, .pressureChanged, .moved, [.moved, .pressureChanged]])
        XCTAssertEqual(output.samples.map(\.x), [100, 100, 101, 101])
        XCTAssertEqual(output.samples.map(\.y), [200, 200, 200, 190])
        XCTAssertEqual(output.samples.map(\.pressure), [30, 31, 31, 40])
        XCTAssertEqual(output.contacts, [Contact(id: 0, slot: 0, trackingID: 45, tool: Button.toolFinger, tDownNs: 0,
                                                 tUpNs: 50_000_000, firstSample: 0, lastSample: 3, sampleCount: 4)])
        XCTAssertEqual(decoder.frameCount, 6)
        XCTAssertEqual(decoder.anomalyCount, 0)
    }

    func testNewTouchInheritsSlotStateAndStillDownAtEnd() {
        var script = EventScript()
        script.abs(AbsoluteAxis.mtTrackingID, 1)
        script.abs(AbsoluteAxis.mtPositionX, 10)
        script.abs(AbsoluteAxis.mtPositionY, 20)
        script.abs(AbsoluteAxis.mtPressure, 50)
        script.report()
        script.abs(AbsoluteAxis.mtTrackingID, -1)
        script.report()
        // The kernel sends only changes: the second touch keeps x, y and pressure.
        script.abs(AbsoluteAxis.mtTrackingID, 2)
        script.abs(AbsoluteAxis.mtPositionX, 11)
        script.report()
        let (output, _) = decode(script.events, device: slottedDevice())
        XCTAssertEqual(output.contacts.count, 2)
        XCTAssertEqual(output.samples.last, Sample(tNs: 20_000_000, contact: 1, slot: 0, x: 11, y: 20, pressure: 50, flags: .down))
        XCTAssertEqual(output.contacts[1].tUpNs, -1, "still down at the end")
        XCTAssertEqual(output.contacts[0].tUpNs, 10_000_000)
    }

    func testTwoContactsInterleavedInSlots() {
        var script = EventScript()
        script.abs(AbsoluteAxis.mtSlot, 0)
        script.abs(AbsoluteAxis.mtTrackingID, 7)
        script.abs(AbsoluteAxis.mtPressure, 10)
        script.report()                               // 0: contact 0 down
        script.abs(AbsoluteAxis.mtSlot, 1)
        script.abs(AbsoluteAxis.mtTrackingID, 8)
        script.abs(AbsoluteAxis.mtPositionX, 500)
        script.abs(AbsoluteAxis.mtPressure, 20)
        script.report()                               // 10: contact 1 down
        script.abs(AbsoluteAxis.mtSlot, 0)
        script.abs(AbsoluteAxis.mtPressure, 11)
        script.abs(AbsoluteAxis.mtSlot, 1)
        script.abs(AbsoluteAxis.mtPressure, 21)
        script.report()                               // 20: both change
        script.abs(AbsoluteAxis.mtTrackingID, -1)     // slot 1 is current
        script.report()                               // 30: contact 1 up
        script.abs(AbsoluteAxis.mtSlot, 0)
        script.abs(AbsoluteAxis.mtPressure, 12)
        script.report()                               // 40
        script.abs(AbsoluteAxis.mtTrackingID, -1)
        script.report()                               // 50: contact 0 up
        let (output, _) = decode(script.events, device: slottedDevice())
        XCTAssertEqual(output.samples.map(\.contact), [0, 1, 0, 1, 0])
        XCTAssertEqual(output.samples.map(\.slot), [0, 1, 0, 1, 0])
        XCTAssertEqual(output.samples.map(\.pressure), [10, 20, 11, 21, 12])
        // Contacts come out in id order even though contact 1 ended first.
        XCTAssertEqual(output.contacts.map(\.id), [0, 1])
        XCTAssertEqual(output.contacts.map(\.firstSample), [0, 1])
        XCTAssertEqual(output.contacts.map(\.lastSample), [4, 3])
        XCTAssertEqual(output.contacts.map(\.sampleCount), [3, 2])
        XCTAssertEqual(output.contacts.map(\.tUpNs), [50_000_000, 30_000_000])
    }

    func testTrackingIDReplacedWithoutMinusOneEndsTheOldContact() {
        var script = EventScript()
        script.abs(AbsoluteAxis.mtTrackingID, 1)
        script.report()
        script.abs(AbsoluteAxis.mtTrackingID, 2)
        script.report()
        let (output, decoder) = decode(script.events, device: slottedDevice())
        XCTAssertEqual(output.contacts.map(\.trackingID), [1, 2])
        XCTAssertEqual(output.contacts[0].tUpNs, 10_000_000)
        XCTAssertEqual(output.contacts[1].tDownNs, 10_000_000)
        XCTAssertEqual(decoder.anomalyCount, 1)
        XCTAssertTrue(decoder.anomalies[0].message.contains("replaced"), decoder.anomalies[0].message)
    }

    func testSlotBeyondDeclaredSlotsIsKeptButNotDecoded() {
        var script = EventScript()
        script.abs(AbsoluteAxis.mtSlot, 5)
        script.abs(AbsoluteAxis.mtTrackingID, 9)
        script.report()
        script.abs(AbsoluteAxis.mtSlot, 1)
        script.abs(AbsoluteAxis.mtTrackingID, 10)
        script.report()
        let (output, decoder) = decode(script.events, device: slottedDevice(slots: 2))
        XCTAssertEqual(output.contacts.map(\.trackingID), [10])
        XCTAssertEqual(decoder.anomalyCount, 1)
        XCTAssertTrue(decoder.anomalies[0].message.contains("ABS_MT_SLOT 5"), decoder.anomalies[0].message)
    }

    func testProtocolBWithoutMTPressureLeavesPressureToEmulation() {
        var script = EventScript()
        script.abs(AbsoluteAxis.mtTrackingID, 3)
        script.abs(AbsoluteAxis.mtPositionX, 1)
        script.abs(AbsoluteAxis.pressure, 99)
        script.report()
        script.abs(AbsoluteAxis.pressure, 98)        // pointer emulation only: not this contact's
        script.report()
        let (output, _) = decode(script.events, device: slottedDevice(pressure: false))
        XCTAssertEqual(output.samples.count, 1)
        XCTAssertEqual(output.samples[0].pressure, -1)
    }

    func testSingleTouchPenFollowsBTNTouchAndTool() {
        var device = DeviceDescription(name: "pen")
        device.setAxis(AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: 1000))
        device.setAxis(AxisInfo(code: AbsoluteAxis.y, minimum: 0, maximum: 1000))
        device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 4095))
        device.codes[EventType.key] = [Button.toolPen, Button.toolRubber, Button.touch]
        var script = EventScript()
        script.key(Button.toolPen, 1)
        script.abs(AbsoluteAxis.x, 5)
        script.report()                                // hovering: no contact
        script.key(Button.touch, 1)
        script.abs(AbsoluteAxis.pressure, 100)
        script.report()                                // tip down
        script.abs(AbsoluteAxis.pressure, 300)
        script.report()
        script.key(Button.touch, 0)
        script.abs(AbsoluteAxis.pressure, 0)
        script.report()                                // tip up
        script.key(Button.toolRubber, 1)
        script.key(Button.touch, 1)
        script.abs(AbsoluteAxis.pressure, 50)
        script.report()
        let (output, _) = decode(script.events, device: device)
        XCTAssertEqual(output.contacts.map(\.tool), [Button.toolPen, Button.toolRubber])
        XCTAssertEqual(output.contacts.map(\.slot), [-1, -1])
        XCTAssertEqual(output.contacts.map(\.tDownNs), [10_000_000, 40_000_000])
        XCTAssertEqual(output.contacts.map(\.tUpNs), [30_000_000, -1])
        XCTAssertEqual(output.samples.map(\.pressure), [100, 300, 50])
    }

    func testSynDroppedDiscardsUntilNextReportAndMarks() {
        var script = EventScript()
        script.abs(AbsoluteAxis.mtTrackingID, 1)
        script.abs(AbsoluteAxis.mtPressure, 10)
        script.report()
        script.dropped()
        script.abs(AbsoluteAxis.mtPressure, 99)      // void: between SYN_DROPPED and SYN_REPORT
        script.report()
        script.abs(AbsoluteAxis.mtPressure, 20)
        script.report()
        let (output, _) = decode(script.events, device: slottedDevice())
        XCTAssertEqual(output.markers.map(\.kind), [.synDropped])
        XCTAssertEqual(output.markers[0].eventIndex, 3)
        XCTAssertEqual(output.samples.map(\.pressure), [10, 20])
        XCTAssertTrue(output.samples[1].flags.contains(.afterDrop))

        // A live stream's events after SYN_DROPPED are libevdev's resync deltas.
        let (live, _) = decode(script.events, device: slottedDevice(), policy: .applyFollowingEvents)
        XCTAssertEqual(live.samples.map(\.pressure), [10, 99, 20])
    }

    func testChunkedDrainingGivesTheSameRowsAsOneDrain() throws {
        let simulation = Simulator.run({ var options = SimulationOptions(); options.presses = 10; return options }())
        let events = simulation.recording.events
        let (whole, _) = decode(events, device: simulation.recording.device)
        // Both ways of draining: taking the arrays, and reading them in place
        // (the storage kept for the next frame must not leak rows into it).
        for inPlace in [false, true] {
            var decoder = TraceDecoder(device: simulation.recording.device)
            var samples: [Sample] = [], contacts: [Contact] = []
            func drain() {
                if inPlace {
                    decoder.drainOutput { part in samples += part.samples; contacts += part.contacts }
                } else {
                    let part = decoder.takeOutput()
                    samples += part.samples
                    contacts += part.contacts
                }
            }
            for (index, event) in events.enumerated() {
                decoder.feed(event, index: Int64(index))
                if index % 97 == 0 { drain() }
            }
            decoder.finish()
            drain()
            XCTAssertEqual(samples, whole.samples, "in place: \(inPlace)")
            XCTAssertEqual(contacts, whole.contacts, "in place: \(inPlace)")
        }
        XCTAssertEqual(whole.contacts.count, simulation.presses.count)
    }

    /// With ABS_MT_TOOL_TYPE declared, a slot's tool is its tool type:
    /// MT_TOOL_FINGER (0) a finger, MT_TOOL_PEN (1) a pen, MT_TOOL_PALM (2)
    /// neither (0). Without the axis every slot is a finger.
    func testToolTypeNamesTheContactsTool() {
        func tool(_ type: Int32, declared: Bool) -> UInt16? {
            var device = slottedDevice()
            if declared { device.setAxis(AxisInfo(code: AbsoluteAxis.mtToolType, minimum: 0, maximum: 2)) }
            var script = EventScript()
            script.abs(AbsoluteAxis.mtSlot, 0)
            script.abs(AbsoluteAxis.mtTrackingID, 7)
            script.abs(AbsoluteAxis.mtToolType, type)
            script.abs(AbsoluteAxis.mtPositionX, 100)
            script.abs(AbsoluteAxis.mtPositionY, 100)
            script.abs(AbsoluteAxis.mtPressure, 30)
            script.report()
            script.abs(AbsoluteAxis.mtTrackingID, -1)
            script.report()
            return decode(script.events, device: device).0.contacts.first?.tool
        }
        XCTAssertEqual(tool(0, declared: true), Button.toolFinger)
        XCTAssertEqual(tool(1, declared: true), Button.toolPen)
        XCTAssertEqual(tool(2, declared: true), 0)
        XCTAssertEqual(tool(1, declared: false), Button.toolFinger)
    }
}
