import Foundation

/// `libinput record` files: YAML, format version 1, as libinput's
/// tools/libinput-record.man (FILE FORMAT) specifies it:
///
///     version: 1
///     ndevices: 1
///     libinput: {version: ...}
///     system: {...}
///     devices:
///       - node: /dev/input/event9
///         evdev: {name, id: [bus, vendor, product, version],
///                 codes: {type: [code, ...]}, absinfo: {code: [min, max, fuzz, flat, resolution]},
///                 properties: [...]}
///         events:
///           - evdev:
///             - [sec, usec, type, code, value]   # one list item per frame, ending in SYN_REPORT
///
/// Unknown keys are ignored, as the format requires. Times count from the
/// first event of the recording. forcetrace adds a `forcetrace` key per
/// device (clock, t0_ns, initial axis values, LED and switch states) so its
/// own exports read back exactly; libinput ignores it.
public enum LibinputRecord {
    /// The format version this reader understands.
    public static let formatVersion: Int64 = 1

    /// Parses every device in the file; any damage is an error.
    public static func parse(_ bytes: [UInt8], file: String) throws -> [Recording] {
        try LibinputCodec().decode(bytes, file: file, options: DecodeOptions(offerSalvage: false)).map(\.recording)
    }

    /// An error the sink raised while the file was being decoded: not bad input.
    struct SinkFailure: Error { let underlying: any Error }

    static func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        try source.fill(1)
        if source.isExhausted {
            throw ForceTraceError(file: source.file, "the file is empty; expected a libinput record YAML file (version: 1, devices: ...)")
        }
        let parser = Parser(source: source, builder: builder)
        do {
            try parser.parseFile()
        } catch let failure as SinkFailure {
            throw failure.underlying
        } catch let error as ForceTraceError {
            // The damaged device keeps its complete frames, or the damage goes to the one before.
            try builder.damaged(error, groundTruth: parser.extensionKey.groundTruth)
        }
    }

    /// forcetrace's own per-device key, ignored by libinput.
    struct Extension {
        var clock: RecordingClock?
        var t0Ns: Int64 = 0
        var axisValues: [UInt16: Int32] = [:]
        var ledStates: [(UInt16, Int32)] = []
        var switchStates: [(UInt16, Int32)] = []
        var groundTruth = GroundTruth()
        /// The device's machine when it is not the file's `system` (a file of several machines' devices).
        var system: SystemInfo?
    }

}


extension RecordingFormat {
    /// `libinput record` YAML, version 1.
    public static let libinput = RecordingFormat("libinput")
}

/// libinput record YAML: several devices per file, times relative to each
/// device's first event.
public struct LibinputCodec: RecordingCodec {
    public init() {}
    public var format: RecordingFormat { .libinput }
    public var summary: String { "libinput record YAML" }
    public var holdsSeveralRecordings: Bool { true }
    public func source(file: String, device: Int?) -> RecordingSource { .libinput(path: file, device: device) }

    /// A YAML start (`%YAML`, `---`, `{`) or a lower-case `key:`.
    public func recognizes(_ head: RecordingHead) -> Bool {
        guard let line = head.firstLine, let first = line.first else { return false }
        if line.starts(with: Array("%YAML".utf8)) || line.starts(with: Array("---".utf8)) || first == UInt8(ascii: "{") {
            return true
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon - line.startIndex >= 2 else { return false }
        return line[line.startIndex..<colon].allSatisfy { $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) }
    }

    public func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        try LibinputRecord.decode(source, options: options, into: builder)
    }

    public func encoder(to output: ByteOutput, count: Int, comment: String?) throws -> any RecordingEncoder {
        Encoder(output: output, fileHeader: (count, comment))
    }

    final class Encoder: RecordingEncoder {
        let output: ByteOutput
        private var t0Ns: Int64 = 0
        private var startsFrame = true
        private var wroteEvents = false
        private var line = ""
        /// Written before the first device, whose system it names.
        private var fileHeader: (count: Int, comment: String?)?
        private var fileSystem = SystemInfo()
        init(output: ByteOutput, fileHeader: (count: Int, comment: String?)) { self.output = output; self.fileHeader = fileHeader }

        private func writeFileHeader(_ system: SystemInfo) throws {
            guard let pending = fileHeader else { return }
            fileHeader = nil
            fileSystem = system
            try output.write(LibinputRecord.fileHeader(count: pending.count, comment: pending.comment, system: system))
        }

        func begin(_ header: RecordingHeader, groundTruth: GroundTruth) throws {
            try writeFileHeader(header.device.system)
            try output.write(LibinputRecord.deviceHeader(header, groundTruth: groundTruth, fileSystem: fileSystem))
            t0Ns = header.t0Ns
            startsFrame = true
            wroteEvents = false
        }

        func append(_ events: [InputEvent]) throws {
            guard !events.isEmpty else { return }
            if !wroteEvents {
                try output.write("    events:\n")
                wroteEvents = true
            }
            for event in events {
                line.removeAll(keepingCapacity: true)
                LibinputRecord.appendEvent(event, t0Ns: t0Ns, startsFrame: startsFrame, to: &line)
                startsFrame = event.isSynReport
                try output.write(line)
            }
        }

        func end() throws {
            if !wroteEvents { try output.write("    events: []\n") }
        }

        func finish() throws {
            try writeFileHeader(SystemInfo())
            try output.flush()
        }
    }
}
