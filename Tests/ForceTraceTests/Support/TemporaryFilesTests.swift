import Foundation
import XCTest
@testable import ForceTrace

/// Temporaries: which are registered for removal, and which leftovers are taken as orphaned.
final class TemporaryFilesTests: XCTestCase {
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
        process.arguments = ["ForceTraceTests.TemporaryFilesTests/testSignalChild"]
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

    /// The leftover of a run killed before the temporary folders came is a
    /// bare file, ".NAME.KIND-PID" (one part after the kind); a folder is
    /// ".NAME.KIND-PID-XXXXXX" (two parts, the second of 6 characters). Two
    /// parts with a second of 3 characters are neither.
    func testABareLeftoverFileHasOnePart() {
        let bare = TemporaryFiles.leftover(named: ".out.h5.partial-123", in: "/d", outputName: "out.h5")
        XCTAssertEqual(bare?.path, "/d/.out.h5.partial-123")
        XCTAssertEqual(bare?.pid, 123)
        XCTAssertEqual(bare?.isFolder, false)
        XCTAssertNil(TemporaryFiles.leftover(named: ".out.h5.partial-123-abc", in: "/d", outputName: "out.h5"))
        XCTAssertEqual(TemporaryFiles.leftover(named: ".out.h5.partial-123-abcdef", in: "/d", outputName: "out.h5")?.isFolder, true)
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
}
