import Foundation

/// The JSON file `forcetrace capture-page`'s page saves (docs/FORMAT.md,
/// "Browser captures"): pointer, touch and Safari force events with the
/// labelled trials of a guided session. Each kind of input in it becomes
/// one recording of a described virtual device: a pen, a multitouch
/// touchscreen, or a force-sensing touchpad.
public enum BrowserCapture {
    /// The `format` member every capture starts with.
    public static let formatName = "forcetrace-browser-capture"
    /// The version this reader knows.
    public static let version = 1
    /// A guided session of an hour at 240 Hz is about 20 MB of JSON.
    public static let limits = JSONReader.Limits(maximumBytes: 64 << 20, maximumDepth: 8, maximumValues: 8_000_000)
    /// Pressure axes are 0...65535 for 0...1 (a web force, a PointerEvent
    /// pressure, webkitForce / 3).
    public static let pressureMaximum: Int32 = 65535
    /// webkitForce's largest value (WEBKIT_FORCE_AT_FORCE_MOUSE_DOWN is 2).
    public static let webkitForceMaximum = 3.0
    /// Tilt axes in degrees, -90...90; the kernel's resolution for angles is units per radian.
    static let tiltResolution: Int32 = 57
    /// More contacts at once than any browser reports.
    static let maximumSlots = 10
    /// ABS_TILT_X and ABS_TILT_Y, ABS_MT_TOUCH_MAJOR and ABS_MT_TOUCH_MINOR.
    static let absTiltX: UInt16 = 0x1a, absTiltY: UInt16 = 0x1b
    static let absMTTouchMajor: UInt16 = 0x30, absMTTouchMinor: UInt16 = 0x31
    static let buttonLeft: UInt16 = 0x110
    /// BUS_VIRTUAL: the devices are described, not real.
    static let busVirtual: UInt16 = 0x06

    /// The kinds of input a capture holds, in the order they become recordings.
    public enum InputKind: String, CaseIterable, Sendable {
        case touch, pen, mouse
        var productID: UInt16 {
            switch self {
            case .touch: 0x0b01
            case .pen: 0x0b02
            case .mouse: 0x0b03
            }
        }
    }

    /// One sample of one contact, in CSS pixels and milliseconds since `timeOrigin`.
    struct Sample {
        enum Phase { case down, move, up, leave }
        var t: Double
        var phase: Phase
        var id: Int64
        var x: Double, y: Double
        /// 0...1; nil when the browser gave none.
        var pressure: Double?
        var tiltX: Double?, tiltY: Double?
        /// Contact diameters in CSS pixels.
        var major: Double?, minor: Double?
        /// A pen's tip is down (buttons & 1), or a mouse button is held.
        var pressed: Bool
    }

    struct Trial {
        var trialClass: TrialClass
        var input: InputKind
        var id: Int64
        var start: Double, end: Double
        var path: String
    }

    /// A capture as read, before it becomes events.
    struct Capture {
        var timeOrigin: Double
        var devicePixelRatio: Double
        var screenWidth: Double, screenHeight: Double
        var userAgent: String
        var calibrationProtocol: CalibrationProtocol?
        var trials: [Trial] = []
        var samples: [InputKind: [Sample]] = [:]
        /// The pressure a browser without it reports for every pressed sample:
        /// 0 for Touch.force, 0.5 for PointerEvent.pressure.
        var noPressure: [InputKind: Double] = [.touch: 0.5, .pen: 0.5]
    }

    // MARK: The devices

