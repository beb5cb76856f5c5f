import Foundation
import XCTest
@testable import ForceTrace

/// Outputs written beside their path and moved into place: what is refused, followed and kept.
final class AtomicOutputTests: XCTestCase {
    /// In a sticky world-writable folder, a link owned by another user
    /// (nobody, 65534) is refused as an output; the same link owned by the
    /// user who runs the check (root) is followed. Needs root to chown the link.
    func testAnotherUsersLinkInAStickyFolderIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to give the link another owner") }
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let shared = directory.appendingPathComponent("shared").path
        XCTAssertEqual(mkdir(shared, 0o755), 0)
        XCTAssertEqual(chmod(shared, 0o1777), 0)
        let victim = directory.appendingPathComponent("victim.h5").path
        try Data("root's".utf8).write(to: URL(fileURLWithPath: victim))
        let link = shared + "/out.h5"
        XCTAssertEqual(symlink(victim, link), 0)
        XCTAssertEqual(lchown(link, 65534, 65534), 0)
        XCTAssertThrowsError(try OutputPath.check(link, replace: true)) { error in
            XCTAssertTrue("\(error)".contains("owned by another user (uid 65534)"), "\(error)")
        }
        XCTAssertEqual(lchown(link, 0, 0), 0)
        XCTAssertNoThrow(try OutputPath.check(link, replace: true))
    }

    /// Only a folder both sticky and world-writable is shared: in one that is
    /// sticky alone (1755) or world-writable alone (0777), another user's
    /// link is followed. Needs root to chown the link.
    func testAnotherUsersLinkIsFollowedOutsideASharedFolder() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to give the link another owner") }
        let directory = try FormatTestSupport.temporaryDirectory(self)
        for mode: mode_t in [0o1755, 0o777] {
            let name = String(mode, radix: 8)
            let folder = directory.appendingPathComponent("folder-\(name)").path
            XCTAssertEqual(mkdir(folder, 0o755), 0)
            XCTAssertEqual(chmod(folder, mode), 0)
            let target = directory.appendingPathComponent("target-\(name).h5").path
            try Data("target".utf8).write(to: URL(fileURLWithPath: target))
            let link = folder + "/out.h5"
            XCTAssertEqual(symlink(target, link), 0)
            XCTAssertEqual(lchown(link, 65534, 65534), 0)
            XCTAssertNoThrow(try OutputPath.check(link, replace: true), "mode \(name)")
        }
    }

    /// On a file system without hard links (link(2) fails with EPERM, as on
    /// vfat) the finished file is renamed into place when nothing is there,
    /// and refused, leaving what is there, when something is.
    func testPublishingWithoutHardLinksChecksThenRenames() throws {
        let directory = try makeTemporaryDirectory(self)
        func noHardLinks(_ from: String, _ fromFolder: FileDescriptor, _ to: String, _ toFolder: FileDescriptor) throws(SystemCallError) {
            throw SystemCallError(function: "linkat", path: to, errno: EPERM)
        }
        var links = 0
        let folder = try FolderWalk.open(directory.path, shownAs: directory.path, links: &links)
        for occupied in [false, true] {
            let temporary = directory.appendingPathComponent("tmp-\(occupied)").path
            let path = directory.appendingPathComponent("out-\(occupied).h5").path
            try Data("new".utf8).write(to: URL(fileURLWithPath: temporary))
            if occupied { try Data("old".utf8).write(to: URL(fileURLWithPath: path)) }
            do {
                try OutputPath.linkExclusively(TemporaryFiles.split(temporary).name, in: folder.descriptor, to: TemporaryFiles.split(path).name,
                                               in: folder.descriptor, shownAs: path, hardLink: noHardLinks)
                XCTAssertFalse(occupied, "an occupied path must be refused")
            } catch {
                XCTAssertTrue(occupied, "\(error)")
                XCTAssertTrue("\(error)".contains("already exists"), "\(error)")
            }
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), occupied ? "old" : "new")
            XCTAssertEqual(FileManager.default.fileExists(atPath: temporary), occupied)
        }
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
}
