import Foundation

/// Why libinput does not use pressure to decide touches on a touchpad.
public enum PressureIgnored: Equatable, Sendable {
    /// No `ABS_MT_PRESSURE` (nor `ABS_PRESSURE` on a pad without slots).
    case noPressureAxis
    /// A pressure pad, whose pressure is force, not contact size: libinput
    /// disables both pressure axes (`tp_init_pressurepad`).
    case pressurePad(PressurePadReason)
    /// `AttrTouchSizeRange` applies: touch size decides instead (`tp_init_touch_size`).
    case touchSize(LibinputRange)
    /// `AttrPressureRange=none` (`tp_init_pressure`).
    case disabledByQuirk
    /// A range outside the axis: libinput logs a bug and drops it (`tp_init_pressure`).
    case outOfBounds(LibinputRange)

    public var explanation: String {
        switch self {
        case .noPressureAxis: "the device has no pressure axis libinput reads (ABS_MT_PRESSURE, or ABS_PRESSURE without slots)"
        case .pressurePad(let reason): "\(reason.explanation): libinput treats it as a pressure pad and ignores pressure (tp_init_pressurepad)"
        case .touchSize(let range): "AttrTouchSizeRange=\(range.high):\(range.low) applies, so libinput decides touches by size, not pressure (tp_init_touch_size)"
        case .disabledByQuirk: "AttrPressureRange=none turns pressure-based touch detection off"
        case .outOfBounds(let range): "AttrPressureRange=\(range.high):\(range.low) lies outside the axis; libinput discards it and ignores pressure"
        }
    }
}

/// What makes libinput take a touchpad for a pressure pad, in the order it asks.
public enum PressurePadReason: Equatable, Sendable {
    /// `INPUT_PROP_PRESSUREPAD`, from the kernel or `AttrInputProp` (1.30.1 and later).
    case property
    /// A resolution on `ABS_MT_PRESSURE` (every release).
    case resolution(Int32)
    /// `ModelPressurePad=1` (1.23 to 1.30).
    case modelQuirk

    public var explanation: String {
        switch self {
        case .property: "the pad has INPUT_PROP_PRESSUREPAD"
        case .resolution(let resolution): "the pressure axis has resolution \(resolution)"
        case .modelQuirk: "a quirk sets ModelPressurePad=1"
        }
    }
}

/// What one libinput release does with one touchpad's pressure under one quirk set,
/// decided as `tp_init` decides it (src/evdev-mt-touchpad.c,
/// src/evdev-mt-touchpad-thumb.c).
public struct TouchpadPressureSetup: Equatable, Sendable {
    /// Slotted touches (`num_slots`; 1 without slots or on a semi-mt pad) and
    /// all touches, the fake ones of `BTN_TOOL_*TAP` beyond the slots included.
    public var slots: Int
    public var touches: Int
    public var hasMT: Bool
    /// Touch begins at pressure >= high and ends below low; nil with the reason when pressure is ignored.
    public var high: Int32?, low: Int32?
    public var ignored: PressureIgnored?
    /// A touch is a palm while its pressure is > this (`tp_palm_detect_pressure_triggered`).
    public var palmThreshold: Int32?
    public var palmNote: String?
    /// Thumb jail lines (device units of y): a new single touch lower than
    /// `jailLine` is jailed as a thumb (`tp_thumb_needs_jail`).
    public var jailLine: Int32?
    /// Whether `jailLine` is the lower line (a thumb pressure threshold is set) or the upper one.
    public var thumbPressureThreshold: Int32?
    public var thumbNote: String?
    /// Set when libinput reads the pad through mtdev and whatif cannot follow its touches.
    public var protocolANote: String?

