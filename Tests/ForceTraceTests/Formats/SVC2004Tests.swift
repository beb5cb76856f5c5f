import Foundation
import XCTest
@testable import ForceTrace

/// SVC2004 signature text files as pen recordings.
final class SVC2004Tests: XCTestCase {
    static let task2 = BlackBox.fixture("svc2004-task2.txt")
    static let task1 = BlackBox.fixture("svc2004-task1.txt")

    private func read(_ text: String) throws -> [ParsedRecording] {
        try SVC2004Codec().decode(Array(text.utf8), file: "sig.txt")
    }

    private func assertRefused(_ text: String, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try read(text), file: file, line: line) { error in
            XCTAssertTrue("\(error)".hasPrefix(message), "\(error)", file: file, line: line)
        }
    }

    /// (ms from the first point, value) of each event of `code`.
    private func frames(_ recording: Recording, _ type: UInt16, _ code: UInt16) -> [[Int64]] {
        recording.events.filter { $0.type == type && $0.code == code }.map { [$0.timeNs / 1_000_000, Int64($0.value)] }
    }

    /// The Task 2 fixture worked out by hand: points every 10 ms from
    /// 3305172 ms; button 0,1,1,1,1,0,0,1,1,1,1,0, so BTN_TOUCH goes down at
    /// 10 and 70 ms and up at 50 and 110; the pen is in range from the first
    /// point to the last; each axis changes only where its column does; the
    /// ranges are those observed (X 1000..1190, Y 2000..2110, pressure
    /// 0..610); azimuth and altitude reach no axis.
    func testTaskTwoFixtureFollowsTheButtonStatus() throws {
        let recording = try RecordingImporter.read(Self.task2)[0].recording
        XCTAssertEqual(frames(recording, EventType.key, Button.touch), [[10, 1], [50, 0], [70, 1], [110, 0]])
        XCTAssertEqual(frames(recording, EventType.key, Button.toolPen), [[0, 1], [110, 0]])
        XCTAssertEqual(frames(recording, EventType.abs, AbsoluteAxis.pressure),
                       [[0, 0], [10, 120], [20, 340], [40, 200], [50, 0], [70, 150], [80, 600], [90, 610], [100, 300], [110, 0]])
        XCTAssertEqual(frames(recording, EventType.abs, AbsoluteAxis.y).map { $0[1] },
                       [2000, 2005, 2010, 2030, 2050, 2060, 2070, 2080, 2090, 2100, 2110])
        XCTAssertEqual(recording.events.filter(\.isSynReport).count, 13)
        XCTAssertEqual(Set(recording.events.filter { $0.type == EventType.abs }.map(\.code)), [AbsoluteAxis.x, AbsoluteAxis.y, AbsoluteAxis.pressure])
        let device = recording.device
        XCTAssertEqual(device.axis(AbsoluteAxis.x), AxisInfo(code: AbsoluteAxis.x, minimum: 1000, maximum: 1190))
        XCTAssertEqual(device.axis(AbsoluteAxis.y), AxisInfo(code: AbsoluteAxis.y, minimum: 2000, maximum: 2110))
        XCTAssertEqual(device.axis(AbsoluteAxis.pressure), AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 610))
        XCTAssertNil(device.axis(0x1a))
        XCTAssertTrue(device.isPen)
        XCTAssertEqual(recording.clock, .relative)
        XCTAssertEqual(recording.source.description, "svc2004:\(Self.task2)")
    }

    /// Task 1 files have no pressure column, so no pressure axis; a time
    /// stamp may repeat (points 3 and 4 share 20 ms); a pen still down at
    /// the last point is lifted with it.
    func testTaskOneFixtureHasNoPressure() throws {
        let recording = try RecordingImporter.read(Self.task1)[0].recording
        XCTAssertNil(recording.device.axis(AbsoluteAxis.pressure))
        XCTAssertEqual(frames(recording, EventType.key, Button.touch), [[0, 1], [20, 0], [40, 1], [50, 0]])
        XCTAssertEqual(frames(recording, EventType.abs, AbsoluteAxis.x), [[0, 1000], [10, 1010], [20, 1020], [20, 1030], [40, 1040], [50, 1050]])
    }

    /// Through the command line: two pen-down runs are two contacts with
    /// the pressure peaks 340 and 610; hover makes none.
    func testPenDownRunsAreContacts() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let (trace, _) = try BlackBox.importTrace(Self.task2, into: directory)
        let contacts = BlackBox.contacts(try BlackBox.report(trace))
        XCTAssertEqual(contacts.count, 2)
        XCTAssertEqual(BlackBox.column(contacts, "peak_pressure"), [340, 610])
    }

    /// The first line's count must match the point lines: one short is
    /// refused at line 1, saying where the points end; one over is refused
    /// at the extra line; exact is read.
    func testDeclaredCountMustMatchThePoints() throws {
        XCTAssertEqual(try read("2\n1 2 3 1\n2 3 4 1\n")[0].recording.events.filter(\.isSynReport).count, 3)
        assertRefused("3\n1 2 3 1\n2 3 4 1\n", "sig.txt:1: declares 3 points but the file holds 2 (its last point is on line 3)")
        assertRefused("1\n1 2 3 1\n2 3 4 1\n", "sig.txt:3: a point beyond the 1 that line 1 declares")
    }

    /// The count is bounded before any point is read: 2^20 passes the
    /// bound (and then lacks its points), 2^20 + 1 and 0 are refused.
    func testPointCountIsBounded() {
        assertRefused("1048576\n1 2 3 1\n", "sig.txt:1: declares 1048576 points but the file holds 1")
        assertRefused("1048577\n1 2 3 1\n", "sig.txt:1: declares 1048577 points; expected 1 to 1048576")
        assertRefused("0\n", "sig.txt:1: declares 0 points; expected 1 to 1048576")
    }

    /// Bad lines are refused naming the line and what is wrong.
    func testBadLinesAreRefusedNamingTheLine() {
        let cases: [(String, String)] = [
            ("signature\n1 2 3 1\n", "sig.txt:1: expected the point count"),
            ("2 2\n1 2 3 1\n", "sig.txt:1: expected the point count"),
            ("2\n1 2 3 1\n1 2 3 1 5\n", "sig.txt:3: 5 values; expected 4 (X Y T BUTTON, Task 1) or 7"),
            ("2\n1 2 3 1\n1 2 4 1 0 0 9\n", "sig.txt:3: 7 values where the points before have 4"),
            ("1\n1 2 3 2\n", "sig.txt:2: button status 2; expected 0 (pen up) or 1 (pen down)"),
            ("1\n1.5 2 3 1\n", "sig.txt:2: '1.5' is not a whole number (value 1)"),
            ("1\n1 2 3 1 0 0 -1\n", "sig.txt:2: pressure -1 is negative"),
            ("1\n2147483648 2 3 1\n", "sig.txt:2: X 2147483648 does not fit 32 bits"),
            ("1\n1 2 3 1 0 2147483648 5\n", "sig.txt:2: altitude 2147483648 does not fit 32 bits"),
            ("2\n1 2 30 1\n1 2 29 1\n", "sig.txt:3: time stamp 29 is before the previous point's, 30"),
            ("\n \n", "sig.txt: holds only blank lines"),
        ]
        for (text, message) in cases { assertRefused(text, message) }
    }

    /// Time stamps may span 2^40 ms from the first point, not one more.
    func testTimeSpanIsBounded() throws {
        let span = Int64(1) << 40
        let read = try read("2\n0 0 7 1\n0 0 \(span + 7) 1\n")[0].recording
        XCTAssertEqual(read.events.last?.timeNs, span * 1_000_000)
        assertRefused("2\n0 0 7 1\n0 0 \(span + 8) 1\n", "sig.txt:3: time stamp \(span + 8) is more than \(span) ms after the first point's")
    }

    /// A byte-order mark, CRLF line ends and blank lines are read.
    func testByteOrderMarkCRLFAndBlankLines() throws {
        let recording = try read("\u{FEFF}2\r\n1 2 3 1\r\n\r\n2 3 4 0\r\n\r\n")[0].recording
        XCTAssertEqual(frames(recording, EventType.key, Button.touch), [[0, 1], [1, 0]])
        XCTAssertEqual(try RecordingImporter.detect(Array("\u{FEFF}2\r\n1 2 3 1\r\n2 3 4 0\r\n".utf8), file: "x"), .svc2004)
    }

    /// Detection takes a count line followed by 4 or 7 whole numbers, and
    /// nothing else: 3 or 5 numbers, or a count alone, match no format.
    func testDetection() throws {
        XCTAssertEqual(try RecordingImporter.detect(Array(try Data(contentsOf: URL(fileURLWithPath: Self.task2))), file: "x"), .svc2004)
        XCTAssertEqual(try RecordingImporter.detect(Array(try Data(contentsOf: URL(fileURLWithPath: Self.task1))), file: "x"), .svc2004)
        XCTAssertEqual(try RecordingImporter.detect(Array("2\n\n-1 +2 3 1\n".utf8), file: "x"), .svc2004)
        for text in ["2\n1 2 3\n", "2\n1 2 3 4 5\n", "2\n", "2\n1 2 3 x\n", "2 3\n1 2 3 4\n"] {
            XCTAssertThrowsError(try RecordingImporter.detect(Array(text.utf8), file: "x"), text) {
                XCTAssertTrue("\($0)".contains("cannot tell the format"), "\($0)")
            }
        }
    }

    /// import → export --format evemu → import gives the same samples.
    func testRoundTripThroughEvemuKeepsTheSamples() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let (trace, _) = try BlackBox.importTrace(Self.task2, into: directory)
        let evemu = directory.appendingPathComponent("sig.evemu").path
        try BlackBox.run(["export", trace, "--format", "evemu", "-o", evemu])
        let (again, _) = try BlackBox.importTrace(evemu, into: directory)
        let first = try BlackBox.Trace(trace), second = try BlackBox.Trace(again)
        let samples = try first.table("samples")
        XCTAssertEqual(samples["pressure"], [120, 340, 340, 200, 150, 600, 610, 300])
        XCTAssertEqual(samples, try second.table("samples"))
        try first.close(); try second.close()
    }
}
