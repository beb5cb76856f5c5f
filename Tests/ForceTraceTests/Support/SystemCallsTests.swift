import Foundation
@testable import ForceTrace
import XCTest

/// The one syscall funnel (`Support/SystemCalls.swift`), the recorder's lock
/// on its live file, and the one fsync policy.
final class SystemCallsTests: XCTestCase {
    // MARK: - No raw libc file call outside the funnel

    static let funnel = "Sources/ForceTrace/Support/SystemCalls.swift"

    /// Calls whose names nothing in the project reuses: any unqualified call
    /// counts (not a method: a `.` before the name excludes `Syscall.rename`).
    static let distinctNames = [
        "fsync", "fdatasync", "flock", "fstat", "lstat", "fstatat", "rename", "renameat", "unlink", "unlinkat",
        "mkdir", "rmdir", "ftruncate", "lseek", "ioctl", "fcntl", "mkstemp", "mkdtemp", "posix_fadvise", "madvise",
        "fchmod", "fchown", "readlink", "readlinkat", "fdopendir", "opendir", "readdir", "closedir", "statvfs", "openat", "pread",
        "pwrite", "dup", "dup2", "isatty", "linkat", "symlink", "truncate", "mmap", "munmap", "posix_fallocate",
    ]

    /// Names the project's own methods share (`table.read`, `open(.labels)`,
    /// `writer.close()`): counted when qualified (`Glibc.read(`) or called
    /// unqualified with a libc call's arguments.
    static let sharedNamePatterns = [
        #"(?<![\w.])open\([^)]*\bO_[A-Z]"#,
        #"(?<![\w.])(read|write|pread|pwrite)\(\s*[\w.]+\s*,[^:,()]+,[^:,()]+\)"#,
        #"(?<![\w.])close\(\s*[\w.]+\s*\)"#,
        #"(?<![\w.])stat\(\s*[^)\s]"#,
        #"(?<![\w.])(link|access)\([^():]*,[^():]*\)"#,
        #"(?<![\w.])(poll|pipe)\(\s*[^)\s]"#,
        #"(?<=\bGlibc\.|\bFoundation\.)(open|read|write|close|stat|link|access|poll|pipe)\("#,
    ]

    static let patterns: [NSRegularExpression] = {
        let distinct = #"(?:(?<![\w.])|(?<=\bGlibc\.)|(?<=\bFoundation\.))("# + distinctNames.joined(separator: "|") + #")\("#
        return ([distinct] + sharedNamePatterns).map { try! NSRegularExpression(pattern: $0) }
    }()

