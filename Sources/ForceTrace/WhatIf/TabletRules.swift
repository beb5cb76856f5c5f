import Foundation

/// One libinput release's tablet tip thresholds for one tool
/// (src/evdev-tablet.c, `tool_set_pressure_thresholds`, from 1.26
/// `tablet_get_quirked_pressure_thresholds`): down at >= upper, up at <= lower.
public struct TabletPressureSetup: Equatable, Sendable {
    public var upper: Int32
    public var lower: Int32
    /// Whether ABS_PRESSURE exists; without it BTN_TOUCH decides the tip.
    public var hasPressure: Bool
    /// Whether ABS_DISTANCE exists, which pressure offset detection needs before 1.24.
    public var hasDistance: Bool
    public var note: String?

    public init(device: DeviceDescription, quirks: LibinputQuirkSet) {
        let rules = quirks.rules
        let device = quirks.applied(to: device)
        guard let pressure = device.axis(AbsoluteAxis.pressure) else {
            upper = 1; lower = 0; hasPressure = false; hasDistance = false
            note = "no ABS_PRESSURE: libinput takes the tip from BTN_TOUCH"
            return
        }
        hasPressure = true
        hasDistance = device.axis(TabletEmulator.distanceCode) != nil
        // 5 % and 1 % of the range (axis_range_percentage, truncated to int).
        upper = Self.percentage(pressure, 5, addsOne: rules.tabletRangeAddsOne)
        lower = Self.percentage(pressure, 1, addsOne: rules.tabletRangeAddsOne)
        if let range = quirks.pressureRange {
            // A tablet's range is not checked against the axis; only "none" (0:0) is refused, with the defaults kept.
            if range.low >= range.high {
                note = "AttrPressureRange=none is refused on tablets: libinput keeps the defaults"
            } else if rules.tabletQuirkRangeSwapped {
                upper = range.low; lower = range.high
                note = "libinput 1.26.0 to 1.30.1 reads a tablet's AttrPressureRange=\(range.high):\(range.low) swapped: the tip goes down at >= \(range.low) and up at <= \(range.high), and flips on every axis update in between (fixed by b58d5a16 in 1.30.2)"
            } else {
                upper = range.high; lower = range.low
            }
        }
    }

    /// The thresholds once a desktop's range applies (1.26+): 5 % and 1 % of
    /// the axis narrowed to it, the setup's own for the full range.
    public func thresholds(narrowedTo range: LibinputPressureRange, axis: AxisInfo) -> TipThresholds {
        guard !range.isFull else { return TipThresholds(upper: upper, lower: lower) }
        var narrowed = axis
        narrowed.minimum = Self.percentage(axis, range.minimum * 100)
        narrowed.maximum = Self.percentage(axis, range.maximum * 100)
        return TipThresholds(upper: Self.percentage(narrowed, 5), lower: Self.percentage(narrowed, 1))
    }

    static func percentage(_ axis: AxisInfo, _ percent: Double, addsOne: Bool = false) -> Int32 {
        let span = Double(Int(axis.maximum) - Int(axis.minimum) + (addsOne ? 1 : 0))
        return Int32(span * percent / 100.0 + Double(axis.minimum))
    }
}

/// A tool's tip thresholds: down at >= upper, up at <= lower.
public struct TipThresholds: Equatable, Sendable {
    public var upper: Int32
    public var lower: Int32
}

/// A tool's pressure range as a desktop sets it through
/// `libinput_tablet_tool_config_pressure_range_set` (libinput 1.26 and later).
public struct LibinputPressureRange: Equatable, Sendable {
    public var minimum: Double
    public var maximum: Double

    /// "MIN:MAX" with 0 ≤ MIN < MAX ≤ 1, which libinput accepts; nil otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]),
              low >= 0, low < 1, high > 0, high <= 1, low < high else { return nil }
        minimum = low; maximum = high
    }

    public var isFull: Bool { minimum == 0 && maximum == 1 }
    public var description: String { "\(minimum):\(maximum)" }
}

/// One tip decision: "down" or "up", as libinput-debug-events prints TABLET_TOOL_TIP.
public struct TipDecision: Equatable, Sendable {
    public var tNs: Int64
    public var down: Bool
    public var logLine: String { down ? "tip down" : "tip up" }
}

