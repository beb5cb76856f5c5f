import Glibc

/// A recording format's name, as `--format` takes it. Each codec declares
/// its own (`RecordingFormat.evemu` in Evemu.swift, and so on).
public struct RecordingFormat: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ name: String) { rawValue = name }
    public var description: String { rawValue }
    /// Every registered format.
    public static var allCases: [RecordingFormat] { RecordingCodecs.formats }
}

/// What a recording's header says, handed on before its events.
public struct RecordingHeader: Sendable {
    public var device: DeviceDescription
    public var clock: RecordingClock
    /// Absolute time of the first event on `clock`, the origin of `t_ns`.
    public var t0Ns: Int64
    /// Where it came from, such as "evemu:/path/file.events".
    public var source: RecordingSource
    /// Suggested name for its group in a trace file.
    public var name: String

    public init(device: DeviceDescription, clock: RecordingClock, t0Ns: Int64, source: RecordingSource, name: String) {
        self.device = device; self.clock = clock; self.t0Ns = t0Ns; self.source = source; self.name = name
    }
}

/// What is known about a recording once its events are all handed on.
public struct RecordingEnding: Sendable {
    /// Labelled presses, when the recording carries them.
    public var groundTruth: GroundTruth
    /// When the input was damaged and salvaged: the error that cut it short.
    /// The recording then holds only the complete frames before it.
    public var damage: ForceTraceError?
    public var events: Int
    public var frames: Int
}

/// Where a codec's decoder puts recordings: for each one, `begin`, then
/// its events in order in chunks of whole frames, then `end`.
public protocol RecordingSink: AnyObject {
    func begin(_ header: RecordingHeader) throws
    /// Events with absolute times on the header's clock. The array is
    /// reused after the call returns.
    func append(_ events: [InputEvent]) throws
    func end(_ ending: RecordingEnding) throws
}

/// Writes recordings in one format as they stream past: for each,
/// `begin`, `append` as often as needed, `end`; then `finish` once.
public protocol RecordingEncoder: AnyObject {
    func begin(_ header: RecordingHeader, groundTruth: GroundTruth) throws
    /// Events with absolute times on the header's clock.
    func append(_ events: [InputEvent]) throws
    func end() throws
    func finish() throws
}

/// An encoder in front of another that reports the events passed on, for
/// progress lines: `counted(events so far, time of the last one)`.
public final class CountingEncoder: RecordingEncoder {
    let inner: any RecordingEncoder
    let counted: (Int64, Int64) -> Void
    public private(set) var events: Int64 = 0
    /// The header and labels `begin` was given.
    public private(set) var header: RecordingHeader?
    public private(set) var groundTruth = GroundTruth()

    public init(_ inner: any RecordingEncoder, counted: @escaping (Int64, Int64) -> Void) {
        self.inner = inner
        self.counted = counted
    }

    public func begin(_ header: RecordingHeader, groundTruth: GroundTruth) throws {
        self.header = header
        self.groundTruth = groundTruth
        try inner.begin(header, groundTruth: groundTruth)
    }

    public func append(_ events: [InputEvent]) throws {
        try inner.append(events)
        self.events += Int64(events.count)
        if let last = events.last { counted(self.events, last.timeNs) }
    }

    public func end() throws { try inner.end() }
    public func finish() throws { try inner.finish() }
}

/// How to decode one input.
public struct DecodeOptions: Sendable {
    /// An evemu description (header) for inputs that carry none: raw
    /// streams and events-only evemu files.
    public var descriptionPath: String?
    /// A description given directly; it takes precedence over `descriptionPath`.
    public var description: DeviceDescription?
    /// Keep the complete frames of a damaged recording instead of failing.
    public var salvage = false
    /// Whether a damage error suggests `--salvage` (import has it).
    public var offerSalvage = true

    public init(descriptionPath: String? = nil, description: DeviceDescription? = nil, salvage: Bool = false, offerSalvage: Bool = true) {
        self.descriptionPath = descriptionPath
        self.description = description
        self.salvage = salvage
        self.offerSalvage = offerSalvage
    }
}

/// One recording format: telling it from the head of an input, decoding
/// it as a stream, encoding a stream into it. To add a format, write a
/// codec in its own file and list it in `RecordingCodecs.all`.
public protocol RecordingCodec: Sendable {
    var format: RecordingFormat { get }
    /// A few words for help texts, e.g. "libinput record YAML".
    var summary: String { get }
    /// Whether one file can hold several recordings (devices).
    var holdsSeveralRecordings: Bool { get }
    /// Whether export writes the format; import-only formats say no.
    var writes: Bool { get }
    /// The `source` of a recording decoded from `file` (its `device`-th, in
    /// files with several).
    func source(file: String, device: Int?) -> RecordingSource
    /// Whether an input starting with `head` is in this format.
    func recognizes(_ head: RecordingHead) -> Bool
    /// Decodes the whole of `source` into `builder`, which hands complete
    /// frames on to its sink.
    func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws
    /// An encoder writing `count` recordings to `output`, headed by
    /// `comment` where the format has comments.
    func encoder(to output: ByteOutput, count: Int, comment: String?) throws -> any RecordingEncoder
}

