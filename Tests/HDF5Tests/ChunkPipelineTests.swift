import Foundation
import XCTest
@testable import HDF5

/// Chunks compressed by `ChunkPipeline` (libdeflate, `H5Dwrite_chunk`)
/// against the same columns written through HDF5's own filters.
final class ChunkPipelineTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self, prefix: "chunkpipeline")
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes the five test columns, through `pipeline` or through HDF5.
    private func write(_ name: String, rows: Int, chunkRows: Int, compression: Compression,
                       pipeline: ChunkPipeline?) throws -> String {
        let filePath = path(name)
        let v = ColumnBlocksTests.values(rows)
        // Random 64-bit values do not deflate: those chunks are stored with deflate skipped.
        var state: UInt64 = 42
        let noise: [UInt64] = (0..<rows).map { _ in
            // splitmix64: every byte plane random.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let file = try File.create(filePath)
        let root = try file.root
        let t: Column<Int64> = try root.createColumn("t", chunkRows: chunkRows, compression: compression, pipeline: pipeline)
        let c: Column<Int32> = try root.createColumn("c", chunkRows: chunkRows, compression: compression, pipeline: pipeline)
        let s: Column<Int16> = try root.createColumn("s", chunkRows: chunkRows, compression: compression, pipeline: pipeline)
        let f: Column<UInt8> = try root.createColumn("f", chunkRows: chunkRows, compression: compression, pipeline: pipeline)
        let n: Column<UInt64> = try root.createColumn("n", chunkRows: chunkRows, compression: compression, pipeline: pipeline)
        for row in 0..<rows {
            try t.append(v.t[row]); try c.append(v.c[row]); try s.append(v.s[row]); try f.append(v.f[row]); try n.append(noise[row])
        }
        try file.close()
        return filePath
    }

    private func read<T: HDF5Scalar & Equatable>(_ filePath: String, _ name: String, as type: T.Type) throws -> [T] {
        let file = try File.open(filePath)
        defer { try? file.close() }
        return try file.root.readArray(name)
    }

    private func checkSame(_ a: String, _ b: String, rows: Int) throws {
        XCTAssertEqual(try read(a, "t", as: Int64.self), try read(b, "t", as: Int64.self))
        XCTAssertEqual(try read(a, "c", as: Int32.self), try read(b, "c", as: Int32.self))
        XCTAssertEqual(try read(a, "s", as: Int16.self), try read(b, "s", as: Int16.self))
        XCTAssertEqual(try read(a, "f", as: UInt8.self), try read(b, "f", as: UInt8.self))
        XCTAssertEqual(try read(a, "n", as: UInt64.self), try read(b, "n", as: UInt64.self))
        XCTAssertEqual(try read(a, "t", as: Int64.self).count, rows)
    }

    func testPipelineChunksReadBackAsTheFiltersWrite() throws {
        // 9 whole chunks through the pipeline, the partial tenth through H5Dwrite.
        let pipeline = ChunkPipeline(capacity: 3)
        defer { pipeline.shutdown() }
        let piped = try write("piped.h5", rows: 10_000, chunkRows: 1024, compression: .standard, pipeline: pipeline)
        let filtered = try write("filtered.h5", rows: 10_000, chunkRows: 1024, compression: .standard, pipeline: nil)
        try checkSame(piped, filtered, rows: 10_000)
        // HDF5's own reader (H5Dread through the filter pipeline) and the
        // block reader's raw-chunk path both decode them.
        let file = try File.open(piped)
        defer { try? file.close() }
        let t: Column<Int64> = try file.root.openColumn("t")
        let n: Column<UInt64> = try file.root.openColumn("n")
        let blocks = try ColumnBlocks([BlockColumn(t), BlockColumn(n)], rowCount: 10_000, preferredRows: 1024, workers: 1)
        defer { blocks.finish() }
        var rows = 0
        while let block = try blocks.next() { rows += block.rows.count }
        XCTAssertEqual(rows, 10_000)
        XCTAssertEqual(blocks.readCounts.decoded, 2 * 10, "every chunk, the partial last one too, decoded as shuffle+deflate")
        // Deflate shrinks the time column but not the noise, which is stored as is.
        let stored = try t.storage(), noise = try n.storage()
        XCTAssertLessThan(stored.storedBytes, stored.logicalBytes / 2)
        XCTAssertGreaterThanOrEqual(noise.storedBytes, 9 * 1024 * 8, "whole noise chunks stored as they are")
    }

    /// Workers compress side by side but store in the order the chunks
    /// came: the file is the same, byte for byte, with one worker or four,
    /// the noise chunks (slow to deflate) overtaken by the others.
    func testChunksAreStoredInTheirOrderWhateverTheWorkers() throws {
        var files: [Data] = []
        for workers in [1, 2, 4] {
            let pipeline = ChunkPipeline(capacity: 8, workers: workers)
            defer { pipeline.shutdown() }
            XCTAssertEqual(pipeline.workers, workers)
            let piped = try write("order-\(workers).h5", rows: 40_000, chunkRows: 1024, compression: .standard, pipeline: pipeline)
            files.append(try Data(contentsOf: URL(fileURLWithPath: piped)))
        }
        XCTAssertEqual(files[1], files[0], "two workers")
        XCTAssertEqual(files[2], files[0], "four workers")
        try checkSame(path("order-4.h5"), try write("order-filtered.h5", rows: 40_000, chunkRows: 1024, compression: .standard,
                                                     pipeline: nil), rows: 40_000)
    }

    func testPipelineWithoutShuffleAndAtOtherLevels() throws {
        for compression in [try Compression(deflateLevel: 1, shuffle: false), try Compression(deflateLevel: 9)] {
            let pipeline = ChunkPipeline()
            defer { pipeline.shutdown() }
            let piped = try write("piped-\(compression.deflateLevel).h5", rows: 4096, chunkRows: 512, compression: compression, pipeline: pipeline)
            let filtered = try write("filtered-\(compression.deflateLevel).h5", rows: 4096, chunkRows: 512, compression: compression, pipeline: nil)
            try checkSame(piped, filtered, rows: 4096)
        }
    }

    func testPartialFlushBetweenChunksKeepsEveryRow() throws {
        // A flush mid-chunk (as a live writer does) leaves the chunks unaligned:
        // the column falls back to H5Dwrite and loses nothing.
        let filePath = path("flushed.h5")
        let pipeline = ChunkPipeline(capacity: 1)
        defer { pipeline.shutdown() }
        let values = (0..<5000).map { Int32($0 * 7) }
        do {
            let file = try File.create(filePath)
            let column: Column<Int32> = try file.root.createColumn("v", chunkRows: 1000, compression: .standard, pipeline: pipeline)
            for (index, value) in values.enumerated() {
                try column.append(value)
                if index == 2500 { try column.flush() }
            }
            XCTAssertEqual(try column.read(0..<5000), values, "reads wait for the queued chunks")
            try file.close()
        }
        XCTAssertEqual(try read(filePath, "v", as: Int32.self), values)
    }

    func testAFailedChunkWriteIsThrownBySubmitOrDrain() throws {
        let filePath = path("closed.h5")
        let pipeline = ChunkPipeline(capacity: 1)
        defer { pipeline.shutdown() }
        let file = try File.create(filePath)
        let column: Column<Int32> = try file.root.createColumn("v", chunkRows: 100, compression: .standard, pipeline: pipeline)
        try column.close()
        // The dataset is closed: the worker's H5Dwrite_chunk fails, and the error comes back.
        let job = ChunkJob(handle: column.handle, displayPath: column.displayPath, index: 0, chunkRows: 100, elementSize: 4,
                           compression: .standard, payload: [Int32](repeating: 1, count: 100))
        XCTAssertThrowsError(try { try pipeline.submit(job); try pipeline.drain() }()) { error in
            XCTAssertTrue("\(error)".contains("already closed"), "\(error)")
        }
        try file.close()
    }

    /// `shutdown` returns only once the worker is done with HDF5: the chunk it
    /// was storing is in the file when the file is closed right after. Before,
    /// shutdown returned at once, the file closed under the worker, and the
    /// chunk was lost (exit's HDF5 cleanup met such a worker: a crash).
    func testShutdownWaitsForTheChunkBeingStored() throws {
        let filePath = path("shutdown.h5")
        let rows = 1 << 22
        let pipeline = ChunkPipeline(capacity: 1)
        let file = try File.create(filePath)
        // Random values: the slowest to deflate, so the worker is still busy when shutdown comes.
        let column: Column<UInt64> = try file.root.createColumn("n", chunkRows: rows, compression: try Compression(deflateLevel: 9),
                                                                pipeline: pipeline)
        var state: UInt64 = 7
        for _ in 0..<rows {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            try column.append(state >> 11 ^ state)
        }
        let deadline = Date().addingTimeInterval(30)
        while !pipeline.isBusy && Date() < deadline { usleep(100) }
        XCTAssertTrue(pipeline.isBusy, "the worker never took the chunk")
        pipeline.shutdown()
        XCTAssertFalse(pipeline.isBusy)
        try column.close()
        try file.close()
        let stored: [UInt64] = try File.open(filePath).root.readArray("n")
        XCTAssertEqual(stored.count, rows)
    }
}
