import Foundation

/// evemu's text format (evemu-record / evemu-play), versions 1.0 to 1.3:
/// a device header (`N:`, `I:`, `P:`, `B:`, `A:`, `L:`, `S:`) and `E:` event
/// lines, with `#` comments anywhere. The older split form keeps the header
/// in a separate `.desc` or `.prop` file.
public enum Evemu {
    /// Header fields as read, before they become a `DeviceDescription`.
    struct Header {
        var version: String?
        var name: String?
        var nameLine = 0
        var id: [UInt16]?
        var propertyBytes: [UInt8] = []
        var typeBytes: [UInt16: [UInt8]] = [:]
        var axes: [AxisInfo] = []
        var leds: [(UInt16, Int32)] = []
        var switches: [(UInt16, Int32)] = []
        /// `# forcetrace-label:` comments.
        var groundTruth = GroundTruth()

        var isEmpty: Bool { name == nil && id == nil && typeBytes.isEmpty && axes.isEmpty }
    }

    /// Bitmask bytes per `B:` type or `P:`: codes are 16 bits, so 8192 bytes
    /// cover them all; more is damage.
    static let maximumBitmaskBytes = 8192

    /// Parses a recording. When `descriptionPath` is nil and `path` holds
    /// only events, a sibling `.desc` or `.prop` file is looked for.
    public static func read(_ path: String, descriptionPath: String? = nil) throws -> Recording {
        let bytes = try readInputFile(path)
        return try parse(bytes, file: path, descriptionPath: descriptionPath)
    }

    public static func parse(_ bytes: [UInt8], file: String, descriptionPath: String? = nil) throws -> Recording {
        let parsed = try parseSalvaging(bytes, file: file, descriptionPath: descriptionPath)
        if let damage = parsed.damage { throw damage }
        return parsed.recording
    }

    /// Parses a recording, keeping what precedes damage in the event lines:
    /// errors in the description are thrown, errors after the first `E:`
    /// line end the recording at the last complete frame before them.
    public static func parseSalvaging(_ bytes: [UInt8], file: String, descriptionPath: String? = nil) throws -> ParsedRecording {
        if bytes.isEmpty {
            throw InputError(file: file, "the file is empty; expected an evemu recording (N:, I:, B:, A: and E: lines)")
        }
        var events: [InputEvent] = []
        events.reserveCapacity(bytes.count / 40)
        var (header, damage) = try parseLines(bytes, file: file, events: &events)
        let groundTruth = header.groundTruth
        var descriptionFile = file
        if let descriptionPath {
            header = try parseDescription(descriptionPath, into: &descriptionFile)
        } else if header.isEmpty {
            if events.isEmpty && damage == nil {
                throw InputError(file: file, "holds no evemu lines (only comments or blank lines); expected N:, I:, B:, A: and E: lines")
            }
            guard let sibling = siblingDescription(for: file) else {
                throw InputError(file: file, "has events but no device description (no N:, I:, B: or A: lines)",
                                 hint: "pass the description with --desc FILE.desc")
            }
            header = try parseDescription(sibling, into: &descriptionFile)
        }
        let device = try makeDevice(header, file: descriptionFile)
        try device.validate(file: descriptionFile)
        if let damage {
            events.removeAfterLastFrame()
            // Nothing complete to keep: the damage is the whole story.
            if events.isEmpty { throw damage }
        }
        let clock: RecordingClock
        if let first = events.first, first.timeNs >= 100_000_000 * 1_000_000_000 {
            clock = .realtime
        } else {
            clock = .relative
        }
        let base = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        var recording = Recording(device: device, events: events, clock: clock, source: .evemu(path: file), name: base)
        recording.groundTruth = groundTruth
        return ParsedRecording(recording: recording, damage: damage)
    }

    /// Reads a device description (an evemu header, with or without events).
    public static func readDescription(_ path: String) throws -> DeviceDescription {
        var descriptionFile = path
        let header = try parseDescription(path, into: &descriptionFile)
        let device = try makeDevice(header, file: path)
        try device.validate(file: path)
        return device
    }

