import Foundation
import XCTest
@testable import HDF5

/// `Column.read`: the chunks a range of a chunk's rows or more touches are
/// read as stored and decoded here, a shorter range goes through `H5Dread`,
/// and the values are `H5Dread`'s.
final class ColumnReadTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self, prefix: "columnread")
    }

    /// 10 000 rows in chunks of 1024: 9 whole chunks and 784 rows.
    private func written(_ compression: Compression, rows: Int = 10_000) throws -> (path: String, values: [Int64]) {
        let path = directory.appendingPathComponent("t.h5").path
        let values = ColumnBlocksTests.values(rows).t
        let file = try File.create(path)
        let column: Column<Int64> = try file.root.createColumn("t", chunkRows: 1024, compression: compression)
        try column.append(contentsOf: values)
        try column.close()
        try file.close()
        return (path, values)
    }

    /// Reads `range` from a freshly opened column: its values and what decoded them.
    private func read(_ path: String, _ range: Range<Int>, cached: Bool = true) throws -> (values: [Int64], reads: ChunkReads) {
        let file = try File.open(path)
        defer { try? file.close() }
        let column: Column<Int64> = try file.root.openColumn("t")
        return (try column.read(range, cached: cached), column.readCounts)
    }

    /// A range read once (`cached: false`) is decoded here however short:
    /// the last row alone, a row of a whole chunk, and a range across two.
    func testAShortRangeReadOnceIsDecodedHere() throws {
        for compression in [Compression.standard, try Compression(deflateLevel: 6, shuffle: false), Compression.none] {
            let (path, values) = try written(compression)
            for (range, decoded) in [(9999..<10_000, 1), (1024..<1025, 1), (1020..<1030, 2), (3000..<3000, 0)] {
                let result = try read(path, range, cached: false)
                XCTAssertEqual(result.values, Array(values[range]), "\(compression) \(range)")
                XCTAssertEqual(result.reads, ChunkReads(decoded: decoded, library: 0), "\(compression) \(range)")
            }
            try FileManager.default.removeItem(atPath: path)
        }
    }

    func testTheChunksOfALongRangeAreDecodedHereAndAShortRangeByH5Dread() throws {
        for compression in [Compression.standard, try Compression(deflateLevel: 6, shuffle: false), Compression.none] {
            let (path, values) = try written(compression)
            // (range, chunks decoded here, H5Dread calls): pinned where a chunk begins and ends.
            let cases: [(Range<Int>, Int, Int)] = [
                (0..<10_000, 10, 0),      // the partial last chunk decoded too
                (100..<9000, 9, 0),       // a part of a chunk at each end
                (1024..<2048, 1, 0),      // exactly one chunk
                (1023..<2048, 2, 0),      // one row before it: that row's chunk decoded for it
                (1024..<2049, 2, 0),      // one row after it
                (1024..<2047, 0, 1),      // less than a chunk: H5Dread alone
                (0..<9216, 9, 0),         // up to the last whole chunk's end
                (5000..<5000, 0, 0),
            ]
            for (range, decoded, library) in cases {
                let result = try read(path, range)
                XCTAssertEqual(result.values, Array(values[range]), "\(compression) \(range)")
                XCTAssertEqual(result.reads.decoded, decoded, "chunks decoded for \(range) (\(compression))")
                XCTAssertEqual(result.reads.library, library, "H5Dread calls for \(range) (\(compression))")
            }
            try FileManager.default.removeItem(atPath: path)
        }
    }

    /// Fixed-length strings read from their chunks as stored, whole and the
    /// partial last one, give back what was written, for each filter set.
    func testFixedLengthStringsReadBackFromTheirChunks() throws {
        let values = (0..<2500).map { index in index % 7 == 0 ? "" : String(repeating: "é", count: index % 5) + "peek-\(index)" }
        for compression in [Compression.standard, try Compression(deflateLevel: 6, shuffle: false), Compression.none] {
            let path = directory.appendingPathComponent("s.h5").path
            let file = try File.create(path)
            try file.root.writeCompressedStrings("s", values, chunkRows: 1000, compression: compression)
            try file.close()
            let reader = try File.open(path)
            XCTAssertEqual(try reader.root.readStrings("s"), values, "\(compression)")
            try reader.close()
            try FileManager.default.removeItem(atPath: path)
        }
    }

    /// A NUL ends a string when it is stored, fixed-length as variable-length
    /// (HDF5 strings are C strings; docs/FORMAT.md, "Names and strings").
    func testANulEndsAStringOfEitherKind() throws {
        let path = directory.appendingPathComponent("nul.h5").path
        let file = try File.create(path)
        let values = ["a\u{0}b", "\u{0}", "c", "d\u{0}\u{0}"]
        try file.root.writeCompressedStrings("fixed", values)
        try file.root.writeStrings("variable", values)
        try file.close()
        let reader = try File.open(path)
        defer { try? reader.close() }
        XCTAssertEqual(try reader.root.readStrings("fixed"), ["a", "", "c", "d"])
        XCTAssertEqual(try reader.root.readStrings("variable"), ["a", "", "c", "d"])
    }

    /// Long strings get fewer rows a chunk, so that no chunk holds more than
    /// `Group.maximumChunkBytes` (what a reader refuses): 16 MiB of 4096-byte
    /// rows is 4096 rows, one byte wider is 4095. A string of exactly a
    /// chunk's bytes is one chunk; one byte more is refused.
    func testLongStringsTakeFewerRowsAChunk() throws {
        for (width, chunkRows) in [(4096, 4096), (4097, 4095), (1000, 5000)] {
            let path = directory.appendingPathComponent("s.h5").path
            let file = try File.create(path)
            let values = (0..<5000).map { String(repeating: "k", count: $0 == 7 ? width : 3) }
            try file.root.writeCompressedStrings("s", values, chunkRows: 16384)
            let storage = try file.root.storage(of: "s")
            XCTAssertEqual(storage.chunkRows, chunkRows, "width \(width)")
            XCTAssertLessThanOrEqual(try XCTUnwrap(storage.chunkBytes), UInt64(Group.maximumChunkBytes))
            try file.close()
            try FileManager.default.removeItem(atPath: path)
        }
        let path = directory.appendingPathComponent("wide.h5").path
        let file = try File.create(path)
        try file.root.writeCompressedStrings("whole", [String(repeating: "k", count: Group.maximumChunkBytes)])
        XCTAssertEqual(try file.root.storage(of: "whole").chunkBytes, UInt64(Group.maximumChunkBytes))
        XCTAssertThrowsError(try file.root.writeCompressedStrings("s", [String(repeating: "k", count: Group.maximumChunkBytes + 1)])) {
            XCTAssertTrue("\($0)".contains("a string of 16777217 bytes is longer than the 16777216 bytes a chunk may hold"), "\($0)")
        }
        try file.close()
    }

    func testAConvertedTypeIsReadByH5Dread() throws {
        let (path, values) = try written(.standard)
        let file = try File.open(path)
        defer { try? file.close() }
        // Stored as Int64, read as Double: HDF5 converts.
        let column: Column<Double> = try file.root.openColumn("t")
        XCTAssertEqual(try column.read(0..<4096), values[0..<4096].map(Double.init))
        XCTAssertEqual(column.readCounts.decoded, 0)
        XCTAssertEqual(column.readCounts.library, 1)
    }

    func testADamagedChunkFailsWithH5DreadsError() throws {
        let (path, _) = try written(.standard)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        handle.write(Data(repeating: 0xA5, count: 64))
        try handle.close()
        let file = try File.open(path)
        defer { try? file.close() }
        let column: Column<Int64> = try file.root.openColumn("t")
        var libraryError: String?
        do { _ = try ColumnBlocksTests.libraryBytes(column) } catch { libraryError = "\(error)" }
        var readError: String?
        do { _ = try column.readAll() } catch { readError = "\(error)" }
        XCTAssertNotNil(libraryError, "the damage is inside a chunk")
        XCTAssertEqual(readError, libraryError)
    }

    /// Unshuffling puts byte `j` of row `i` from plane `j`, for every element
    /// size and row count (none, one, around multiples of 16), and writes
    /// nothing past the rows.
    func testUnshuffleTakesEachByteFromItsPlaneAtEveryRowCount() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for size in [1, 2, 3, 4, 8] {
            for rows in [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 500, 1024, 1039] {
                let planes = (0..<(rows * size)).map { _ -> UInt8 in
                    state ^= state << 13; state ^= state >> 7; state ^= state << 17
                    return UInt8(truncatingIfNeeded: state)
                }
                var expected = [UInt8](repeating: 0, count: rows * size)
                for row in 0..<rows { for byte in 0..<size { expected[row * size + byte] = planes[byte * rows + row] } }
                var output = [UInt8](repeating: 0xEE, count: rows * size + 16)
                planes.withUnsafeBytes { source in
                    output.withUnsafeMutableBytes { target in
                        ChunkDecoder.unshuffle(source.baseAddress ?? UnsafeRawPointer(target.baseAddress!), into: target.baseAddress!,
                                               rows: rows, elementSize: size)
                    }
                }
                XCTAssertEqual(Array(output[0..<(rows * size)]), expected, "\(rows) rows of \(size) bytes")
                XCTAssertEqual(Array(output[(rows * size)...]), [UInt8](repeating: 0xEE, count: 16), "nothing written past \(rows) rows of \(size)")
            }
        }
    }
}
