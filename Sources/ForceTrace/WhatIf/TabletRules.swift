import Foundation

/// libinput 1.22's tablet tip thresholds for one tool (src/evdev-tablet.c,
/// `tool_set_pressure_thresholds`): down at >= upper, up at <= lower.
public struct TabletPressureSetup: Equatable, Sendable {
    public var upper: Int32
    public var lower: Int32
    /// Whether ABS_PRESSURE exists; without it BTN_TOUCH decides the tip.
    public var hasPressure: Bool
    /// Whether ABS_DISTANCE exists, which pressure offset detection needs.
    public var hasDistance: Bool
    public var note: String?

    public init(device: DeviceDescription, quirks: LibinputQuirkSet) {
        guard let pressure = device.axis(AbsoluteAxis.pressure) else {
            upper = 1; lower = 0; hasPressure = false; hasDistance = false
            note = "no ABS_PRESSURE: libinput takes the tip from BTN_TOUCH"
            return
        }
        hasPressure = true
        hasDistance = device.axis(TabletEmulator.distanceCode) != nil
        // 5 % and 1 % of the range (axis_range_percentage, truncated to int).
        upper = Self.percentage(pressure, 5)
        lower = Self.percentage(pressure, 1)
        if let range = quirks.pressureRange {
            // 1.22 reads a tablet's range as upper:lower; N <= M is refused there with "Invalid pressure range".
            if range.low >= range.high { note = "AttrPressureRange=\(range.high):\(range.low) is refused: libinput keeps the defaults" }
            else { upper = range.high; lower = range.low }
        }
    }

    static func percentage(_ axis: AxisInfo, _ percent: Double) -> Int32 {
        Int32(Double(Int(axis.maximum) - Int(axis.minimum)) * percent / 100.0 + Double(axis.minimum))
    }
}

/// One tip decision: "down" or "up", as libinput-debug-events prints TABLET_TOOL_TIP.
public struct TipDecision: Equatable, Sendable {
    public var tNs: Int64
    public var down: Bool
    public var logLine: String { down ? "tip down" : "tip up" }
}

/// libinput 1.22's tip state for the pen tools of a recording, with the
/// pressure offset a tool may carry (`detect_pressure_offset`): at proximity
/// in, a pressure above the minimum, the pen at least half the distance
/// range away and under 20 % of the pressure range becomes the tool's
/// offset, and both thresholds move up with it (same gap); a later lower
/// pressure lowers it. A tool keeps its thresholds for the whole session.
public struct TabletEmulator {
    static let distanceCode: UInt16 = 0x19
    public let setup: TabletPressureSetup
    public private(set) var decisions: [TipDecision] = []
    /// Offsets found, as (time, offset).
    public private(set) var offsets: [(tNs: Int64, offset: Int32)] = []

    struct Tool { var upper: Int32; var lower: Int32; var offset: Int32?; }
    private var tools: [UInt16: Tool] = [:]
    private var held: Set<UInt16> = []
    private var current: UInt16?
    private var entering = false
    private var leaving = false
    private var inContact = false
    private var pressure: Int32 = 0
    private var distance: Int32 = 0
    private var pressureChanged = false
    private var touchButton = false
    private let pressureAxis: AxisInfo?
    private let distanceAxis: AxisInfo?

    public init(setup: TabletPressureSetup, device: DeviceDescription) {
        self.setup = setup
        pressureAxis = device.axis(AbsoluteAxis.pressure)
        distanceAxis = device.axis(Self.distanceCode)
        pressure = pressureAxis?.value ?? 0
        distance = distanceAxis?.value ?? 0
    }

    public mutating func feed(_ event: InputEvent) {
        switch (event.type, event.code) {
        case (EventType.abs, AbsoluteAxis.pressure): pressure = event.value; pressureChanged = true
        case (EventType.abs, Self.distanceCode): distance = event.value
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
        defer { pressureChanged = false; entering = false }
        guard let code = current else { return }
        if tools[code] == nil { tools[code] = Tool(upper: setup.upper, lower: setup.lower) }
        if leaving {
            if inContact { inContact = false; decisions.append(TipDecision(tNs: time, down: false)) }
            leaving = false; current = nil
            return
        }
        guard setup.hasPressure else {
            if touchButton != inContact { inContact = touchButton; decisions.append(TipDecision(tNs: time, down: inContact)) }
            return
        }
        // Entering proximity marks every axis changed.
        if pressureChanged || entering { detectOffset(code, time) }
        let tool = tools[code]!
        if pressure <= tool.lower && inContact {
            inContact = false; decisions.append(TipDecision(tNs: time, down: false))
        } else if pressure >= tool.upper && !inContact {
            inContact = true; decisions.append(TipDecision(tNs: time, down: true))
        }
    }

    private mutating func detectOffset(_ code: UInt16, _ time: Int64) {
        guard let pressureAxis, let distanceAxis, var tool = tools[code] else { return }
        let offset = pressure
        if let existing = tool.offset {
            guard offset < existing else { return }
        } else {
            guard offset > pressureAxis.minimum, entering,
                  distance >= TabletPressureSetup.percentage(distanceAxis, 50),
                  offset <= TabletPressureSetup.percentage(pressureAxis, 20) else { return }
        }
        let gap = tool.upper - tool.lower
        tool.offset = offset; tool.lower = offset; tool.upper = offset + gap
        tools[code] = tool
        offsets.append((time, offset))
    }
}
