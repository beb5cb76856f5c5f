import Foundation
import XCTest
@testable import ForceTrace

/// The walk to an output's folder: the protected-links rule at each
/// component, and the held folder that publishing goes through.
final class FolderWalkTests: XCTestCase {
    /// The rule at its boundaries: in a folder that is both sticky and
    /// world-writable, only the follower's and the folder owner's links are
    /// followed; losing either bit makes the folder private again.
    func testTheProtectedLinksRuleAtItsBoundaries() {
        let shared: mode_t = S_IFDIR | 0o1777
        let follower: uid_t = 1000, owner: uid_t = 0, other: uid_t = 65534
        func follows(_ link: uid_t, _ mode: mode_t) -> Bool {
            FolderWalk.mayFollow(linkOwner: link, folderMode: mode, folderOwner: owner, follower: follower)
        }
        XCTAssertFalse(follows(other, shared))
        XCTAssertTrue(follows(follower, shared), "the follower's own link")
        XCTAssertTrue(follows(owner, shared), "the folder owner's link")
        XCTAssertTrue(follows(other, S_IFDIR | 0o0777), "not sticky")
        XCTAssertTrue(follows(other, S_IFDIR | 0o1775), "sticky, not writable by others")
        XCTAssertFalse(follows(other, S_IFDIR | 0o1703), "writable by others is enough, whatever the group's bits")
        // uid 0 is no exception: root following another's link is refused.
        XCTAssertFalse(FolderWalk.mayFollow(linkOwner: other, folderMode: shared, folderOwner: 1, follower: 0))
    }

    /// Another user's link to a folder, as a middle component in a sticky
    /// world-writable folder, is refused naming the link and its owner, and
    /// nothing is created behind it; the same link owned by this user is
    /// followed, and the walk's path names where it led.
    func testAnotherUsersLinkOnTheWayIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to give the link another owner") }
        let directory = try makeTemporaryDirectory(self)
        let shared = directory.appendingPathComponent("shared").path, behind = directory.appendingPathComponent("behind").path
        XCTAssertEqual(mkdir(shared, 0o755), 0)
        XCTAssertEqual(chmod(shared, 0o1777), 0)
        XCTAssertEqual(mkdir(behind, 0o755), 0)
        XCTAssertEqual(symlink(behind, shared + "/LINK"), 0)
        XCTAssertEqual(lchown(shared + "/LINK", 65534, 65534), 0)
        let output = shared + "/LINK/out.h5"
        XCTAssertThrowsError(try AtomicOutput(path: output, replace: false)) { error in
            XCTAssertTrue("\(error)".contains("symbolic link (\(shared)/LINK) owned by another user (uid 65534)"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: behind), [])
        XCTAssertEqual(lchown(shared + "/LINK", 0, 0), 0)
        let target = try OutputTarget.resolve(output, replace: false)
        XCTAssertEqual(target.path, behind + "/out.h5")
    }

    /// A folder swapped for a link after the walk does not redirect the
    /// output: it lands in the folder that was checked.
    func testAFolderSwappedAfterTheWalkDoesNotRedirectTheOutput() throws {
        let directory = try makeTemporaryDirectory(self)
        let folder = directory.appendingPathComponent("out").path, elsewhere = directory.appendingPathComponent("elsewhere").path
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        XCTAssertEqual(mkdir(elsewhere, 0o755), 0)
        let output = try AtomicOutput(path: folder + "/a.txt", replace: false)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: output.temporaryPath))
        XCTAssertEqual(rename(folder, directory.appendingPathComponent("moved").path), 0)
        XCTAssertEqual(symlink(elsewhere, folder), 0)
        try output.commit()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [])
        XCTAssertEqual(try String(contentsOfFile: directory.appendingPathComponent("moved/a.txt").path, encoding: .utf8), "kept")
    }

    /// `.` stays where it is: the folder reached, and the path shown, are
    /// those without it (an error names "a/missing", not "a/./missing").
    func testDotIsTheFolderItselfAndLeavesNoTrace() throws {
        let directory = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(atPath: directory.appendingPathComponent("a").path, withIntermediateDirectories: true)
        var links = 0
        let folder = try FolderWalk.open(directory.path + "/./a/.", shownAs: "x", links: &links)
        XCTAssertEqual(folder.path, directory.appendingPathComponent("a").path)
        XCTAssertThrowsError(try FolderWalk.open(directory.path + "/a/./missing", shownAs: "x", links: &links)) { error in
            XCTAssertTrue("\(error)".contains("the folder \(directory.path)/a/missing does not exist"), "\(error)")
        }
    }

    /// `..` after a link goes up from where the link led, as the kernel does.
    func testDotDotAfterALinkLeavesTheLinksTarget() throws {
        let directory = try makeTemporaryDirectory(self)
        let real = directory.appendingPathComponent("a/b").path
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(real, directory.appendingPathComponent("hop").path), 0)
        var links = 0
        let folder = try FolderWalk.open(directory.path + "/hop/..", shownAs: "x", links: &links)
        XCTAssertEqual(folder.path, directory.appendingPathComponent("a").path)
        XCTAssertEqual(links, 1)
        XCTAssertEqual(try folder.descriptor.status().st_ino, try Syscall.status(directory.appendingPathComponent("a").path).st_ino)
    }
}
