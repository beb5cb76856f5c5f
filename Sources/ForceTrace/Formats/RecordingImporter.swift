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
    /// - Throws: `InputError` naming `file` when the description is unusable.
    func validate(file: String) throws {
        if properties.count > Self.maximumProperties {
            throw InputError(file: file, "the description lists \(properties.count) properties; at most \(Self.maximumProperties) are accepted (the kernel defines 32)")
        }
        for (what, states) in [("LED", ledStates), ("switch", switchStates)] where states.count > Self.maximumStates {
            throw InputError(file: file, "the description lists \(states.count) \(what) states; at most \(Self.maximumStates) are accepted (one per code)")
        }
        if let slot = axis(AbsoluteAxis.mtSlot) {
            guard slot.minimum >= 0, slot.maximum >= slot.minimum, Int(slot.maximum) - Int(slot.minimum) < Self.maximumSlots else {
                throw InputError(file: file, "ABS_MT_SLOT's range \(slot.minimum)..\(slot.maximum) is not a slot count; expected 0..N-1 with at most \(Self.maximumSlots) slots")
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
    /// - Throws: `InputError` when the content is empty, a trace file, or
    ///   matches no format.
    static func detect(_ head: ArraySlice<UInt8>, complete: Bool, file: String) throws -> (any RecordingCodec)? {
        if head.isEmpty && complete {
            throw InputError(file: file, "the file is empty; expected an evemu, libinput record or raw input_event recording")
        }
        if head.starts(with: hdf5Signature) {
            // Reached only for streams: import copies trace files given by path (TraceCopy).
            throw InputError(file: file, "is an HDF5 file, which import reads only by path, not from a pipe or standard input",
                             hint: "HDF5 needs to seek: pass the trace file's path, e.g. 'forcetrace import TRACE.h5 -o OUT.h5'")
        }
        let parsed = RecordingHead(head, complete: complete)
        if parsed.undecided || (parsed.firstLine == nil && !parsed.isBinary && !complete) { return nil }
        if let codec = RecordingCodecs.all.first(where: { $0.recognizes(parsed) }) { return codec }
        guard let line = parsed.firstLine else {
            throw InputError(file: file, "holds only blank lines and comments; expected an evemu or libinput record recording")
        }
        let shown = String(decoding: line.prefix(40), as: UTF8.self)
        throw InputError(file: file, "cannot tell the format: the first line, '\(shown)', is neither evemu ('N: name') nor libinput record YAML ('version: 1')",
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
                throw InputError(file: source.file, "its first \(maximumHeadBytes >> 20) MiB hold no recording line (only comments, blank lines or one overlong line)",
                                 hint: "name the format with --format \(RecordingCodecs.names.joined(separator: "|"))")
            }
            size *= 4
        }
    }

    /// Decodes one input (a path, or "-" for standard input) into `sink`.
    /// - Parameter format: the format, or nil to detect it.
    /// - Throws: `InputError` for bad input (see `RecordingBuilder.damaged`).
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

    public static func parse(_ bytes: [UInt8], file: String, format: RecordingFormat? = nil, descriptionPath: String? = nil,
                             salvage: Bool = false) throws -> [ParsedRecording] {
        let collector = RecordingCollector()
        try decode(ByteSource(bytes: bytes, file: file), format: format,
                   options: DecodeOptions(descriptionPath: descriptionPath, salvage: salvage), into: collector)
        return collector.recordings
    }
}

/// Things in an event stream that are kept as recorded but worth a warning:
/// the kernel passes them on, so forcetrace does too. Fed as the events
/// stream past; its memory does not grow with the recording.
public struct StreamCheck {
    private let device: DeviceDescription
    private let t0Ns: Int64
    private let declaredTypes: Set<UInt16>
    private var axisRanges: [UInt16: AxisInfo] = [:]
    private var unknownTypes: [UInt16: (count: Int, first: Int, timeNs: Int64)] = [:]
    private var undeclared: [UInt32: (count: Int, first: Int, timeNs: Int64)] = [:]
    private var outOfRange: [UInt16: (count: Int, first: Int, timeNs: Int64, low: Int32, high: Int32)] = [:]
    private var backwards = 0
    private var firstBackwards: (index: Int, timeNs: Int64)?
    private var previousTime = Int64.min
    private var index = 0
    private var sinceLastReport = 0
    /// `device.has(type:code:)` for codes below `tableCodes`, as a table:
    /// the check runs for every event, and the lookups dominated it.
    private let declaredCodes: [Bool]
    private static let tableCodes = 1024
    /// `declaredTypes` by type, for types up to `EventType.max`.
    private let declaredTypeTable: [Bool]
    /// Each absolute axis' range by code (ABS codes are below 64), when valid.
    private let axisTable: [(minimum: Int32, maximum: Int32)?]

    public init(_ header: RecordingHeader) {
        device = header.device
        t0Ns = header.t0Ns
        declaredTypes = Set(device.codes[EventType.syn] ?? [])
        for axis in device.axes { axisRanges[axis.code] = axis }
        var declared = [Bool](repeating: false, count: (Int(EventType.max) + 1) * Self.tableCodes)
        for (type, codes) in device.codes where type <= EventType.max {
            for code in codes where Int(code) < Self.tableCodes { declared[Int(type) * Self.tableCodes + Int(code)] = true }
        }
        declaredCodes = declared
        let types = declaredTypes
        declaredTypeTable = (0...Int(EventType.max)).map { types.contains(UInt16($0)) }
        var axes = [(minimum: Int32, maximum: Int32)?](repeating: nil, count: Int(AbsoluteAxis.max) + 1)
        for (code, axis) in axisRanges where code <= AbsoluteAxis.max && axis.maximum > axis.minimum {
            axes[Int(code)] = (axis.minimum, axis.maximum)
        }
        axisTable = axes
    }

    @inline(__always)
    private func declares(type: UInt16, code: UInt16) -> Bool {
        Int(code) < Self.tableCodes ? declaredCodes[Int(type) * Self.tableCodes + Int(code)] : device.has(type: type, code: code)
    }

    /// Checks the next events of the recording.
    public mutating func check(_ events: [InputEvent]) {
        for event in events {
            defer { index += 1 }
            if event.timeNs < previousTime {
                backwards += 1
                if firstBackwards == nil { firstBackwards = (index, event.timeNs) }
            }
            previousTime = event.timeNs
            sinceLastReport = event.isSynReport ? 0 : sinceLastReport + 1
            if event.type == EventType.syn { continue }
            if event.type > EventType.max || (!declaredTypes.isEmpty && !declaredTypeTable[Int(event.type)]) {
                unknownTypes[event.type, default: (0, index, event.timeNs)].count += 1
                continue
            }
            if !declares(type: event.type, code: event.code) {
                undeclared[UInt32(event.type) << 16 | UInt32(event.code), default: (0, index, event.timeNs)].count += 1
            }
            // Tracking ids count up and wrap, and -1 ends a contact: not a range.
            // Slots beyond the range get the decoder's own, sharper warning.
            if event.type == EventType.abs, event.code != AbsoluteAxis.mtTrackingID, event.code != AbsoluteAxis.mtSlot,
               event.code <= AbsoluteAxis.max, let axis = axisTable[Int(event.code)],
               event.value < axis.minimum || event.value > axis.maximum {
                var entry = outOfRange[event.code] ?? (0, index, event.timeNs, event.value, event.value)
                entry.count += 1
                entry.low = min(entry.low, event.value)
                entry.high = max(entry.high, event.value)
                outOfRange[event.code] = entry
            }
        }
    }

    /// Warnings for what was checked, each summarising one kind of oddity.
    public func warnings() -> [String] {
        var warnings: [String] = []
        func at(_ index: Int, _ timeNs: Int64) -> String {
            "event \(index) at \(String(format: "%.6f", Double(timeNs - t0Ns) / 1e9)) s"
        }
        for (type, entry) in unknownTypes.sorted(by: { $0.key < $1.key }) {
            warnings.append("\(entry.count) events of type \(EventNames.type(type)), which the device does not declare, first \(at(entry.first, entry.timeNs)); kept, not decoded")
        }
        for (key, entry) in undeclared.sorted(by: { $0.key < $1.key }) {
            let type = UInt16(key >> 16), code = UInt16(key & 0xffff)
            warnings.append("\(entry.count) \(EventNames.code(type: type, code: code)) events, a code the device does not declare, first \(at(entry.first, entry.timeNs)); kept")
        }
        for (code, entry) in outOfRange.sorted(by: { $0.key < $1.key }) {
            let axis = axisRanges[code]!
            warnings.append("\(entry.count) \(axis.name) values outside its absinfo range \(axis.minimum)..\(axis.maximum) (seen \(entry.low)..\(entry.high)), first \(at(entry.first, entry.timeNs)); kept as recorded, the kernel does not clamp")
        }
        if let firstBackwards {
            warnings.append("timestamps go backwards \(backwards == 1 ? "once" : "\(backwards) times"), first \(at(firstBackwards.index, firstBackwards.timeNs)); kept in recorded order")
        }
        if sinceLastReport > 0 {
            warnings.append("the recording ends mid-frame: \(sinceLastReport) events after the last SYN_REPORT are kept in events but form no frame")
        }
        return warnings
    }

    /// Warnings for a whole recording in memory.
    public static func warnings(for recording: Recording) -> [String] {
        var check = StreamCheck(recording.header)
        check.check(recording.events)
        return check.warnings()
    }
}
