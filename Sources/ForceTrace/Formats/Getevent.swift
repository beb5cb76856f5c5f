import Foundation

/// What Android's `getevent` (AOSP system/core, toolbox/getevent.c) prints:
/// event lines in its numeric (`-t`) or labelled (`-l`) form, optionally
/// timestamped (`[   12345.678901] `) and prefixed with the device node, and
/// the device blocks (`add device N: NODE`, `name:`, and with `-p` the
/// `events:` and `input props:` lists with each axis's absinfo). Several
/// devices may share one capture; each one with events becomes a recording.
/// docs/FORMAT.md, "Android getevent", gives the rules.
public enum Getevent {
    /// Devices one capture may add; a phone has a few dozen nodes.
    static let maximumDevices = 256
    /// Events held for devices other than the first to send one: their
    /// recordings are written after it, so their events wait in memory
    /// (16 bytes each, 64 MiB in all).
    static let maximumHeldEvents = 1 << 22
    /// Longest device name kept; getevent reads at most 79 bytes.
    static let maximumNameBytes = 1024

    /// The value labels getevent prints (its `key_value_labels` and the
    /// kernel's `MT_TOOL_*`), which libevdev does not name.
    static let keyValues: [String: Int32] = ["UP": 0, "DOWN": 1, "REPEAT": 2]
    static let toolValues: [String: Int32] = ["MT_TOOL_FINGER": 0, "MT_TOOL_PEN": 1, "MT_TOOL_PALM": 2,
                                              "MT_TOOL_DIAL": 0x0a, "MT_TOOL_MAX": 0x0f]

    /// One `add device` block, or a node seen only in event lines.
    final class Device {
        let number: Int?
        let node: String?
        let line: Int
        var description: DeviceDescription
        /// Whether an `events:` list (getevent -p) described it.
        var described = false
        var held: [InputEvent] = []
        var hasEvents = false
        init(number: Int?, node: String?, line: Int) {
            self.number = number; self.node = node; self.line = line
            description = DeviceDescription(name: "")
        }
        var shownName: String { node.map { "'\($0)'" } ?? "the device" }
    }

    private enum Section { case none, header, events, properties, hidDescriptor }

    /// Reads a capture in memory, for tests and small inputs.
    public static func read(_ bytes: [UInt8], file: String = "getevent-bytes", description: DeviceDescription? = nil) throws -> [Recording] {
        try GeteventCodec().decode(bytes, file: file, options: DecodeOptions(description: description)).map(\.recording)
    }

    /// Decodes a capture into `builder`: the first device to send an event
    /// streams through; the others are held and follow it, in the order of
    /// their first events.
    static func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        let file = source.file
        try source.fill(1)
        if source.isExhausted { throw ForceTraceError(file: file, "the file is empty; expected getevent output") }
        var reader = LineReader(source: source)
        var devices: [Device] = []
        var current: Device?
        var section = Section.none
        var eventsType: UInt16?
        var streaming: Device?
        var order: [Device] = []
        var heldCount = 0
        var timed: Bool?
        var given: DeviceDescription?

        func fail(_ message: String, hint: String? = nil) -> ForceTraceError {
            ForceTraceError(file: file, location: .line(reader.lineNumber), message, hint: hint)
        }
        func descriptionFor(_ device: Device) throws -> DeviceDescription {
            if device.described {
                try device.description.validate(file: file)
                return device.description
            }
            if let given = options.description { return given }
            if let path = options.descriptionPath {
                if given == nil { given = try Evemu.readDescription(path) }
                return given!
            }
            throw fail("\(device.shownName) has events but no description (no 'events:' list with the axis ranges, which 'getevent -p' prints)",
                       hint: "capture 'getevent -lp' before the events in the same file (cat desc.txt events.txt), or pass --desc DESC (an evemu header)")
        }
        func start(_ device: Device) throws {
            builder.startRecording(device: try descriptionFor(device),
                                   nameSuffix: device.node.map { URL(fileURLWithPath: $0).lastPathComponent },
                                   deviceIndex: device.number, clock: timed == true ? .monotonic : .relative)
        }