    /// The described device for `kind`; `withPressure` false when the
    /// browser reported no pressure (PointerEvent.pressure 0.5 throughout).
    static func device(_ kind: InputKind, capture: Capture, withPressure: Bool, withSize: Bool, withTilt: Bool) -> DeviceDescription {
        let agent = capture.userAgent.isEmpty ? "" : ": " + String(capture.userAgent.prefix(120))
        var device = DeviceDescription(name: "forcetrace browser \(kind.rawValue)\(agent)")
        device.bus = busVirtual
        device.product = kind.productID
        device.version = 1
        let width = Int32(max(1, (capture.screenWidth * capture.devicePixelRatio).rounded())) - 1
        let height = Int32(max(1, (capture.screenHeight * capture.devicePixelRatio).rounded())) - 1
        // A CSS pixel is 1/96 inch by definition, not by measurement.
        let resolution = Int32(max(1, (capture.devicePixelRatio * 96 / 25.4).rounded()))
        device.setAxis(AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: width, resolution: resolution))
        device.setAxis(AxisInfo(code: AbsoluteAxis.y, minimum: 0, maximum: height, resolution: resolution))
        if withPressure { device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: pressureMaximum)) }
        device.enable(type: EventType.key, code: Button.touch)
        switch kind {
        case .pen:
            device.properties = [InputProperty.direct]
            device.enable(type: EventType.key, code: Button.toolPen)
            if withTilt {
                device.setAxis(AxisInfo(code: absTiltX, minimum: -90, maximum: 90, resolution: tiltResolution))
                device.setAxis(AxisInfo(code: absTiltY, minimum: -90, maximum: 90, resolution: tiltResolution))
            }
        case .touch, .mouse:
            device.properties = kind == .touch ? [InputProperty.direct] : [InputProperty.pointer, InputProperty.buttonpad]
            device.enable(type: EventType.key, code: Button.toolFinger)
            if kind == .mouse { device.enable(type: EventType.key, code: buttonLeft) }
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtSlot, minimum: 0, maximum: kind == .mouse ? 0 : Int32(maximumSlots - 1)))
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: width, resolution: resolution))
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionY, minimum: 0, maximum: height, resolution: resolution))
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtTrackingID, minimum: 0, maximum: 65535))
            if withPressure { device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: pressureMaximum)) }
            if withSize {
                let largest = max(width, height)
                device.setAxis(AxisInfo(code: absMTTouchMajor, minimum: 0, maximum: largest, resolution: resolution))
                device.setAxis(AxisInfo(code: absMTTouchMinor, minimum: 0, maximum: largest, resolution: resolution))
            }
        }
        device.enable(type: EventType.syn, code: EventType.key)
        return device
    }

    // MARK: Events

    /// Emits frames as the kernel would: a value only when it changes.
    struct Frames {
        var events: [InputEvent] = []
        private var last: [UInt32: Int32] = [:]
        private var slot: Int32 = 0
        private var pending = false

        /// Keys and axes start at 0, as the description's absinfo says.
        init(device: DeviceDescription) {
            for axis in device.axes where axis.code != AbsoluteAxis.mtSlot { last[UInt32(EventType.abs) << 16 | UInt32(axis.code)] = 0 }
            for code in device.codes[EventType.key] ?? [] { last[UInt32(EventType.key) << 16 | UInt32(code)] = 0 }
        }

        mutating func set(_ type: UInt16, _ code: UInt16, _ value: Int32, at time: Int64) {
            let key = UInt32(type) << 16 | UInt32(code)
            guard last[key] != value else { return }
            last[key] = value
            events.append(InputEvent(timeNs: time, type: type, code: code, value: value))
            pending = true
        }

        mutating func slotValue(_ slotIndex: Int32, _ code: UInt16, _ value: Int32, at time: Int64) {
            let key = 0x8000_0000 | UInt32(slotIndex) << 16 | UInt32(code)
            guard last[key] != value else { return }
            if slot != slotIndex {
                slot = slotIndex
                events.append(InputEvent(timeNs: time, type: EventType.abs, code: AbsoluteAxis.mtSlot, value: slotIndex))
            }
            last[key] = value
            events.append(InputEvent(timeNs: time, type: EventType.abs, code: code, value: value))
            pending = true
        }

        mutating func report(at time: Int64) {
            guard pending else { return }
            events.append(InputEvent(timeNs: time, type: EventType.syn, code: Synchronization.report, value: 0))
            pending = false
        }
    }

    /// One recording's events and the trials matched to its contacts.
    struct Rendered {
        var device: DeviceDescription
        var events: [InputEvent]
        var trials: [SessionTrials.Trial]
    }

    /// A contact as rendered: where it went, for matching trials.
    private struct Span {
        var id: Int64
        var slot: Int16
        var trackingID: Int32
        var downMs: Double
        var startNs: Int64, endNs: Int64
        var peak: Int32
        var open = true
    }

    /// `origin + ms` in nanoseconds, the origin's whole milliseconds apart:
    /// a double holds 1.7e18 ns only to 256 ns.
    static func nanoseconds(_ ms: Double, origin: Double) -> Int64 {
        let whole = origin.rounded(.down)
        return Int64(whole) * 1_000_000 + Int64(((origin - whole + ms) * 1e6).rounded())
    }

    /// The recording of one kind of input, or nil when the capture holds none.
    static func render(_ kind: InputKind, capture: Capture, file: String) throws -> Rendered? {
        // Coalesced samples can arrive after their dispatched event's neighbours: in time order.
        let samples = (capture.samples[kind] ?? []).enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
        guard !samples.isEmpty else { return nil }
        let pressed = samples.filter(\.pressed)
        // Without pressure, a browser reports 0.5 for every pressed pointer (Pointer Events,
        // "pressure") and a Touch.force of 0 (Touch Events, "force"; WebKit without 3D Touch).
        let none = capture.noPressure[kind] ?? 0.5
        let withPressure = kind == .mouse || pressed.contains { ($0.pressure ?? none) != none }
        let withSize = kind == .touch && samples.contains { $0.major != nil }
        let withTilt = kind == .pen && samples.contains { $0.tiltX != nil }
        let device = device(kind, capture: capture, withPressure: withPressure, withSize: withSize, withTilt: withTilt)
        let ratio = capture.devicePixelRatio
        let maxX = device.axis(AbsoluteAxis.x)!.maximum, maxY = device.axis(AbsoluteAxis.y)!.maximum
        func scaled(_ value: Double, _ maximum: Int32) -> Int32 { Int32(min(Double(maximum), max(0, (value * ratio).rounded()))) }
        func pressureValue(_ sample: Sample) -> Int32 { Int32(((sample.pressure ?? 0) * Double(pressureMaximum)).rounded()) }
        var frames = Frames(device: device)
        var spans: [Span] = []
        var openSlots: [Int64: Int] = [:]   // contact id -> index in spans
        var nextTracking: Int32 = 0
        var hoverStart: Int64?
        var hovers: [(startNs: Int64, endNs: Int64, startMs: Double)] = []
        var hoverStartMs = 0.0
        var index = 0
        while index < samples.count {
            let t = samples[index].t
            let time = nanoseconds(t, origin: capture.timeOrigin)
            while index < samples.count, samples[index].t == t {
                let sample = samples[index]
                index += 1
                if kind == .pen {
                    // A pen: one tool, in proximity from its first sample to "leave".
                    if sample.phase == .leave {
                        if let open = openSlots.removeValue(forKey: 0) { spans[open].endNs = time; spans[open].open = false }
                        frames.set(EventType.key, Button.touch, 0, at: time)
                        if withPressure { frames.set(EventType.abs, AbsoluteAxis.pressure, 0, at: time) }
                        frames.set(EventType.key, Button.toolPen, 0, at: time)
                        if let start = hoverStart { hovers.append((start, time, hoverStartMs)); hoverStart = nil }
                        continue
                    }
                    if hoverStart == nil { hoverStart = time; hoverStartMs = t }
                    frames.set(EventType.key, Button.toolPen, 1, at: time)
                    frames.set(EventType.abs, AbsoluteAxis.x, scaled(sample.x, maxX), at: time)
                    frames.set(EventType.abs, AbsoluteAxis.y, scaled(sample.y, maxY), at: time)
                    if withTilt {
                        frames.set(EventType.abs, absTiltX, Int32((sample.tiltX ?? 0).rounded()), at: time)
                        frames.set(EventType.abs, absTiltY, Int32((sample.tiltY ?? 0).rounded()), at: time)
                    }
                    let pressure = sample.pressed ? pressureValue(sample) : 0
                    if withPressure { frames.set(EventType.abs, AbsoluteAxis.pressure, pressure, at: time) }
                    if sample.pressed, openSlots[0] == nil {
                        openSlots[0] = spans.count
                        spans.append(Span(id: sample.id, slot: -1, trackingID: -1, downMs: t, startNs: time, endNs: time, peak: 0))
                    } else if !sample.pressed, let open = openSlots.removeValue(forKey: 0) {
                        spans[open].endNs = time; spans[open].open = false
                    }
                    if let open = openSlots[0] { spans[open].peak = max(spans[open].peak, pressure); spans[open].endNs = time }
                    frames.set(EventType.key, Button.touch, sample.pressed ? 1 : 0, at: time)
                    continue
                }
                // Touch and force-touchpad contacts: one slot each while down.
                if sample.phase == .leave { continue }
                var open = openSlots[sample.id]
                if open == nil {
                    guard sample.pressed else { continue }
                    let used = Set(openSlots.values.map { spans[$0].slot })
                    guard let free = (0..<Int16(device.slotCount)).first(where: { !used.contains($0) }) else {
                        throw ForceTraceError(file: file, "more than \(device.slotCount) \(kind.rawValue) contacts at once at t = \(t) ms",
                                              hint: "a browser capture holds at most \(maximumSlots) touches at once")
                    }
                    open = spans.count
                    openSlots[sample.id] = open
                    spans.append(Span(id: sample.id, slot: free, trackingID: nextTracking, downMs: t, startNs: time, endNs: time, peak: 0))
                    nextTracking = nextTracking == 65535 ? 0 : nextTracking + 1
                }
                let span = spans[open!]
                let slot = Int32(span.slot)
                if sample.pressed {
                    let pressure = pressureValue(sample)
                    frames.slotValue(slot, AbsoluteAxis.mtTrackingID, span.trackingID, at: time)
                    frames.slotValue(slot, AbsoluteAxis.mtPositionX, scaled(sample.x, maxX), at: time)
                    frames.slotValue(slot, AbsoluteAxis.mtPositionY, scaled(sample.y, maxY), at: time)
                    if withPressure { frames.slotValue(slot, AbsoluteAxis.mtPressure, pressure, at: time) }
                    if withSize, let major = sample.major, let minor = sample.minor {
                        frames.slotValue(slot, absMTTouchMajor, scaled(major, max(maxX, maxY)), at: time)
                        frames.slotValue(slot, absMTTouchMinor, scaled(minor, max(maxX, maxY)), at: time)
                    }
                    spans[open!].peak = max(span.peak, pressure)
                    spans[open!].endNs = time
                    // The single-pointer emulation follows the first contact down.
                    if openSlots.values.min() == open {
                        frames.set(EventType.abs, AbsoluteAxis.x, scaled(sample.x, maxX), at: time)
                        frames.set(EventType.abs, AbsoluteAxis.y, scaled(sample.y, maxY), at: time)
                        if withPressure { frames.set(EventType.abs, AbsoluteAxis.pressure, pressure, at: time) }
                    }
                } else {
                    frames.slotValue(slot, AbsoluteAxis.mtTrackingID, -1, at: time)
                    openSlots[sample.id] = nil
                    spans[open!].endNs = time
                    spans[open!].open = false
                }
            }
            if kind != .pen {
                let down: Int32 = openSlots.isEmpty ? 0 : 1
                frames.set(EventType.key, Button.toolFinger, down, at: time)
                frames.set(EventType.key, Button.touch, down, at: time)
                if kind == .mouse { frames.set(EventType.key, buttonLeft, down, at: time) }
                if down == 0, withPressure { frames.set(EventType.abs, AbsoluteAxis.pressure, 0, at: time) }
            }
            frames.report(at: time)
        }
        // The input ends: lift what is still down, as a recording cut short would not.
        if let last = samples.last, !openSlots.isEmpty || hoverStart != nil {
            let time = nanoseconds(last.t, origin: capture.timeOrigin)
            if kind == .pen {
                frames.set(EventType.key, Button.touch, 0, at: time)
                if withPressure { frames.set(EventType.abs, AbsoluteAxis.pressure, 0, at: time) }
                frames.set(EventType.key, Button.toolPen, 0, at: time)
                if let start = hoverStart { hovers.append((start, time, hoverStartMs)) }
            } else {
                for open in openSlots.values { frames.slotValue(Int32(spans[open].slot), AbsoluteAxis.mtTrackingID, -1, at: time) }
                frames.set(EventType.key, Button.toolFinger, 0, at: time)
                frames.set(EventType.key, Button.touch, 0, at: time)
                if kind == .mouse { frames.set(EventType.key, buttonLeft, 0, at: time) }
            }
            frames.report(at: time)
        }
        // Each trial to its contact: this input, this id, the touch-down nearest its start.
        var trials: [SessionTrials.Trial] = []
        for trial in capture.trials where trial.input == kind {
            if trial.trialClass.isHover {
                let start = nanoseconds(trial.start, origin: capture.timeOrigin), end = nanoseconds(trial.end, origin: capture.timeOrigin)
                trials.append(SessionTrials.Trial(trialClass: trial.trialClass, slot: -1, trackingID: -1, startNs: start, endNs: end, peak: 0))
                continue
            }
            let candidates = spans.filter { $0.id == trial.id && abs($0.downMs - trial.start) <= Double(LabelWindow.milliseconds) }
            guard let span = candidates.min(by: { abs($0.downMs - trial.start) < abs($1.downMs - trial.start) }) else {
                throw ForceTraceError(file: file, "\(trial.path): no \(kind.rawValue) contact with id \(trial.id) went down within "
                                      + "\(LabelWindow.milliseconds) ms of its start (\(trial.start) ms)",
                                      hint: "each trial names the contact it was: its input, id and touch-down time")
            }
            trials.append(SessionTrials.Trial(trialClass: trial.trialClass, slot: kind == .pen ? -1 : span.slot,
                                              trackingID: kind == .pen ? -1 : span.trackingID,
                                              startNs: span.startNs, endNs: span.endNs, peak: span.peak))
        }
        return Rendered(device: device, events: frames.events, trials: trials)
    }

    /// How far a trial's start may be from its contact's touch-down: the labels table's window.
    enum LabelWindow { static let milliseconds: Int64 = 100 }

    /// Decodes a whole capture into `builder`: one recording per kind of input.
    static func decode(_ source: ByteSource, into builder: RecordingBuilder) throws {
        var bytes: [UInt8] = []
        while true {
            try source.fill(ByteSource.blockSize)
            if source.available == 0 { break }
            if bytes.count + source.available > limits.maximumBytes {
                throw ForceTraceError(file: source.file, "is larger than \(limits.maximumBytes >> 20) MiB; a browser capture is read whole and is at most that")
            }
            bytes += source.peek(source.available)
            source.consume(source.available)
        }
        if bytes.isEmpty { throw ForceTraceError(file: source.file, "the file is empty; expected a browser capture's JSON") }
        let capture = try read(bytes, file: source.file)
        var any = false
        for kind in InputKind.allCases {
            guard let rendered = try render(kind, capture: capture, file: source.file) else { continue }
            any = true
            builder.startRecording(device: rendered.device, nameSuffix: kind.rawValue, clock: .realtime)
            try builder.add(contentsOf: rendered.events)
            var truth = GroundTruth()
            if let calibrationProtocol = capture.calibrationProtocol, !rendered.trials.isEmpty {
                truth.session = SessionTrials(calibrationProtocol: calibrationProtocol, trials: rendered.trials)
            }
            try builder.endRecording(groundTruth: truth)
        }
        guard any else {
            throw ForceTraceError(file: source.file, "holds no touch, pen or force-touch samples",
                                  hint: "press on the page's capture area with a finger or a pen before saving")
        }
    }
}

