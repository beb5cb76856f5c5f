import Foundation

/// Raw `struct input_event` records, as `read()` on /dev/input/eventN
/// returns them on x86-64 Linux: 24 bytes each, little-endian,
///
///     offset  0  tv_sec   int64
///     offset  8  tv_usec  int64
///     offset 16  type     uint16
///     offset 18  code     uint16
///     offset 20  value    int32
///
/// The stream carries no device description; it comes from an evemu header.
public enum RawEventStream {
    public static let recordSize = 24

    /// Decodes records until the input ends or a record is damaged.
    static func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        let file = source.file
        let description: DeviceDescription
        if let given = options.description {
            description = given
        } else if let path = options.descriptionPath {
            description = try Evemu.readDescription(path)
        } else {
            throw ForceTraceError(file: file, "holds binary data, read as a raw input_event stream, which carries no device description",
                             hint: "pass the device's evemu description with --desc DESC (evemu-describe /dev/input/eventN > DESC)")
        }
        try source.fill(1)
        if source.isExhausted {
            throw ForceTraceError(file: file, "the file is empty; expected raw 24-byte input_event records")
        }
        builder.startRecording(device: description)
        let batch = 4096 * recordSize
        var index = 0
        var events: [InputEvent] = []
        events.reserveCapacity(4096)
        while true {
            try source.fill(batch)
            let whole = source.available / recordSize
            if whole == 0 { break }
            let damage: ForceTraceError? = source.withWindow { raw in
                let bytes = UnsafeRawBufferPointer(raw)
                events.removeAll(keepingCapacity: true)
                for record in 0..<whole {
                    let offset = record * recordSize
                    let seconds = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
                    let microseconds = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self))
                    // The kernel keeps tv_usec below a second (negative times floor, as
                    // Timestamp.timeval splits them); anything else means
                    // this is not (or no longer) an aligned x86-64 event stream.
                    guard (0..<1_000_000).contains(microseconds), (-9_000_000_000...9_000_000_000).contains(seconds) else {
                        return ForceTraceError(file: file, location: .byteOffset(source.offset + offset),
                                          "record \(index + record) has tv_sec \(seconds), tv_usec \(microseconds); expected a struct input_event with 0 <= tv_usec < 1000000 (is this a 24-byte x86-64 stream, aligned at byte 0?)")
                    }
                    events.append(InputEvent(timeNs: Timestamp(seconds: seconds, microseconds: microseconds).ns,
                                             type: UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt16.self)),
                                             code: UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 18, as: UInt16.self)),
                                             value: Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 20, as: Int32.self))))
                }
                return nil
            }
            try builder.add(contentsOf: events)
            if let damage {
                try builder.damaged(damage)
                return
            }
            index += whole
            source.consume(whole * recordSize)
        }
        if source.available > 0 {
            try builder.damaged(ForceTraceError(file: file, location: .byteOffset(source.offset),
                                           "the stream ends mid-record: \(source.available) trailing bytes; expected whole \(recordSize)-byte input_event records (the file was cut off)"))
            return
        }
        try builder.endRecording()
    }
}

extension RecordingFormat {
    /// Raw x86-64 `struct input_event` records.
    public static let raw = RecordingFormat("raw")
}

/// Raw input_event records, with the description from `--desc`.
public struct RawCodec: RecordingCodec {
    public init() {}
    public var format: RecordingFormat { .raw }
    public var summary: String { "raw x86-64 input_event records" }
    public var holdsSeveralRecordings: Bool { false }
    public func source(file: String, device: Int?) -> RecordingSource { .raw(path: file) }

    /// Binary data (a control byte) before any text line.
    public func recognizes(_ head: RecordingHead) -> Bool { head.isBinary }

    public func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        try RawEventStream.decode(source, options: options, into: builder)
    }

    public func encoder(to output: ByteOutput, count: Int, comment: String?) throws -> any RecordingEncoder {
        guard count <= 1 else {
            throw ForceTraceError(file: output.file, "a raw stream holds one device; \(count) recordings were given",
                             hint: "export them one at a time with --recording NAME, or use --format libinput")
        }
        return Encoder(output: output)
    }

    /// Times are absolute on the recording's clock, split as `Timestamp.timeval`.
    final class Encoder: RecordingEncoder {
        let output: ByteOutput
        private var buffer: [UInt8] = []
        init(output: ByteOutput) { self.output = output }

        func begin(_ header: RecordingHeader, groundTruth: GroundTruth) throws {}

        func append(_ events: [InputEvent]) throws {
            let size = RawEventStream.recordSize
            if buffer.count < events.count * size { buffer = [UInt8](repeating: 0, count: events.count * size) }
            buffer.withUnsafeMutableBytes { raw in
                for (index, event) in events.enumerated() {
                    let offset = index * size
                    let time = Timestamp(ns: event.timeNs).timeval
                    raw.storeBytes(of: time.seconds.littleEndian, toByteOffset: offset, as: Int64.self)
                    raw.storeBytes(of: time.microseconds.littleEndian, toByteOffset: offset + 8, as: Int64.self)
                    raw.storeBytes(of: event.type.littleEndian, toByteOffset: offset + 16, as: UInt16.self)
                    raw.storeBytes(of: event.code.littleEndian, toByteOffset: offset + 18, as: UInt16.self)
                    raw.storeBytes(of: event.value.littleEndian, toByteOffset: offset + 20, as: Int32.self)
                }
            }
            try buffer.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0[0..<events.count * size])) }
        }

        func end() throws {}
        func finish() throws { try output.flush() }
    }
}