        do {
            while let bytes = try reader.next() {
                let line = String(decoding: bytes, as: UTF8.self)
                if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                if line.hasPrefix("add device ") {
                    guard devices.count < maximumDevices else {
                        throw fail("more than \(maximumDevices) 'add device' blocks; expected one per input node")
                    }
                    let rest = line.dropFirst("add device ".count)
                    guard let colon = rest.firstIndex(of: ":"), let number = Int(rest[..<colon]), (0...1_000_000).contains(number),
                          rest[colon...].hasPrefix(": "), rest.count > rest.distance(from: rest.startIndex, to: colon) + 2 else {
                        throw fail("expected 'add device N: NODE'")
                    }
                    let device = Device(number: number, node: String(rest[rest.index(colon, offsetBy: 2)...]), line: reader.lineNumber)
                    devices.append(device)
                    current = device
                    section = .header
                    continue
                }
                // getevent's messages on standard error, which adb's terminal mixes in.
                if line.hasPrefix("remove device ") || line.hasPrefix("could not ") || line.hasPrefix("Can't enable monotonic clock") {
                    section = .none
                    continue
                }
                if line.hasPrefix("  "), section != .none, let device = current {
                    try readDescriptionLine(line, device: device, section: &section, eventsType: &eventsType, report: fail)
                    continue
                }
                section = .none
                // An event line.
                let parsed = try parseEvent(line, devices: devices, fail: fail)
                if let timed, timed != (parsed.time != nil) {
                    throw fail(timed ? "an event line without the timestamp the lines before have" : "a timestamped event line after lines without one",
                               hint: "keep one capture per file: getevent -t prints a time on every line")
                }
                timed = parsed.time != nil
                let device: Device
                if let found = devices.last(where: { $0.node == parsed.node }) {
                    device = found
                } else {
                    guard devices.count < maximumDevices else { throw fail("events of more than \(maximumDevices) devices") }
                    device = Device(number: nil, node: parsed.node, line: reader.lineNumber)
                    devices.append(device)
                }
                let event = InputEvent(timeNs: parsed.time ?? 0, type: parsed.type, code: parsed.code, value: parsed.value)
                if !device.hasEvents {
                    device.hasEvents = true
                    if streaming == nil {
                        streaming = device
                        try start(device)
                    } else {
                        _ = try descriptionFor(device)
                        order.append(device)
                    }
                }
                if device === streaming {
                    do { try builder.add(event) } catch { throw Evemu.SinkFailure(underlying: error) }
                } else {
                    heldCount += 1
                    guard heldCount <= maximumHeldEvents else {
                        throw fail("more than \(maximumHeldEvents) events of devices other than \(streaming!.shownName) to hold",
                                   hint: "capture one device at a time: getevent -lt /dev/input/eventN")
                    }
                    device.held.append(event)
                }
            }
        } catch let failure as Evemu.SinkFailure {
            throw failure.underlying
        } catch let error as ForceTraceError where builder.isRecording {
            try builder.damaged(error)
            // The held devices keep their complete frames.
            for device in order {
                let end = device.held.lastIndex(where: \.isSynReport).map { $0 + 1 } ?? 0
                device.held.removeSubrange(end...)
            }
            try emit(order, timed: timed, start: start, into: builder)
            return
        }
        guard streaming != nil else {
            throw ForceTraceError(file: file, devices.isEmpty ? "holds no getevent lines" : "holds device descriptions but no events",
                                  hint: "capture events with 'getevent -lt'; 'getevent -p' alone only describes the devices")
        }
        try builder.endRecording()
        try emit(order, timed: timed, start: start, into: builder)
    }

    private static func emit(_ order: [Device], timed: Bool?, start: (Device) throws -> Void, into builder: RecordingBuilder) throws {
        for device in order where !device.held.isEmpty {
            try start(device)
            try builder.add(contentsOf: device.held)
            device.held = []
            try builder.endRecording()
        }
    }

    // MARK: - Device blocks

    /// A line of an `add device` block: `name:`, the `-i` identity lines, the
    /// `events:` and `input props:` lists, a HID descriptor (skipped).
    private static func readDescriptionLine(_ line: String, device: Device, section: inout Section, eventsType: inout UInt16?,
                                            report: (String, String?) -> ForceTraceError) throws {
        func fail(_ message: String) -> ForceTraceError { report(message, nil) }
        let trimmed = line.drop { $0 == " " }
        let indent = line.count - trimmed.count
        if indent == 2 {
            let field = trimmed.prefix { $0 != ":" && $0 != " " }
            let value = trimmed.dropFirst(field.count).drop { $0 == ":" || $0 == " " }
            switch field {
            case "name":
                guard value.first == "\"", value.count >= 2, value.last == "\"" else { throw fail("expected 'name: \"NAME\"'") }
                let name = value.dropFirst().dropLast()
                guard name.utf8.count <= maximumNameBytes else { throw fail("the device name is longer than \(maximumNameBytes) bytes") }
                device.description.name = String(name)
            case "bus", "vendor", "product", "version":
                // "version:  1.0.1" is the driver's version, which evdev does not keep.
                if field == "version" && trimmed.dropFirst(field.count).first == ":" { break }
                guard value.count == 4, let number = UInt16(value, radix: 16) else { throw fail("expected '\(field) HHHH', four hex digits") }
                switch field {
                case "bus": device.description.bus = number
                case "vendor": device.description.vendor = number
                case "product": device.description.product = number
                default: device.description.version = number
                }
            case "location", "id": break
            case "events":
                section = .events
                eventsType = nil
                device.described = true
                device.description.enable(type: EventType.syn, code: EventType.syn)
            case "input":
                guard trimmed == "input props:" else { throw fail("expected 'input props:'") }
                section = .properties
            case "HID":
                section = .hidDescriptor
            default:
                throw fail("unexpected line in the block of device \(device.shownName); expected name:, events: or input props:")
            }
            return
        }
        switch section {
        case .hidDescriptor: return
        case .properties:
            guard indent == 4 else { throw fail("expected an input property, indented by four spaces") }
            if trimmed == "<none>" || trimmed.hasPrefix("<not available") { return }
            let property: UInt16
            if trimmed.count == 4, let number = UInt16(trimmed, radix: 16) {
                property = number
            } else if let known = (0...InputProperty.max).first(where: { EventNames.property($0) == trimmed }) {
                property = known
            } else {
                throw fail("unknown input property '\(trimmed)'")
            }
            guard property <= InputProperty.max else { throw fail("input property \(property) is past INPUT_PROP_MAX") }
            if !device.description.properties.contains(property) {
                device.description.properties.append(property)
                device.description.properties.sort()
            }
        case .events:
            var items = Substring(trimmed)
            // "KEY (0001):" starts a type; getevent pads "SW " and "FF " to three letters.
            if indent == 4, let open = items.range(of: " ("), let close = items.range(of: "):"), open.upperBound < close.lowerBound {
                let hex = items[open.upperBound..<close.lowerBound]
                guard hex.count == 4, let type = UInt16(hex, radix: 16), type > 0, type <= EventType.max else {
                    throw fail("expected 'TYPE (HHHH):' with an event type from 0001 to 001f")
                }
                eventsType = type
                items = items[close.upperBound...]
                device.description.enable(type: EventType.syn, code: type)
            } else if indent != 16 {
                throw fail("expected 'TYPE (HHHH): CODES' or a continuation line of codes")
            }
            guard let type = eventsType else { throw fail("codes before their 'TYPE (HHHH):'") }
            if type == EventType.abs {
                try readAxis(items, device: device, fail: fail)
                return
            }
            for token in items.split(separator: " ") {
                let down = token.last == "*"
                let name = down ? token.dropLast() : token
                guard let code = code(String(name), type: type) else {
                    throw fail("unknown \(EventNames.type(type)) code '\(name)'")
                }
                device.description.enable(type: type, code: code)
                if type == EventType.led { device.description.ledStates.append((code, down ? 1 : 0)) }
                if type == EventType.sw { device.description.switchStates.append((code, down ? 1 : 0)) }
                guard device.description.ledStates.count <= DeviceDescription.maximumStates,
                      device.description.switchStates.count <= DeviceDescription.maximumStates else {
                    throw fail("more than \(DeviceDescription.maximumStates) LEDs or switches")
                }
            }
        case .header, .none:
            throw fail("unexpected indented line in the block of device \(device.shownName)")
        }
    }

    /// "ABS_MT_POSITION_X     : value 0, min 0, max 1079, fuzz 0, flat 0, resolution 0"
    /// (getevent versions before resolution print no resolution).
    private static func readAxis(_ item: Substring, device: Device, fail: (String) -> ForceTraceError) throws {
        guard let colon = item.firstIndex(of: ":") else {
            throw fail("an ABS code without its absinfo ('CODE : value V, min A, max B, fuzz F, flat L, resolution R')")
        }
        var name = item[..<colon].trimmingCharacters(in: .whitespaces)
        if name.hasSuffix("*") { name.removeLast() }
        guard let code = code(name, type: EventType.abs) else { throw fail("unknown ABS code '\(name)'") }
        var fields: [String: Int32] = [:]
        for part in item[item.index(after: colon)...].split(separator: ",") {
            let words = part.split(separator: " ")
            guard words.count == 2, let number = Int32(words[1]), fields[String(words[0])] == nil,
                  ["value", "min", "max", "fuzz", "flat", "resolution"].contains(words[0]) else {
                throw fail("expected 'value V, min A, max B, fuzz F, flat L, resolution R' with 32-bit numbers, found '\(part.trimmingCharacters(in: .whitespaces))'")
            }
            fields[String(words[0])] = number
        }
        guard let minimum = fields["min"], let maximum = fields["max"], let value = fields["value"],
              let fuzz = fields["fuzz"], let flat = fields["flat"] else {
            throw fail("the absinfo of \(EventNames.code(type: EventType.abs, code: code)) lacks one of value, min, max, fuzz, flat")
        }
        device.description.setAxis(AxisInfo(code: code, minimum: minimum, maximum: maximum, fuzz: fuzz, flat: flat,
                                            resolution: fields["resolution"] ?? 0, value: value))
    }

    // MARK: - Event lines

    struct ParsedEvent {
        var time: Int64?
        var node: String?
        var type: UInt16
        var code: UInt16
        var value: Int32
    }

    /// `[   SEC.USEC] NODE: TYPE CODE VALUE`, the time and node optional;
    /// TYPE CODE VALUE as `%04x %04x %08x` or as labels (`-l`), with
    /// `rate N` after a SYN_REPORT (`-r`).
    static func parseEvent(_ line: String, devices: [Device], fail: (String, String?) -> ForceTraceError) throws -> ParsedEvent {
        var rest = Substring(line)
        var time: Int64?
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { throw fail("a timestamp without its closing ']'", nil) }
            let stamp = rest[rest.index(after: rest.startIndex)..<close].drop { $0 == " " }
            let parts = stamp.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, (1...12).contains(parts[0].count), parts[1].count == 6,
                  parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
                  let seconds = Int64(parts[0]), let micro = Int64(parts[1]) else {
                throw fail("expected a timestamp '[SECONDS.MICROSECONDS]' with six digits after the point, as getevent -t prints it", nil)
            }
            time = seconds * 1_000_000_000 + micro * 1000
            rest = rest[rest.index(after: close)...].drop { $0 == " " }
        }
        var node: String?
        if let known = devices.compactMap(\.node).filter({ rest.hasPrefix($0 + ": ") }).max(by: { $0.count < $1.count }) {
            node = known
            rest = rest.dropFirst(known.count + 2)
        } else if let separator = rest.range(of: ": ") {
            node = String(rest[..<separator.lowerBound])
            rest = rest[separator.upperBound...]
        }
        var tokens = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if tokens.count == 5, tokens[3] == "rate", Int(tokens[4]) != nil { tokens.removeLast(2) }
        guard tokens.count == 3 else {
            let shown = String(line.prefix(60))
            throw fail("expected a getevent line such as '[  1234.567890] /dev/input/event2: EV_ABS ABS_MT_PRESSURE 0000002a', found '\(shown)'",
                       tokens.count > 3 ? "captures with -n (no newlines) cannot be read; capture with 'getevent -lt'" : nil)
        }
        let type: UInt16
        if let number = hex(tokens[0], digits: 4) {
            type = number
        } else if let named = EventNames.type(named: String(tokens[0])) {
            type = named
        } else {
            throw fail("unknown event type '\(tokens[0])'; expected HHHH or a name such as EV_ABS", nil)
        }
        guard type <= EventType.max else { throw fail("event type \(type) is past EV_MAX", nil) }
        let code: UInt16
        if let number = hex(tokens[1], digits: 4) {
            code = number
        } else if let named = Self.code(String(tokens[1]), type: type) {
            code = named
        } else {
            throw fail("unknown \(EventNames.type(type)) code '\(tokens[1])'", nil)
        }
        let value: Int32
        if tokens[2].count == 8, let number = UInt32(tokens[2], radix: 16) {
            value = Int32(bitPattern: number)
        } else if type == EventType.key, let named = keyValues[String(tokens[2])] {
            value = named
        } else if type == EventType.abs, code == AbsoluteAxis.mtToolType, let named = toolValues[String(tokens[2])] {
            value = named
        } else {
            throw fail("expected the value as eight hex digits (or UP/DOWN/REPEAT, MT_TOOL_*), found '\(tokens[2])'", nil)
        }
        return ParsedEvent(time: time, node: node, type: type, code: code, value: value)
    }

    private static func hex(_ token: Substring, digits: Int) -> UInt16? {
        guard token.count == digits, token.allSatisfy(\.isHexDigit) else { return nil }
        return UInt16(token, radix: 16)
    }

    /// A code from its kernel name, or from the first 20 characters of it,
    /// which is all getevent prints of a longer one; or four hex digits.
    static func code(_ name: String, type: UInt16) -> UInt16? {
        if name.count == 4, let number = UInt16(name, radix: 16), name.allSatisfy(\.isHexDigit) { return number }
        if let code = EventNames.code(named: name, type: type) { return code }
        guard name.count == 20, let max = EventNames.maxCode(type: type) else { return nil }
        let matches = (0...max).filter { EventNames.code(type: type, code: $0).hasPrefix(name) }
        return matches.count == 1 ? matches[0] : nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension RecordingFormat {
    /// Android getevent output.
    public static let getevent = RecordingFormat("getevent")
}

/// getevent text, read only: an export to it would lose the ranges.
public struct GeteventCodec: RecordingCodec {
    public init() {}
    public var format: RecordingFormat { .getevent }
    public var summary: String { "Android getevent output (-t, -l, -p)" }
    public var holdsSeveralRecordings: Bool { true }
    public var writes: Bool { false }
    public func source(file: String, device: Int?) -> RecordingSource {
        .other("getevent:\(file)" + (device.map { "#device\($0)" } ?? ""))
    }

    /// A line getevent starts with: `add device N:`, one of its messages, a
    /// `[ SEC.USEC]` timestamp, or an event line without one.
    public func recognizes(_ head: RecordingHead) -> Bool {
        guard let first = head.firstLine else { return false }
        let line = String(decoding: first, as: UTF8.self)
        if line.hasPrefix("add device ") || line.hasPrefix("could not get driver version for ") { return true }
        if line.hasPrefix("["), let close = line.firstIndex(of: "]") {
            let stamp = line[line.index(after: line.startIndex)..<close].drop { $0 == " " }
            return !stamp.isEmpty && stamp.allSatisfy { $0 == "." || $0.isASCIIDigit } && stamp.contains(".")
        }
        let fail: (String, String?) -> ForceTraceError = { message, _ in ForceTraceError(file: "", message) }
        return (try? Getevent.parseEvent(line, devices: [], fail: fail)) != nil
    }

    public func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        try Getevent.decode(source, options: options, into: builder)
    }

    public func encoder(to output: ByteOutput, count: Int, comment: String?) throws -> any RecordingEncoder {
        throw ForceTraceError(file: output.file, "forcetrace reads getevent output but does not write it",
                              hint: "export to evemu, libinput or raw")
    }
}