    public init(device: DeviceDescription, quirks: LibinputQuirkSet) {
        let rules = quirks.rules
        let device = quirks.applied(to: device)
        let mtSlot = device.slotAxis
        let semiMT = device.properties.contains(InputProperty.semiMT)
        // MT protocol A (positions without slots): from 1.29 libinput's mtdev plugin pretends ten slots.
        let protocolA = mtSlot == nil && device.axis(AbsoluteAxis.mtPositionX) != nil && device.axis(AbsoluteAxis.mtPositionY) != nil
        let emulatedSlots = protocolA ? rules.protocolASlots : nil
        hasMT = (mtSlot != nil && !semiMT) || emulatedSlots != nil
        slots = emulatedSlots ?? (hasMT ? Int(mtSlot!.maximum) + 1 : 1)
        // The most fingers BTN_TOOL_*TAP announces (tp_init_slots).
        let tapCodes: [(UInt16, Int)] = [(0x148, 5), (Button.toolQuadTap, 4), (0x14e, 3), (Button.toolDoubleTap, 2)]
        let toolTouches = tapCodes.first { device.has(type: EventType.key, code: $0.0) }?.1 ?? 1
        touches = max(slots, toolTouches)

        // tp_init_pressurepad: a pressure pad has both pressure axes disabled.
        let mtPressure = device.axis(AbsoluteAxis.mtPressure)
        let padResolution = mtPressure?.resolution ?? 0
        let pressurePad: PressurePadReason? =
            rules.pressurePadByProperty && device.isPressurePad ? .property
            : padResolution != 0 ? .resolution(padResolution)
            : rules.pressurePadByModelQuirk && quirks.modelPressurePad ? .modelQuirk : nil
        // Without MT, libinput disables every ABS_MT axis (tp_disable_abs_mt).
        let pressureAxis: AxisInfo? = pressurePad != nil ? nil : (hasMT ? mtPressure : device.axis(AbsoluteAxis.pressure))
        let majorAxis = hasMT && device.axis(0x30) != nil
        if let size = quirks.touchSizeRange, majorAxis, slots >= 5, !size.isOff {
            ignored = .touchSize(size)
        } else if let pressurePad {
            ignored = .pressurePad(pressurePad)
        } else if let axis = pressureAxis {
            var hi: Int32, lo: Int32
            if let range = quirks.pressureRange {
                hi = range.high; lo = range.low
            } else {
                // "Approximately the synaptics defaults": min + 12 % and 10 % of the range, truncated to int.
                // From 1.25 the range counts both ends (absinfo_range).
                let span = rules.touchpadRangeAddsOne ? Double(Int(axis.maximum) - Int(axis.minimum) + 1)
                    : Double(UInt32(truncatingIfNeeded: axis.maximum &- axis.minimum))
                hi = Int32(Double(axis.minimum) + 0.12 * span)
                lo = Int32(Double(axis.minimum) + 0.10 * span)
            }
            if hi == 0 && lo == 0 {
                ignored = .disabledByQuirk
            } else if hi > axis.maximum || hi < axis.minimum || lo > axis.maximum || lo < axis.minimum {
                ignored = .outOfBounds(LibinputRange(high: hi, low: lo))
            } else {
                high = hi; low = lo
            }
        } else {
            ignored = .noPressureAxis
        }

        if emulatedSlots != nil && ignored == nil {
            protocolANote = "an MT protocol A device: libinput tracks its touches through mtdev's \(slots) slots, which whatif does not follow, so it shows no pressure decisions for them"
        }
        // Palm by pressure: ABS_MT_PRESSURE only, and not on external touchpads (tp_init_palmdetect).
        if !hasMT || mtPressure == nil || pressurePad != nil {
            palmNote = "no ABS_MT_PRESSURE that libinput keeps: no pressure palm detection"
        } else if Self.isExternal(device) {
            palmNote = "libinput counts this touchpad as external (bus or vendor), and does no palm detection on external touchpads"
        } else if quirks.palmThreshold == 0 && rules.palmThresholdZeroIsOff {
            palmNote = "AttrPalmPressureThreshold=0 turns pressure palm detection off (libinput 1.25 and later)"
        } else {
            palmThreshold = Int32(truncatingIfNeeded: quirks.palmThreshold ?? 130)
        }

        // Thumbs: clickpads (INPUT_PROP_BUTTONPAD) at least 50 mm high (tp_init_thumb).
        let yAxis = device.axis(AbsoluteAxis.y)
        if !device.properties.contains(InputProperty.buttonpad) {
            thumbNote = "not a clickpad (INPUT_PROP_BUTTONPAD): libinput detects no thumbs"
        } else if let y = yAxis {
            // Without a resolution libinput assumes a 69×50 mm pad (tp_init_default_resolution).
            let resolution = y.resolution != 0 ? y.resolution : Int32((Int(y.maximum) - Int(y.minimum)) / 50)
            let height = resolution > 0 ? Double(Int(y.maximum) - Int(y.minimum)) / Double(resolution) : 0
            if height < 50 {
                thumbNote = String(format: "the pad is %.1f mm high, under libinput's 50 mm for thumb detection", height)
            } else {
                let usesPressure = mtPressure != nil && hasMT && pressurePad == nil && quirks.thumbThreshold != nil
                // upper line at 85 % of the height, lower at 92 %; mm to units as evdev_device_mm_to_units.
                let fraction = usesPressure ? 0.92 : 0.85
                jailLine = Int32(height * fraction * Double(resolution) + Double(y.minimum))
                if usesPressure { thumbPressureThreshold = Int32(truncatingIfNeeded: quirks.thumbThreshold!) }
            }
        }
    }