/// One libinput release's tip state for the pen tools of a recording
/// (`tablet_flush`): on the proximity-in frame and on frames with an axis
/// update, the pressure offset is updated, then the tip goes down at
/// >= upper and up at <= lower, reading the latest pressure.
///
/// Offsets (`detect_pressure_offset`, from 1.24 also `update_pressure_offset`):
/// at proximity in, a pressure above the minimum with the pen at least half
/// the distance range away and no more than the release's limit (20 %, from
/// 1.24 50 %) becomes the tool's offset, moving both thresholds up with it;
/// a later lower pressure lowers it. From 1.24, a pen without ABS_DISTANCE
/// takes the lowest pressure seen by its third proximity in.
public struct TabletEmulator {
    static let distanceCode: UInt16 = 0x19
    /// The axes whose events are tablet axis updates (`tablet_process_absolute`):
    /// X, Y, Z, WHEEL, PRESSURE, DISTANCE, TILT_X, TILT_Y.
    static let axisCodes: Set<UInt16> = [0x00, 0x01, 0x02, 0x08, 0x18, 0x19, 0x1a, 0x1b]
    public let setup: TabletPressureSetup
    public let rules: LibinputRules
    /// The pressure range a desktop sets for each tool when it first sees it (1.26+), or nil.
    public let pressureRange: LibinputPressureRange?
    public private(set) var decisions: [TipDecision] = []
    /// The thresholds the range sets, from a tool's second proximity; nil
    /// without a range, for a release without the setting, or without pressure.
    public var rangeThresholds: TipThresholds? {
        guard let pressureRange, let pressureAxis else { return nil }
        return setup.thresholds(narrowedTo: pressureRange, axis: pressureAxis)
    }
    /// Offsets found, as (time, offset).
    public private(set) var offsets: [(tNs: Int64, offset: Int32)] = []

    enum Heuristic { case proximityIn1, proximityIn2, decide, done }
    struct Tool {
        var upper: Int32, lower: Int32
        var offset: Int32?
        /// The lowest pressure seen while the offset is still undecided (1.24+).
        var candidate: Int32
        var heuristic: Heuristic
        /// The range was set (after the first proximity-in frame, as a caller can only set it on a tool it has seen).
        var rangeSet = false
        /// `has_configured_range`: the offset heuristics stop.
        var configured = false
    }
    private var tools: [UInt16: Tool] = [:]
    private var held: Set<UInt16> = []
    private var current: UInt16?
    private var entering = false
    private var leaving = false
    private var inContact = false
    private var pressure: Int32 = 0
    private var distance: Int32 = 0
    private var pressureChanged = false
    private var axesChanged = false
    private var touchButton = false
    /// The last value of each axis that passed the fuzz filter (`tablet_filter_axis_fuzz`).
    private var accepted: [UInt16: Int32] = [:]
    private let fuzz: [UInt16: Int32]
    private let pressureAxis: AxisInfo?
    private let distanceAxis: AxisInfo?

    public init(setup: TabletPressureSetup, device: DeviceDescription, rules: LibinputRules = LibinputRules.history[0],
                pressureRange: LibinputPressureRange? = nil) {
        self.setup = setup
        self.rules = rules
        self.pressureRange = rules.pressureRangeAPI ? pressureRange : nil
        pressureAxis = setup.hasPressure ? device.axis(AbsoluteAxis.pressure) : nil
        distanceAxis = device.axis(Self.distanceCode)
        pressure = pressureAxis?.value ?? 0
        distance = distanceAxis?.value ?? 0
        var fuzz: [UInt16: Int32] = [:]
        for axis in device.axes where Self.axisCodes.contains(axis.code) { fuzz[axis.code] = axis.fuzz }
        // libinput gives ABS_DISTANCE a fuzz of at least 2.
        fuzz[Self.distanceCode] = max(2, fuzz[Self.distanceCode] ?? 0)
        self.fuzz = fuzz
    }

    public mutating func feed(_ event: InputEvent) {
        switch (event.type, event.code) {
        case (EventType.abs, let code) where Self.axisCodes.contains(code):
            // libinput reads pressure and distance from libevdev, which keeps every value; the fuzz filter only decides whether the frame counts as an axis update.
            if code == AbsoluteAxis.pressure { pressure = event.value }
            if code == Self.distanceCode { distance = event.value }
            if abs(Int(accepted[code] ?? 0) - Int(event.value)) > Int(fuzz[code] ?? 0) {
                accepted[code] = event.value
                axesChanged = true
                if code == AbsoluteAxis.pressure { pressureChanged = true }
            }
        case (EventType.key, Button.touch): touchButton = event.value != 0
        case (EventType.key, let code) where (Button.toolPen...0x147).contains(code):
            if event.value != 0 {
                held.insert(code)
                if current == nil { current = code; entering = true }
            } else {
                held.remove(code)
                if current == code { leaving = true }
            }
        case (EventType.syn, Synchronization.report): frame(event.timeNs)
        default: break
        }
    }

