import Foundation

/// W3C InkML (Recommendation, 20 September 2011): each `<trace>` becomes
/// one pen contact of a virtual pen whose axes follow the document's
/// `<traceFormat>` channels. docs/FORMAT.md, "InkML", gives the rules.
public enum InkML {
    /// Largest document read whole (traces need every value before the
    /// axes' scales are known).
    static let maximumBytes = 1 << 26
    static let maximumPoints = 1 << 22
    static let maximumTraces = 1 << 16
    /// Fraction digits kept of a decimal channel: values are stored as
    /// integers in 10^-digits of the channel's unit.
    static let maximumFractionDigits = 6
    /// Magnitude of any value; keeps every scaled value in 32 bits' reach.
    static let maximumMagnitude = 1e15

    struct Channel {
        var name: String
        var type = "decimal"
        var minimum: Double?
        var maximum: Double?
        var units: String?
        var resolution: Double?
        var resolutionUnits: String?
        var intermittent = false
    }

    struct Trace {
        var id: String?
        var line: Int
        var penDown: Bool
        var timeOffsetMs: Double
        /// Per point, per channel (nil: an intermittent channel left out).
        var points: [[Double?]]
    }

    /// The evdev axis of each channel InkML names (X, Y, F, OTx, OTy); T is time.
    static let axes: [String: UInt16] = ["X": AbsoluteAxis.x, "Y": AbsoluteAxis.y, "F": AbsoluteAxis.pressure,
                                         "OTx": 0x1a, "OTy": 0x1b]

    static func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        let file = source.file
        var wanted = 1 << 16
        while true {
            try source.fill(wanted)
            if source.atEnd || source.available > maximumBytes { break }
            wanted = min(wanted * 4, maximumBytes + 1)
        }
        guard source.available <= maximumBytes else {
            throw ForceTraceError(file: file, "is larger than \(maximumBytes >> 20) MiB, more than an InkML document is read whole")
        }
        if source.isExhausted { throw ForceTraceError(file: file, "the file is empty; expected an InkML document (<ink>)") }
        let bytes = Array(source.peek(source.available))
        source.consume(bytes.count)
        var tokens = XMLTokens(bytes, file: file)
        var channels: [Channel]?
        var formatLine = 0
        var properties: [(channel: String, name: String, value: Double, units: String?)] = []
        var sampleRate: Double?
        var deviceName: String?
        var rawTraces: [(id: String?, line: Int, type: String, timeOffset: String?, text: String)] = []
        var inFormat = false, inIntermittent = false
        var openTrace: (id: String?, line: Int, type: String, timeOffset: String?, text: String)?
        var sawInk = false
        var totalTraceBytes = 0

        func fail(_ message: String, line: Int? = nil) -> ForceTraceError {
            ForceTraceError(file: file, location: .line(line ?? tokens.tokenLine), message)
        }
        func number(_ text: String?, _ what: String) throws -> Double? {
            guard let text else { return nil }
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, abs(value) <= maximumMagnitude else {
                throw fail("\(what) '\(text)' is not a number")
            }
            return value
        }