    /// libinput's touchpad integration: Bluetooth and Logitech pads are
    /// external (evdev_tag_touchpad), and systemd 252's 70-touchpad.hwdb
    /// names Apple's Magic Trackpads and HP's Elite x2 1013 G3 pad.
    static func isExternal(_ device: DeviceDescription) -> Bool {
        if device.bus == 0x05 || device.vendor == 0x046d { return true }
        let hwdbExternal: [(UInt16, UInt16)] = [(0x05ac, 0x030e), (0x05ac, 0x0265), (0x044e, 0x1221)]
        return device.bus == 0x03 && hwdbExternal.contains { $0 == (device.vendor, device.product) }
    }
}

/// One decision libinput logs, in the words of its debug log.
public struct TouchDecision: Equatable, Sendable {
    public enum Kind: String, Sendable {
        /// "pressure: begin touch N"
        case begin
        /// "pressure: end touch N"
        case end
        /// "palm: touch N (...), palm detected (pressure)"
        case palm
        /// "thumb: touch N, THUMB_STATE_FINGER → THUMB_STATE_JAILED"
        case thumb
        /// the jailed touch left the thumb area: "→ THUMB_STATE_FINGER"
        case unjail
    }
    public var tNs: Int64
    public var touch: Int
    public var kind: Kind
    /// The tracking id the touch had (-1 for fake and single touches).
    public var trackingID: Int32
    /// Which touch sequence of the emulator (tracking id, or BTN_TOOL_FINGER span) it belongs to.
    public var sequence: Int

    /// The decision as libinput's debug log words it (the palm line
    /// without the touch state libinput prints between parentheses).
    public var logLine: String {
        switch kind {
        case .begin: "pressure: begin touch \(touch)"
        case .end: "pressure: end touch \(touch)"
        case .palm: "palm: touch \(touch), palm detected (pressure)"
        case .thumb: "thumb: touch \(touch), THUMB_STATE_FINGER → THUMB_STATE_JAILED"
        case .unjail: "thumb: touch \(touch), THUMB_STATE_JAILED → THUMB_STATE_FINGER"
        }
    }
}

/// libinput's touchpad state machine (the same from 1.22 to 1.31), fed with evdev frames, as far as
/// pressure decides it: touches begin hovering (`tp_new_touch`), begin at
/// pressure >= high and end below low (`tp_unhover_pressure`, including its
/// rules for more fingers than slots), a palm once pressure > the palm
/// threshold until the touch ends (`tp_palm_detect`), a new single touch in
/// the thumb area jailed (`tp_thumb_update_touch`).
public struct TouchpadEmulator {
    public let setup: TouchpadPressureSetup
    public private(set) var decisions: [TouchDecision] = []
    /// Touch sequences seen (fake touches beyond the slots included).
    public private(set) var sequences = 0

    enum State { case none, hovering, begin, update, maybeEnd, end }
    struct Touch {
        var state = State.none
        var dirty = false
        var hasEnded = false
        var pressure: Int32 = 0
        var y: Int32 = 0
        var palm = false
        var trackingID: Int32 = -1
        var sequence = 0
    }
    private var touches: [Touch]
    private var slot = 0
    private var fakeBits: UInt32 = 0
    private var overflow = false
    private var fingersDown = 0
    private var thumbIndex: Int?
    private var jailed = false

    public init(setup: TouchpadPressureSetup, initialSlot: Int = 0) {
        self.setup = setup
        touches = Array(repeating: Touch(), count: setup.touches)
        slot = initialSlot
    }