extension ForceTraceError {
    /// The same error with `hint`.
    func withHint(_ hint: String) -> ForceTraceError {
        ForceTraceError(file: file, location: location, message, hint: hint, kind: kind, errno: errno)
    }
}

extension RecordingFormat {
    public static let browserCapture = RecordingFormat("browser")
}

/// `forcetrace capture-page`'s JSON: read only; nothing is exported to it.
public struct BrowserCaptureCodec: RecordingCodec {
    public init() {}
    public var format: RecordingFormat { .browserCapture }
    public var summary: String { "browser capture JSON (capture-page)" }
    public var holdsSeveralRecordings: Bool { true }
    public var writes: Bool { false }
    public func source(file: String, device: Int?) -> RecordingSource { .other("browser:\(file)") }

    /// A JSON object whose head holds `"format": "forcetrace-browser-capture"`
    /// (libinput record files may be JSON too, so the brace alone is not enough).
    public func recognizes(_ head: RecordingHead) -> Bool {
        guard head.firstLine?.first == UInt8(ascii: "{") else { return false }
        let bytes = Array(head.bytes)
        let key = Array("\"format\"".utf8), value = Array("\"\(BrowserCapture.formatName)\"".utf8)
        var index = 0
        while index + key.count <= bytes.count {
            defer { index += 1 }
            guard bytes[index] == key[0], Array(bytes[index..<index + key.count]) == key else { continue }
            var at = index + key.count
            func skipBlanks() { while at < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[at]) { at += 1 } }
            skipBlanks()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { continue }
            at += 1
            skipBlanks()
            if bytes.count - at >= value.count, Array(bytes[at..<at + value.count]) == value { return true }
        }
        return false
    }

    public func decode(_ source: ByteSource, options: DecodeOptions, into builder: RecordingBuilder) throws {
        try BrowserCapture.decode(source, into: builder)
    }

    public func encoder(to output: ByteOutput, count: Int, comment: String?) throws -> any RecordingEncoder {
        throw ForceTraceError(file: output.file, "browser captures are read, not written",
                              hint: "export to \(RecordingCodecs.writable.map(\.format.rawValue).joined(separator: ", "))", kind: .output)
    }
}
