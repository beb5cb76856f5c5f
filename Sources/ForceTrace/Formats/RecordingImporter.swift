import Foundation

/// The recording formats forcetrace reads and writes.
public enum RecordingFormat: String, CaseIterable, Sendable {
    /// evemu-record text (docs: Formats/Evemu.swift).
    case evemu
    /// `libinput record` YAML, version 1.
    case libinput
    /// Raw x86-64 `struct input_event` records, with an evemu description.
    case raw
}

/// A parsed recording and, when the input was damaged, the error that cut
/// it short. A damaged recording holds only the complete frames (up to the
/// last SYN_REPORT) before the damage.
public struct ParsedRecording: Sendable {
    public var recording: Recording
    public var damage: InputError?

    public init(recording: Recording, damage: InputError? = nil) {
        self.recording = recording
        self.damage = damage
    }
}

extension Array where Element == InputEvent {
    /// Drops the events after the last SYN_REPORT: an unfinished frame.
    mutating func removeAfterLastFrame() {
        let keep = (lastIndex(where: \.isSynReport) ?? -1) + 1
        removeSubrange(keep...)
    }
}

extension DeviceDescription {
    /// More slots than any touch device has; a larger ABS_MT_SLOT range is
    /// damage, and would make the decoder allocate without bound.
    public static let maximumSlots = 1024

    /// Checks what the decoder relies on.
    /// - Throws: `InputError` naming `file` when the description is unusable.
    func validate(file: String) throws {
        if let slot = axis(AbsoluteAxis.mtSlot) {
            guard slot.minimum >= 0, slot.maximum >= slot.minimum, Int(slot.maximum) - Int(slot.minimum) < Self.maximumSlots else {
                throw InputError(file: file, "ABS_MT_SLOT's range \(slot.minimum)..\(slot.maximum) is not a slot count; expected 0..N-1 with at most \(Self.maximumSlots) slots")
            }
        }
    }
}

/// Reads recordings in any supported format, telling the format from the
/// content.
public enum RecordingImporter {
    /// The eight-byte signature every HDF5 file starts with.
    static let hdf5Signature: [UInt8] = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]

    /// The format of `bytes`, from their content alone.
    /// - Throws: `InputError` when the content is empty, a trace file, or
    ///   matches no format.
    public static func detect(_ bytes: [UInt8], file: String) throws -> RecordingFormat {
        if bytes.isEmpty {
            throw InputError(file: file, "the file is empty; expected an evemu, libinput record or raw input_event recording")
        }
        if bytes.starts(with: hdf5Signature) {
            throw InputError(file: file, "is an HDF5 file, not a recording",
                             hint: "trace files are read by 'forcetrace info', 'export' and 'report', not imported")
        }
        // The first line that is neither blank nor a comment decides; binary
        // data (a NUL byte) before it means raw records.
        let head = bytes[...]
        var start = head.startIndex
        while start < head.endIndex {
            let end = head[start...].firstIndex(of: UInt8(ascii: "\n")) ?? head.endIndex
            var line = head[start..<end]
            if line.contains(where: { $0 < 0x09 || (0x0e..<0x20).contains($0) }) || String(bytes: line, encoding: .utf8) == nil {
                return .raw
            }
            while let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") || first == UInt8(ascii: "\r") {
                line = line.dropFirst()
            }
            start = end + 1
            guard let first = line.first, first != UInt8(ascii: "#") else { continue }
            if line.starts(with: Array("%YAML".utf8)) || line.starts(with: Array("---".utf8)) || first == UInt8(ascii: "{") {
                return .libinput
            }
            if line.count >= 2, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first), line[line.startIndex + 1] == UInt8(ascii: ":") {
                return .evemu
            }
            if let colon = line.firstIndex(of: UInt8(ascii: ":")), colon - line.startIndex >= 2,
               line[line.startIndex..<colon].allSatisfy({ $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) }) {
                return .libinput
            }
            let shown = String(decoding: line.prefix(40), as: UTF8.self)
            throw InputError(file: file, "cannot tell the format: the first line, '\(shown)', is neither evemu ('N: name') nor libinput record YAML ('version: 1')",
                             hint: "name the format with --format evemu|libinput|raw")
        }
        throw InputError(file: file, "holds only blank lines and comments; expected an evemu or libinput record recording")
    }

    /// Reads one input (a path, or "-" for standard input).
    /// - Parameters:
    ///   - format: the format, or nil to detect it.
    ///   - descriptionPath: evemu description for events-only evemu files
    ///     and raw streams.
    ///   - salvage: return damaged recordings cut at their last complete
    ///     frame instead of throwing.
    public static func read(_ path: String, format: RecordingFormat? = nil, descriptionPath: String? = nil,
                            salvage: Bool = false) throws -> [ParsedRecording] {
        let bytes = try readInputFile(path)
        let file = path == "-" ? "standard input" : path
        return try parse(bytes, file: file, format: format, descriptionPath: descriptionPath, salvage: salvage)
    }

    public static func parse(_ bytes: [UInt8], file: String, format: RecordingFormat? = nil, descriptionPath: String? = nil,
                             salvage: Bool = false) throws -> [ParsedRecording] {
        let chosen = try format ?? detect(bytes, file: file)
        let parsed: [ParsedRecording]
        switch chosen {
        case .evemu:
            parsed = [try Evemu.parseSalvaging(bytes, file: file, descriptionPath: descriptionPath)]
        case .libinput:
            parsed = try LibinputRecord.parseSalvaging(bytes, file: file)
        case .raw:
            guard let descriptionPath else {
                throw InputError(file: file, "holds binary data, read as a raw input_event stream, which carries no device description",
                                 hint: "pass the device's evemu description with --desc DESC (evemu-describe /dev/input/eventN > DESC)")
            }
            parsed = [try RawEventStream.parseSalvaging(bytes, file: file, description: try Evemu.readDescription(descriptionPath))]
        }
        if !salvage, let damage = parsed.lazy.compactMap(\.damage).first {
            let frames = parsed.reduce(0) { $0 + $1.recording.events.lazy.filter(\.isSynReport).count }
            throw InputError(file: damage.file, location: damage.location, damage.message,
                             hint: damage.hint ?? (frames > 0 ? "pass --salvage to import the \(frames) complete frames before it" : nil))
        }
        return parsed
    }
}