    public mutating func feed(_ event: InputEvent) {
        switch event.type {
        case EventType.abs: abs(event)
        case EventType.key: key(event)
        case EventType.syn where event.code == Synchronization.report: frame(event.timeNs)
        default: break
        }
    }

    private mutating func abs(_ event: InputEvent) {
        if setup.hasMT {
            switch event.code {
            case AbsoluteAxis.mtSlot: slot = Int(event.value)
            case AbsoluteAxis.mtTrackingID:
                guard touches.indices.contains(slot), slot < setup.slots else { return }
                if event.value != -1 { newTouch(slot); touches[slot].trackingID = event.value } else { endSequence(slot) }
            case AbsoluteAxis.mtPressure:
                guard slot < setup.slots, setup.high != nil || setup.palmThreshold != nil else { return }
                touches[slot].pressure = event.value; touches[slot].dirty = true
            case AbsoluteAxis.mtPositionY:
                guard slot < setup.slots else { return }
                touches[slot].y = event.value; touches[slot].dirty = true
            case AbsoluteAxis.mtPositionX, 0x30, 0x31, 0x37:
                guard slot < setup.slots else { return }
                touches[slot].dirty = true
            default: break
            }
        } else {
            switch event.code {
            case AbsoluteAxis.pressure: touches[0].pressure = event.value; touches[0].dirty = true
            case AbsoluteAxis.y: touches[0].y = event.value; touches[0].dirty = true
            case AbsoluteAxis.x: touches[0].dirty = true
            default: break
            }
        }
    }

    private mutating func key(_ event: InputEvent) {
        let press = event.value != 0
        switch event.code {
        case Button.touch:
            if !press { overflow = false }
            setBit(0, press)
        case Button.toolFinger: setBit(1, press)
        case Button.toolDoubleTap, 0x14e, Button.toolQuadTap:
            setBit(Int(event.code - Button.toolDoubleTap) + 2, press)
        case 0x148: if press { overflow = true }
        default: break
        }
    }

    private mutating func setBit(_ shift: Int, _ press: Bool) {
        if press { overflow = false; fakeBits |= 1 << shift } else { fakeBits &= ~(1 << shift) }
    }

    /// `tp_fake_finger_count`: the highest BTN_TOOL_* held, not counting BTN_TOUCH; nil on overflow.
    private var fakeCount: Int? {
        if overflow { return nil }
        let bits = fakeBits >> 1
        return bits == 0 ? 0 : bits.trailingZeroBitCount + 1
    }

    private var touching: Bool { fakeBits & 1 != 0 }

    private mutating func newTouch(_ index: Int) {
        switch touches[index].state {
        case .begin, .update, .hovering: return
        case .maybeEnd:
            // Ended and began in one frame (a kernel bug libinput tolerates).
            fingersDown += 1; touches[index].state = .update; touches[index].hasEnded = false; return
        default: break
        }
        touches[index].dirty = true
        touches[index].hasEnded = false
        touches[index].palm = false
        touches[index].state = .hovering
        sequences += 1
        touches[index].sequence = sequences
    }

    private mutating func beginTouch(_ index: Int) {
        touches[index].dirty = true
        touches[index].state = .begin
        fingersDown += 1
    }

    private mutating func maybeEnd(_ index: Int) {
        switch touches[index].state {
        case .none, .maybeEnd, .end: return
        case .hovering: touches[index].state = .none
        default: fingersDown -= 1; touches[index].state = .maybeEnd
        }
        touches[index].dirty = true
    }

    private mutating func endSequence(_ index: Int) {
        touches[index].hasEnded = true
        maybeEnd(index)
    }

    private mutating func record(_ time: Int64, _ index: Int, _ kind: TouchDecision.Kind) {
        let tracking = setup.hasMT && index < setup.slots ? touches[index].trackingID : -1
        decisions.append(TouchDecision(tNs: time, touch: index, kind: kind, trackingID: tracking, sequence: touches[index].sequence))
    }

