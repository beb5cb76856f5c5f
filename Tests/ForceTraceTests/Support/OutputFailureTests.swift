import Foundation
import XCTest
@testable import ForceTrace

/// Writing outputs: a full device (/dev/full) is an error naming it, and blocks reach the file as they fill.
final class OutputFailureTests: XCTestCase {
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

    /// One 6631-byte write to a full device (the bash completion script,
    /// printed at once) fails inside fputs and leaves stdio's buffer empty,
    /// so the final flush has nothing to report: the errno kept from the
    /// failed fputs (ENOSPC) is what names the full device.
    func testAOneWriteOutputToAFullDeviceNamesTheFullDevice() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("/dev/full is absent") }
        let result = try FormatTestSupport.run(["--help-completion", "bash"], stdoutFile: "/dev/full")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("no space left on the device holding it"), result.stderr)
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

    /// A write error's line names errno's text only when there is one.
    func testStandardOutputMessageWithAndWithoutErrno() {
        XCTAssertEqual(StandardOutput.message(forErrno: 0), "standard output: write failed; the output is cut short")
        XCTAssertEqual(StandardOutput.message(forErrno: EIO),
                       "standard output: write failed: \(String(cString: strerror(EIO))); the output is cut short")
        XCTAssertTrue(StandardOutput.message(forErrno: ENOSPC).contains("no space left"))
    }

    /// An output file gets each full 65536-byte block as soon as it is
    /// full, not at close: after 65535 bytes the file is still empty, after
    /// 65536 it holds them all, and after 65537 all 65537 (a block passed).
    /// The same for each way of writing: text, raw bytes and `append`.
    func testAFullBlockReachesTheFileBeforeClose() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let writers: [(String, (ByteOutput, Int) throws -> Void)] = [
            ("text", { try $0.write(String(repeating: "x", count: $1)) }),
            ("raw", { output, count in try [UInt8](repeating: 0x78, count: count).withUnsafeBytes { try output.write($0) } }),
            ("append", { output, count in try output.append { $0.append(contentsOf: repeatElement(0x78, count: count)) } }),
        ]
        for (how, write) in writers {
            for (count, onDisk) in [(65535, 0), (65536, 65536), (65537, 65537)] {
                let path = directory.appendingPathComponent("\(how)-\(count).out").path
                let output = try ByteOutput(path: path)
                try write(output, count)
                let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
                XCTAssertEqual(size, onDisk, "\(how) \(count)")
                try output.close()
                XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, count, "\(how) \(count)")
            }
        }
    }
}
