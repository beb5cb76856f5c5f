import Foundation
import XCTest
@testable import HDF5

/// The block reader's fast path (raw chunks decoded here) against `H5Dread`,
/// on every storage the files can have.
final class ColumnBlocksTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self, prefix: "columnblocks")
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Values that shuffle and deflate both change: every byte plane varies.
    static func values(_ count: Int) -> (t: [Int64], c: [Int32], s: [Int16], f: [UInt8], d: [Double]) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 11 }
        var time: Int64 = 1_700_000_000_000_000_000
        var t: [Int64] = [], c: [Int32] = [], s: [Int16] = [], f: [UInt8] = [], d: [Double] = []
        for row in 0..<count {
            time += Int64(next() % 20_000_000)
            t.append(time)
            c.append(Int32(truncatingIfNeeded: next()) >> (row % 20))
            s.append(Int16(truncatingIfNeeded: next() % 7) - 1)
            f.append(UInt8(truncatingIfNeeded: next() % 5))
            d.append(Double(next() % 1000) / 7)
        }
        return (t, c, s, f, d)
    }

    /// Reads columns through `ColumnBlocks` and checks every value against `reference` (`H5Dread`'s).
    private func checkBlocks(_ columns: [BlockColumn], reference: [[UInt8]], rows: Int, workers: Int, preferredRows: Int,
                             file: StaticString = #filePath, line: UInt = #line) throws -> ChunkReads {
        let blocks = try ColumnBlocks(columns, rowCount: rows, preferredRows: preferredRows, workers: workers)
        defer { blocks.finish() }
        var seen = [[UInt8]](repeating: [], count: columns.count)
        var expectedStart = 0
        while let block = try blocks.next() {
            XCTAssertEqual(block.rows.lowerBound, expectedStart, "blocks come in row order", file: file, line: line)
            expectedStart = block.rows.upperBound
            for index in columns.indices {
                let size = reference[index].count / max(1, rows)
                let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(block.values(index, as: UInt8.self).baseAddress!),
                                                   count: block.rows.count * size)
                seen[index].append(contentsOf: bytes)
            }
        }
        XCTAssertEqual(expectedStart, rows, file: file, line: line)
        for index in columns.indices {
            XCTAssertTrue(seen[index] == reference[index], "column \(index) differs from H5Dread (workers \(workers))", file: file, line: line)
        }
        return blocks.readCounts
    }

    private func bytes<T>(_ values: [T]) -> [UInt8] { values.withUnsafeBytes { Array($0) } }

    /// Every row through `H5Dread` alone (`Column.read` decodes whole chunks itself).
    static func libraryBytes<T>(_ column: Column<T>) throws -> [UInt8] {
        var values = [T](repeating: .zero, count: column.count)
        try values.withUnsafeMutableBytes { buffer in
            try withHDF5 { try column.readThroughLibrary(0..<column.count, into: buffer.baseAddress!) }
        }
        return values.withUnsafeBytes { Array($0) }
    }

    private func writeTable(_ name: String, rows: Int, chunkRows: Int, compression: Compression) throws -> String {
        let filePath = path(name)
        let v = Self.values(rows)
        let file = try File.create(filePath)
        let t: Column<Int64> = try file.root.createColumn("t", chunkRows: chunkRows, compression: compression)
        let c: Column<Int32> = try file.root.createColumn("c", chunkRows: chunkRows, compression: compression)
        let s: Column<Int16> = try file.root.createColumn("s", chunkRows: chunkRows, compression: compression)
        let f: Column<UInt8> = try file.root.createColumn("f", chunkRows: chunkRows, compression: compression)
        let d: Column<Double> = try file.root.createColumn("d", chunkRows: chunkRows, compression: compression)
        try t.append(contentsOf: v.t); try c.append(contentsOf: v.c); try s.append(contentsOf: v.s)
        try f.append(contentsOf: v.f); try d.append(contentsOf: v.d)
        try t.close(); try c.close(); try s.close(); try f.close(); try d.close()
        try file.close()
        return filePath
    }

    private func checkFile(_ filePath: String, rows: Int, workers: Int, preferredRows: Int = 4096) throws -> ChunkReads {
        let file = try File.open(filePath)
        defer { try? file.close() }
        let t: Column<Int64> = try file.root.openColumn("t")
        let c: Column<Int32> = try file.root.openColumn("c")
        let s: Column<Int16> = try file.root.openColumn("s")
        let f: Column<UInt8> = try file.root.openColumn("f")
        let d: Column<Double> = try file.root.openColumn("d")
        let reference = [try Self.libraryBytes(t), try Self.libraryBytes(c), try Self.libraryBytes(s), try Self.libraryBytes(f),
                         try Self.libraryBytes(d)]
        return try checkBlocks([BlockColumn(t), BlockColumn(c), BlockColumn(s), BlockColumn(f), BlockColumn(d)],
                               reference: reference, rows: rows, workers: workers, preferredRows: preferredRows)
    }

    func testShuffleDeflateChunksDecodeHereAndEqualH5Dread() throws {
        // 10_000 rows of 1024-row chunks: 9 whole chunks and a partial one.
        let filePath = try writeTable("standard.h5", rows: 10_000, chunkRows: 1024, compression: .standard)
        for workers in [0, 1, 2, 3] {
            let counts = try checkFile(filePath, rows: 10_000, workers: workers)
            XCTAssertEqual(counts.decoded, 5 * 10, "every chunk of the 5 columns, the partial last ones too, decoded without HDF5's filters")
            XCTAssertEqual(counts.library, 0, "none through H5Dread")
        }
    }

    /// Before the caller asks for a block, the workers fill as many as the
    /// read-ahead budget holds (the blocks of all columns), at least 2 × workers + 1.
    func testWorkersReadAheadAsManyBlocksAsTheBudgetHolds() throws {
        let filePath = try writeTable("ahead.h5", rows: 40 * 256, chunkRows: 256, compression: .standard)
        let file = try File.open(filePath)
        defer { try? file.close() }
        let t: Column<Int64> = try file.root.openColumn("t"), c: Column<Int32> = try file.root.openColumn("c")
        let s: Column<Int16> = try file.root.openColumn("s"), f: Column<UInt8> = try file.root.openColumn("f")
        let d: Column<Double> = try file.root.openColumn("d")
        let columns = [BlockColumn(t), BlockColumn(c), BlockColumn(s), BlockColumn(f), BlockColumn(d)]
        let blockBytes = 256 * (8 + 4 + 2 + 1 + 8)
        for (budget, blocksAhead) in [(12 * blockBytes, 12), (12 * blockBytes - 1, 11), (0, 5)] {
            let blocks = try ColumnBlocks(columns, rowCount: 40 * 256, preferredRows: 256, workers: 2, readAheadBytes: budget)
            defer { blocks.finish() }
            let deadline = Date().addingTimeInterval(20)
            while blocks.readCounts.decoded < blocksAhead * 5 && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            XCTAssertEqual(blocks.readCounts.decoded, blocksAhead * 5, "a budget of \(budget) bytes: \(blocksAhead) blocks of 5 chunks")
            // And no more while no block is taken.
            Thread.sleep(forTimeInterval: 0.2)
            XCTAssertEqual(blocks.readCounts.decoded, blocksAhead * 5, "a budget of \(budget) bytes reads no further ahead")
            var rows = 0
            while let block = try blocks.next() { rows += block.rows.count }
            XCTAssertEqual(rows, 40 * 256)
        }
    }

    func testDeflateWithoutShuffleAndTheHighestLevel() throws {
        let plain = try writeTable("deflate.h5", rows: 5000, chunkRows: 500, compression: try Compression(deflateLevel: 9, shuffle: false))
        XCTAssertEqual(try checkFile(plain, rows: 5000, workers: 2).decoded, 5 * 10)
    }

    func testUnfilteredChunksAndWholeNumberOfChunks() throws {
        let filePath = try writeTable("none.h5", rows: 4096, chunkRows: 256, compression: .none)
        let counts = try checkFile(filePath, rows: 4096, workers: 2, preferredRows: 1000)
        XCTAssertEqual(counts.decoded, 5 * 16)
        XCTAssertEqual(counts.library, 0)
    }

    func testColumnsWithDifferentChunksAndConvertedTypesGoThroughH5Dread() throws {
        let filePath = path("mixed.h5")
        let v = Self.values(3000)
        do {
            let file = try File.create(filePath)
            let a: Column<Int32> = try file.root.createColumn("a", chunkRows: 100)
            let b: Column<Int32> = try file.root.createColumn("b", chunkRows: 300)
            try a.append(contentsOf: v.c); try b.append(contentsOf: v.c)
            try a.close(); try b.close(); try file.close()
        }
        let file = try File.open(filePath)
        defer { try? file.close() }
        let a: Column<Int32> = try file.root.openColumn("a")
        let b: Column<Int32> = try file.root.openColumn("b")
        // Chunks that do not line up: both through H5Dread.
        let mixed = try checkBlocks([BlockColumn(a), BlockColumn(b)], reference: [bytes(v.c), bytes(v.c)], rows: 3000, workers: 2, preferredRows: 1000)
        XCTAssertEqual(mixed.decoded, 0)
        // Stored as Int32, read as Int64: HDF5 converts, so H5Dread.
        let wide: Column<Int64> = try file.root.openColumn("a")
        let converted = try checkBlocks([BlockColumn(wide)], reference: [bytes(v.c.map(Int64.init))], rows: 3000, workers: 1, preferredRows: 1000)
        XCTAssertEqual(converted.decoded, 0)
        XCTAssertEqual(converted.library, 3, "three blocks of 1000 rows")
    }

    func testSWMRFileWithPartialFlushes() throws {
        let filePath = path("swmr.h5")
        let v = Self.values(5000)
        let writer = try File.create(filePath, latestFormat: true)
        let column: Column<Int64> = try writer.root.createColumn("t", chunkRows: 512)
        try writer.startSWMRWrite()
        // Flushes in the middle of chunks rewrite them, as the recorder does.
        for start in stride(from: 0, to: 4000, by: 700) {
            try column.append(contentsOf: v.t[start..<min(4000, start + 700)])
            try column.flush()
            try writer.flush()
        }
        let reader = try File.open(filePath, mode: .swmrRead)
        let seen: Column<Int64> = try reader.root.openColumn("t")
        let counts = try checkBlocks([BlockColumn(seen)], reference: [bytes(Array(v.t[0..<4000]))], rows: 4000, workers: 2, preferredRows: 1024)
        XCTAssertEqual(counts.decoded, 8, "7 whole chunks, and the partial last one each flush rewrote")
        try reader.close()
        try column.close()
        try writer.close()
    }

    func testDamagedChunkFailsAsH5DreadDoes() throws {
        let filePath = try writeTable("damaged.h5", rows: 4096, chunkRows: 1024, compression: .standard)
        // Overwrite the middle of the file, inside the chunk data.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: filePath))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        handle.write(Data(repeating: 0xA5, count: 64))
        try handle.close()
        let file = try File.open(filePath)
        defer { try? file.close() }
        let t: Column<Int64> = try file.root.openColumn("t")
        let c: Column<Int32> = try file.root.openColumn("c")
        let s: Column<Int16> = try file.root.openColumn("s")
        let f: Column<UInt8> = try file.root.openColumn("f")
        let d: Column<Double> = try file.root.openColumn("d")
        var libraryError: String?
        for read in [{ _ = try Self.libraryBytes(t) }, { _ = try Self.libraryBytes(c) }, { _ = try Self.libraryBytes(s) },
                     { _ = try Self.libraryBytes(f) }, { _ = try Self.libraryBytes(d) }] as [() throws -> Void] {
            do { try read() } catch { libraryError = libraryError ?? "\(error)" }
        }
        // One block of the whole table, filled column by column: the same order as above.
        var blocksError: String?
        do {
            let blocks = try ColumnBlocks([BlockColumn(t), BlockColumn(c), BlockColumn(s), BlockColumn(f), BlockColumn(d)],
                                          rowCount: 4096, preferredRows: 4096, workers: 2)
            defer { blocks.finish() }
            while try blocks.next() != nil {}
        } catch { blocksError = "\(error)" }
        XCTAssertNotNil(libraryError, "the damage is inside some column's chunk")
        XCTAssertEqual(blocksError, libraryError, "a chunk that does not decode is read by H5Dread, which reports the damage")
    }
}