        while let token = try tokens.next() {
            switch token {
            case .start(let qualified, let attributes, _):
                let name = String(qualified.split(separator: ":").last ?? "")
                if tokens.depth == 1 {
                    guard name == "ink" else {
                        throw fail("the root element is '<\(qualified)>'; an InkML document's is '<ink>'")
                    }
                    sawInk = true
                }
                switch name {
                case "traceFormat":
                    if inFormat { throw fail("a traceFormat inside a traceFormat") }
                    if channels != nil {
                        throw fail("a second <traceFormat> (the first is on line \(formatLine)); this reader takes one per document",
                                   line: tokens.tokenLine)
                    }
                    inFormat = true
                    formatLine = tokens.tokenLine
                    channels = []
                case "intermittentChannels":
                    inIntermittent = true
                case "channel" where inFormat:
                    guard let channelName = attributes["name"], !channelName.isEmpty else { throw fail("a <channel> without its name") }
                    guard channels!.count < 32, !channels!.contains(where: { $0.name == channelName }) else {
                        throw fail("the channel '\(channelName)' is declared twice, or more than 32 channels")
                    }
                    var channel = Channel(name: channelName)
                    channel.type = attributes["type"] ?? "decimal"
                    guard ["decimal", "double", "integer", "boolean"].contains(channel.type) else {
                        throw fail("the channel '\(channelName)' has type '\(channel.type)'; expected decimal, double, integer or boolean")
                    }
                    channel.minimum = try number(attributes["min"], "the min of channel '\(channelName)'")
                    channel.maximum = try number(attributes["max"], "the max of channel '\(channelName)'")
                    channel.units = attributes["units"]
                    channel.intermittent = inIntermittent
                    channels!.append(channel)
                case "channelProperty":
                    guard let channel = attributes["channel"], let property = attributes["name"],
                          let value = try number(attributes["value"], "the value of a channelProperty") else {
                        throw fail("a <channelProperty> needs channel, name and value")
                    }
                    guard properties.count < 1024 else { throw fail("more than 1024 channel properties") }
                    properties.append((channel, property, value, attributes["units"]))
                case "sampleRate":
                    sampleRate = try number(attributes["value"], "the sampleRate value")
                case "inkSource":
                    let parts = [attributes["manufacturer"], attributes["model"]].compactMap { $0 }.filter { !$0.isEmpty }
                    if !parts.isEmpty, deviceName == nil { deviceName = parts.joined(separator: " ") }
                case "trace":
                    guard openTrace == nil else { throw fail("a trace inside a trace") }
                    guard rawTraces.count < maximumTraces else { throw fail("more than \(maximumTraces) traces") }
                    openTrace = (attributes["xml:id"] ?? attributes["id"], tokens.tokenLine, attributes["type"] ?? "penDown",
                                 attributes["timeOffset"], "")
                default: break
                }
            case .end(let qualified):
                let name = String(qualified.split(separator: ":").last ?? "")
                switch name {
                case "traceFormat": inFormat = false
                case "intermittentChannels": inIntermittent = false
                case "trace":
                    if let trace = openTrace { rawTraces.append(trace) }
                    openTrace = nil
                default: break
                }
            case .text(let text):
                if openTrace != nil {
                    totalTraceBytes += text.utf8.count
                    openTrace!.text += text
                }
            }
        }
        guard sawInk else { throw ForceTraceError(file: file, "holds no <ink> element") }
        guard !rawTraces.isEmpty else { throw ForceTraceError(file: file, "holds no <trace>; nothing to import") }

        // The default trace format is X Y (the Recommendation's default context).
        var format = channels ?? [Channel(name: "X"), Channel(name: "Y")]
        guard !format.isEmpty else { throw fail("the <traceFormat> on line \(formatLine) declares no channel", line: formatLine) }
        for property in properties {
            guard let index = format.firstIndex(where: { $0.name == property.channel }) else { continue }
            switch property.name {
            case "resolution": format[index].resolution = property.value; format[index].resolutionUnits = property.units
            case "min" where format[index].minimum == nil: format[index].minimum = property.value
            case "max" where format[index].maximum == nil: format[index].maximum = property.value
            default: break
            }
        }

