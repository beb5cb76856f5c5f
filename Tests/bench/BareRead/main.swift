// forcetrace's own floors, for `make bench`:
//   forcetrace-bare-read FILE.h5            the seven samples columns through
//                                           the block reader the report uses, and nothing else;
//   forcetrace-bare-read --parse FILE.evemu the evemu text split and its event lines parsed as
//                                           import parses them, nothing decoded or written;
//   forcetrace-bare-read --deflate FILE.h5  the events and samples columns shuffled and deflated
//                                           in 65536-row chunks at the file's level, on one
//                                           thread, as import's worker does; prints the seconds
//                                           the deflating took (the columns are read first).
import ForceTrace
import Foundation
import HDF5

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("forcetrace-bare-read: \(message)\n".utf8))
    exit(status)
}

func bareRead(_ path: String) throws {
    let reader = try TraceReader(path: path)
    var rows = 0
    var checksum: Int64 = 0
    for name in reader.recordingNames {
        // The report's own path: the reader's buffers, not copies.
        try reader.recording(name).forEachSampleBuffer { block in
            rows += block.rows.count
            // Touch the values so the reads cannot be skipped.
            typealias S = TraceSchema.Samples
            checksum &+= block[S.tNs].last ?? 0
            checksum &+= Int64(block[S.pressure].last ?? 0) &+ Int64(block[S.flags].last ?? 0)
        }
    }
    print("\(rows) rows, checksum \(checksum)")
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

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("--parse", 2):
        let parsed = try ImportFloor.parseEvemu(path: arguments[1])
        print("\(parsed.events) events, checksum \(parsed.checksum)")
    case ("--deflate", 2): try deflateFloor(arguments[1])
    case (_, 1) where !arguments[0].hasPrefix("-"): try bareRead(arguments[0])
    default: fail("usage: forcetrace-bare-read [--parse FILE.evemu | --deflate FILE.h5 | FILE.h5]", status: 2)
    }
} catch {
    fail("\(error)", status: 1)
}
