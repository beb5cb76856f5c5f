// forcetrace's own floors, for `make bench`:
//   forcetrace-bare-read FILE.h5            the seven samples columns through
//                                           the block reader the report uses, and nothing else;
//   forcetrace-bare-read --parse FILE.evemu the evemu text split and its event lines parsed as
//                                           import parses them, nothing decoded or written;
//   forcetrace-bare-read --deflate FILE.h5  the events and samples columns shuffled and deflated
//                                           in 65536-row chunks at the file's level, on one
//                                           thread, as import's worker does; prints the seconds
//                                           the deflating took (the columns are read first);
//   forcetrace-bare-read --deflate-report OUT.h5
//                                           every chunked dataset of a `report --save` file deflated
//                                           again in its own chunks, as the report's writer encodes
//                                           them (float32 curves unshuffled, the rest shuffled, level 1),
//                                           on one thread; prints the seconds that took;
//   forcetrace-bare-read --summary-floor FILE.h5
//                                           the bare read, and beside it the summary's work that is not
//                                           its per-row loop, done as the summary does it: the contacts
//                                           table, the labels on a thread of their own, a result per
//                                           contact made and added to the statistics.
import ForceTrace
import Foundation
import HDF5

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("forcetrace-bare-read: \(message)\n".utf8))
    exit(status)
}

/// The samples columns of one recording through the report's own path (the
/// reader's buffers, not copies): its rows, and a checksum that touches the
/// values so that the reads cannot be skipped.
func readSamples(_ recording: TraceRecording) throws -> (rows: Int, checksum: Int64) {
    var rows = 0
    var checksum: Int64 = 0
    try recording.forEachSampleBuffer { block in
        rows += block.rows.count
        typealias S = TraceSchema.Samples
        checksum &+= block[S.tNs].last ?? 0
        checksum &+= Int64(block[S.pressure].last ?? 0) &+ Int64(block[S.flags].last ?? 0)
    }
    return (rows, checksum)
}

func bareRead(_ path: String) throws {
    let reader = try TraceReader(path: path)
    var rows = 0
    var checksum: Int64 = 0
    for name in reader.recordingNames {
        let read = try readSamples(reader.recording(name))
        rows += read.rows
        checksum &+= read.checksum
    }
    print("\(rows) rows, checksum \(checksum)")
}

/// The summary's floor beside the per-row loop: what `report --contacts 0`
/// must do whatever its loop costs. It underestimates (each result is the
/// contact's first state, so the statistics take their cheapest paths, and
/// no quantiles are taken), so it is a lower bound.
func summaryFloor(_ path: String) throws {
    // HDF5 calls from two threads take turns under the library's lock, as in the report.
    final class Labels: @unchecked Sendable {
        let recording: TraceRecording
        var read: Result<([PressClass?], GroundTruth), Error>?
        init(_ recording: TraceRecording) { self.recording = recording }
    }
    let reader = try TraceReader(path: path)
    var rows = 0, contactCount = 0
    var checksum: Int64 = 0
    for name in reader.recordingNames {
        let recording = try reader.recording(name)
        let end = recording.lastEventTimeNs()
        let table = try recording.contacts()
        contactCount += table.count
        // The labels on their own thread, as the summary reads them.
        let labels = Labels(recording), done = DispatchSemaphore(value: 0), count = table.count
        let thread = Thread {
            labels.read = Result { (try labels.recording.contactLabels(count: count), try labels.recording.groundTruth()) }
            done.signal()
        }
        thread.start()
        var results = table.map { ContactStatistics($0, recordingEndNs: end) }
        let read = try readSamples(recording)
        rows += read.rows
        checksum &+= read.checksum
        done.wait()
        _ = try labels.read!.get()
        var statistics = PressureStatistics()
        let thresholds = AnalysisOptions().thresholds
        for index in results.indices {
            // A contact with a sample, as every contact of a trace that has samples is.
            results[index].samples = 1
            statistics.add(results[index], thresholds: thresholds)
        }
        checksum &+= statistics.contacts
    }
    print("\(rows) rows, \(contactCount) contacts, checksum \(checksum)")
}

/// Every events and samples column of `path`, as raw bytes with their element size.
func columns(_ path: String) throws -> [(bytes: [UInt8], elementSize: Int)] {
    func raw<T>(_ values: [T]) -> (bytes: [UInt8], elementSize: Int) {
        (values.withUnsafeBytes { Array($0) }, MemoryLayout<T>.stride)
    }
    let reader = try TraceReader(path: path)
    var time: [Int64] = [], type: [UInt16] = [], code: [UInt16] = [], value: [Int32] = []
    var sTime: [Int64] = [], contact: [Int32] = [], slot: [Int16] = [], x: [Int32] = [], y: [Int32] = []
    var pressure: [Int32] = [], flags: [UInt8] = []
    for name in reader.recordingNames {
        let recording = try reader.recording(name)
        try recording.forEachEventBlock { block in
            for event in block {
                time.append(event.timeNs - recording.t0Ns); type.append(event.type); code.append(event.code); value.append(event.value)
            }
        }
        try recording.forEachSampleBuffer { block in
            typealias S = TraceSchema.Samples
            sTime += block[S.tNs]; contact += block[S.contact]; slot += block[S.slot]; x += block[S.x]; y += block[S.y]
            pressure += block[S.pressure]; flags += block[S.flags]
        }
    }
    return [raw(time), raw(type), raw(code), raw(value), raw(sTime), raw(contact), raw(slot), raw(x), raw(y), raw(pressure), raw(flags)]
}

