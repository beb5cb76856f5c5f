import Foundation
import XCTest
@testable import ForceTrace

/// The rule-made mutants (issue 26) still open after the first kill tests:
/// each test pins the boundary or branch one of them moved.
final class MutantKill2Tests: XCTestCase {
    typealias F = AnalysisFixtures

    /// A range of one value (min = max) normalises nothing (nil, not a
    /// division by 0); a range of one step (max = min + 1) does.
    func testNormalizedNeedsARange() throws {
        let flat = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 7, maximum: 7)
        XCTAssertNil(flat.normalized(7))
        let step = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 7, maximum: 8)
        XCTAssertEqual(try XCTUnwrap(step.normalized(8)), 1)
        XCTAssertEqual(try XCTUnwrap(step.normalized(7)), 0)
    }

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

    /// Only a sample with a new pressure can be a stationary pressure
    /// event; one that only moves is not, however little. Tolerance 1 device
    /// unit; samples after the down at (100, 100) p 30: x 101 (moved 1, p
    /// unchanged: not one), p 40 (no motion: one), x 102 p 50 (moved exactly
    /// the tolerance: one), x 104 p 60 (moved 2: not one). Motion events 4,
    /// stationary 2.
    func testOnlyPressureChangesCountAsStationary() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.x, 101)])
        builder.frame(20, [(F.p, 40)])
        builder.frame(30, [(F.x, 102), (F.p, 50)])
        builder.frame(40, [(F.x, 104), (F.p, 60)])
        builder.frame(50, [(F.id, -1)])
        var options = AnalysisOptions()
        options.tolerance = .deviceUnits(1)
        let analysis = try F.analyze(builder.recording, options: options)
        let contact = try XCTUnwrap(analysis.contacts.first)
        XCTAssertEqual(contact.motionEvents, 4)
        XCTAssertEqual(contact.stationary[0], 2)
    }

    /// A contact lifted at exactly t = 0 (a timestamp that goes back to the
    /// first frame's) is up from then on. Slots 0 (id 1) and 1 (id 2) go down
    /// at 0 ms and change pressure at 10 ms; a frame stamped `lift` ms lifts
    /// id 1; id 2 has samples at 20 and 30 ms and lifts at 40 ms. A frame
    /// counts as multi-contact when two slots are down at its time (up time >
    /// frame time). Lift at 15 ms: frames 0 and 10 (15 > 0, 15 > 10), so 2.
    /// Lift at 0 ms: 0 > 0 fails, so none; a lift at 0 taken for "still
    /// down" (up time max) would count all 4 frames.
    func testAContactLiftedAtTimeZeroIsUpAfterwards() throws {
        for (lift, frames) in [(Int64(15), Int64(2)), (0, 0)] {
            var builder = RecordingBuilder()
            builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30),
                              (F.slot, 1), (F.id, 2), (F.x, 500), (F.y, 500), (F.p, 30)])
            builder.frame(10, [(F.slot, 0), (F.p, 40), (F.slot, 1), (F.p, 50)])
            builder.frame(lift, [(F.slot, 0), (F.id, -1)])
            builder.frame(20, [(F.slot, 1), (F.p, 60)])
            builder.frame(30, [(F.p, 70)])
            builder.frame(40, [(F.id, -1)])
            let analysis = try F.analyze(builder.recording)
            XCTAssertEqual(analysis.contacts.map(\.tUpNs), [lift * 1_000_000, 40_000_000])
            XCTAssertEqual(analysis.statistics.multiContactFrames, frames, "lift at \(lift) ms")
        }
    }

    /// The text summary of contacts without pressure says so; with pressure
    /// it gives the classes instead.
    func testSummaryWithoutPressureSaysSo() throws {
        func text(pressure: Bool) throws -> String {
            var builder = RecordingBuilder(pressure: pressure)
            let light: [(UInt16, Int32)] = pressure ? [(F.p, Int32(30))] : [], firm: [(UInt16, Int32)] = pressure ? [(F.p, Int32(70))] : []
            builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100)] + light)
            builder.frame(10, [(F.x, 110)] + firm)
            builder.frame(20, [(F.id, -1)])
            let analysis = try F.analyze(builder.recording)
            let report = PressureReport(options: AnalysisOptions(), files: [FileAnalysis(file: analysis.file, recordings: [analysis])])
            return report.text(contactLimit: nil).rendered
        }
        let without = try text(pressure: false), with = try text(pressure: true)
        XCTAssertTrue(without.contains("contacts 1; no pressure\n"), without)
        XCTAssertFalse(without.contains("reached peek"), without)
        XCTAssertFalse(with.contains("no pressure"), with)
        XCTAssertTrue(with.contains("reached peek"), with)
    }

    /// The HTML page's contact table is left out when it would have no rows
    /// (--contacts 0), and there with one row (--contacts 1).
    func testHTMLContactTableNeedsARow() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let (trace, _) = try BlackBox.importTrace(BlackBox.fixture("long-press-timeouts.evemu"), into: directory)
        for limit in [0, 1] {
            let page = directory.appendingPathComponent("contacts-\(limit).html").path
            try BlackBox.run(["report", trace, "--html", page, "--contacts", "\(limit)"])
            let html = try String(contentsOfFile: page, encoding: .utf8)
            XCTAssertEqual(html.contains("<h3>Contacts</h3>"), limit == 1, "--contacts \(limit)")
            if limit == 1 { XCTAssertTrue(html.contains("data-rows=\"1\""), "one row") }
        }
    }

    /// A pen curve's ends are exactly (0, 0) and (1, 1): the inputs 0 and 1
    /// and beyond are not left to the bisection, which would land within
    /// 2^-48 of them but not on them (at 0 it gives about 3 t y1 with t =
    /// 2^-49, some 1e-15). Inside, 0.5 goes through the bisection.
    func testPenCurveEndsAreExact() {
        let curve = PressureCurve(20, 40, 60, 90)
        XCTAssertEqual(curve.output(at: -0.01), 0)
        XCTAssertEqual(curve.output(at: 0), 0)
        XCTAssertGreaterThan(curve.output(at: 0.01), 0)
        XCTAssertLessThan(curve.output(at: 0.99), 1)
        XCTAssertEqual(curve.output(at: 1), 1)
        XCTAssertEqual(curve.output(at: 1.01), 1)
    }

    /// Natural breaks need three occupied bins: exactly three (bins 20, 50,
    /// 80) give one class each, each threshold in the middle of the empty
    /// gap below its class: bins 21-49 and 51-79, so peek 0.35 and pop 0.65;
    /// two give none.
    func testNaturalBreaksFromThreeOccupiedBins() throws {
        var three = ThresholdBins()
        [0.2, 0.5, 0.8].forEach { three.add($0) }
        let breaks = try XCTUnwrap(ThresholdSuggestion.naturalBreaks(three))
        XCTAssertEqual(breaks.peek, 0.35, accuracy: 1e-12)
        XCTAssertEqual(breaks.pop, 0.65, accuracy: 1e-12)
        var two = ThresholdBins()
        [0.2, 0.5].forEach { two.add($0) }
        XCTAssertNil(ThresholdSuggestion.naturalBreaks(two))
    }

    // MARK: HTML

    /// One contact with pressure: down at p 30, then frames at 10 and 20 ms.
    /// `stationaryAt10`: the 10 ms frame changes only the pressure (a
    /// stationary event, before the peak: rise 1, after 0), else it moves too.
    private func html(stationaryAt10: Bool, recordings: Int = 1) throws -> String {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, (stationaryAt10 ? [] : [(F.x, Int32(120))]) + [(F.p, Int32(60))])
        builder.frame(20, [(F.x, 140), (F.p, 70)])
        builder.frame(30, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        XCTAssertEqual(analysis.statistics.stationary[0], stationaryAt10 ? 1 : 0)
        let file = FileAnalysis(file: analysis.file, recordings: Array(repeating: analysis, count: recordings))
        return PressureReport(options: AnalysisOptions(), files: [file]).html(contactLimit: nil)
    }

    /// Every SVG path the page draws starts with its one move-to ("M"); the
    /// other points are line-tos.
    func testHTMLPathsStartWithAMove() throws {
        let page = try html(stationaryAt10: false)
        let paths = page.components(separatedBy: " d=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        XCTAssertFalse(paths.isEmpty)
        for d in paths {
            XCTAssertTrue(d.hasPrefix("M"), String(d))
            XCTAssertEqual(d.filter { $0 == "M" }.count, 1, String(d))
        }
    }

    /// The before/after-peak split of stationary events is drawn from one
    /// event on (rise 1 + after 0), not for none.
    func testHTMLPhaseSplitFromOneStationaryEvent() throws {
        XCTAssertTrue(try html(stationaryAt10: true).contains("data-chart=\"phase-split\""))
        XCTAssertFalse(try html(stationaryAt10: false).contains("data-chart=\"phase-split\""))
    }

    /// The text report's device line and the HTML page's device table name
    /// protocol B for a slotted device.
    func testTextReportNamesProtocolB() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.p, 40)])
        builder.frame(20, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        XCTAssertEqual(analysis.device.contactProtocol, .slots)
        let report = PressureReport(options: AnalysisOptions(), files: [FileAnalysis(file: analysis.file, recordings: [analysis])])
        let text = report.text(contactLimit: nil).rendered
        XCTAssertTrue(text.contains("device: \"test touchscreen\", multitouch protocol B"), text)
        XCTAssertFalse(text.contains("no slots"), text)
        // The HTML page's device table too, with the slot count (2).
        let page = report.html(contactLimit: nil)
        XCTAssertTrue(page.contains("multitouch protocol B, 2 slots"))
        XCTAssertFalse(page.contains("no slots"))
    }

    /// The page's total section comes with two recordings, not with one.
    func testHTMLTotalOnlyForSeveralRecordings() throws {
        XCTAssertFalse(try html(stationaryAt10: false, recordings: 1).contains("data-section=\"total\""))
        XCTAssertTrue(try html(stationaryAt10: false, recordings: 2).contains("data-section=\"total\""))
    }

    /// The x/y paths figure shows up to two contacts per class: on the mixed
    /// sample (more than two contacts of a class) no class has three panels,
    /// and some class has two.
    func testHTMLPathsTwoPerClass() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path
        let (trace, _) = try BlackBox.importTrace(sample, into: directory)
        let page = directory.appendingPathComponent("paths.html").path
        try BlackBox.run(["report", trace, "--html", page])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        // Each panel's caption: "<p>contact N, CLASS: ...".
        var perClass: [String: Int] = [:]
        for panel in html.components(separatedBy: "<div class=\"panel\">").dropFirst() {
            guard let caption = panel.components(separatedBy: "</svg><p>contact ").dropFirst().first,
                  let comma = caption.firstIndex(of: ","), let colon = caption.firstIndex(of: ":") else { continue }
            perClass[String(caption[caption.index(comma, offsetBy: 2)..<colon]), default: 0] += 1
        }
        XCTAssertFalse(perClass.isEmpty, "no path panels")
        XCTAssertLessThanOrEqual(perClass.values.max() ?? 0, 2, "\(perClass)")
        XCTAssertEqual(perClass.values.max(), 2, "\(perClass)")
    }

    /// `report`'s progress line, drawn when standard error is a terminal (a
    /// pty from script(1)): "analysing NAME" for one file, "analysing 2
    /// files" for two.
    func testReportProgressOnATerminal() throws {
        let script = "/usr/bin/script"
        guard FileManager.default.isExecutableFile(atPath: script) else { throw XCTSkip("script(1) is absent") }
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let (trace, _) = try BlackBox.importTrace(BlackBox.fixture("long-press-timeouts.evemu"), into: directory, name: "progress")
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        for (files, label) in [([trace], "analysing \(trace): "), ([trace, trace], "analysing 2 files: ")] {
            let command = ([FormatTestSupport.executable.path, "report"] + files + ["--contacts", "0"]).map(quoted).joined(separator: " ")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: script)
            process.arguments = ["-qec", command, "/dev/null"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, text)
            XCTAssertTrue(text.contains("\r\u{1B}[K" + label), "\(files.count) file(s): \(text.prefix(300))")
        }
    }

    /// Detection reads at most 16 MiB (2^24 bytes) of head: a first recording
    /// line that starts 64 bytes before that (and fits in them: 43 bytes) is
    /// found; one that starts right at it is not, and the error names the
    /// 16 MiB. The padding is one comment line ("#", "x"s, newline), which
    /// detection scans far faster than many short ones.
    func testFormatDetectionReadsSixteenMiB() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        // The fixture without its own leading comments: its first line is "N: ...".
        let fixture = try String(contentsOfFile: BlackBox.fixture("axes-differ.evemu"), encoding: .utf8)
        let recording = Data(fixture.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0.hasPrefix("#") }.joined(separator: "\n").utf8)
        XCTAssertTrue(recording.starts(with: Data("N: ".utf8)))
        let limit = RecordingImporter.maximumHeadBytes
        XCTAssertEqual(limit, 1 << 24)
        for (padding, found) in [(limit - 64, true), (limit, false)] {
            var data = Data("#".utf8) + Data(repeating: UInt8(ascii: "x"), count: padding - 2) + Data("\n".utf8)
            data.append(recording)
            let path = directory.appendingPathComponent("padded-\(padding).evemu").path
            try data.write(to: URL(fileURLWithPath: path))
            do {
                let codec = try RecordingImporter.detect(try ByteSource(path: path))
                XCTAssertTrue(found, "detected \(codec) past the limit")
            } catch {
                XCTAssertFalse(found, "\(error)")
                XCTAssertTrue("\(error)".contains("its first 16 MiB hold no recording line"), "\(error)")
            }
        }
    }

    /// A libinput record file cut inside a character (the first byte of the
    /// two-byte "Ä", 0xC3 0x84) ends mid-structure, and the error says it was
    /// truncated; one that ends in a byte that starts no character (0xFF) is
    /// damaged, not cut, and the error does not say so.
    func testYAMLCutInsideACharacterIsTruncated() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let fixture = try Data(contentsOf: URL(fileURLWithPath: BlackBox.fixture("negative-times.yml")))
        let name = Data("name: forcetrace boundary fixture negative times".utf8)
        let at = try XCTUnwrap(fixture.range(of: name)).upperBound
        for (last, truncated) in [(UInt8(0xC3), true), (UInt8(0xFF), false)] {
            let cut = fixture[..<at] + Data(" ".utf8) + Data([last])
            let path = directory.appendingPathComponent(String(format: "cut-%02x.yml", last)).path
            try cut.write(to: URL(fileURLWithPath: path))
            let run = try FormatTestSupport.run(["import", path, "-o", directory.appendingPathComponent("cut.h5").path])
            XCTAssertEqual(run.status, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("not YAML text"), run.stderr)
            XCTAssertEqual(run.stderr.contains("(truncated?)"), truncated, run.stderr)
        }
    }

    /// A progress line is drawn on standard error only when enabled, by
    /// `update` and by `count` (whose first call has no elapsed time, so no
    /// rate and no time left).
    func testProgressLineDrawsOnlyWhenEnabled() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        for enabled in [false, true] {
            for counted in [false, true] {
                let path = directory.appendingPathComponent("stderr-\(enabled)-\(counted)").path
                FileManager.default.createFile(atPath: path, contents: nil)
                let saved = dup(STDERR_FILENO), file = open(path, O_WRONLY)
                XCTAssertGreaterThanOrEqual(file, 0)
                XCTAssertEqual(dup2(file, STDERR_FILENO), STDERR_FILENO)
                let line = ProgressLine(enabled: enabled)
                if counted { line.count("drawn", done: 5, unit: "events") } else { line.update("drawn") }
                dup2(saved, STDERR_FILENO)
                close(saved)
                close(file)
                let written = try String(contentsOfFile: path, encoding: .utf8)
                XCTAssertEqual(written, enabled ? "\r\u{1B}[Kdrawn" + (counted ? ": 5 events" : "") : "", "counted \(counted)")
            }
        }
    }

    /// `report --json` hands its output over in buffers larger than stdio's:
    /// on a full device the first failed write's errno (ENOSPC) is what the
    /// error names (the final flush has nothing left to fail with).
    func testJSONReportToAFullDeviceNamesTheFullDevice() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("/dev/full is absent") }
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let (trace, _) = try BlackBox.importTrace(BlackBox.fixture("long-press-timeouts.evemu"), into: directory)
        let result = try FormatTestSupport.run(["report", trace, "--json", "--contacts", "all"], stdoutFile: "/dev/full")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("no space left"), result.stderr)
    }

    /// The device the fuzz harnesses read raw streams with is the one its
    /// comment promises: slots 0 to 9 (10), tracking ids 0 to 65535.
    func testFuzzDeviceHasTenSlots() throws {
        let device = ParserFuzzing.rawDescription
        let slot = try XCTUnwrap(device.axis(AbsoluteAxis.mtSlot))
        XCTAssertEqual([slot.minimum, slot.maximum], [0, 9])
        let tracking = try XCTUnwrap(device.axis(AbsoluteAxis.mtTrackingID))
        XCTAssertEqual([tracking.minimum, tracking.maximum], [0, 65535])
    }

    // MARK: Temporaries and stop signals

    static let signalChildVariable = "FORCETRACE_TEST_SIGNAL_CHILD"

    /// Removing one temporary forgets only that one: a stop signal afterwards
    /// still removes another that is open. A child (this bundle, running
    /// `testSignalChild`) makes A and B in a folder, removes A, and dies of
    /// SIGTERM; the folder must then be empty.
    func testRemovingOneTemporaryKeepsAnotherRegistered() throws {
        if ProcessInfo.processInfo.environment[Self.signalChildVariable] != nil { return }
        let directory = try FormatTestSupport.temporaryDirectory(self)
        // In this process too, so that the removal is reached here.
        let own = try TemporaryFiles.create(for: directory.appendingPathComponent("own.h5").path, kind: .partial, shownAs: "own.h5")
        TemporaryFiles.remove(own)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["ForceTraceTests.MutantKill2Tests/testSignalChild"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.signalChildVariable] = directory.path
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(process.terminationStatus, SIGTERM)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
    }

    /// The child of `testRemovingOneTemporaryKeepsAnotherRegistered`; does
    /// nothing when run on its own.
    func testSignalChild() throws {
        guard let directory = ProcessInfo.processInfo.environment[Self.signalChildVariable] else { return }
        let a = try TemporaryFiles.create(for: directory + "/a.h5", kind: .partial, shownAs: "a.h5")
        _ = try TemporaryFiles.create(for: directory + "/b.h5", kind: .partial, shownAs: "b.h5")
        TemporaryFiles.remove(a)
        raise(SIGTERM)
    }
}
