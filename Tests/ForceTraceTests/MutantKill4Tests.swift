import Foundation
import XCTest
@testable import ForceTrace

/// Survivors of the seed-26 sample run of 2026-12-03 (issue 26): each test
/// pins the boundary or branch one of them moved.
final class MutantKill4Tests: XCTestCase {
    typealias F = AnalysisFixtures

    /// The x coordinates of every path in the page's `chart` figure.
    private func pathXs(_ page: String, chart: String) throws -> [Double] {
        let svg = try XCTUnwrap(page.components(separatedBy: "data-chart=\"\(chart)\"").dropFirst().first?
            .components(separatedBy: "</svg>").first, "no \(chart) figure")
        var xs: [Double] = []
        for d in svg.components(separatedBy: " d=\"").dropFirst().map({ $0.prefix { $0 != "\"" } }) {
            // "Mx yLx y...Z": every other number is an x.
            let numbers = d.split(whereSeparator: { "MLZ ".contains($0) }).compactMap { Double($0) }
            xs += stride(from: 0, to: numbers.count, by: 2).map { numbers[$0] }
        }
        return xs
    }

    /// Both curve figures run to the plot's right edge (x = 600 − 18 = 582)
    /// and not beyond: the x axis ends at the last point, (K − 1)/K of the
    /// duration and (points − 1) · step ms. A press held 2.5 s fills all 200
    /// aligned points (10 ms apart).
    func testCurveFiguresEndAtTheLastPoint() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        for t in stride(from: Int64(10), through: 2500, by: 10) { builder.frame(t, [(F.p, Int32(30 + t % 40))]) }
        builder.frame(2510, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        let page = PressureReport(options: AnalysisOptions(), files: [FileAnalysis(file: analysis.file, recordings: [analysis])])
            .html(contactLimit: nil)
        for chart in ["curves", "aligned-curves"] {
            let xs = try pathXs(page, chart: chart)
            XCTAssertFalse(xs.isEmpty, chart)
            XCTAssertEqual(xs.max(), 582.0, chart)
            XCTAssertEqual(xs.min(), 62.0, chart)
        }
    }

    /// `elements` fills an array of objects at any depth, the top level
    /// included (depth 1), with the text rendering in order gives; on one
    /// thread and on several (more elements than a batch).
    func testElementsIntoATopLevelArray() {
        func render(_ index: Int, _ w: inout JSONWriter) {
            w.beginObject(); w.key("i"); w.int(index); w.endObject()
        }
        for (count, batch) in [(3, 2_048), (9, 2)] {
            var inOrder = JSONWriter()
            inOrder.beginArray(flat: false)
            for index in 0..<count { render(index, &inOrder) }
            inOrder.endArray()
            var parallel = JSONWriter()
            parallel.beginArray(flat: false)
            parallel.elements(count, batch: batch, threads: 3, render: render)
            parallel.endArray()
            XCTAssertEqual(String(decoding: parallel.finish(), as: UTF8.self), String(decoding: inOrder.finish(), as: UTF8.self))
        }
    }

    /// Quantiles of values holding −0 and +0 come out as a full sort's
    /// would, bit for bit: selection may put a −0 where a sort puts a +0,
    /// but the interpolation's sum turns either into +0.
    func testQuantilesKeepTheSignOfZeroAsASortDoes() {
        func reference(_ values: [Double]) -> [Double] {
            let sorted = values.sorted()
            return Quantiles.levels.map { level in
                let position = Double(sorted.count - 1) * level
                let lower = Int(position.rounded(.down)), upper = min(lower + 1, sorted.count - 1)
                return sorted[lower] + (position - Double(lower)) * (sorted[upper] - sorted[lower])
            }
        }
        var generator = SystemRandomNumberGenerator()
        for count in [2, 5, 30, 41, 100] {
            for _ in 0..<50 {
                let pool = count % 2 == 0 ? [0.0, -0.0] : [0.0, -0.0, 1.0, 0.5]
                let values = (0..<count).map { _ in pool[Int.random(in: 0..<pool.count, using: &generator)] }
                let found = Quantiles.of(values) ?? []
                XCTAssertEqual(found.map(\.bitPattern), reference(values).map(\.bitPattern), "\(values)")
            }
        }
    }

