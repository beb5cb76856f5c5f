import Foundation
@testable import ForceTrace

/// Whole-recording writes for the tests, through the codecs the commands use.
/// They write to memory, which cannot fail; the library itself has no such
/// shortcut (its callers stream through `RecordingCodec.encoder`).
extension Evemu {
    static func write(_ recording: Recording, comment: String? = nil, to output: inout some TextOutputStream) {
        let bytes = ByteOutput()
        try! EvemuCodec().encode([recording], comment: comment, to: bytes)
        output.write(String(decoding: bytes.memory, as: UTF8.self))
    }
}

extension LibinputRecord {
    static func write(_ recordings: [Recording], comment: String? = nil, to output: inout some TextOutputStream) {
        let bytes = ByteOutput()
        try! LibinputCodec().encode(recordings, comment: comment, to: bytes)
        output.write(String(decoding: bytes.memory, as: UTF8.self))
    }
}

extension RawEventStream {
    static func write(_ recording: Recording, to sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        let output = ByteOutput()
        try! RawCodec().encode([recording], to: output)
        try output.memory.withUnsafeBytes { try sink($0) }
    }
}
