import Foundation
import XCTest
@testable import ForceTrace

/// How far a `ByteSource` has read, for the progress line: a fraction of a
/// regular file or of bytes in memory, nothing for an empty file (no 0/0)
/// or a stream.
final class ByteSourceTests: XCTestCase {
    func testFractionReadOfAFileAndOfAnEmptyOne() throws {
        let directory = try makeTemporaryDirectory(self)
        let empty = directory.appendingPathComponent("empty.txt").path, ten = directory.appendingPathComponent("ten.txt").path
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        XCTAssertTrue(FileManager.default.createFile(atPath: ten, contents: Data("0123456789".utf8)))
        let nothing = try ByteSource(path: empty)
        XCTAssertEqual(nothing.size, 0)
        XCTAssertNil(nothing.fractionRead)
        let source = try ByteSource(path: ten)
        XCTAssertEqual(source.fractionRead, 0)
        var buffer = [UInt8](repeating: 0, count: 64)
        var total = 0
        while true {
            let count = try buffer.withUnsafeMutableBytes { try source.read(into: $0.baseAddress!, capacity: $0.count) }
            if count == 0 { break }
            total += count
        }
        XCTAssertEqual(total, 10)
        XCTAssertEqual(source.fractionRead, 1)
        XCTAssertEqual(ByteSource(bytes: [1, 2, 3], file: "memory").fractionRead, 0, "bytes in memory have a size")
    }
}