    private mutating func frame(_ time: Int64) {
        // tp_process_fake_touches
        if let fake = fakeCount {
            for index in (setup.hasMT ? setup.slots : 0)..<setup.touches {
                if index < fake { newTouch(index) } else { endSequence(index) }
            }
        }
        if let high = setup.high, let low = setup.low { unhoverPressure(time, high: high, low: low) } else { unhoverFake() }
        for index in touches.indices where touches[index].state == .maybeEnd {
            // tp_end_touch clears the palm state.
            touches[index].dirty = true; touches[index].palm = false; touches[index].state = .end
        }
        // tp_position_fake_touches: fake touches take the topmost real touch's pressure.
        // An overflow (FAKE_FINGER_OVERFLOW, 0x80) counts as more fingers than slots here.
        if (fakeCount ?? 0x80) > setup.slots, fingersDown > 0,
           let real = (0..<setup.slots).filter({ touches[$0].state != .end && touches[$0].state != .none })
               .min(by: { touches[$0].y < touches[$1].y }) {
            for index in setup.slots..<setup.touches where touches[index].state != .none {
                touches[index].pressure = touches[real].pressure
                if !touches[index].dirty { touches[index].dirty = touches[real].dirty }
            }
        }
        // tp_process_state: thumb, then palm, on every dirty touch.
        for index in touches.indices where touches[index].state != .none && touches[index].dirty {
            thumbUpdate(index, time)
            if let threshold = setup.palmThreshold, !touches[index].palm, touches[index].pressure > threshold {
                touches[index].palm = true
                record(time, index, .palm)
            }
        }
        // tp_post_process_state
        for index in touches.indices where touches[index].dirty {
            if touches[index].state == .end { touches[index].state = touches[index].hasEnded ? .none : .hovering }
            else if touches[index].state == .begin { touches[index].state = .update }
            touches[index].dirty = false
        }
    }

    private mutating func thumbUpdate(_ index: Int, _ time: Int64) {
        guard let line = setup.jailLine else { return }
        if touches[index].state == .end, index == thumbIndex { thumbIndex = nil; jailed = false; return }
        guard fingersDown <= 1 else { return }
        // The thumb pressure threshold only narrows the area: inside the lower area a touch is jailed whatever its pressure.
        let inArea = touches[index].y > line || (setup.thumbPressureThreshold == nil && touches[index].y >= line)
        if touches[index].state == .begin && inArea {
            if !(jailed && thumbIndex == index) { record(time, index, .thumb) }
            jailed = true; thumbIndex = index
            return
        }
        if jailed && thumbIndex == index && !inArea {
            jailed = false
            record(time, index, .unjail)
        }
    }

    private mutating func unhoverPressure(_ time: Int64, high: Int32, low: Int32) {
        // tp_unhover_pressure counts an overflow (more than five fingers) as none.
        let fake = fakeCount ?? 0
        var realDown = 0
        for index in 0..<setup.slots {
            if touches[index].state == .none { continue }
            if touches[index].dirty {
                if touches[index].state == .hovering {
                    if touches[index].pressure >= high {
                        record(time, index, .begin)
                        beginTouch(index)
                    }
                } else if fake <= setup.slots || setup.slots == 1 {
                    if touches[index].pressure < low {
                        record(time, index, .end)
                        maybeEnd(index)
                    }
                }
            }
            if touches[index].state == .begin || touches[index].state == .update { realDown += 1 }
        }
        if fake <= setup.slots || fingersDown == 0 { return }
        // More fingers than slots: every finger counts as down once one real one is.
        if realDown > 0 {
            for index in touches.indices where touches[index].state == .hovering {
                beginTouch(index)
                if fingersDown >= fake { break }
            }
        }
        if fingersDown > fake || realDown == 0 {
            for index in touches.indices.reversed() {
                let state = touches[index].state
                if state == .hovering || state == .none || state == .maybeEnd { continue }
                maybeEnd(index)
                if realDown > 0 && fingersDown == fake { break }
            }
        }
    }

    /// `tp_unhover_fake_touches`: without pressure, BTN_TOUCH and BTN_TOOL_* decide.
    private mutating func unhoverFake() {
        guard fakeBits != 0 || fingersDown != 0, let fake = fakeCount else { return }
        if fingersDown == fake && ((fingersDown == 0 && !touching) || (fingersDown > 0 && touching)) { return }
        if touching && fingersDown < fake {
            for index in touches.indices where touches[index].state == .hovering {
                beginTouch(index)
                if fingersDown >= fake { break }
            }
        }
        if fingersDown > fake || !touching {
            for index in touches.indices.reversed() {
                let state = touches[index].state
                if state == .hovering || state == .none { continue }
                maybeEnd(index)
                if touching && fingersDown == fake { break }
            }
        }
    }
}
