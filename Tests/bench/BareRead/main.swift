// forcetrace's own bare read, for `make bench`: the seven samples columns
// through the same block reader the report uses, and nothing else.
// Usage: forcetrace-bare-read FILE.h5
import ForceTrace
import Foundation

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: forcetrace-bare-read FILE.h5\n".utf8))
    exit(2)
}
do {
    let reader = try TraceReader(path: CommandLine.arguments[1])
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
} catch {
    FileHandle.standardError.write(Data("forcetrace-bare-read: \(error)\n".utf8))
    exit(1)
}
