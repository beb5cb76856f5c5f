import HDF5
import XCTest
@testable import ForceTrace

/// The analyzer's block reader against `H5Dread` on real trace files: the
/// shared recordings and the samples, imported and recorded (SWMR, small chunks).
final class ColumnBlocksRecordingTests: XCTestCase {
    private static let sampleColumns: [(String, Int)] = [("t_ns", 8), ("contact", 4), ("slot", 2), ("x", 4), ("y", 4), ("pressure", 4), ("flags", 1)]

    /// Every samples column read both ways; returns the chunks decoded on the fast path.
    private func compareSamples(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let reader = try TraceReader(path: path)
        defer { try? reader.close() }
        var decoded = 0
        for name in reader.recordingNames {
            let recording = try reader.recording(name)
            let time = try recording.open(TraceSchema.Samples.tNs)
            let contact = try recording.open(TraceSchema.Samples.contact)
            let slot = try recording.open(TraceSchema.Samples.slot)
            let x = try recording.open(TraceSchema.Samples.x)
            let y = try recording.open(TraceSchema.Samples.y)
            let pressure = try recording.open(TraceSchema.Samples.pressure)
            let flags = try recording.open(TraceSchema.Samples.flags)
            func bytes<T>(_ values: [T]) -> [UInt8] { values.withUnsafeBytes { Array($0) } }
            let expected = [bytes(try time.readAll()), bytes(try contact.readAll()), bytes(try slot.readAll()), bytes(try x.readAll()),
                            bytes(try y.readAll()), bytes(try pressure.readAll()), bytes(try flags.readAll())]
            for workers in [0, 2] {
                let blocks = try ColumnBlocks([BlockColumn(time), BlockColumn(contact), BlockColumn(slot), BlockColumn(x), BlockColumn(y),
                                               BlockColumn(pressure), BlockColumn(flags)], rowCount: time.count, preferredRows: 2048, workers: workers)
                defer { blocks.finish() }
                var seen = [[UInt8]](repeating: [], count: 7)
                while let block = try blocks.next() {
                    for (index, column) in Self.sampleColumns.enumerated() {
                        let start = UnsafeRawPointer(block.values(index, as: UInt8.self).baseAddress!)
                        seen[index].append(contentsOf: UnsafeRawBufferPointer(start: start, count: block.rows.count * column.1))
                    }
                }
                for (index, column) in Self.sampleColumns.enumerated() where seen[index] != expected[index] {
                    XCTFail("\(path): \(name): samples/\(column.0) read in blocks (\(workers) workers) differs from H5Dread", file: file, line: line)
                }
                decoded = max(decoded, blocks.readCounts.decoded)
            }
        }
        return decoded
    }

    private func importAndRecord(_ path: String, chunkRows: Int = 16384) throws -> (imported: String, recorded: String) {
        let directory = try makeTemporaryDirectory(self)
        let imported = directory.appendingPathComponent("imported.h5").path
        let recorded = directory.appendingPathComponent("recorded.h5").path
        let recording = try Evemu.read(path)
        var writeOptions = TraceWriteOptions()
        writeOptions.chunkRows = chunkRows
        let writer = try TraceWriter(creating: imported, options: writeOptions)
        try writer.write(recording)
        try writer.close()
        var options = RecorderOptions()
        options.chunkRows = 64
        _ = try Recorder(source: ReplaySource(recording: recording, speed: nil), path: recorded, options: options).run(stop: nil)
        return (imported, recorded)
    }

    func testSharedRecordingsReadInBlocksEqualH5Dread() throws {
        for recording in SharedRecording.allCases {
            let files = try importAndRecord(try recording.path())
            _ = try compareSamples(files.imported)
            _ = try compareSamples(try importAndRecord(try recording.path(), chunkRows: 100).imported)
            _ = try compareSamples(files.recorded)
        }
    }

    func testSamplesReadInBlocksEqualH5DreadAndTakeTheFastPath() throws {
        let files = try importAndRecord(packageRoot.appendingPathComponent("samples/touchscreen-mixed.evemu").path, chunkRows: 256)
        XCTAssertGreaterThan(try compareSamples(files.imported), 0, "whole chunks of an imported file decode without H5Dread")
        XCTAssertGreaterThan(try compareSamples(files.recorded), 0, "whole chunks of a recorded (SWMR) file decode without H5Dread")
    }
}
