import ForceTrace
import Foundation
import XCTest

/// Damaged or foreign HDF5 files given to info, export and report: a clear one-line
/// message and exit status 1, never a crash or HDF5's error stack.
final class TraceFileDamageTests: XCTestCase {
    private var directory: URL!
    private var good: String!

    override func setUpWithError() throws {
        directory = try FormatTestSupport.temporaryDirectory(self)
        good = directory.appendingPathComponent("good.h5").path
        let run = try FormatTestSupport.run(["import", FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path, "-o", good])
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs info and export on `file`; both must fail cleanly with `message`.
    private func assertRejected(_ file: String, _ message: String, line: UInt = #line) throws {
        for arguments in [["info", file], ["info", file, "--json"], ["export", file, "--format", "evemu", "-o", path("out.evemu"), "--force"],
                          ["report", file]] {
            let run = try FormatTestSupport.run(arguments)
            XCTAssertEqual(run.status, 1, "\(arguments): \(run.stderr)", line: line)
            XCTAssertTrue(run.stderr.contains(message), "expected '\(message)' in: \(run.stderr)", line: line)
            assertNoHDF5Dump(run.stderr, line: line)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.evemu")), line: line)
    }

    private func assertNoHDF5Dump(_ stderr: String, line: UInt = #line) {
        XCTAssertFalse(stderr.contains("HDF5-DIAG"), stderr, line: line)
        XCTAssertFalse(stderr.contains(" <- "), "HDF5's call chain leaked: \(stderr)", line: line)
        XCTAssertLessThanOrEqual(stderr.split(separator: "\n").count, 3, stderr, line: line)
    }

    func testTruncatedCopies() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        for size in [8, 100, 2048, bytes.count / 2, bytes.count - 1] {
            let file = path("truncated-\(size).h5")
            try bytes.prefix(size).write(to: URL(fileURLWithPath: file))
            try assertRejected(file, size < 8 ? "not an HDF5 file" : "truncated file: it ends at byte \(size)")
        }
    }

    func testForeignHDF5FromH5py() throws {
        let file = path("foreign.h5")
        let script = "import h5py, sys\nwith h5py.File(sys.argv[1], 'w') as f:\n    f['data'] = [1, 2, 3]\n    f.attrs['format'] = 'something-else'\n"
        try runPython(script, file)
        try assertRejected(file, "is an HDF5 file but not a forcetrace file")
    }

    func testNewerFormatVersion() throws {
        let file = path("v2.h5")
        try FileManager.default.copyItem(atPath: good, toPath: file)
        try runPython("import h5py, sys\nwith h5py.File(sys.argv[1], 'a') as f:\n    f.attrs['format_version'] = 2\n", file)
        try assertRejected(file, "format_version 2 is newer than this forcetrace (reads 1)")
    }

    func testNotHDF5AtAll() throws {
        let file = path("text.h5")
        try "N: not a trace file\n".write(toFile: file, atomically: true, encoding: .utf8)
        try assertRejected(file, "is not an HDF5 file")
        let empty = path("empty.h5")
        FileManager.default.createFile(atPath: empty, contents: Data())
        try assertRejected(empty, "is empty, not a forcetrace HDF5 file")
    }

    /// Bytes overwritten across the whole file: whatever HDF5 notices must
    /// come out as one clear line; a run may also succeed where the damage
    /// hit unused space. A crash (a signal) fails the test.
    func testDamagedBytesAnywhere() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        var rejected = 0
        for offset in stride(from: 512, to: bytes.count - 16, by: max(1, bytes.count / 40)) {
            var damaged = bytes
            damaged.replaceSubrange(offset..<offset + 16, with: [UInt8](repeating: 0xa5, count: 16))
            let file = path("damaged.h5")
            try damaged.write(to: URL(fileURLWithPath: file))
            for arguments in [["info", file], ["export", file, "--format", "libinput", "-o", path("out.yml"), "--force"], ["report", file]] {
                let run = try FormatTestSupport.run(arguments)
                XCTAssertTrue(run.status == 0 || run.status == 1, "\(arguments) at offset \(offset) ended with \(run.status): \(run.stderr)")
                if run.status == 1 {
                    rejected += 1
                    XCTAssertTrue(run.stderr.hasPrefix("Error: \(file)"), run.stderr)
                    assertNoHDF5Dump(run.stderr)
                }
            }
        }
        XCTAssertGreaterThan(rejected, 0, "no damage was noticed at all")
    }

    private func runPython(_ script: String, _ argument: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, argument]
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw XCTSkip("python3 with h5py is not available") }
    }
}