        var traces: [Trace] = []
        var points = 0
        for raw in rawTraces {
            guard ["penDown", "penUp", "indeterminate"].contains(raw.type) else {
                throw fail("trace \(shown(raw.id)) has type '\(raw.type)'; expected penDown, penUp or indeterminate", line: raw.line)
            }
            let values = try parseTrace(raw.text, channels: format, fail: { fail("trace \(shown(raw.id)): \($0)", line: raw.line) })
            points += values.count
            guard points <= maximumPoints else { throw fail("more than \(maximumPoints) points in all", line: raw.line) }
            traces.append(Trace(id: raw.id, line: raw.line, penDown: raw.type != "penUp",
                                timeOffsetMs: try number(raw.timeOffset, "the timeOffset of trace \(shown(raw.id))") ?? 0, points: values))
        }
        try build(traces, channels: format, sampleRate: sampleRate, name: deviceName ?? "InkML pen", file: file, into: builder)
    }

    static func shown(_ id: String?) -> String { id.map { "'\($0)'" } ?? "(no id)" }

    /// A trace's text: points split by ",", values by blanks or by the sign
    /// or prefix that starts the next; `!` explicit, `'` first and `"`
    /// second differences, each prefix holding for its channel until
    /// another is given; `T`/`F` for boolean channels.
    static func parseTrace(_ text: String, channels: [Channel], fail: (String) -> ForceTraceError) throws -> [[Double?]] {
        enum Mode { case explicit, first, second }
        var modes = [Mode](repeating: .explicit, count: channels.count)
        var last = [Double?](repeating: nil, count: channels.count)
        var velocity = [Double?](repeating: nil, count: channels.count)
        var result: [[Double?]] = []
        let regular = channels.filter { !$0.intermittent }.count
        for pointText in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = pointText.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty {
                if result.isEmpty && text.allSatisfy(\.isWhitespace) { break }
                throw fail("an empty point (two commas, or a comma at an end)")
            }
            var tokens: [(Mode?, String)] = []
            var chars = Array(trimmed.unicodeScalars)
            var i = 0
            while i < chars.count {
                let c = chars[i]
                if c == " " || c == "\t" || c == "\n" || c == "\r" { i += 1; continue }
                var mode: Mode?
                if c == "!" { mode = .explicit } else if c == "'" { mode = .first } else if c == "\"" { mode = .second }
                if mode != nil {
                    i += 1
                    while i < chars.count, chars[i] == " " { i += 1 }
                }
                let start = i
                if i < chars.count, chars[i] == "T" || chars[i] == "F" {
                    i += 1
                } else {
                    if i < chars.count, chars[i] == "-" || chars[i] == "+" { i += 1 }
                    while i < chars.count, ("0"..."9").contains(chars[i]) || chars[i] == "." { i += 1 }
                    if i < chars.count, chars[i] == "e" || chars[i] == "E" {
                        i += 1
                        if i < chars.count, chars[i] == "-" || chars[i] == "+" { i += 1 }
                        while i < chars.count, ("0"..."9").contains(chars[i]) { i += 1 }
                    }
                }
                guard i > start else {
                    throw fail("unexpected '\(String(c))' in point \(result.count + 1); expected numbers, the prefixes ! ' \" or T/F (wildcards '*' and '?' are not read)")
                }
                tokens.append((mode, String(String.UnicodeScalarView(chars[start..<i]))))
            }
            chars = []
            guard tokens.count >= regular, tokens.count <= channels.count else {
                throw fail("point \(result.count + 1) has \(tokens.count) values; the traceFormat has \(regular) channels\(channels.count > regular ? " and \(channels.count - regular) intermittent ones" : "")")
            }
            var point = [Double?](repeating: nil, count: channels.count)
            for (index, (given, text)) in tokens.enumerated() {
                if let given { modes[index] = given }
                let value: Double
                if text == "T" || text == "F" {
                    guard channels[index].type == "boolean" else { throw fail("'\(text)' in the \(channels[index].type) channel '\(channels[index].name)'") }
                    value = text == "T" ? 1 : 0
                } else {
                    guard let number = Double(text), number.isFinite, abs(number) <= maximumMagnitude else {
                        throw fail("'\(text)' in point \(result.count + 1) is not a number")
                    }
                    value = number
                }
                let resolved: Double
                switch modes[index] {
                case .explicit: resolved = value
                case .first:
                    guard let previous = last[index] else { throw fail("a difference (') in point \(result.count + 1) of channel '\(channels[index].name)', which has no value before it") }
                    resolved = previous + value
                case .second:
                    guard let previous = last[index], let speed = velocity[index] else {
                        throw fail("a second difference (\") in point \(result.count + 1) of channel '\(channels[index].name)', which needs two values before it")
                    }
                    resolved = previous + speed + value
                }
                guard abs(resolved) <= maximumMagnitude else { throw fail("channel '\(channels[index].name)' reaches \(resolved)") }
                velocity[index] = last[index].map { resolved - $0 }
                last[index] = resolved
                point[index] = resolved
            }
            result.append(point)
        }
        return result
    }

    /// Decimal digits a channel's values need, at most `maximumFractionDigits`.
    static func fractionDigits(_ values: [Double]) -> Int {
        for digits in 0..<maximumFractionDigits {
            let scale = pow(10, Double(digits))
            if values.allSatisfy({ abs(($0 * scale).rounded() - $0 * scale) < 1e-6 }) { return digits }
        }
        return maximumFractionDigits
    }

    /// Millimetres per unit, for the length units InkML names.
    static func millimetres(_ units: some StringProtocol) -> Double? {
        switch units {
        case "mm": 1
        case "cm": 10
        case "m": 1000
        case "in": 25.4
        case "pt": 25.4 / 72
        case "himetric": 0.01
        default: nil
        }
    }

    /// Stored values per channel unit from a `resolution` channel property
    /// ("1000" in "1/cm" for a channel in cm: 1000): the device's own grid.
    static func gridScale(_ channel: Channel) -> Double? {
        guard let value = channel.resolution, value > 0, let units = channel.units, let perUnit = millimetres(units),
              let given = channel.resolutionUnits, given.hasPrefix("1/"), let per = millimetres(given.dropFirst(2)) else { return nil }
        let scale = value * perUnit / per
        return scale >= 1e-6 && scale <= 1e9 ? scale : nil
    }

    private static func build(_ traces: [Trace], channels: [Channel], sampleRate: Double?, name: String, file: String,
                              into builder: RecordingBuilder) throws {
        var device = DeviceDescription(name: name)
        device.enable(type: EventType.syn, code: EventType.syn)
        device.enable(type: EventType.syn, code: EventType.key)
        device.enable(type: EventType.key, code: Button.toolPen)
        device.enable(type: EventType.key, code: Button.touch)
        device.properties = [InputProperty.direct]
        var scales = [Double](repeating: 1, count: channels.count)
        for (index, channel) in channels.enumerated() {
            guard let code = axes[channel.name] else { continue }
            let values = traces.flatMap { $0.points.compactMap { $0[index] } }
            let scale = gridScale(channel) ?? pow(10, Double(channel.type == "integer" || channel.type == "boolean" ? 0 : fractionDigits(values)))
            scales[index] = scale
            let observedMin = values.min() ?? 0, observedMax = values.max() ?? 0
            let minimum = (channel.minimum ?? observedMin) * scale, maximum = (channel.maximum ?? observedMax) * scale
            guard minimum.rounded() >= Double(Int32.min), maximum.rounded() <= Double(Int32.max), minimum <= maximum else {
                throw ForceTraceError(file: file, "channel '\(channel.name)' spans \(minimum / scale)..\(maximum / scale), which does not fit 32-bit evdev values in steps of \(1 / scale)")
            }
            // Values outside a declared range are kept; the stream check warns of them.
            let resolution = channel.units.flatMap(millimetres).map { Int32(clamping: Int64((scale / $0).rounded())) } ?? 0
            device.setAxis(AxisInfo(code: code, minimum: Int32(minimum.rounded()), maximum: Int32(maximum.rounded()), resolution: resolution))
        }
        let timeIndex = channels.firstIndex { $0.name == "T" }
        let timeScale = timeIndex.map { timeUnitNs(channels[$0].units) } ?? 0
        builder.startRecording(device: device, clock: .relative)
        var previousTime: Int64 = .min
        for trace in traces {
            var last = [Int32?](repeating: nil, count: channels.count)
            for (pointIndex, point) in trace.points.enumerated() {
                var timeNs = Int64((trace.timeOffsetMs * 1_000_000).rounded())
                if let timeIndex, let t = point[timeIndex] {
                    timeNs &+= Int64((t * timeScale).rounded())
                } else if let rate = sampleRate, rate > 0 {
                    timeNs &+= Int64((Double(pointIndex) / rate * 1e9).rounded())
                }
                if timeNs < previousTime {
                    throw ForceTraceError(file: file, location: .line(trace.line),
                                          "trace \(shown(trace.id)) goes back in time (point \(pointIndex + 1)); traces must follow each other in time")
                }
                previousTime = timeNs
                if pointIndex == 0 {
                    try builder.add(InputEvent(timeNs: timeNs, type: EventType.key, code: Button.toolPen, value: 1))
                    if trace.penDown { try builder.add(InputEvent(timeNs: timeNs, type: EventType.key, code: Button.touch, value: 1)) }
                }
                for (index, channel) in channels.enumerated() {
                    guard let code = axes[channel.name], let value = point[index] else { continue }
                    let stored = Int32(clamping: Int64((value * scales[index]).rounded()))
                    if last[index] != stored {
                        try builder.add(InputEvent(timeNs: timeNs, type: EventType.abs, code: code, value: stored))
                        last[index] = stored
                    }
                }
                try builder.add(InputEvent(timeNs: timeNs, type: EventType.syn, code: Synchronization.report, value: 0))
                if pointIndex == trace.points.count - 1 {
                    if trace.penDown { try builder.add(InputEvent(timeNs: timeNs, type: EventType.key, code: Button.touch, value: 0)) }
                    try builder.add(InputEvent(timeNs: timeNs, type: EventType.key, code: Button.toolPen, value: 0))
                    try builder.add(InputEvent(timeNs: timeNs, type: EventType.syn, code: Synchronization.report, value: 0))
                }
            }
        }
        try builder.endRecording()
    }

    /// Nanoseconds per unit of the T channel (milliseconds unless it says).
    static func timeUnitNs(_ units: String?) -> Double {
        switch units {
        case "s": 1e9
        case "us", "µs": 1e3
        case "ns": 1
        default: 1e6
        }
    }
}

