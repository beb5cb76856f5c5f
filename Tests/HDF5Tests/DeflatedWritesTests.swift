import Foundation
import XCTest
import CHDF5
@testable import HDF5

/// `Group.writeDeflated`: datasets whose chunks the file's workers
/// (`DeflatingWorkers`) deflate and store while the caller goes on.
final class DeflatedWritesTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self, prefix: "deflatedwrites")
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Random 64-bit values: every byte plane random, so deflate cannot shrink a chunk and is skipped.
    static func noise(_ count: Int, seed: UInt64) -> [UInt64] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11 ^ state
        }
    }

    /// Every chunk of every dataset is in the file once it closes: whole
    /// chunks, a last one padded past the end, matrices by whole rows, with
    /// and without shuffle, and chunks deflate could not shrink. Written
    /// one after another while earlier ones are still being deflated.
    func testEveryChunkIsInTheFileWhenItCloses() throws {
        let filePath = path("written.h5")
        let ramp = (0..<100_003).map { Int64($0 / 7) }
        let matrix = (0..<(1_000 * 64)).map { Float($0 % 640) / 3 }
        let noise = Self.noise(40_000, seed: 11)
        let short = [Int32](repeating: -5, count: 10)
        let file = try File.create(filePath)
        let root = try file.root
        try root.writeDeflated("ramp", ramp, rows: ramp.count, chunkRows: 16_384, compression: .standard)
        try root.writeDeflated("matrix", matrix, rows: 1_000, columns: 64, chunkRows: 300,
                               compression: try Compression(deflateLevel: 1, shuffle: false))
        try root.writeDeflated("noise", noise, rows: noise.count, chunkRows: 8_192, compression: .standard)
        try root.writeDeflated("short", short, rows: short.count, chunkRows: 16_384, compression: .standard)
        try file.close()

        let read = try File.open(filePath)
        defer { try? read.close() }
        XCTAssertEqual(try read.root.readArray("ramp", of: Int64.self), ramp)
        XCTAssertEqual(try read.root.readMatrix("matrix", rows: 1_000, columns: 64, of: Float.self), matrix)
        XCTAssertEqual(try read.root.readArray("noise", of: UInt64.self), noise)
        XCTAssertEqual(try read.root.readArray("short", of: Int32.self), short)
        XCTAssertEqual(try read.root.storage(of: "ramp").chunkRows, 16_384)
        XCTAssertEqual(try read.root.shape(of: "matrix"), [1_000, 64])
        XCTAssertLessThan(try read.root.storage(of: "ramp").storedBytes, UInt64(ramp.count * 8 / 4), "the ramp was not deflated")
    }

    /// A chunk the workers fail to store (here: its dataset already closed)
    /// is thrown by the next submit, and by the file's flush and close.
    func testAFailedChunkIsThrownBySubmitFlushAndClose() throws {
        let file = try File.create(path("failed.h5"))
        let root = try file.root
        try root.writeDeflated("v", [Int32](repeating: 1, count: 100), rows: 100, chunkRows: 100)
        let workers = try XCTUnwrap(withHDF5 { file.handle.deflatingWorkers })
        try workers.drain()
        let closed = try withHDF5 { () -> Handle in
            let id = try checkID(H5Dopen2(try root.handle.validID(root.displayPath), "v", CHDF5_P_DEFAULT()), "H5Dopen2", "v")
            return Handle(id, kind: "D", name: "v", file: file.handle, closer: H5Dclose)
        }
        try closed.close()
        let job = DeflatingWorkers.Job(dataset: closed, displayPath: "failed.h5:/v", offset: [0], elements: 0..<100,
                                       chunkElements: 100, elementSize: 4, compression: .standard,
                                       payload: [Int32](repeating: 2, count: 100))
        try workers.submit([job])
        XCTAssertThrowsError(try file.flush()) { XCTAssertTrue("\($0)".contains("already closed"), "\($0)") }
        XCTAssertThrowsError(try root.writeDeflated("w", [Int32](repeating: 3, count: 100), rows: 100, chunkRows: 100)) {
            XCTAssertTrue("\($0)".contains("already closed"), "\($0)")
        }
        XCTAssertThrowsError(try file.close()) { XCTAssertTrue("\($0)".contains("already closed"), "\($0)") }
    }

    /// A file dropped without `close` (an error on the way) waits for the
    /// workers still in libdeflate or HDF5, and stores no more chunks: none
    /// may be in HDF5 when the process exits.
    func testDroppingAnUnclosedFileWaitsForItsWorkers() throws {
        var file: File? = try File.create(path("dropped.h5"))
        // Slow chunks (random values at level 9), many more than the workers take at once.
        let values = Self.noise(1 << 21, seed: 5)
        try file!.root.writeDeflated("n", values, rows: values.count, chunkRows: 1 << 14, compression: try Compression(deflateLevel: 9))
        let workers = try XCTUnwrap(withHDF5 { file!.handle.deflatingWorkers })
        XCTAssertTrue(workers.isWorking, "the workers ended before the file was dropped")
        file = nil
        XCTAssertFalse(workers.isWorking)
    }
}
