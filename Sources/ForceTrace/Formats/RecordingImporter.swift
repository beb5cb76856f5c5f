import Foundation

extension DeviceDescription {
    /// More slots than any touch device has; a larger ABS_MT_SLOT range is
    /// damage, and would make the decoder allocate without bound.
    public static let maximumSlots = 1024
    /// Most properties, and LED or switch states, a description may list.
    /// The trace keeps each list as one int64 attribute, and an HDF5
    /// attribute of the file format import writes holds at most 64 KiB:
    /// 4096 properties are 32 KiB, 1024 (code, value) pairs 16 KiB. The
    /// kernel defines 32 properties, 16 LEDs and 17 switches.
    public static let maximumProperties = 4096
    public static let maximumStates = 1024

    /// Checks what the decoder relies on.
    /// - Throws: `ForceTraceError` naming `file` when the description is unusable.
    func validate(file: String) throws {
        if properties.count > Self.maximumProperties {
            throw ForceTraceError(file: file, "the description lists \(properties.count) properties; at most \(Self.maximumProperties) are accepted (the kernel defines 32)")
        }
        for (what, states) in [("LED", ledStates), ("switch", switchStates)] where states.count > Self.maximumStates {
            throw ForceTraceError(file: file, "the description lists \(states.count) \(what) states; at most \(Self.maximumStates) are accepted (one per code)")
        }
        if let slot = slotAxis {
            guard slot.minimum >= 0, slot.maximum >= slot.minimum, Int(slot.maximum) - Int(slot.minimum) < Self.maximumSlots else {
                throw ForceTraceError(file: file, "ABS_MT_SLOT's range \(slot.minimum)..\(slot.maximum) is not a slot count; expected 0..N-1 with at most \(Self.maximumSlots) slots")
            }
        }
    }
}

/// Reads recordings in any supported format, telling the format from the
/// content, and streams them into a sink.
public enum RecordingImporter {
    /// The eight-byte signature every HDF5 file starts with.
    static let hdf5Signature: [UInt8] = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]
    /// How much of an input detection reads at first, and at most.
    static let headBytes = 1 << 16
    static let maximumHeadBytes = 1 << 24

    /// The codec for `head`, from its content alone.
    /// - Parameter complete: whether `head` is the whole input.
    /// - Returns: nil when the head ends before the format shows.
    /// - Throws: `ForceTraceError` when the content is empty, a trace file, or
    ///   matches no format.
    static func detect(_ head: ArraySlice<UInt8>, complete: Bool, file: String) throws -> (any RecordingCodec)? {
        if head.isEmpty && complete {
            throw ForceTraceError(file: file, "the file is empty; expected an evemu, libinput record or raw input_event recording")
        }
        if head.starts(with: hdf5Signature) {
            // Reached only for streams: import copies trace files given by path (TraceCopy).
            throw ForceTraceError(file: file, "is an HDF5 file, which import reads only by path, not from a pipe or standard input",
                             hint: "HDF5 needs to seek: pass the trace file's path, e.g. 'forcetrace import TRACE.h5 -o OUT.h5'")
        }
        let parsed = RecordingHead(head, complete: complete)
        if parsed.undecided || (parsed.firstLine == nil && !parsed.isBinary && !complete) { return nil }
        if let codec = RecordingCodecs.all.first(where: { $0.recognizes(parsed) }) { return codec }
        guard let line = parsed.firstLine else {
            throw ForceTraceError(file: file, "holds only blank lines and comments; expected an evemu or libinput record recording")
        }
        let shown = String(decoding: line.prefix(40), as: UTF8.self)
        throw ForceTraceError(file: file, "cannot tell the format: the first line, '\(shown)', is neither evemu ('N: name') nor libinput record YAML ('version: 1')",
                         hint: "name the format with --format \(RecordingCodecs.names.joined(separator: "|"))")
    }

    /// The format of `bytes`, the whole of an input, from their content alone.
    public static func detect(_ bytes: [UInt8], file: String) throws -> RecordingFormat {
        try detect(bytes[...], complete: true, file: file)!.format
    }

    /// The codec for `source`, reading as much of its head as it takes.
    public static func detect(_ source: ByteSource) throws -> any RecordingCodec {
        var size = headBytes
        while true {
            let head = try source.head(size)
            let complete = source.atEnd && head.count == source.available
            if let codec = try detect(head, complete: complete, file: source.file) { return codec }
            if size >= maximumHeadBytes {
                throw ForceTraceError(file: source.file, "its first \(maximumHeadBytes >> 20) MiB hold no recording line (only comments, blank lines or one overlong line)",
                                 hint: "name the format with --format \(RecordingCodecs.names.joined(separator: "|"))")
            }
            size *= 4
        }
    }

    /// Decodes one input (a path, or "-" for standard input) into `sink`.
    /// - Parameter format: the format, or nil to detect it.
    /// - Throws: `ForceTraceError` for bad input (see `RecordingBuilder.damaged`).
    public static func decode(_ path: String, format: RecordingFormat? = nil, options: DecodeOptions = DecodeOptions(),
                              into sink: any RecordingSink) throws {
        let source = try ByteSource(path: path)
        try decode(source, format: format, options: options, into: sink)
    }

    public static func decode(_ source: ByteSource, format: RecordingFormat? = nil, options: DecodeOptions = DecodeOptions(),
                              into sink: any RecordingSink) throws {
        let codec = try format.map(RecordingCodecs.codec) ?? detect(source)
        let builder = RecordingBuilder(sink: sink, file: source.file, path: source.path, codec: codec, options: options)
        try codec.decode(source, options: options, into: builder)
        try builder.finish()
    }

    /// Reads one input whole, for small inputs and tests.
    /// - Parameters:
    ///   - format: the format, or nil to detect it.
    ///   - descriptionPath: evemu description for events-only evemu files
    ///     and raw streams.
    ///   - salvage: return damaged recordings cut at their last complete
    ///     frame instead of throwing.
    public static func read(_ path: String, format: RecordingFormat? = nil, descriptionPath: String? = nil,
                            salvage: Bool = false) throws -> [ParsedRecording] {
        let collector = RecordingCollector()
        try decode(path, format: format, options: DecodeOptions(descriptionPath: descriptionPath, salvage: salvage), into: collector)
        return collector.recordings
    }
}