/// Things in an event stream that are kept as recorded but worth a warning:
/// the kernel passes them on, so forcetrace does too.
public enum StreamCheck {
    /// Warnings for `recording`, each summarising one kind of oddity.
    public static func warnings(for recording: Recording) -> [String] {
        let device = recording.device
        let declaredTypes = Set(device.codes[EventType.syn] ?? [])
        var axisRanges: [UInt16: AxisInfo] = [:]
        for axis in device.axes { axisRanges[axis.code] = axis }

        var unknownTypes: [UInt16: (count: Int, first: Int)] = [:]
        var undeclared: [UInt32: (count: Int, first: Int)] = [:]
        var outOfRange: [UInt16: (count: Int, first: Int, low: Int32, high: Int32)] = [:]
        var backwards = 0
        var firstBackwards = -1
        var previousTime = Int64.min
        for (index, event) in recording.events.enumerated() {
            if event.timeNs < previousTime {
                backwards += 1
                if firstBackwards < 0 { firstBackwards = index }
            }
            previousTime = event.timeNs
            if event.type == EventType.syn { continue }
            if event.type > EventType.max || (!declaredTypes.isEmpty && !declaredTypes.contains(event.type)) {
                unknownTypes[event.type, default: (0, index)].count += 1
                continue
            }
            if !device.has(type: event.type, code: event.code) {
                undeclared[UInt32(event.type) << 16 | UInt32(event.code), default: (0, index)].count += 1
            }
            // Tracking ids count up and wrap, and -1 ends a contact: not a range.
            // Slots beyond the range get the decoder's own, sharper warning.
            if event.type == EventType.abs, event.code != AbsoluteAxis.mtTrackingID, event.code != AbsoluteAxis.mtSlot,
               let axis = axisRanges[event.code],
               axis.maximum > axis.minimum, event.value < axis.minimum || event.value > axis.maximum {
                var entry = outOfRange[event.code] ?? (0, index, event.value, event.value)
                entry.count += 1
                entry.low = min(entry.low, event.value)
                entry.high = max(entry.high, event.value)
                outOfRange[event.code] = entry
            }
        }
        var warnings: [String] = []
        func at(_ index: Int) -> String {
            let event = recording.events[index]
            return "event \(index) at \(String(format: "%.6f", Double(event.timeNs - recording.t0Ns) / 1e9)) s"
        }
        for (type, entry) in unknownTypes.sorted(by: { $0.key < $1.key }) {
            warnings.append("\(entry.count) events of type \(EventNames.type(type)), which the device does not declare, first \(at(entry.first)); kept, not decoded")
        }
        for (key, entry) in undeclared.sorted(by: { $0.key < $1.key }) {
            let type = UInt16(key >> 16), code = UInt16(key & 0xffff)
            warnings.append("\(entry.count) \(EventNames.code(type: type, code: code)) events, a code the device does not declare, first \(at(entry.first)); kept")
        }
        for (code, entry) in outOfRange.sorted(by: { $0.key < $1.key }) {
            let axis = axisRanges[code]!
            warnings.append("\(entry.count) \(axis.name) values outside its absinfo range \(axis.minimum)..\(axis.maximum) (seen \(entry.low)..\(entry.high)), first \(at(entry.first)); kept as recorded, the kernel does not clamp")
        }
        if backwards > 0 {
            warnings.append("timestamps go backwards \(backwards == 1 ? "once" : "\(backwards) times"), first \(at(firstBackwards)); kept in recorded order")
        }
        if let last = recording.events.last, !last.isSynReport {
            let trailing = recording.events.count - ((recording.events.lastIndex(where: \.isSynReport) ?? -1) + 1)
            warnings.append("the recording ends mid-frame: \(trailing) events after the last SYN_REPORT are kept in events but form no frame")
        }
        return warnings
    }
}
