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
        // Imported from a copy in the temporary directory, so the file's layout
        // (its source attribute holds the path) is the same in every checkout.
        let sample = directory.appendingPathComponent("touchscreen-mixed.evemu")
        try FileManager.default.copyItem(at: FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu"), to: sample)
        let run = try FormatTestSupport.run(["import", sample.path, "-o", good])
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
            try assertRejected(file, "truncated file: it ends at byte \(size)")
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

    /// A label class that is none of the documented ones (a damaged heap
    /// string, or a foreign writer) is refused by export as by report.
    func testUnknownLabelClassIsRefused() throws {
        let file = path("bad-label.h5")
        try FileManager.default.copyItem(atPath: good, toPath: file)
        try runPython("""
            import h5py, sys
            with h5py.File(sys.argv[1], 'a') as f:
                labels = f['recordings/touchscreen-mixed/labels']
                classes = [c.decode() if isinstance(c, bytes) else c for c in labels['class'][:]]
                classes[3] = 'deeep'
                del labels['class']
                labels.create_dataset('class', data=classes, dtype=h5py.string_dtype())
            """, file)
        for arguments in [["export", file, "--format", "evemu", "-o", path("out.evemu")], ["report", file]] {
            let run = try FormatTestSupport.run(arguments)
            XCTAssertEqual(run.status, 1, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("labels/class has 'deeep'"), run.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.evemu")))
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
    /// come out as one clear line (status 1). A run that succeeds must give
    /// exactly what the undamaged file gives (the damage hit unused space or
    /// bytes nothing reads), or say that something is off (a warning, or a
    /// recording shown as incomplete).
    /// A crash (a signal) fails the test.
    func testDamagedBytesAnywhere() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let file = path("damaged.h5"), exported = path("out.yml")
        let commands = [["info", file], ["export", file, "--format", "libinput", "-o", exported, "--force"], ["report", file]]
        // What each command gives for the undamaged bytes at the same path.
        try bytes.write(to: URL(fileURLWithPath: file))
        var expected: [String] = []
        for arguments in commands {
            let run = try FormatTestSupport.run(arguments)
            XCTAssertEqual(run.status, 0, "\(arguments) on the undamaged file: \(run.stderr)")
            expected.append(arguments[0] == "export" ? try String(contentsOfFile: exported, encoding: .utf8) : run.stdout)
        }
        var rejected = 0, identical = 0
        for offset in stride(from: 512, to: bytes.count - 16, by: max(1, bytes.count / 40)) {
            var damaged = bytes
            damaged.replaceSubrange(offset..<offset + 16, with: [UInt8](repeating: 0xa5, count: 16))
            try damaged.write(to: URL(fileURLWithPath: file))
            try? FileManager.default.removeItem(atPath: exported)
            for (arguments, undamaged) in zip(commands, expected) {
                let run = try FormatTestSupport.run(arguments)
                switch run.status {
                case 0:
                    let output = arguments[0] == "export" ? (try? String(contentsOfFile: exported, encoding: .utf8)) ?? "" : run.stdout
                    if output == undamaged {
                        identical += 1
                    } else if !run.stderr.contains("warning") && !output.contains("incomplete")  // a damaged import_status: info says so,
                                && !output.contains("warning: not finished") {  // and report, in its text
                        XCTFail("\(arguments[0]) at offset \(offset): exit 0, no warning, and output unlike the undamaged file's: \(firstDifference(output, undamaged))")
                    }
                case 1:
                    rejected += 1
                    XCTAssertTrue(run.stderr.hasPrefix("Error: \(file)"), run.stderr)
                    assertNoHDF5Dump(run.stderr)
                default:
                    XCTFail("\(arguments) at offset \(offset) ended with \(run.status): \(run.stderr)")
                }
            }
        }
        XCTAssertGreaterThan(rejected, 0, "no damage was noticed at all")
        XCTAssertGreaterThan(identical, 0, "no damage hit unused bytes: is the sweep still covering the file?")
    }

    private func firstDifference(_ a: String, _ b: String) -> String {
        let left = a.split(separator: "\n", omittingEmptySubsequences: false), right = b.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, (x, y)) in zip(left, right).enumerated() where x != y { return "line \(index + 1): '\(x.prefix(120))' instead of '\(y.prefix(120))'" }
        return "\(left.count) lines instead of \(right.count)"
    }
}