extension RecordingFormat {
    /// W3C InkML.
    public static let inkml = RecordingFormat("inkml")
}

public struct InkMLCodec: RecordingCodec {
    public init() {}
    public var format: RecordingFormat { .inkml }
    public var summary: String { "W3C InkML" }
    public var holdsSeveralRecordings: Bool { false }
    public var writes: Bool { false }
    public func source(file: String, device: Int?) -> RecordingSource { .other("inkml:\(file)") }

    /// An XML declaration or the `<ink` root (a namespace prefix allowed).
    public func recognizes(_ head: RecordingHead) -> Bool {
        guard let first = head.firstLine else { return false }
        let line = String(decoding: first.prefix(200), as: UTF8.self)
        if line.hasPrefix("<ink") || line.contains(":ink ") || line.contains(":ink>") { return true }
        guard line.hasPrefix("<?xml") || line.hasPrefix("<!--") else { return false }
        return String(decoding: head.bytes.prefix(4096), as: UTF8.self).contains("<ink")
            || String(decoding: head.bytes.prefix(4096), as: UTF8.self).contains(":ink")
    }

    public func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        try InkML.decode(source, options: options, into: builder)
    }

    public func encoder(to output: ByteOutput, count: Int, comment: String?) throws -> any RecordingEncoder {
        throw ForceTraceError(file: output.file, "forcetrace reads InkML but does not write it", hint: "export to evemu, libinput or raw")
    }
}
