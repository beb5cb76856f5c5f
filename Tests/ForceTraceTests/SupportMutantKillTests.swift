import Foundation
import XCTest
@testable import ForceTrace

/// Support and JSON rules that only pytest's CLI runs reached, so their
/// rule-made mutants (issue 26) survived XCTest. Each test pins a boundary
/// or a branch one of them moved.
final class SupportMutantKillTests: XCTestCase {
    /// "1234" below 100 000, "123 k" from 100 000, "1.23 M" from 1 000 000: each
    /// boundary on, one below.
    func testProgressAmountsAtTheirBoundaries() {
        XCTAssertEqual(ProgressLine.amount(99_999), "99999")
        XCTAssertEqual(ProgressLine.amount(100_000), "100 k")
        XCTAssertEqual(ProgressLine.amount(999_999), "1000 k")
        XCTAssertEqual(ProgressLine.amount(1_000_000), "1.00 M")
    }

    /// A write error's line names errno's text only when there is one.
    func testStandardOutputMessageWithAndWithoutErrno() {
        XCTAssertEqual(StandardOutput.message(forErrno: 0), "standard output: write failed; the output is cut short")
        XCTAssertEqual(StandardOutput.message(forErrno: EIO),
                       "standard output: write failed: \(String(cString: strerror(EIO))); the output is cut short")
        XCTAssertTrue(StandardOutput.message(forErrno: ENOSPC).contains("no space left"))
    }