    private mutating func frame(_ time: Int64) {
        defer { pressureChanged = false; axesChanged = false; entering = false }
        guard let code = current else { return }
        if tools[code] == nil {
            let withoutDistance = rules.tabletOffsetWithoutDistance && distanceAxis == nil
            tools[code] = Tool(upper: setup.upper, lower: setup.lower, offset: nil,
                               candidate: withoutDistance ? (pressureAxis?.maximum ?? 0) : (pressureAxis?.minimum ?? 0),
                               heuristic: withoutDistance ? .proximityIn1 : .done)
        }
        if leaving {
            if inContact { inContact = false; decisions.append(TipDecision(tNs: time, down: false)) }
            // 1.26–1.28 apply a changed range when the tool leaves proximity.
            if let range = pressureRange, tools[code]!.rangeSet, !rules.pressureRangeAtEachProximity, !range.isFull {
                applyRange(code, range)
            }
            leaving = false; current = nil
            return
        }
        guard setup.hasPressure else {
            if touchButton != inContact { inContact = touchButton; decisions.append(TipDecision(tNs: time, down: inContact)) }
            return
        }
        // The caller sets the range on the proximity event of the tool's first proximity in, after this frame.
        defer {
            if entering, let range = pressureRange, tools[code]?.rangeSet == false {
                tools[code]!.rangeSet = true
                tools[code]!.configured = rules.fullPressureRangeIsSetting || !range.isFull
            }
        }
        // From 1.29 the applied range is taken up again at every proximity in (update_pressure_range).
        if entering, let range = pressureRange, rules.pressureRangeAtEachProximity, tools[code]!.configured {
            applyRange(code, range)
        }
        // Entering proximity marks every axis changed.
        guard entering || axesChanged else { return }
        if tools[code]!.configured {
            // A configured range turns the offset heuristics off.
        } else if rules.tabletOffsetWithoutDistance {
            updateOffset(code, time)
            if entering { detectOffset(code, time) }
        } else if pressureChanged || entering {
            detectOffsetBefore124(code, time)
        }
        let tool = tools[code]!
        if pressure <= tool.lower && inContact {
            inContact = false; decisions.append(TipDecision(tNs: time, down: false))
        } else if pressure >= tool.upper && !inContact {
            inContact = true; decisions.append(TipDecision(tNs: time, down: true))
        }
    }

    /// The thresholds of a configured range: 5 % and 1 % of the axis narrowed
    /// to it (the quirk's, or the defaults, for the full range), and no offset.
    private mutating func applyRange(_ code: UInt16, _ range: LibinputPressureRange) {
        guard let pressureAxis, var tool = tools[code] else { return }
        let thresholds = setup.thresholds(narrowedTo: range, axis: pressureAxis)
        tool.upper = thresholds.upper; tool.lower = thresholds.lower
        tool.offset = nil
        tools[code] = tool
    }

    private mutating func setOffset(_ code: UInt16, _ offset: Int32, _ time: Int64) {
        guard var tool = tools[code] else { return }
        let gap = tool.upper - tool.lower
        tool.offset = offset; tool.lower = offset; tool.upper = offset + gap
        tools[code] = tool
        offsets.append((time, offset))
    }

    /// 1.22: one function, on every frame whose pressure changed.
    private mutating func detectOffsetBefore124(_ code: UInt16, _ time: Int64) {
        guard let pressureAxis, let distanceAxis, let tool = tools[code] else { return }
        let offset = pressure
        if let existing = tool.offset {
            guard offset < existing else { return }
        } else {
            guard offset > pressureAxis.minimum, entering,
                  distance >= TabletPressureSetup.percentage(distanceAxis, 50, addsOne: rules.tabletRangeAddsOne),
                  offset <= TabletPressureSetup.percentage(pressureAxis, Double(rules.tabletOffsetLimitPercent), addsOne: rules.tabletRangeAddsOne) else { return }
        }
        setOffset(code, offset, time)
    }

    /// 1.24+ `update_pressure_offset`: a lower pressure lowers an offset, or the undecided candidate.
    private mutating func updateOffset(_ code: UInt16, _ time: Int64) {
        guard pressureChanged || entering, var tool = tools[code] else { return }
        if let existing = tool.offset {
            if pressure < existing { setOffset(code, pressure, time) }
        } else if tool.heuristic != .done {
            tool.candidate = min(tool.candidate, pressure)
            tools[code] = tool
        }
    }

    /// 1.24+ `detect_pressure_offset`, at proximity in.
    private mutating func detectOffset(_ code: UInt16, _ time: Int64) {
        guard let pressureAxis, var tool = tools[code], tool.offset == nil else { return }
        var offset = pressure
        guard offset > pressureAxis.minimum else { return }
        if let distanceAxis {
            guard distance >= TabletPressureSetup.percentage(distanceAxis, 50, addsOne: rules.tabletRangeAddsOne) else { return }
        } else {
            tool.candidate = min(tool.candidate, offset)
            switch tool.heuristic {
            case .proximityIn1: tool.heuristic = .proximityIn2; tools[code] = tool; return
            case .proximityIn2: tool.heuristic = .decide; tools[code] = tool; return
            case .decide: tool.heuristic = .done; tools[code] = tool; offset = tool.candidate
            case .done: tools[code] = tool; return
            }
        }
        guard offset > pressureAxis.minimum,
              offset <= TabletPressureSetup.percentage(pressureAxis, Double(rules.tabletOffsetLimitPercent), addsOne: rules.tabletRangeAddsOne) else { return }
        setOffset(code, offset, time)
    }
}
