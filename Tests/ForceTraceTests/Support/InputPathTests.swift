import Foundation
import XCTest
@testable import ForceTrace

/// `InputPath`: a name that is not UTF-8 opens through `/proc/self/fd/N`
/// and is shown as its own bytes, escaped; `FileKind` tells a FIFO without opening it.
final class InputPathTests: XCTestCase {
    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "inputpath-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testANameThatIsNotUTF8OpensThroughItsDescriptorAndShowsItsBytes() throws {
        let folder = try folder()
        let bytes = Array(folder.utf8) + Array("/a".utf8) + [0xFF] + Array("b.h5".utf8)
        let fd = open(bytes.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(write(fd, "abc", 3), 3)
        close(fd)
        let path = InputPath(bytes: bytes).openable
        XCTAssertTrue(path.hasPrefix("/proc/self/fd/"), path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "abc")
        XCTAssertEqual(FileKind(path: path), .regular)
        XCTAssertEqual(InputPath.displayName(path), TerminalText.escape(folder) + "/a\\xffb.h5")
        XCTAssertEqual("\(path): x" as TerminalText, TerminalText(escaping: folder) + "/a\\xffb.h5: x")
        // Only that descriptor's number: a longer one is another path.
        XCTAssertEqual(InputPath.displayName(path + "7"), path + "7")
        XCTAssertEqual(InputPath.displayName(path + "/x"), TerminalText.escape(folder) + "/a\\xffb.h5/x")
        XCTAssertTrue(InputPath.isNotUTF8(path))
        XCTAssertFalse(InputPath.isNotUTF8(folder))
    }

    func testAUTF8NameIsItself() throws {
        let name = "c\u{1}d.h5"
        XCTAssertEqual(InputPath(bytes: Array(name.utf8)).openable, name)
        XCTAssertEqual(InputPath.displayName(name), name)
    }

    func testAMissingNameFailsAsNoSuchFileUnderItsRealName() throws {
        let path = InputPath(bytes: Array("/nonexistent/n".utf8) + [0xFE]).openable
        XCTAssertEqual(FileKind(path: path), .missing)
        XCTAssertThrowsError(try FileKind.requireRegular(path, "a trace file")) { error in
            XCTAssertEqual(ForceTraceError.terminalText(error).rendered, "/nonexistent/n\\xfe: no such file")
        }
    }

    func testAFIFOIsToldWithoutOpeningIt() throws {
        let fifo = try folder() + "/f.h5"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(FileKind(path: fifo), .fifo)
        // Opening the FIFO would wait for a writer: bounded, and the waiter freed on a timeout.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var message = ""
        DispatchQueue.global().async {
            do { _ = try TraceReader(path: fifo) } catch { message = "\(error)" }
            done.signal()
        }
        if done.wait(timeout: .now() + 10) == .timedOut {
            XCTFail("TraceReader blocked on a FIFO")
            close(open(fifo, O_WRONLY | O_NONBLOCK))
            done.wait()
        }
        XCTAssertEqual(message, "\(fifo): is a FIFO, not a trace file")
    }
}