/// The formats forcetrace reads and writes.
public enum RecordingCodecs {
    /// Every codec, in the order detection asks them (a browser capture's
    /// JSON before libinput record, which may be JSON too).
    public static let all: [any RecordingCodec] = [EvemuCodec(), BrowserCaptureCodec(), LibinputCodec(), RawCodec(),
                                                  GeteventCodec(), InkMLCodec(), SVC2004Codec()]

    public static var formats: [RecordingFormat] { all.map(\.format) }
    public static var names: [String] { all.map(\.format.rawValue) }
    /// The codecs export writes with.
    public static var writable: [any RecordingCodec] { all.filter(\.writes) }
    /// The formats export writes.
    public static var writableNames: [String] { writable.map(\.format.rawValue) }

    public static func codec(_ format: RecordingFormat) -> any RecordingCodec {
        guard let codec = all.first(where: { $0.format == format }) else { preconditionFailure("no codec for \(format)") }
        return codec
    }

    public static func codec(named name: String) -> (any RecordingCodec)? {
        all.first { $0.format.rawValue == name }
    }
}

extension RecordingCodec {
    public var writes: Bool { true }

    /// Writes whole recordings, for callers that hold them in memory.
    public func encode(_ recordings: [Recording], comment: String? = nil, to output: ByteOutput) throws {
        let encoder = try encoder(to: output, count: recordings.count, comment: comment)
        for recording in recordings {
            try encoder.begin(recording.header, groundTruth: recording.groundTruth)
            var start = 0
            while start < recording.events.count {
                let end = min(recording.events.count, start + RecordingBuilder.chunkEvents)
                try encoder.append(Array(recording.events[start..<end]))
                start = end
            }
            try encoder.end()
        }
        try encoder.finish()
    }

    /// Decodes bytes in memory into whole recordings.
    public func decode(_ bytes: [UInt8], file: String, options: DecodeOptions = DecodeOptions()) throws -> [ParsedRecording] {
        let collector = RecordingCollector()
        let builder = RecordingBuilder(sink: collector, file: file, path: file, codec: self, options: options)
        try decode(ByteSource(bytes: bytes, file: file), options: options, into: builder)
        try builder.finish()
        return collector.recordings
    }
}

/// The head of an input, read for telling its format.
public struct RecordingHead {
    public let bytes: ArraySlice<UInt8>
    /// The first line that is neither blank nor a comment, without leading
    /// blanks; nil when binary data or the end of the head comes first.
    public let firstLine: ArraySlice<UInt8>?
    /// Whether binary data (a control byte, a NUL, invalid UTF-8) comes
    /// before any such line.
    public let isBinary: Bool
    /// Whether the head ends before its first line is known; more input would decide.
    let undecided: Bool

    /// UTF-8's byte-order mark, which some editors put before text: skipped
    /// by detection, the evemu reader and libyaml alike.
    static let byteOrderMark: [UInt8] = [0xef, 0xbb, 0xbf]

    /// - Parameter complete: whether `bytes` is the whole input.
    public init(_ bytes: ArraySlice<UInt8>, complete: Bool) {
        self.bytes = bytes
        var start = bytes.starts(with: Self.byteOrderMark) ? bytes.startIndex + 3 : bytes.startIndex
        var first: ArraySlice<UInt8>?
        var binary = false
        var undecided = false
        // Plain loops over the bytes: the generic scans took seconds on a
        // 16 MiB head in debug builds.
        func hasControl(_ line: ArraySlice<UInt8>) -> Bool {
            line.withUnsafeBufferPointer { raw in
                guard var p = raw.baseAddress else { return false }
                let end = p + raw.count
                while p < end {
                    let byte = p.pointee
                    if byte < 0x09 || (byte >= 0x0e && byte < 0x20) { return true }
                    p += 1
                }
                return false
            }
        }
        func nextNewline(from start: Int) -> Int? {
            bytes[start...].withUnsafeBufferPointer { raw in
                guard let base = raw.baseAddress, let found = memchr(base, 0x0a, raw.count) else { return nil }
                return start + (UnsafeRawPointer(found) - UnsafeRawPointer(base))
            }
        }
        while start < bytes.endIndex {
            let newline = nextNewline(from: start)
            var line = bytes[start..<(newline ?? bytes.endIndex)]
            if newline == nil && !complete {
                // A line cut by the end of the head: binary if it already shows it.
                if hasControl(line) { binary = true } else { undecided = true }
                break
            }
            if hasControl(line) || String(bytes: line, encoding: .utf8) == nil {
                binary = true
                break
            }
            while let byte = line.first, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                line = line.dropFirst()
            }
            start = (newline ?? bytes.endIndex) + (newline == nil ? 0 : 1)
            guard let byte = line.first, byte != UInt8(ascii: "#") else { continue }
            first = line
            break
        }
        firstLine = first
        isBinary = binary
        self.undecided = undecided
    }
}