func deflateFloor(_ path: String) throws {
    let all = try columns(path)
    let encoder = ChunkEncoder(), chunkRows = 65536
    var stored = 0, input = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for column in all {
        let rows = column.bytes.count / column.elementSize
        try column.bytes.withUnsafeBytes { bytes in
            // Full chunks only, as the worker gets them; the last, partial one is written by HDF5 itself.
            for first in stride(from: 0, to: rows - chunkRows + 1, by: chunkRows) {
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[(first * column.elementSize)..<((first + chunkRows) * column.elementSize)])
                stored += try encoder.storedSize(chunk, rows: chunkRows, elementSize: column.elementSize, compression: .standard)
                input += chunk.count
            }
        }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print("deflate \(seconds) s: \(input) bytes to \(stored)")
}

/// The chunked datasets under `group`, as raw bytes with their element size and bytes per chunk.
func chunkedDatasets(_ group: Group) throws -> [(bytes: [UInt8], elementSize: Int, chunkBytes: Int, float32: Bool)] {
    func raw<T: HDF5Scalar>(_ name: String, _ shape: [Int], _ type: T.Type) throws -> [UInt8] {
        let values = shape.count == 1 ? try group.readArray(name, of: T.self)
                                      : try group.readMatrix(name, rows: shape[0], columns: shape.dropFirst().reduce(1, *), of: T.self)
        return values.withUnsafeBytes { Array($0) }
    }
    var found: [(bytes: [UInt8], elementSize: Int, chunkBytes: Int, float32: Bool)] = []
    for name in try group.memberNames() {
        guard group.isDataset(name) else {
            found += try chunkedDatasets(try group.openGroup(name))
            continue
        }
        let storage = try group.storage(of: name), shape = try group.shape(of: name), columns = shape.dropFirst().reduce(1, *)
        // A matrix (curves, the sweep's lanes) is stored in chunks of 1024 whole rows, as the writer makes them;
        // one whose stored bytes are its logical ones is not deflated (the confusion matrix).
        let logical = UInt64(shape.reduce(1, *)) * UInt64(max(1, storage.logicalBytes / UInt64(max(1, storage.rows))))
        guard storage.rows > 0, let chunkRows = storage.chunkRows ?? (shape.count == 2 && storage.storedBytes < logical ? 1024 : nil)
        else { continue }
        let bytes: [UInt8], size: Int
        switch storage.element {
        case .float(4): bytes = try raw(name, shape, Float.self); size = 4
        case .float(8): bytes = try raw(name, shape, Double.self); size = 8
        case .integer(8, true): bytes = try raw(name, shape, Int64.self); size = 8
        case .integer(4, true): bytes = try raw(name, shape, Int32.self); size = 4
        case .integer(2, true): bytes = try raw(name, shape, Int16.self); size = 2
        case .integer(2, false): bytes = try raw(name, shape, UInt16.self); size = 2
        case .integer(1, false): bytes = try raw(name, shape, UInt8.self); size = 1
        default: continue
        }
        found.append((bytes, size, chunkRows * columns * size, storage.element == .float(bytes: 4)))
    }
    return found
}

func reportDeflateFloor(_ path: String) throws {
    let file = try File.open(path)
    let datasets = try chunkedDatasets(try file.root)
    let encoder = ChunkEncoder()
    var stored = 0, input = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for dataset in datasets {
        try dataset.bytes.withUnsafeBytes { bytes in
            for first in stride(from: 0, to: bytes.count, by: dataset.chunkBytes) {
                // The last chunk is partial in the data and whole in the file: its own bytes stand for it.
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[first..<min(bytes.count, first + dataset.chunkBytes)])
                stored += try encoder.storedSize(chunk, rows: chunk.count / dataset.elementSize, elementSize: dataset.elementSize,
                                                 compression: dataset.float32 ? .fastUnshuffled : .fast)
                input += chunk.count
            }
        }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print("deflate \(seconds) s: \(input) bytes to \(stored) in \(datasets.count) datasets")
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("--parse", 2):
        let parsed = try ImportFloor.parseEvemu(path: arguments[1])
        print("\(parsed.events) events, checksum \(parsed.checksum)")
    case ("--deflate", 2): try deflateFloor(arguments[1])
    case ("--deflate-report", 2): try reportDeflateFloor(arguments[1])
    case ("--summary-floor", 2): try summaryFloor(arguments[1])
    case (_, 1) where !arguments[0].hasPrefix("-"): try bareRead(arguments[0])
    default: fail("usage: forcetrace-bare-read [--parse FILE.evemu | --deflate FILE.h5 | --deflate-report OUT.h5 | --summary-floor FILE.h5 | FILE.h5]",
                 status: 2)
    }
} catch {
    fail("\(error)", status: 1)
}