    private static func parseDescription(_ path: String, into descriptionFile: inout String) throws -> Header {
        descriptionFile = path
        var ignored: [InputEvent] = []
        let bytes = try readInputFile(path)
        if bytes.isEmpty { throw InputError(file: path, "the description file is empty; expected N:, I:, B: and A: lines") }
        let (header, damage) = try parseLines(bytes, file: path, events: &ignored)
        if let damage { throw damage }
        if header.isEmpty {
            throw InputError(file: path, "is not an evemu device description (no N:, I:, B: or A: lines)")
        }
        return header
    }

    /// "X.leftmove.events" -> "X.leftmove.desc", then "X.desc" (and ".prop").
    static func siblingDescription(for path: String) -> String? {
        var stem = URL(fileURLWithPath: path).deletingPathExtension()
        while true {
            for ext in ["desc", "prop"] {
                let candidate = stem.appendingPathExtension(ext).path
                if candidate != path, FileManager.default.fileExists(atPath: candidate) { return candidate }
            }
            let shorter = stem.deletingPathExtension()
            if shorter.lastPathComponent == stem.lastPathComponent || shorter.lastPathComponent.isEmpty { return nil }
            stem = shorter
        }
    }

    /// Reads header and event lines. Errors in the header are thrown; an
    /// error after the first event is returned as damage, with the events
    /// before it kept.
    private static func parseLines(_ bytes: [UInt8], file: String, events: inout [InputEvent]) throws -> (Header, InputError?) {
        var header = Header()
        var sawEvent = false
        do {
            try parseLines(bytes, file: file, header: &header, events: &events, sawEvent: &sawEvent)
        } catch let error as InputError where sawEvent {
            return (header, error)
        }
        return (header, nil)
    }

