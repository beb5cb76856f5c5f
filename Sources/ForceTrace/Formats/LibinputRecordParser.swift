import Foundation

// Reading: the YAML events of a libinput record file into recordings.
extension LibinputRecord {
    final class Parser {
        let reader: YAMLEventReader
        let file: String
        let builder: RecordingBuilder
        var version: Int64?
        var declaredDevices: Int64?
        var system = SystemInfo()
        var devicesFinished = 0
        // The device being parsed.
        var deviceIndex = 0
        var device: DeviceDescription?
        var node: String?
        /// Whether the last event of the device so far is a SYN_REPORT.
        var endsWithReport = true
        var extensionKey = Extension()

        init(source: ByteSource, builder: RecordingBuilder) {
            reader = YAMLEventReader(source: source)
            file = source.file
            self.builder = builder
        }

        func fail(_ event: YAMLEvent, _ message: String) -> ForceTraceError {
            ForceTraceError(file: file, location: .line(event.line),
                       message + (event.atEndOfInput ? "; the file ends here, so it was probably cut off (truncated)" : ""))
        }

        func parseFile() throws {
            _ = try reader.next()  // stream start
            var event = try reader.next()
            if event.kind == .streamEnd {
                throw ForceTraceError(file: file, "holds no YAML document (only comments or blank lines); expected a libinput record file")
            }
            if event.kind == .documentStart { event = try reader.next() }
            guard event.kind == .mappingStart else {
                throw fail(event, "expected the libinput record top-level mapping (version: 1, ndevices:, devices:), found \(event.shown)")
            }
            try forEachKey { key, keyEvent in
                switch key {
                case "version":
                    let value = try integer("version")
                    guard value == formatVersion else {
                        throw fail(keyEvent, "libinput record format version \(value) is not supported; this forcetrace reads version \(formatVersion)")
                    }
                    version = value
                case "ndevices":
                    declaredDevices = try integer("ndevices", in: 0...1_000_000)
                case "system":
                    try parseSystem()
                case "devices":
                    guard version != nil else {
                        throw fail(keyEvent, "'devices' before 'version': expected 'version: 1' first, as libinput writes it")
                    }
                    try parseDevices()
                default:
                    try reader.skipValue()
                }
            }
            try expectEndOfStream()
            guard version != nil else {
                throw ForceTraceError(file: file, "has no 'version' key: not a libinput record file",
                                 hint: "for evemu files use --format evemu")
            }
            guard declaredDevices != nil || devicesFinished > 0 else {
                throw ForceTraceError(file: file, "has no 'devices' list: expected devices with evdev descriptions and events")
            }
            if let declaredDevices, declaredDevices > devicesFinished {
                throw ForceTraceError(file: file, "declares ndevices: \(declaredDevices) but holds \(devicesFinished) devices; the file may be truncated")
            }
            if devicesFinished == 0 {
                throw ForceTraceError(file: file, "has no devices; expected at least one device with an evdev description")
            }
        }

        /// After the top-level mapping: the end of its document, then of the
        /// file. libyaml reads further documents as valid YAML, but a libinput
        /// record file is one document, and what follows would be ignored.
        func expectEndOfStream() throws {
            var event = try reader.next()
            if event.kind == .documentEnd { event = try reader.next() }
            guard event.kind == .streamEnd else {
                throw ForceTraceError(file: file, location: .line(event.line), "a second YAML document starts here; a libinput record file is one document, and the first ended before this line",
                                 hint: "import each document as a file of its own, or delete this line and what follows")
            }
        }

        /// Calls `body` for each key of the mapping whose start was just
        /// read; `body` must consume the value. Non-scalar keys are skipped.
        func forEachKey(_ body: (String, YAMLEvent) throws -> Void) throws {
            while true {
                let key = try reader.next()
                switch key.kind {
                case .mappingEnd:
                    return
                case .scalar(let name):
                    try body(name, key)
                case .sequenceStart, .mappingStart:
                    try skipRest(of: key)
                    try reader.skipValue()
                default:
                    throw fail(key, "expected a key or the end of a mapping, found \(key.shown)")
                }
            }
        }

