import Foundation
import XCTest
@testable import ForceTrace

/// The import's stream check: what it warns about in a recording's events.
final class StreamCheckTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// A tracking id of 0 is a real one: 0 replaced by 1 without -1 between
    /// is noted like any other id, and so is 5 replaced by 0.
    func testTrackingIDZeroReplacedIsNoted() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let fixture = try String(contentsOfFile: BlackBox.fixture("tracking-id-replaced.evemu"), encoding: .utf8)
        // The fixture's first id is 5 ("0039 0005"), its replacement 6 ("0039 0006").
        for (first, second) in [(0, 1), (5, 0)] {
            let text = fixture.replacingOccurrences(of: "0039 0005", with: String(format: "0039 %04x", first))
                .replacingOccurrences(of: "0039 0006", with: String(format: "0039 %04x", second))
            let source = directory.appendingPathComponent("ids-\(first)-\(second).evemu")
            try text.write(to: source, atomically: true, encoding: .utf8)
            let (_, run) = try BlackBox.importTrace(source.path, into: directory)
            XCTAssertTrue(run.stderr.contains("tracking id \(second) replaced \(first) without -1"), run.stderr)
        }
    }

    /// An axis whose range is empty (min = max, as for axes a driver leaves
    /// unset) is not range-checked: its values draw no warning.
    func testAnAxisWithAnEmptyRangeIsNotChecked() throws {
        var builder = RecordingBuilder()
        builder.device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 0))
        builder.frame(0, [(AbsoluteAxis.pressure, 5)])
        XCTAssertFalse(StreamCheck.warnings(for: builder.recording).contains { $0.contains("outside its absinfo range") })
        builder.device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 1))
        XCTAssertTrue(StreamCheck.warnings(for: builder.recording).contains { $0.contains("outside its absinfo range 0..1") })
    }

    /// The highest absolute axis code, ABS_MAX (0x3f), gets its range
    /// checked like any other: with range 0..10, the value 10 is inside and
    /// 11 outside, so one value is out, seen 11..11, first event 2 (frame 0 is events 0-1).
    func testRangeOfTheLastAbsoluteAxisIsChecked() throws {
        var builder = RecordingBuilder()
        XCTAssertEqual(AbsoluteAxis.max, 0x3f)
        builder.device.setAxis(AxisInfo(code: AbsoluteAxis.max, minimum: 0, maximum: 10))
        builder.frame(0, [(AbsoluteAxis.max, 10)])
        builder.frame(10, [(AbsoluteAxis.max, 11)])
        let warnings = StreamCheck.warnings(for: builder.recording)
        XCTAssertEqual(warnings.filter { $0.contains("outside its absinfo range") }.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.contains { $0.hasPrefix("1 ") && $0.contains("values outside its absinfo range 0..10 (seen 11..11), first event 2 ") },
                      "\(warnings)")
    }

    /// The event types up to EV_MAX (0x1f) are looked up in the device's
    /// EV_SYN list; only above it is a type unknown by range. A device that
    /// declares type 0x1f with code 0: an event (0x1f, 0) gives no warning;
    /// (0x1e, 0), undeclared, is "of type ..., which the device does not
    /// declare"; (0x20, 0), past EV_MAX, is too.
    func testTheLastEventTypeIsLookedUpNotRefused() throws {
        func warnings(type: UInt16) -> [String] {
            var builder = RecordingBuilder()
            builder.device.codes[EventType.syn, default: []].append(0x1f)
            builder.device.codes[0x1f] = [0]
            builder.events.append(InputEvent(timeNs: 0, type: type, code: 0, value: 1))
            builder.frame(0, [(F.slot, 0)])
            return StreamCheck.warnings(for: builder.recording)
        }
        XCTAssertEqual(warnings(type: 0x1f), [])
        for type: UInt16 in [0x1e, 0x20] {
            let found = warnings(type: type)
            XCTAssertEqual(found.count, 1, "\(type): \(found)")
            XCTAssertTrue(found.first?.hasPrefix("1 events of type \(EventNames.type(type)), which the device does not declare") ?? false,
                          "\(type): \(found)")
        }
    }

    /// The stream check's table of declared codes holds codes 0...1023 of
    /// each type; code 1024 is looked up in the description instead. A
    /// device declaring EV_KEY codes 1023 and 1024 (and EV_REL with no
    /// codes): events (EV_KEY 1023) and (EV_KEY 1024) are declared, and
    /// (EV_REL 0), the cell just past EV_KEY's row, is not.
    func testTheCodeTableEndsAt1023() {
        var builder = RecordingBuilder()
        builder.device.codes[EventType.syn, default: []].append(EventType.rel)
        builder.device.codes[EventType.key] = [1023, 1024]
        builder.device.codes[EventType.rel] = []
        for (type, code) in [(EventType.key, 1023), (EventType.key, 1024), (EventType.rel, 0)] as [(UInt16, UInt16)] {
            builder.events.append(InputEvent(timeNs: 0, type: type, code: code, value: 1))
        }
        builder.frame(0, [(F.slot, 0)])
        let warnings = StreamCheck.warnings(for: builder.recording)
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.hasPrefix("1 REL_X events, a code the device does not declare") ?? false, "\(warnings)")
    }
}