    private static func parseLines(_ bytes: [UInt8], file: String, header: inout Header, events: inout [InputEvent],
                                   sawEvent: inout Bool) throws {
        var reader = LineReader(bytes: bytes, file: file)
        var lastEventLine = 0
        while let fullLine = try reader.next() {
            let lineNumber = reader.lineNumber
            func fail(_ message: String) -> InputError {
                // A bad last line without a newline was most likely cut short.
                if reader.position >= bytes.count && reader.endsMidLine {
                    return InputError(file: file, location: .line(lineNumber),
                                      "the file ends in the middle of a line (no final newline), so the recording was cut off here: \(message)")
                }
                return InputError(file: file, location: .line(lineNumber), message)
            }
            var line = fullLine
            // Leading spaces are tolerated, like evemu's own sscanf-based reader.
            while let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { line = line.dropFirst() }
            guard let first = line.first else { continue }
            if first == UInt8(ascii: "#") {
                let comment = String(decoding: line, as: UTF8.self)
                if comment.hasPrefix("# EVEMU ") { header.version = String(comment.dropFirst(8)).trimmingCharacters(in: .whitespaces) }
                if comment.hasPrefix(GroundTruth.evemuPrefix),
                   let problem = header.groundTruth.parseEvemuComment(comment.dropFirst(GroundTruth.evemuPrefix.count)) {
                    throw fail(problem)
                }
                continue
            }
            guard line.count >= 2, line[line.startIndex + 1] == UInt8(ascii: ":"),
                  (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) else {
                let shown = String(decoding: line.prefix(40), as: UTF8.self)
                throw fail("expected an evemu line such as 'E: 0.000000 0003 0035 0100' or 'N: name', found '\(shown)'")
            }
            if first != UInt8(ascii: "N") {
                // Comments may follow any field except the device name.
                if let hash = line.firstIndex(of: UInt8(ascii: "#")) { line = line[line.startIndex..<hash] }
            }
            if sawEvent && Array("NIPBALS".utf8).contains(first) {
                throw fail("device description line after the first event; the header must come first")
            }
            var fields = FieldScanner(line.dropFirst(2))
            switch first {
            case UInt8(ascii: "E"):
                guard let time = fields.timestampNs() else { throw fail("expected a timestamp SECONDS.MICROSECONDS after 'E:'") }
                guard let type = fields.hex(), type <= 0xffff else { throw fail("expected the event type in hex after the timestamp") }
                guard let code = fields.hex(), code <= 0xffff else { throw fail("expected the event code in hex after the type") }
                guard let value = fields.decimal(), value >= Int64(Int32.min), value <= Int64(Int32.max) else {
                    throw fail("expected a decimal 32-bit event value after the code")
                }
                guard fields.atEnd else { throw fail("unexpected text after the event value") }
                events.append(InputEvent(timeNs: time, type: UInt16(type), code: UInt16(code), value: Int32(value)))
                sawEvent = true
                lastEventLine = lineNumber
            case UInt8(ascii: "N"):
                header.name = fields.rest()
                header.nameLine = lineNumber
            case UInt8(ascii: "I"):
                var id: [UInt16] = []
                for _ in 0..<4 {
                    guard let part = fields.hex(), part <= 0xffff else {
                        throw fail("expected 'I: BUS VENDOR PRODUCT VERSION', four hex numbers")
                    }
                    id.append(UInt16(part))
                }
                header.id = id
            case UInt8(ascii: "P"):
                while let byte = fields.hex() {
                    guard header.propertyBytes.count < Self.maximumBitmaskBytes else {
                        throw fail("'P:' lines hold more than \(Self.maximumBitmaskBytes * 8) property bits; expected at most \(Self.maximumBitmaskBytes) bytes in all")
                    }
                    guard byte <= 0xff else { throw fail("expected hex bytes after 'P:'") }
                    header.propertyBytes.append(UInt8(byte))
                }
                guard fields.atEnd else { throw fail("expected hex bytes after 'P:'") }
            case UInt8(ascii: "B"):
                guard let type = fields.hex(), type <= Int64(EventType.max) else {
                    throw fail("expected an event type (00 to 1f) after 'B:'")
                }
                while let byte = fields.hex() {
                    guard byte <= 0xff else { throw fail("expected hex bytes after the type in 'B:'") }
                    guard header.typeBytes[UInt16(type), default: []].count < Self.maximumBitmaskBytes else {
                        throw fail("'B: \(String(format: "%02x", type))' lines hold more than \(Self.maximumBitmaskBytes * 8) code bits; expected at most \(Self.maximumBitmaskBytes) bytes in all")
                    }
                    header.typeBytes[UInt16(type), default: []].append(UInt8(byte))
                }
                guard fields.atEnd else { throw fail("expected hex bytes after the type in 'B:'") }
            case UInt8(ascii: "A"):
                guard let code = fields.hex(), code <= Int64(AbsoluteAxis.max) else {
                    throw fail("expected an axis code (00 to 3f) after 'A:'")
                }
                var numbers: [Int32] = []
                while let number = fields.decimal() {
                    guard let narrow = Int32(exactly: number) else { throw fail("axis value \(number) does not fit 32 bits") }
                    numbers.append(narrow)
                }
                guard fields.atEnd, numbers.count == 4 || numbers.count == 5 else {
                    throw fail("expected 'A: CODE MIN MAX FUZZ FLAT [RESOLUTION]'")
                }
                header.axes.append(AxisInfo(code: UInt16(code), minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2],
                                            flat: numbers[3], resolution: numbers.count == 5 ? numbers[4] : 0))
            case UInt8(ascii: "L"), UInt8(ascii: "S"):
                guard let code = fields.hex(), code <= 0xffff, let value = fields.decimal(), let narrow = Int32(exactly: value) else {
                    throw fail("expected '\(Character(UnicodeScalar(first))): CODE VALUE'")
                }
                if first == UInt8(ascii: "L") { header.leds.append((UInt16(code), narrow)) } else { header.switches.append((UInt16(code), narrow)) }
            default:
                // An unknown field from a newer evemu: skip it, as readers should.
                continue
            }
        }
        if reader.endsMidLine && lastEventLine == reader.lineNumber && events.last?.type != EventType.syn {
            // evemu-record ends every line with a newline: a last event line
            // without one was cut off, and its value may be cut short too.
            // (A final SYN_REPORT without newline, as hand-edited files end,
            // loses nothing: its value is 0 however it is cut.)
            events.removeLast()
            throw InputError(file: file, location: .line(reader.lineNumber),
                             "the file ends in the middle of a line (no final newline): the recording was cut off here")
        }
    }

    private static func makeDevice(_ header: Header, file: String) throws -> DeviceDescription {
        var device = DeviceDescription(name: header.name ?? "")
        if header.name == nil {
            throw InputError(file: file, "the device description has no 'N:' (name) line")
        }
        if let id = header.id {
            device.bus = id[0]; device.vendor = id[1]; device.product = id[2]; device.version = id[3]
        }
        for (index, byte) in header.propertyBytes.enumerated() {
            for bit in 0..<8 where byte & (1 << bit) != 0 {
                device.properties.append(UInt16(index * 8 + bit))
            }
        }
        for (type, bytes) in header.typeBytes {
            var codes: [UInt16] = []
            for (index, byte) in bytes.enumerated() {
                for bit in 0..<8 where byte & (1 << bit) != 0 {
                    codes.append(UInt16(index * 8 + bit))
                }
            }
            // evemu lists every type, mostly empty; keep only types with codes,
            // plus EV_SYN, which every device has.
            if !codes.isEmpty || type == EventType.syn { device.codes[type] = codes }
        }
        for axis in header.axes {
            device.axes.removeAll { $0.code == axis.code }
            device.axes.append(axis)
            device.enable(type: EventType.abs, code: axis.code)
        }
        device.axes.sort { $0.code < $1.code }
        device.ledStates = header.leds
        device.switchStates = header.switches
        return device
    }

    // MARK: - Writing

    /// Writes a recording in evemu 1.3 format. Times are written as they
    /// are, so absolute timestamps stay absolute.
    public static func write(_ recording: Recording, comment: String? = nil, to output: inout some TextOutputStream) {
        let device = recording.device
        output.write("# EVEMU 1.3\n")
        output.write("# Input device name: \"\(device.name)\"\n")
        output.write(String(format: "# Input device ID: bus %#04x vendor %#04x product %#04x version %#04x\n",
                            device.bus, device.vendor, device.product, device.version))
        if let comment {
            for line in comment.split(separator: "\n", omittingEmptySubsequences: false) { output.write("# \(line)\n") }
        }
        for line in recording.groundTruth.evemuComments() { output.write(line + "\n") }
        output.write("N: \(device.name)\n")
        output.write(String(format: "I: %04x %04x %04x %04x\n", device.bus, device.vendor, device.product, device.version))
        writeBitLines(prefix: "P:", codes: device.properties, maxCode: max(InputProperty.max, device.properties.max() ?? 0), to: &output)
        for type in device.codes.keys.sorted() {
            let codes = device.codes[type] ?? []
            let maxCode = max(EventNames.maxCode(type: type) ?? 0, codes.max() ?? 0)
            writeBitLines(prefix: String(format: "B: %02x", type), codes: codes, maxCode: maxCode, to: &output)
        }
        for axis in device.axes {
            output.write(String(format: "A: %02x %d %d %d %d %d\n", axis.code, axis.minimum, axis.maximum,
                                axis.fuzz, axis.flat, axis.resolution))
        }
        for (code, value) in device.ledStates { output.write(String(format: "L: %02x %d\n", code, value)) }
        for (code, value) in device.switchStates { output.write(String(format: "S: %02x %d\n", code, value)) }
        var line = ""
        for event in recording.events {
            line.removeAll(keepingCapacity: true)
            formatEvent(event, into: &line)
            output.write(line)
        }
    }

    /// "E: 1382570977.035628 0003 0035 0367\n", as evemu prints it; the
    /// value keeps evemu's %04d padding, so -1 is "-001".
    static func formatEvent(_ event: InputEvent, into line: inout String) {
        let seconds = event.timeNs / 1_000_000_000
        let nanoseconds = event.timeNs % 1_000_000_000
        if nanoseconds % 1000 == 0 {
            line += String(format: "E: %lld.%06lld %04x %04x %04d\n", seconds, nanoseconds / 1000, event.type, event.code, event.value)
        } else {
            // Finer than evdev's microseconds (an edited or converted file):
            // keep all nine digits rather than lose them.
            line += String(format: "E: %lld.%09lld %04x %04x %04d\n", seconds, nanoseconds, event.type, event.code, event.value)
        }
    }

    private static func writeBitLines(prefix: String, codes: [UInt16], maxCode: UInt16, to output: inout some TextOutputStream) {
        let byteCount = (Int(maxCode) / 8 + 1 + 7) / 8 * 8
        var bytes = [UInt8](repeating: 0, count: max(8, byteCount))
        for code in codes where Int(code) / 8 < bytes.count { bytes[Int(code) / 8] |= 1 << (code % 8) }
        for start in stride(from: 0, to: bytes.count, by: 8) {
            output.write(prefix)
            for byte in bytes[start..<start + 8] { output.write(String(format: " %02x", byte)) }
            output.write("\n")
        }
    }
}