    /// `export` to a full device: the first failed write's errno (ENOSPC) is
    /// what the error names, and the exit status is 1.
    func testExportToAFullDeviceNamesTheFullDevice() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("/dev/full is absent") }
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path
        let trace = AnalysisFixtures.temporaryPath("full-\(UUID().uuidString).h5")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        XCTAssertEqual(try FormatTestSupport.run(["import", sample, "-o", trace]).status, 0)
        let result = try FormatTestSupport.run(["export", trace, "--format", "evemu", "-o", "-"], stdoutFile: "/dev/full")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("no space left"), result.stderr)
    }

    /// An output that is one of the inputs is refused; another file is not.
    func testOutputThatIsAnInputIsRefused() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let input = directory.appendingPathComponent("in.h5").path, other = directory.appendingPathComponent("other.h5").path
        FileManager.default.createFile(atPath: input, contents: Data("x".utf8))
        FileManager.default.createFile(atPath: other, contents: Data("y".utf8))
        XCTAssertThrowsError(try OutputPath.check(input, replace: true, inputs: [input]))
        XCTAssertNoThrow(try OutputPath.check(other, replace: true, inputs: [input]))
    }

    /// "-" among the inputs is standard input: an output that is the file on
    /// standard input is refused, one that is not is allowed.
    func testOutputThatIsStandardInputIsRefused() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let input = directory.appendingPathComponent("stdin.h5").path, other = directory.appendingPathComponent("other.h5").path
        FileManager.default.createFile(atPath: input, contents: Data("x".utf8))
        FileManager.default.createFile(atPath: other, contents: Data("y".utf8))
        let saved = dup(STDIN_FILENO), file = open(input, O_RDONLY)
        XCTAssertGreaterThanOrEqual(file, 0)
        XCTAssertEqual(dup2(file, STDIN_FILENO), STDIN_FILENO)
        defer { dup2(saved, STDIN_FILENO); close(saved); close(file) }
        XCTAssertThrowsError(try OutputPath.check(input, replace: true, inputs: ["-"])) { error in
            XCTAssertTrue("\(error)".contains("standard input"), "\(error)")
        }
        XCTAssertNoThrow(try OutputPath.check(other, replace: true, inputs: ["-"]))
    }

    /// A file someone holds a flock on (HDF5 readers take one) is not replaced;
    /// a free file is.
    func testAFileHeldByAnotherOpenIsNotReplaced() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let path = directory.appendingPathComponent("held.h5").path
        FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
        XCTAssertNoThrow(try OutputPath.refuseIfHeld(path))
        let holder = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(holder, 0)
        defer { close(holder) }
        XCTAssertEqual(flock(holder, LOCK_SH), 0)
        XCTAssertThrowsError(try OutputPath.refuseIfHeld(path)) { error in
            XCTAssertTrue("\(error)".contains("is open in another process"), "\(error)")
        }
    }

    /// A PID is taken as gone only when its process started more than one
    /// second after the file was last written (PID reuse): this process
    /// started at S, so a file written at S - 1 is not provably orphaned, one
    /// at S - 2 is.
    func testProcessIsGoneOnlyWhenItStartedAfterTheFile() throws {
        let started = try XCTUnwrap(TemporaryFiles.processStartTime(getpid()))
        XCTAssertFalse(TemporaryFiles.processIsGone(getpid(), fileModified: started))
        XCTAssertFalse(TemporaryFiles.processIsGone(getpid(), fileModified: started - 1))
        XCTAssertTrue(TemporaryFiles.processIsGone(getpid(), fileModified: started - 2))
    }

    /// A string with a backslash takes the writer's escaping loop; it must
    /// come back from a JSON parser as it went in.
    func testJSONStringsWithBackslashes() throws {
        var out = JSONWriter(capacity: 16)
        out.beginObject()
        out.key("a"); out.int(1)
        out.key("b"); out.string("back\\slash \u{7} and \"quote\"")
        out.endObject()
        let bytes = Data(out.finish())
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: bytes) as? [String: Any], String(decoding: bytes, as: UTF8.self))
        XCTAssertEqual(parsed["a"] as? Int, 1)
        XCTAssertEqual(parsed["b"] as? String, "back\\slash \u{7} and \"quote\"")
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

    /// An output named through a link is written to the file the link names.
    func testOutputThroughALinkResolvesToItsTarget() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let file = directory.appendingPathComponent("real.h5").path, link = directory.appendingPathComponent("link.h5").path
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        XCTAssertEqual(symlink(file, link), 0)
        XCTAssertEqual(try OutputTarget.resolve(link, replace: true).path, file)
        XCTAssertEqual(try OutputTarget.resolve(file, replace: true).path, file)
    }

    /// Replacing a file keeps its mode (0600 stays 0600); a new file gets
    /// 0666 minus the umask.
    func testReplacingKeepsTheModeOfTheReplacedFile() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let path = directory.appendingPathComponent("private.h5").path
        FileManager.default.createFile(atPath: path, contents: Data("old".utf8))
        XCTAssertEqual(chmod(path, 0o600), 0)
        let output = try AtomicOutput(path: path, replace: true)
        FileManager.default.createFile(atPath: output.temporaryPath, contents: Data("new".utf8))
        try output.commit()
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "new")
        let mask = umask(0); umask(mask)
        let fresh = directory.appendingPathComponent("fresh.h5").path
        let created = try AtomicOutput(path: fresh, replace: false)
        FileManager.default.createFile(atPath: created.temporaryPath, contents: Data("x".utf8))
        try created.commit()
        XCTAssertEqual(stat(fresh, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o666 & ~mask)
    }

    /// Seconds from nanoseconds as exact decimals: 0 ns is "0.0", 1 ns keeps
    /// its ninth digit, a whole second "1.0"; each parses to ns / 1e9.
    func testJSONSecondsAtTheSmallestFractions() throws {
        for (ns, text) in [(Int64(0), "0.0"), (1, "0.000000001"), (1_000_000_000, "1.0"), (1_000_000_001, "1.000000001"),
                           (-1, "-0.000000001"), (10, "0.00000001")] {
            var out = JSONWriter(capacity: 16)
            out.beginArray(flat: true)
            out.seconds(ns)
            out.endArray()
            let json = String(decoding: out.finish(), as: UTF8.self).trimmingCharacters(in: .newlines)
            XCTAssertEqual(json, "[\(text)]", "\(ns) ns")
            let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double])
            XCTAssertEqual(parsed, [Double(ns) / 1e9])
        }
    }
}
