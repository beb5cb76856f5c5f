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
        /// Set bits in `propertyBytes`, counted as they are read.
        var propertyCount = 0
        /// `# Kernel:` and `# DMI:` comments, as evemu-record writes them.
        var system = SystemInfo()
        /// `# forcetrace-label:` comments.
        var groundTruth = GroundTruth()
        /// Whether a `# forcetrace-escaped:` line came before: the `N:`,
        /// `# Kernel:` and `# DMI:` values after it are escaped (`TextEscaping`).
        var escaped = false

        var isEmpty: Bool { name == nil && id == nil && typeBytes.isEmpty && axes.isEmpty }
    }

    /// Bitmask bytes per `B:` type or `P:`: codes are 16 bits, so 8192 bytes
    /// cover them all; more is damage.
    static let maximumBitmaskBytes = 8192

    /// Parses a recording. When `descriptionPath` is nil and `path` holds
    /// only events, a sibling `.desc` or `.prop` file is looked for.
    public static func read(_ path: String, descriptionPath: String? = nil) throws -> Recording {
        try RecordingImporter.read(path, format: .evemu, descriptionPath: descriptionPath)[0].recording
    }

    public static func parse(_ bytes: [UInt8], file: String, descriptionPath: String? = nil) throws -> Recording {
        try EvemuCodec().decode(bytes, file: file, options: DecodeOptions(descriptionPath: descriptionPath, offerSalvage: false))[0].recording
    }

    /// Reads a device description (an evemu header, with or without events).
    public static func readDescription(_ path: String) throws -> DeviceDescription {
        let device = try makeDevice(try parseDescription(path), file: path)
        try device.validate(file: path)
        return device
    }

    /// The header of the evemu file at `path`, up to its first event.
    static func parseDescription(_ path: String) throws -> Header {
        let source = try ByteSource(path: path)
        try source.fill(1)
        if source.isExhausted { throw ForceTraceError(file: path, "the description file is empty; expected N:, I:, B: and A: lines") }
        var reader = LineReader(source: source)
        var header = Header()
        try readLines(&reader, header: &header) { _, _ in false }
        if header.isEmpty {
            throw ForceTraceError(file: path, "is not an evemu device description (no N:, I:, B: or A: lines)")
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

    /// An error the sink raised while a line was being decoded: not bad input.
    struct SinkFailure: Error { let underlying: any Error }

    /// Decodes `source` into `builder`: the header first, then, from the
    /// first event on, every event; an error after the first event is
    /// damage.
    static func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        let file = source.file
        try source.fill(1)
        if source.isExhausted {
            throw ForceTraceError(file: file, "the file is empty; expected an evemu recording (N:, I:, B:, A: and E: lines)")
        }
        var reader = LineReader(source: source)
        var header = Header()
        func start(_ header: Header, hasEvents: Bool) throws {
            var deviceHeader = header
            var descriptionFile = file
            if let descriptionPath = options.descriptionPath {
                deviceHeader = try parseDescription(descriptionPath)
                descriptionFile = descriptionPath
            } else if header.isEmpty {
                guard hasEvents else {
                    throw ForceTraceError(file: file, "holds no evemu lines (only comments or blank lines); expected N:, I:, B:, A: and E: lines")
                }
                guard let sibling = siblingDescription(for: source.path ?? file) else {
                    throw ForceTraceError(file: file, "has events but no device description (no N:, I:, B: or A: lines)",
                                     hint: "pass the description with --desc FILE.desc")
                }
                deviceHeader = try parseDescription(sibling)
                descriptionFile = sibling
            }
            let device = try makeDevice(deviceHeader, file: descriptionFile)
            try device.validate(file: descriptionFile)
            builder.startRecording(device: device)
        }
        do {
            try readLines(&reader, header: &header) { event, header in
                if !builder.isRecording {
                    try start(header, hasEvents: true)
                }
                do { try builder.add(event) } catch { throw SinkFailure(underlying: error) }
                return true
            }
        } catch let failure as SinkFailure {
            throw failure.underlying
        } catch let error as ForceTraceError where builder.isRecording {
            try builder.damaged(error, groundTruth: header.groundTruth)
            return
        }
        if !builder.isRecording { try start(header, hasEvents: false) }
        try builder.endRecording(groundTruth: header.groundTruth)
    }

    /// Reads header and event lines, handing each event to `event` until
    /// it returns false. The header goes in place: a copy per event cost a
    /// 185-byte memcpy and its references' retains.
    private static func readLines(_ reader: inout LineReader, header: inout Header,
                                  event handle: (InputEvent, inout Header) throws -> Bool) throws {
        let file = reader.file
        var sawEvent = false
        while true {
            // The common event line, parsed straight from the bytes; anything
            // unusual (or wrong) takes the general path below, which names the problem.
            if let event = reader.nextParsed(Self.fastEvent) {
                sawEvent = true
                if try !handle(event, &header) { return }
                continue
            }
            guard var fullLine = try reader.next() else { break }
            // Editors on Windows start UTF-8 text with a byte-order mark: it is no content.
            if reader.lineNumber == 1 && fullLine.starts(with: RecordingHead.byteOrderMark) { fullLine = fullLine.dropFirst(3) }
            if !reader.lastLineUnterminated, let event = fullLine.withUnsafeBufferPointer(Self.fastEvent) {
                sawEvent = true
                if try !handle(event, &header) { return }
                continue
            }
            let lineNumber = reader.lineNumber
            let unterminated = reader.lastLineUnterminated
            func fail(_ message: String) -> ForceTraceError {
                // A bad last line without a newline was most likely cut short.
                if unterminated {
                    return ForceTraceError(file: file, location: .line(lineNumber),
                                      "the file ends in the middle of a line (no final newline), so the recording was cut off here: \(message)")
                }
                return ForceTraceError(file: file, location: .line(lineNumber), message)
            }
            /// A string field as written: escaped only after the marker.
            func value(_ text: Substring, of field: String) throws -> String {
                guard header.escaped else { return String(text) }
                guard let decoded = TextEscaping.unescaped(text) else {
                    throw fail("malformed escape in the \(field) value, which '\(Evemu.escapedPrefix)' marks as escaped; expected \\\\, \\n, \\r, \\t, \\xHH or \\uHHHH after each backslash")
                }
                return decoded
            }
            var line = fullLine
            // Leading spaces are tolerated, like evemu's own sscanf-based reader.
            while let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { line = line.dropFirst() }
            guard let first = line.first else { continue }
            if first == UInt8(ascii: "#") {
                let comment = String(decoding: line, as: UTF8.self)
                if comment.hasPrefix(Evemu.versionPrefix) { header.version = String(comment.dropFirst(Evemu.versionPrefix.count)).trimmingCharacters(in: .whitespaces) }
                if comment.hasPrefix(Evemu.escapedPrefix) { header.escaped = true }
                if comment.hasPrefix(Evemu.kernelPrefix) {
                    header.system.kernel = try value(comment.dropFirst(Evemu.kernelPrefix.count), of: "'# Kernel:'")
                }
                if comment.hasPrefix(Evemu.dmiPrefix) { header.system.dmi = try value(comment.dropFirst(Evemu.dmiPrefix.count), of: "'# DMI:'") }
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
            if sawEvent && Self.headerFields.contains(first) {
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
                if unterminated && type != EventType.syn {
                    // evemu-record ends every line with a newline: a last event line
                    // without one was cut off, and its value may be cut short too.
                    // (A final SYN line without newline, as hand-edited files end,
                    // loses nothing: its value is 0 however it is cut.)
                    throw ForceTraceError(file: file, location: .line(lineNumber),
                                     "the file ends in the middle of a line (no final newline): the recording was cut off here")
                }
                sawEvent = true
                if try !handle(InputEvent(timeNs: time, type: UInt16(type), code: UInt16(code), value: Int32(value)), &header) { return }
            case UInt8(ascii: "N"):
                // Marked files keep trailing blanks, as libevemu does; others drop them, as forcetrace always has.
                header.name = try header.escaped ? value(Substring(fields.rest(keepingTrailingBlanks: true)), of: "'N:'") : fields.rest()
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
                    header.propertyCount += UInt8(byte).nonzeroBitCount
                    guard header.propertyCount <= DeviceDescription.maximumProperties else {
                        throw fail("'P:' lines set more than \(DeviceDescription.maximumProperties) property bits, more than a trace file keeps (the kernel defines 32 properties)")
                    }
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
                let isLED = first == UInt8(ascii: "L")
                guard (isLED ? header.leds : header.switches).count < DeviceDescription.maximumStates else {
                    throw fail("more than \(DeviceDescription.maximumStates) '\(isLED ? "L" : "S"):' lines, more than a trace file keeps (one per \(isLED ? "LED" : "switch") code)")
                }
                if isLED { header.leds.append((UInt16(code), narrow)) } else { header.switches.append((UInt16(code), narrow)) }
            default:
                // An unknown field from a newer evemu: skip it, as readers should.
                continue
            }
        }
    }

    /// The first bytes of header lines.
    private static let headerFields: Set<UInt8> = Set("NIPBALS".utf8)

    private static func makeDevice(_ header: Header, file: String) throws -> DeviceDescription {
        var device = DeviceDescription(name: header.name ?? "")
        device.system = header.system
        if header.name == nil {
            throw ForceTraceError(file: file, "the device description has no 'N:' (name) line")
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

    static let versionPrefix = "# EVEMU "
    static let kernelPrefix = "# Kernel: "
    static let dmiPrefix = "# DMI: "
    /// Marks the `N:`, `# Kernel:` and `# DMI:` values after it as escaped.
    static let escapedPrefix = "# forcetrace-escaped:"
    static let escapedLine = "\(escapedPrefix) N:, Kernel: and DMI: values below use the escapes \\\\ \\n \\r \\t \\xHH \\uHHHH"

    /// The `N:`, `# Kernel:` and `# DMI:` values as an export writes them.
    /// As they are, like evemu-record, when each fits on its line and reads
    /// back the same; otherwise all three escaped, after `escapedLine`.
    /// Only forcetrace's marker turns escapes on, so a backslash in a name
    /// of an evemu-record file is never misread. libevemu reads the escaped
    /// text of such a name, one line without control characters.
    struct HeaderStrings {
        var escaped: Bool
        var name: String
        var kernel: String?
        var dmi: String?

        init(_ device: DeviceDescription) {
            let system = device.system
            let blanks: Set<Character> = [" ", "\t"]
            // Import drops the N: value's leading and trailing blanks in files without the marker.
            escaped = TextEscaping.needsEscaping(device.name) || device.name.first.map(blanks.contains) == true
                || device.name.last.map(blanks.contains) == true
                || [system.kernel, system.dmi].contains { $0.map(TextEscaping.needsEscaping) == true }
            guard escaped else {
                name = device.name; kernel = system.kernel; dmi = system.dmi
                return
            }
            // libevemu and import skip the blanks after "N:": a leading space is written \x20.
            let leadingSpaces = device.name.prefix { $0 == " " }.count
            name = String(repeating: "\\x20", count: leadingSpaces) + TextEscaping.escaped(device.name.dropFirst(leadingSpaces))
            kernel = system.kernel.map { TextEscaping.escaped($0) }
            dmi = system.dmi.map { TextEscaping.escaped($0) }
        }
    }

    /// A free comment line: escaped, and kept from reading as one of the
    /// comments import acts on (`# Kernel:`, `# forcetrace-label:`, ...).
    static func commentLine(_ text: some StringProtocol) -> String {
        let line = "# " + TextEscaping.escaped(text)
        let meaningful = [versionPrefix, kernelPrefix, dmiPrefix, escapedPrefix, GroundTruth.evemuPrefix]
        return meaningful.contains(where: line.hasPrefix) ? "#  " + line.dropFirst(2) : line
    }

    /// The device header: comments, then N:, I:, P:, B:, A:, L:, S: lines.
    static func header(_ device: DeviceDescription, groundTruth: GroundTruth, comment: String?) -> String {
        var output = ""
        output.write("\(versionPrefix)1.3\n")
        let strings = HeaderStrings(device)
        if strings.escaped { output.write(escapedLine + "\n") }
        // Where evemu-record puts them; read back as the device's system.
        if let kernel = strings.kernel { output.write("\(kernelPrefix)\(kernel)\n") }
        if let dmi = strings.dmi { output.write("\(dmiPrefix)\(dmi)\n") }
        output.write("# Input device name: \"\(strings.name)\"\n")
        output.write(String(format: "# Input device ID: bus %#04x vendor %#04x product %#04x version %#04x\n",
                            device.bus, device.vendor, device.product, device.version))
        if let comment {
            for line in comment.split(separator: "\n", omittingEmptySubsequences: false) { output.write(commentLine(line) + "\n") }
        }
        for line in groundTruth.evemuComments() { output.write(line + "\n") }
        output.write("N: \(strings.name)\n")
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
        return output
    }

    /// "E: 1382570977.035628 0003 0035 0367\n", as evemu prints it; the
    /// value keeps evemu's %04d padding, so -1 is "-001". The time is
    /// `Timestamp.decimal`.
    static func formatEvent(_ event: InputEvent, into line: inout String) {
        var bytes: [UInt8] = []
        appendEvent(event, to: &bytes)
        line += String(decoding: bytes, as: UTF8.self)
    }

    @inline(__always)
    static func appendEvent(_ event: InputEvent, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "E")); bytes.append(UInt8(ascii: ":")); bytes.append(UInt8(ascii: " "))
        Timestamp(ns: event.timeNs).appendDecimal(to: &bytes)
        bytes.append(UInt8(ascii: " "))
        appendHex4(event.type, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        appendHex4(event.code, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        // printf's %04d: the sign counts towards the width.
        let value = Int64(event.value)
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            Timestamp.appendDigits(value.magnitude, minimumWidth: 3, to: &bytes)
        } else {
            Timestamp.appendDigits(value.magnitude, minimumWidth: 4, to: &bytes)
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    @inline(__always)
    private static func appendHex4(_ value: UInt16, to bytes: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        digits.withUTF8Buffer { table in
            for shift in stride(from: 12, through: 0, by: -4) { bytes.append(table[Int(value >> UInt16(shift)) & 0xf]) }
        }
    }

    private static func writeBitLines(prefix: String, codes: [UInt16], maxCode: UInt16, to output: inout String) {
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

extension RecordingFormat {
    /// evemu-record text.
    public static let evemu = RecordingFormat("evemu")
}

/// evemu text: `N:`/`I:`/`P:`/`B:`/`A:` header lines, then `E:` event lines.
public struct EvemuCodec: RecordingCodec {
    public init() {}
    public var format: RecordingFormat { .evemu }
    public var summary: String { "evemu-record text" }
    public var holdsSeveralRecordings: Bool { false }
    public func source(file: String, device: Int?) -> RecordingSource { .evemu(path: file) }

    /// The first line is an evemu field: a capital letter and a colon.
    public func recognizes(_ head: RecordingHead) -> Bool {
        guard let line = head.firstLine, line.count >= 2, let first = line.first else { return false }
        return (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) && line[line.startIndex + 1] == UInt8(ascii: ":")
    }

    public func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        try Evemu.decode(source, options: options, into: builder)
    }

    public func encoder(to output: ByteOutput, count: Int, comment: String?) throws -> any RecordingEncoder {
        guard count <= 1 else {
            throw ForceTraceError(file: output.file, "an evemu file holds one device; \(count) recordings were given",
                             hint: "export them one at a time with --recording NAME, or use --format libinput")
        }
        return Encoder(output: output, comment: comment)
    }

    final class Encoder: RecordingEncoder {
        let output: ByteOutput
        let comment: String?
        init(output: ByteOutput, comment: String?) { self.output = output; self.comment = comment }

        func begin(_ header: RecordingHeader, groundTruth: GroundTruth) throws {
            try output.write(Evemu.header(header.device, groundTruth: groundTruth, comment: comment))
        }

        func append(_ events: [InputEvent]) throws {
            for event in events {
                try output.append { Evemu.appendEvent(event, to: &$0) }
            }
        }

        func end() throws {}
        func finish() throws { try output.flush() }
    }
}
