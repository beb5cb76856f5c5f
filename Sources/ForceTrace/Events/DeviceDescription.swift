/// The absinfo of one absolute axis (`struct input_absinfo`).
public struct AxisInfo: Equatable, Hashable, Sendable {
    public var code: UInt16
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre (per radian for rotation axes, per gram for
    /// pressure, `GramScale`); 0 when unknown.
    public var resolution: Int32
    /// The axis value when the description was taken.
    public var value: Int32

    public init(code: UInt16, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0,
                resolution: Int32 = 0, value: Int32 = 0) {
        self.code = code
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
        self.value = value
    }

    public var name: String { EventNames.code(type: EventType.abs, code: code) }

    /// `(value - min) / (max - min)`, or nil for a degenerate range.
    @inline(__always)
    public func normalized(_ value: Int32) -> Double? {
        let span = Double(maximum) - Double(minimum)
        return span > 0 ? (Double(value) - Double(minimum)) / span : nil
    }
}

/// How contacts are reported, following the kernel's
/// Documentation/input/multi-touch-protocol.rst.
public enum ContactProtocol: String, Sendable {
    /// Multitouch protocol B: the device has `ABS_MT_SLOT`.
    case slots = "mt-protocol-b"
    /// No slots: single touch, pens, and protocol-A pads; contacts follow `BTN_TOUCH`.
    case singleTouch = "single-touch"
}

/// What a device is: identity, capabilities and absinfo. Everything an
/// evemu header or `libinput record`'s device section carries.
/// The machine a recording was made on, as its source states it: evemu's
/// `# Kernel:` and `# DMI:` header comments, libinput record's `system:`
/// block. Kept as the recording attributes `kernel` and `dmi` (docs/FORMAT.md);
/// libinput's quirks match on the DMI modalias.
public struct SystemInfo: Equatable, Sendable {
    /// The kernel release, such as "4.14.0-rc7+".
    public var kernel: String?
    /// The DMI modalias, "dmi:bvn…:svn…:pn…:".
    public var dmi: String?
    public init(kernel: String? = nil, dmi: String? = nil) { self.kernel = kernel; self.dmi = dmi }
}

public struct DeviceDescription: Equatable, Sendable {
    public var name: String
    public var bus: UInt16 = 0
    public var vendor: UInt16 = 0
    public var product: UInt16 = 0
    public var version: UInt16 = 0
    /// Set `INPUT_PROP_*` bits.
    public var properties: [UInt16] = []
    /// Supported codes by event type, each sorted. Type 0 (`EV_SYN`) holds
    /// the supported event types, as `EVIOCGBIT(0)` and evemu's `B: 00` do.
    public var codes: [UInt16: [UInt16]] = [:]
    /// Absinfo, sorted by code.
    public var axes: [AxisInfo] = []
    /// Initial LED and switch states (evemu `L:` and `S:` lines), as (code, value).
    public var ledStates: [(UInt16, Int32)] = []
    public var switchStates: [(UInt16, Int32)] = []
    /// What the source said about the machine (not compared by `==`, which
    /// is about the device: raw input_event streams cannot carry it).
    public var system = SystemInfo()

    public init(name: String) { self.name = name }

    public static func == (lhs: DeviceDescription, rhs: DeviceDescription) -> Bool {
        lhs.name == rhs.name && lhs.bus == rhs.bus && lhs.vendor == rhs.vendor && lhs.product == rhs.product
            && lhs.version == rhs.version && lhs.properties == rhs.properties && lhs.codes == rhs.codes
            && lhs.axes == rhs.axes
            && lhs.ledStates.map { [Int64($0.0), Int64($0.1)] } == rhs.ledStates.map { [Int64($0.0), Int64($0.1)] }
            && lhs.switchStates.map { [Int64($0.0), Int64($0.1)] } == rhs.switchStates.map { [Int64($0.0), Int64($0.1)] }
    }

    public func has(type: UInt16, code: UInt16) -> Bool {
        codes[type].map { $0.contains(code) } ?? false
    }

    public func axis(_ code: UInt16) -> AxisInfo? { axes.first { $0.code == code } }

    /// Adds a code to the capabilities, keeping them sorted and unique.
    public mutating func enable(type: UInt16, code: UInt16) {
        var list = codes[type, default: []]
        if !list.contains(code) { list.append(code); list.sort() }
        codes[type] = list
    }

    /// Adds or replaces an axis, also enabling its `EV_ABS` code.
    public mutating func setAxis(_ axis: AxisInfo) {
        axes.removeAll { $0.code == axis.code }
        axes.append(axis)
        axes.sort { $0.code < $1.code }
        enable(type: EventType.abs, code: axis.code)
        // Type 0's "codes" are the supported event types, as EVIOCGBIT(0) reports them.
        enable(type: EventType.syn, code: EventType.syn)
        enable(type: EventType.syn, code: EventType.abs)
    }

    public var contactProtocol: ContactProtocol {
        slotAxis != nil ? .slots : .singleTouch
    }

    /// A "fake MT" device, as libevdev calls it: the kernel mapped a run of
    /// HID usages onto the codes from 0x28 on, so `ABS_MT_SLOT - 1` is present
    /// and `ABS_MT_SLOT` is an ordinary axis. libevdev reads it without slots
    /// (`libevdev_get_num_slots` is -1), and libinput with it.
    public var isFakeMT: Bool { axis(AbsoluteAxis.mtSlot) != nil && axis(AbsoluteAxis.mtSlot - 1) != nil }

    /// `ABS_MT_SLOT` when it numbers slots: nil without it and on a fake MT device.
    public var slotAxis: AxisInfo? { isFakeMT ? nil : axis(AbsoluteAxis.mtSlot) }

    /// Slots declared by `ABS_MT_SLOT`'s range, or 0 without slots.
    public var slotCount: Int {
        guard let slot = slotAxis else { return 0 }
        return max(0, Int(slot.maximum) - Int(slot.minimum) + 1)
    }

    /// The axis that carries one contact's pressure: `ABS_MT_PRESSURE` with
    /// slots, `ABS_PRESSURE` without. Nil where contacts have no pressure,
    /// including a slotted device whose only pressure axis is the kernel's
    /// single-pointer emulation.
    public var contactPressureAxis: AxisInfo? {
        switch contactProtocol {
        case .slots: axis(AbsoluteAxis.mtPressure)
        case .singleTouch: axis(AbsoluteAxis.pressure)
        }
    }

    /// Axes that carry a contact's position.
    public var positionAxes: (x: AxisInfo?, y: AxisInfo?) {
        switch contactProtocol {
        case .slots: (axis(AbsoluteAxis.mtPositionX), axis(AbsoluteAxis.mtPositionY))
        case .singleTouch: (axis(AbsoluteAxis.x), axis(AbsoluteAxis.y))
        }
    }

    public var isPen: Bool { has(type: EventType.key, code: Button.toolPen) }
}
