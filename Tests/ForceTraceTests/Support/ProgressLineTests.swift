import Foundation
import XCTest
@testable import ForceTrace

/// The progress line: when it is drawn, what it says, and the shares it adds up.
final class ProgressLineTests: XCTestCase {
    /// `report`'s progress line, drawn when standard error is a terminal (a
    /// pty from script(1)): "analysing NAME" for one file, "analysing 2
    /// files" for two.
    func testReportProgressOnATerminal() throws {
        let script = "/usr/bin/script"
        guard FileManager.default.isExecutableFile(atPath: script) else { throw XCTSkip("script(1) is absent") }
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let (trace, _) = try BlackBox.importTrace(BlackBox.fixture("long-press-timeouts.evemu"), into: directory, name: "progress")
        // A second file, not the first named twice: report counts one file once.
        let (other, _) = try BlackBox.importTrace(BlackBox.fixture("long-press-timeouts.evemu"), into: directory, name: "progress-other")
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        for (files, label) in [([trace], "analysing \(trace): "), ([trace, other], "analysing 2 files: ")] {
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

    /// With standard error not a terminal the progress line is off, and
    /// clearing a line never drawn writes nothing: import, report and export
    /// of the sample leave standard error empty (no "\r", no ESC [ K).
    func testAProgressLineNeverDrawnIsNotCleared() throws {
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let trace = directory.appendingPathComponent("mixed.h5").path
        let runs = [["import", sample, "-o", trace], ["report", trace],
                    ["export", trace, "--format", "evemu", "-o", directory.appendingPathComponent("mixed.evemu").path]]
        for arguments in runs {
            let result = try FormatTestSupport.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr, "", "\(arguments)")
        }
    }

    /// "1234" below 100 000, "123 k" from 100 000, "1.23 M" from 1 000 000: each
    /// boundary on, one below.
    func testProgressAmountsAtTheirBoundaries() {
        XCTAssertEqual(ProgressLine.amount(99_999), "99999")
        XCTAssertEqual(ProgressLine.amount(100_000), "100 k")
        XCTAssertEqual(ProgressLine.amount(999_999), "1000 k")
        XCTAssertEqual(ProgressLine.amount(1_000_000), "1.00 M")
    }

    /// Time left from the fraction done: defined for 0 < fraction <= 1 and
    /// elapsed > 0; "N min S s" from 60 s on.
    func testTimeLeftAtItsBoundaries() {
        XCTAssertNil(ProgressLine.timeLeft(elapsed: 10, fraction: 0))
        XCTAssertNil(ProgressLine.timeLeft(elapsed: 10, fraction: nil))
        XCTAssertNil(ProgressLine.timeLeft(elapsed: 0, fraction: 0.5))
        XCTAssertNil(ProgressLine.timeLeft(elapsed: 10, fraction: 1.25))
        XCTAssertEqual(ProgressLine.timeLeft(elapsed: 10, fraction: 1), "0 s left")
        XCTAssertEqual(ProgressLine.timeLeft(elapsed: 10, fraction: 0.5), "10 s left")
        XCTAssertEqual(ProgressLine.timeLeft(elapsed: 59, fraction: 0.5), "59 s left")
        XCTAssertEqual(ProgressLine.timeLeft(elapsed: 60, fraction: 0.5), "1 min 0 s left")
        XCTAssertEqual(ProgressLine.timeLeft(elapsed: 125, fraction: 0.5), "2 min 5 s left")
    }

    /// `report`'s progress: four files weigh a quarter each. One not opened
    /// (0), one empty (done: 1), one half done (100 of 200 samples: 0.5) and
    /// one past its total (capped at 1): (0 + 1 + 0.5 + 1) / 4 = 0.625.
    func testReportProgressSharesOfEachFile() {
        XCTAssertEqual(ParallelState.fraction(totals: [nil, 0, 200, 10], finished: [0, 0, 60, 10], current: [0, 0, 40, 5]), 0.625)
        XCTAssertEqual(ParallelState.fraction(totals: [nil], finished: [0], current: [0]), 0)
        XCTAssertEqual(ParallelState.fraction(totals: [0], finished: [0], current: [0]), 1)
        XCTAssertEqual(ParallelState.fraction(totals: [1], finished: [0], current: [1]), 1)
    }
}