        /// Skips the rest of a list or mapping whose start was consumed.
        func skipRest(of start: YAMLEvent) throws {
            var depth = 1
            while depth > 0 {
                let event = try reader.next()
                switch event.kind {
                case .sequenceStart, .mappingStart: depth += 1
                case .sequenceEnd, .mappingEnd: depth -= 1
                case .streamEnd, .documentEnd: throw fail(event, "the file ends inside a list or mapping")
                default: break
                }
            }
        }

        func integer(_ what: String, in range: ClosedRange<Int64>? = nil) throws -> Int64 {
            let event = try reader.next()
            guard case .scalar(let text) = event.kind else {
                throw fail(event, "expected an integer for \(what), found \(event.shown)")
            }
            guard let value = Self.parseInteger(text) else {
                throw fail(event, "expected an integer for \(what), found '\(text.prefix(40))'")
            }
            if let range, !range.contains(value) {
                throw fail(event, "\(what) \(value) is out of range; expected \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }

        static func parseInteger(_ text: String) -> Int64? {
            if text.hasPrefix("0x") || text.hasPrefix("0X") { return Int64(text.dropFirst(2), radix: 16) }
            return Int64(text)
        }

        func string(_ what: String) throws -> String {
            let event = try reader.next()
            guard case .scalar(let text) = event.kind else {
                throw fail(event, "expected text for \(what), found \(event.shown)")
            }
            return text
        }

        /// A flow or block list of integers, each within `range`, at most `limit` of them.
        func integerList(_ what: String, in range: ClosedRange<Int64>, count: Int? = nil, limit: Int? = nil) throws -> [Int64] {
            let start = try reader.next()
            guard start.kind == .sequenceStart else {
                throw fail(start, "expected a list of integers for \(what), found \(start.shown)")
            }
            var values: [Int64] = []
            while true {
                let event = try reader.next()
                if event.kind == .sequenceEnd { break }
                guard case .scalar(let text) = event.kind, let value = Self.parseInteger(text) else {
                    throw fail(event, "expected an integer in \(what), found \(event.shown)")
                }
                guard range.contains(value) else {
                    throw fail(event, "\(value) in \(what) is out of range; expected \(range.lowerBound) to \(range.upperBound)")
                }
                if let limit, values.count == limit {
                    throw fail(event, "\(what) holds more than \(limit) values, more than a trace file keeps")
                }
                values.append(value)
            }
            if let count, values.count != count {
                throw fail(start, "expected \(count) integers in \(what), found \(values.count)")
            }
            return values
        }

        func parseDevices() throws {
            let start = try reader.next()
            guard start.kind == .sequenceStart else {
                throw fail(start, "expected 'devices' to be a list of devices, found \(start.shown)")
            }
            while try reader.peek().kind != .sequenceEnd {
                try parseDevice()
                deviceIndex += 1
            }
            _ = try reader.next()
        }

        func parseDevice() throws {
            let start = try reader.next()
            guard start.kind == .mappingStart else {
                throw fail(start, "device \(deviceIndex): expected a mapping with 'evdev' and 'events', found \(start.shown)")
            }
            device = nil
            node = nil
            endsWithReport = true
            extensionKey = Extension()
            var sawEvents = false
            try forEachKey { key, keyEvent in
                switch key {
                case "evdev": device = try parseEvdev(at: keyEvent)
                case "node": node = try string("node")
                case "forcetrace":
                    guard !sawEvents else {
                        // Events are handed on as they are read, so the origin must be known first.
                        throw fail(keyEvent, "device \(deviceIndex): the 'forcetrace' key follows 'events'; expected it before 'events', as forcetrace writes it")
                    }
                    try parseExtension()
                case "events":
                    guard device != nil else {
                        throw fail(keyEvent, "device \(deviceIndex): 'events' before its 'evdev' description; expected 'evdev' first, as libinput writes it")
                    }
                    sawEvents = true
                    startDevice()
                    try parseEvents()
                default: try reader.skipValue()
                }
            }
            guard device != nil else {
                throw fail(start, "device \(deviceIndex) has no 'evdev' description (name, id, codes, absinfo)")
            }
            if !sawEvents {
                throw fail(start, "device \(deviceIndex) has no 'events' list")
            }
            try finishDevice()
        }

        /// Starts the device's recording, once its description and forcetrace key are read.
        func startDevice() {
            guard var device else { return }
            for index in device.axes.indices {
                device.axes[index].value = extensionKey.axisValues[device.axes[index].code] ?? 0
            }
            device.ledStates = extensionKey.ledStates
            device.switchStates = extensionKey.switchStates
            device.system = extensionKey.system ?? system
            let several = declaredDevices.map({ $0 > 1 }) ?? false || deviceIndex > 0
            builder.startRecording(device: device,
                                   nameSuffix: several ? node.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "device\(deviceIndex)" : nil,
                                   deviceIndex: deviceIndex > 0 || (declaredDevices ?? 1) > 1 ? deviceIndex : nil,
                                   clock: extensionKey.clock ?? .relative, timeOffsetNs: extensionKey.t0Ns)
        }

        /// Ends the device's recording.
        func finishDevice() throws {
            guard device != nil else { return }
            do { try builder.endRecording(groundTruth: extensionKey.groundTruth) } catch { throw SinkFailure(underlying: error) }
            devicesFinished += 1
            device = nil
        }

        func parseEvdev(at keyEvent: YAMLEvent) throws -> DeviceDescription {
            let start = try reader.next()
            guard start.kind == .mappingStart else {
                throw fail(start, "device \(deviceIndex): expected 'evdev' to be a mapping (name, id, codes, absinfo, properties), found \(start.shown)")
            }
            var name: String?
            var id: [Int64] = [0, 0, 0, 0]
            var codes: [UInt16: [UInt16]] = [:]
            var axes: [AxisInfo] = []
            var properties: [UInt16] = []
            try forEachKey { key, _ in
                switch key {
                case "name": name = try string("the device name")
                case "id": id = try integerList("id [bus, vendor, product, version]", in: 0...0xffff, count: 4)
                case "codes":
                    let map = try reader.next()
                    guard map.kind == .mappingStart else { throw fail(map, "expected 'codes' to map event types to code lists, found \(map.shown)") }
                    try forEachKey { typeText, typeEvent in
                        guard let type = Self.parseInteger(typeText), (0...Int64(EventType.max)).contains(type) else {
                            throw fail(typeEvent, "expected an event type number (0 to \(EventType.max)) as a key in 'codes', found '\(typeText.prefix(40))'")
                        }
                        let list = try integerList("codes of type \(type)", in: 0...0xffff)
                        codes[UInt16(type)] = Array(Set(list.map { UInt16($0) })).sorted()
                    }
                case "absinfo":
                    let map = try reader.next()
                    guard map.kind == .mappingStart else { throw fail(map, "expected 'absinfo' to map axis codes to [min, max, fuzz, flat, resolution], found \(map.shown)") }
                    try forEachKey { codeText, codeEvent in
                        guard let code = Self.parseInteger(codeText), (0...Int64(AbsoluteAxis.max)).contains(code) else {
                            throw fail(codeEvent, "expected an axis code (0 to \(AbsoluteAxis.max)) as a key in 'absinfo', found '\(codeText.prefix(40))'")
                        }
                        let info = try integerList("absinfo of axis \(code) [min, max, fuzz, flat, resolution]",
                                                   in: Int64(Int32.min)...Int64(Int32.max), count: 5)
                        axes.append(AxisInfo(code: UInt16(code), minimum: Int32(info[0]), maximum: Int32(info[1]),
                                             fuzz: Int32(info[2]), flat: Int32(info[3]), resolution: Int32(info[4])))
                    }
                case "properties":
                    properties = try integerList("properties", in: 0...0xffff, limit: DeviceDescription.maximumProperties).map { UInt16($0) }
                default:
                    try reader.skipValue()
                }
            }
            guard let name else {
                throw fail(start, "device \(deviceIndex): the evdev description has no 'name'")
            }
            var device = DeviceDescription(name: name)
            device.bus = UInt16(id[0]); device.vendor = UInt16(id[1]); device.product = UInt16(id[2]); device.version = UInt16(id[3])
            device.properties = Array(Set(properties)).sorted()
            // libinput lists the EV_SYN codes under type 0; forcetrace keeps
            // the supported types there, as EVIOCGBIT(0) and evemu do.
            for (type, list) in codes where type != EventType.syn && !list.isEmpty { device.codes[type] = list }
            device.codes[EventType.syn] = Array(Set(codes.keys).union([EventType.syn])).sorted()
            for axis in axes {
                device.axes.removeAll { $0.code == axis.code }
                device.axes.append(axis)
                device.enable(type: EventType.abs, code: axis.code)
            }
            device.axes.sort { $0.code < $1.code }
            // An absinfo entry implies EV_ABS even where 'codes' leaves it out.
            device.codes[EventType.syn] = Array(Set(device.codes[EventType.syn] ?? []).union(device.codes.keys)).sorted()
            do { try device.validate(file: file) } catch let error as ForceTraceError {
                throw ForceTraceError(file: file, location: .line(start.line), error.message)
            }
            return device
        }

        /// `system: {kernel, dmi, ...}`; the other keys (os) are not kept.
        func parseSystem() throws {
            let start = try reader.next()
            guard start.kind == .mappingStart else {
                try skipRest(of: start)
                return
            }
            try forEachKey { key, _ in
                switch key {
                case "kernel":
                    let kernel = try string("system kernel")
                    system.kernel = kernel == "unknown" ? nil : kernel  // what forcetrace writes when it does not know
                case "dmi": system.dmi = try string("system dmi")
                default: try reader.skipValue()
                }
            }
        }

        func parseExtension() throws {
            let start = try reader.next()
            guard start.kind == .mappingStart else {
                try skipRest(of: start)
                return
            }
            func pairs(_ what: String) throws -> [(UInt16, Int32)] {
                let list = try reader.next()
                guard list.kind == .sequenceStart else { throw fail(list, "expected a list of [code, value] pairs for \(what)") }
                var result: [(UInt16, Int32)] = []
                while try reader.peek().kind != .sequenceEnd {
                    guard result.count < DeviceDescription.maximumStates else {
                        throw fail(try reader.peek(), "\(what) holds more than \(DeviceDescription.maximumStates) pairs, more than a trace file keeps (one per code)")
                    }
                    let pair = try integerList(what, in: Int64(Int32.min)...Int64(Int32.max), count: 2)
                    guard (0...0xffff).contains(pair[0]) else { throw fail(list, "code \(pair[0]) in \(what) is out of range") }
                    result.append((UInt16(pair[0]), Int32(pair[1])))
                }
                _ = try reader.next()
                return result
            }
            try forEachKey { key, keyEvent in
                switch key {
                case "clock":
                    let text = try string("clock")
                    guard let clock = RecordingClock(rawValue: text) else {
                        throw fail(keyEvent, "unknown clock '\(text.prefix(40))'; expected realtime, monotonic or relative")
                    }
                    extensionKey.clock = clock
                case "t0_ns": extensionKey.t0Ns = try integer("t0_ns", in: -(1 << 62)...(1 << 62))
                case "abs_value":
                    let map = try reader.next()
                    guard map.kind == .mappingStart else { throw fail(map, "expected 'abs_value' to map axis codes to values") }
                    try forEachKey { codeText, codeEvent in
                        guard let code = Self.parseInteger(codeText), (0...Int64(AbsoluteAxis.max)).contains(code) else {
                            throw fail(codeEvent, "expected an axis code as a key in 'abs_value', found '\(codeText.prefix(40))'")
                        }
                        extensionKey.axisValues[UInt16(code)] = Int32(try integer("abs_value", in: Int64(Int32.min)...Int64(Int32.max)))
                    }
                case "labels":
                    // GroundTruth's evemu comment text, without the comment prefix.
                    let list = try reader.next()
                    guard list.kind == .sequenceStart else { throw fail(list, "expected 'labels' to be a list of strings") }
                    while try reader.peek().kind != .sequenceEnd {
                        let item = try reader.peek()
                        let text = try string("a label")
                        if let problem = extensionKey.groundTruth.parseEvemuComment(Substring(text)) { throw fail(item, problem) }
                    }
                    _ = try reader.next()
                case "system":
                    let map = try reader.next()
                    guard map.kind == .mappingStart else { throw fail(map, "expected 'system' to map kernel and dmi to strings") }
                    var own = SystemInfo()
                    try forEachKey { key, _ in
                        switch key {
                        case "kernel": own.kernel = try string("system kernel")
                        case "dmi": own.dmi = try string("system dmi")
                        default: try reader.skipValue()
                        }
                    }
                    extensionKey.system = own
                case "led_state": extensionKey.ledStates = try pairs("led_state")
                case "switch_state": extensionKey.switchStates = try pairs("switch_state")
                default: try reader.skipValue()
                }
            }
        }

        /// The events list: one `- evdev: [[sec, usec, type, code, value], ...]`
        /// item per frame. A frame is added only once it is read whole.
        func parseEvents() throws {
            let start = try reader.next()
            guard start.kind == .sequenceStart else {
                throw fail(start, "device \(deviceIndex): expected 'events' to be a list of frames, found \(start.shown)")
            }
            var frame: [InputEvent] = []
            var lastFrameLine = start.line
            while true {
                let item = try reader.next()
                if item.kind == .sequenceEnd {
                    // libinput ends every frame with SYN_REPORT: a last frame
                    // without one was cut off (YAML cut at a line end stays valid).
                    if !endsWithReport {
                        throw fail(YAMLEvent(kind: .sequenceEnd, line: lastFrameLine, column: 1),
                                   "device \(deviceIndex): the last frame does not end with SYN_REPORT: the file was cut off mid-frame")
                    }
                    return
                }
                lastFrameLine = item.line
                guard item.kind == .mappingStart else {
                    throw fail(item, "expected an events item such as '- evdev: [[0, 0, 3, 57, 1420], ...]', found \(item.shown)")
                }
                try forEachKey { key, _ in
                    guard key == "evdev" else {
                        try reader.skipValue()  // hid, libinput and other event sources
                        return
                    }
                    frame.removeAll(keepingCapacity: true)
                    let list = try reader.next()
                    guard list.kind == .sequenceStart else {
                        throw fail(list, "expected 'evdev' to be a list of [sec, usec, type, code, value] events, found \(list.shown)")
                    }
                    while true {
                        let eventStart = try reader.next()
                        if eventStart.kind == .sequenceEnd { break }
                        guard eventStart.kind == .sequenceStart else {
                            throw fail(eventStart, "expected an event [sec, usec, type, code, value], found \(eventStart.shown)")
                        }
                        frame.append(try parseEvent(startingAt: eventStart))
                    }
                    if let last = frame.last { endsWithReport = last.isSynReport }
                    do { try builder.add(contentsOf: frame) } catch { throw SinkFailure(underlying: error) }
                }
            }
        }

        private func parseEvent(startingAt start: YAMLEvent) throws -> InputEvent {
            var numbers: (Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0)
            var count = 0
            while true {
                let event = try reader.next()
                if event.kind == .sequenceEnd { break }
                guard case .scalar(let text) = event.kind, let value = Self.parseInteger(text) else {
                    throw fail(event, "expected an integer in the event [sec, usec, type, code, value], found \(event.shown)")
                }
                switch count {
                case 0: numbers.0 = value
                case 1: numbers.1 = value
                case 2: numbers.2 = value
                case 3: numbers.3 = value
                case 4: numbers.4 = value
                default: break
                }
                count += 1
            }
            guard count == 5 else {
                throw fail(start, "expected an event [sec, usec, type, code, value] with 5 integers, found \(count)")
            }
            let (seconds, microseconds, type, code, value) = numbers
            guard (-9_000_000_000...9_000_000_000).contains(seconds) else {
                throw fail(start, "event time \(seconds) s is out of range")
            }
            guard (0...999_999).contains(microseconds) else {
                throw fail(start, "expected microseconds from 0 to 999999 as the event's second number, found \(microseconds)")
            }
            guard (0...0xffff).contains(type), (0...0xffff).contains(code) else {
                throw fail(start, "event type \(type) or code \(code) is out of range; expected 0 to 65535")
            }
            guard let narrow = Int32(exactly: value) else {
                throw fail(start, "event value \(value) does not fit 32 bits")
            }
            return InputEvent(timeNs: Timestamp(seconds: seconds, microseconds: microseconds).ns, type: UInt16(type), code: UInt16(code), value: narrow)
        }
    }
}