    /// The libc calls in one line of Swift, comments and string literals left out.
    static func rawCalls(in line: String) -> [String] {
        var code = line.replacingOccurrences(of: #""(?:[^"\\]|\\.)*""#, with: "\"\"", options: .regularExpression)
        if let comment = code.range(of: "//") { code = String(code[..<comment.lowerBound]) }
        let range = NSRange(code.startIndex..., in: code)
        var found: [String] = []
        for pattern in patterns {
            for match in pattern.matches(in: code, range: range) {
                let text = String(code[Range(match.range, in: code)!])
                found.append(String(text.prefix(while: { $0 != "(" })).replacingOccurrences(of: "Glibc.", with: "").replacingOccurrences(of: "Foundation.", with: ""))
            }
        }
        return found
    }

    /// Every raw call in the project's Swift sources: (file, line, name).
    static func rawCallsInSources() throws -> [(file: String, line: Int, name: String)] {
        var found: [(String, Int, String)] = []
        for folder in ["Sources/ForceTrace", "Sources/forcetrace"] {
            let root = packageRoot.appendingPathComponent(folder)
            let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: root.path)).filter { $0.hasSuffix(".swift") }
            for file in files {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    for name in rawCalls(in: String(line)) { found.append((folder + "/" + file, number + 1, name)) }
                }
            }
        }
        return found
    }

    func testTheScannerSeesRawCallsAndNotTheProjectsMethods() {
        XCTAssertEqual(Self.rawCalls(in: "        let fd = open(path, O_RDONLY | O_CLOEXEC)"), ["open"])
        XCTAssertEqual(Self.rawCalls(in: "        guard fsync(fd) == 0 else { throw e }"), ["fsync"])
        XCTAssertEqual(Self.rawCalls(in: "        _ = Foundation.fsync(fd)"), ["fsync"])
        XCTAssertEqual(Self.rawCalls(in: "        let got = Glibc.read(descriptor, raw.baseAddress! + end, wanted)"), ["read"])
        XCTAssertEqual(Self.rawCalls(in: "        if liveLock >= 0 { flock(liveLock, LOCK_SH | LOCK_NB) }"), ["flock"])
        XCTAssertEqual(Self.rawCalls(in: "        guard stat(path, &status) == 0 else {"), ["stat"])
        XCTAssertEqual(Self.rawCalls(in: "            close(fd)"), ["close"])
        XCTAssertEqual(Self.rawCalls(in: "    _ = madvise(aligned, end - start, MADV_HUGEPAGE)"), ["madvise"])
        XCTAssertEqual(Self.rawCalls(in: "        if link(temporary, path) == 0 { return }"), ["link"])
        // The project's methods, the funnel's own entry points, comments and strings.
        for line in ["        let table = try open(.labels)", "        try table.write(L.level, levels)",
                     "        write(value, indent: 0, into: &out)", "        try writer.close()",
                     "        try close(RecordingEnding(groundTruth: nil, damage: nil, events: 0, frames: 0))",
                     "        var info = stat()", "        try Syscall.rename(a, to: b)", "        try file.sync()",
                     "        /// The corresponding C function is `fsync(2)`.", "        x() // then close(fd)",
                     "        throw E(\"flock(fd) failed\")"] {
            XCTAssertEqual(Self.rawCalls(in: line), [], line)
        }
    }

    /// No libc file call outside the funnel; and the scan sees the funnel's
    /// own, so it cannot pass by seeing nothing.
    func testLibcFileCallsGoThroughTheFunnelOnly() throws {
        let calls = try Self.rawCallsInSources()
        let outside = calls.filter { $0.file != Self.funnel }
        XCTAssertEqual(outside.map { "\($0.file):\($0.line): \($0.name)(" }, [],
                       "call these through FileDescriptor or Syscall (\(Self.funnel))")
        let inside = Set(calls.filter { $0.file == Self.funnel }.map(\.name))
        for name in ["open", "read", "write", "close", "fsync", "flock", "fstat", "stat", "lstat", "rename", "link",
                     "unlink", "rmdir", "mkdtemp", "readlink", "access", "fchmod", "fchown", "poll", "pipe",
                     "fcntl", "opendir", "readdir", "fdopendir", "fstatat", "unlinkat", "statvfs", "isatty"] {
            XCTAssertTrue(inside.contains(name), "the scan does not see \(name)( in \(Self.funnel): \(inside.sorted())")
        }
    }

    // MARK: - The recorder's lock

    private func sample() throws -> Recording {
        try Evemu.read(packageRoot.appendingPathComponent("samples/touchscreen-mixed.evemu").path)
    }

    /// While one recorder writes a file, a second on the same output fails
    /// naming the file and what to do: with --force (replace) and without,
    /// where "pass --force" would be refused too.
    func testASecondRecorderOnTheSameOutputFails() throws {
        let directory = try makeTemporaryDirectory(self)
        let output = directory.appendingPathComponent("live.h5").path
        let recording = try sample()
        let first = try Recorder(source: ReplaySource(recording: recording, speed: nil), path: output)
        for replace in [true, false] {
            XCTAssertThrowsError(try Recorder(source: ReplaySource(recording: recording, speed: nil), path: output, replace: replace)) { error in
                let text = "\(ForceTraceError.userFacing(error))"
                XCTAssertTrue(text.hasPrefix(output + ": "), text)
                XCTAssertTrue(text.contains("open in another process"), text)
                XCTAssertTrue(text.contains("fuser -v \(output)"), text)
                XCTAssertFalse(text.contains("pass --force"), text)
            }
        }
        let result = try first.run(stop: nil)
        XCTAssertEqual(result.summary.events, Int64(recording.events.count))
        XCTAssertEqual(try TraceReader(path: output).recordingNames.count, 1)
        // Once the first has finished, a second may replace the file.
        XCTAssertNoThrow(try Recorder(source: ReplaySource(recording: recording, speed: nil), path: output, replace: true).run(stop: nil))
    }

    /// The recorder checks flock's result: a lock it cannot take (another
    /// open file description holds an exclusive one) is an error naming
    /// the output and what to do, not a recording left unguarded.
    func testTheLiveFileLockIsChecked() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("locked.h5").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        let holder = try FileDescriptor.open(path, O_RDONLY)
        defer { holder.closeIgnoringErrors() }
        try holder.lock(LOCK_EX | LOCK_NB)
        XCTAssertThrowsError(try Recorder.lockLiveFile(path, shownAs: "out.h5")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("out.h5: cannot be recorded: another process holds it locked"), text)
            XCTAssertTrue(text.contains("fuser -v out.h5"), text)
        }
        try holder.lock(LOCK_UN)
        let lock = try XCTUnwrap(Recorder.lockLiveFile(path, shownAs: "out.h5"))
        defer { lock.closeIgnoringErrors() }
        // Held shared: an exclusive lock (a replacing command's) is refused.
        XCTAssertThrowsError(try holder.lock(LOCK_EX | LOCK_NB)) { error in
            XCTAssertEqual((error as? SystemCallError)?.errno, EWOULDBLOCK)
        }
        XCTAssertTrue(OutputPath.isHeld(path))
    }

    // MARK: - Errors and the fsync policy

    func testSystemCallErrorsRenderAsForceTraceErrors() {
        let error = SystemCallError(function: "open", path: "/dev/input/event7", errno: EACCES)
        XCTAssertEqual(error.description, "/dev/input/event7: open failed: Permission denied (errno 13)")
        XCTAssertEqual("\(ForceTraceError.userFacing(error))", error.description)
        XCTAssertThrowsError(try FileDescriptor.open("/nonexistent/forcetrace", O_RDONLY)) { error in
            XCTAssertEqual(error as? SystemCallError, SystemCallError(function: "open", path: "/nonexistent/forcetrace", errno: ENOENT))
        }
    }

    /// One fsync policy (`FileDescriptor.sync`): a file that has nothing to
    /// write back (a pipe: EINVAL) is fine; any other failure is an error.
    func testSyncFailsOnlyWhenSomethingCouldNotBeWritten() throws {
        let (readEnd, writeEnd) = try Syscall.pipe()
        defer { readEnd.closeIgnoringErrors(); writeEnd.closeIgnoringErrors() }
        XCTAssertNoThrow(try writeEnd.sync())
        XCTAssertThrowsError(try FileDescriptor(raw: -1, path: "gone").sync()) { error in
            XCTAssertEqual((error as? SystemCallError)?.errno, EBADF)
            XCTAssertEqual((error as? SystemCallError)?.function, "fsync")
        }
        let directory = try makeTemporaryDirectory(self)
        let file = try FileDescriptor.open(directory.appendingPathComponent("f").path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        XCTAssertEqual(try file.write("abc", count: 3), 3)
        XCTAssertNoThrow(try file.sync())
        XCTAssertNoThrow(try file.close())
        var links = 0
        XCTAssertNoThrow(try OutputPath.syncDirectory(FolderWalk.open(directory.path, shownAs: "f", links: &links), shownAs: "f"))
    }

    /// libevdev returns 0 or more on success and -errno on failure: 1 and 0
    /// are values, -1 is EPERM, and -EINTR is retried.
    func testLibevdevZeroIsSuccess() {
        func result(_ values: [Int32]) -> Result<Int32, SystemCallError> {
            var left = values
            return Syscall.negativeErrno("libevdev_f", "/dev/input/event0") { left.removeFirst() }
        }
        XCTAssertEqual(try result([1]).get(), 1)
        XCTAssertEqual(try result([0]).get(), 0)
        XCTAssertEqual(try result([-EINTR, 0]).get(), 0)
        guard case .failure(let error) = result([-1]) else { return XCTFail("-1 is a failure") }
        XCTAssertEqual(error.errno, EPERM)
    }
}