    /// On a file system without hard links (link(2) fails with EPERM, as on
    /// vfat) the finished file is renamed into place when nothing is there,
    /// and refused, leaving what is there, when something is.
    func testPublishingWithoutHardLinksChecksThenRenames() throws {
        let directory = try makeTemporaryDirectory(self)
        func noHardLinks(_ from: String, _ to: String) throws(SystemCallError) {
            throw SystemCallError(function: "link", path: to, errno: EPERM)
        }
        for occupied in [false, true] {
            let temporary = directory.appendingPathComponent("tmp-\(occupied)").path
            let path = directory.appendingPathComponent("out-\(occupied).h5").path
            try Data("new".utf8).write(to: URL(fileURLWithPath: temporary))
            if occupied { try Data("old".utf8).write(to: URL(fileURLWithPath: path)) }
            do {
                try OutputPath.linkExclusively(temporary, to: path, shownAs: path, hardLink: noHardLinks)
                XCTAssertFalse(occupied, "an occupied path must be refused")
            } catch {
                XCTAssertTrue(occupied, "\(error)")
                XCTAssertTrue("\(error)".contains("already exists"), "\(error)")
            }
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), occupied ? "old" : "new")
            XCTAssertEqual(FileManager.default.fileExists(atPath: temporary), occupied)
        }
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

    /// Detection takes a first line `key:` as libinput YAML from a key of two
    /// letters on; one letter is an evemu line ("E: 0.1 ...", "N: name").
    func testLibinputDetectionNeedsAKeyOfTwoLetters() {
        func recognized(_ text: String) -> Bool { LibinputCodec().recognizes(RecordingHead(ArraySlice(Array(text.utf8)), complete: true)) }
        XCTAssertTrue(recognized("ab: 1\n"))
        XCTAssertTrue(recognized("version: 1\n"))
        XCTAssertFalse(recognized("E: 0.000001 0003 0035 7\n"))
        XCTAssertFalse(recognized("a: 1\n"))
    }

    /// `report FOLDER` walks it: trace files in it and in its subfolders,
    /// not hidden ones nor other files, in name order.
    func testReportInputsWalkAFolder() throws {
        let directory = try makeTemporaryDirectory(self)
        let sub = directory.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        for name in ["b.h5", "a.hdf5", ".hidden.h5", "notes.txt", "sub/c.h5"] {
            try Data().write(to: directory.appendingPathComponent(name))
        }
        var notes: [String] = []
        let found = try ReportInputs.expand([directory.path], note: { notes.append($0.rendered) })
        XCTAssertEqual(found.map { String($0.dropFirst(directory.path.count + 1)) }.sorted(), ["a.hdf5", "b.h5", "sub/c.h5"], "\(notes)")
    }

    /// An integer field takes up to 18 digits (every one fits in Int64) and
    /// refuses 19, which could overflow, as not a number.
    func testDecimalFieldsTakeEighteenDigits() {
        XCTAssertEqual(FieldScanner.parseDecimal(ArraySlice(Array("999999999999999999".utf8))), 999_999_999_999_999_999)
        XCTAssertEqual(FieldScanner.parseDecimal(ArraySlice(Array("-999999999999999999".utf8))), -999_999_999_999_999_999)
        XCTAssertNil(FieldScanner.parseDecimal(ArraySlice(Array("1000000000000000000".utf8))))
        XCTAssertNil(FieldScanner.parseDecimal(ArraySlice(Array("+9999999999999999999".utf8))))
    }

    /// The fast evemu parser reads only the line it is given: a space or tab
    /// just past its end (the next line's, or the buffer's) neither ends a
    /// field nor counts as trailing blank. The line is one view of a larger
    /// buffer, followed by a blank.
    func testFastEventReadsNothingPastTheLine() throws {
        let line = "E: 1.000001 0003 0035 7"
        for after in [" ", "\t", " 9"] {
            let buffer = Array((line + after).utf8)
            let parsed = buffer.withUnsafeBufferPointer { Evemu.fastEvent(UnsafeBufferPointer(rebasing: $0[..<line.utf8.count])) }
            XCTAssertEqual(parsed, InputEvent(timeNs: 1_000_001_000, type: 3, code: 0x35, value: 7), "followed by \(after.debugDescription)")
        }
    }

    /// Terminal text joins with the separator between the parts only.
    func testTerminalTextJoinsBetweenTheParts() {
        let parts: [TerminalText] = ["a", "b", "c"]
        XCTAssertEqual(parts.joined(separator: ", ").rendered, "a, b, c")
        let one: TerminalText = "one"
        XCTAssertEqual([one].joined(separator: ", ").rendered, "one")
        XCTAssertEqual([TerminalText]().joined(separator: ", ").rendered, "")
    }

    /// An LED or switch state line takes any 16-bit code, 0xffff included,
    /// and refuses 0x10000.
    func testStateLinesTakeSixteenBitCodes() throws {
        let header = testPadEvemuHeader.replacingOccurrences(of: "A: 00 ", with: "L: ffff 1\nS: fffe 0\nA: 00 ")
        let parsed = try Evemu.parse(Array((header + "E: 0.000001 0000 0000 0\n").utf8), file: "states.evemu")
        XCTAssertEqual(parsed.device.ledStates.map { [Int64($0.0), Int64($0.1)] }, [[0xffff, 1]])
        XCTAssertEqual(parsed.device.switchStates.map { [Int64($0.0), Int64($0.1)] }, [[0xfffe, 0]])
        let wide = testPadEvemuHeader.replacingOccurrences(of: "A: 00 ", with: "L: 10000 1\nA: 00 ")
        XCTAssertThrowsError(try Evemu.parse(Array((wide + "E: 0.000001 0000 0000 0\n").utf8), file: "wide.evemu"))
    }

    /// A pen axis whose range is one value (minimum = maximum) gives the
    /// curve over the usable range but none over the axis (no division by 0).
    func testPenCurveOverADegenerateAxisHasNoAxisFit() {
        func trials(_ trialClass: TrialClass, _ peaks: [Int32]) -> [LabelledTrial] {
            peaks.map { LabelledTrial(trialClass: trialClass, peak: $0, startNs: 0, curve: [PressurePoint(tNs: 0, pressure: $0)]) }
        }
        let all = trials(.strokeLight, [10, 12]) + trials(.strokeNormal, [20, 22]) + trials(.strokeFirm, [30, 32]) + trials(.fullPress, [40])
        let flat = PenProfile(trials: all, axis: AxisInfo(code: AbsoluteAxis.pressure, minimum: 100, maximum: 100))
        XCTAssertNotNil(flat.rangeFit)
        XCTAssertNil(flat.axisFit)
        let usable = PenProfile(trials: all, axis: AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 1))
        XCTAssertNotNil(usable.axisFit)
    }
}
