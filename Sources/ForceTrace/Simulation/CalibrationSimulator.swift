/// Which simulated device a calibration session runs on.
public enum SimulatedDevice: String, CaseIterable, Sendable {
    /// Protocol B, ABS_MT_PRESSURE 0..255, INPUT_PROP_DIRECT.
    case touchscreen
    /// Protocol B, ABS_MT_PRESSURE 0..255, INPUT_PROP_POINTER and BUTTONPAD, USB ids.
    case touchpad
    /// Single touch with BTN_TOOL_PEN, ABS_PRESSURE 0..4095.
    case pen
    /// The touchpad with ABS_MT_PRESSURE 0..127, as on many older pads: libinput's
    /// absolute default palm threshold (130) lies above the whole axis, and its
    /// begin threshold (15) above the lightest touches the script draws.
    case touchpad127 = "touchpad-127"
    /// The touchpad as a pressure pad: INPUT_PROP_PRESSUREPAD, and pressure
    /// 0..255 at 2 units per gram (0..127.5 g), as the kernel defines a
    /// pressure axis with a resolution (`GramScale`).
    case pressurepad
}

/// One scripted trial of a simulated calibration session.
public struct ScriptedTrial: Equatable, Sendable {
    public var trialClass: TrialClass
    /// The scripted peak, raw.
    public var peak: Int32
    public var startNs: Int64
    public var durationNs: Int64
    /// Set for trials made to be discarded (two fingers, too short); the
    /// session asks for the same class again after them.
    public var flaw: TrialRejection?
}

/// A simulated calibration: the recording and what the simulated person meant.
public struct CalibrationSimulation: Sendable {
    public var recording: Recording
    public var trials: [ScriptedTrial]
    /// The raw peak range of each class the script draws from: every
    /// threshold between two neighbouring ranges separates them.
    public var peakRanges: [TrialClass: ClosedRange<Int32>]
}

/// Simulated people calibrating: each class's peaks come from a scripted
/// range with gaps between neighbours, so the thresholds that separate the
/// classes are known. Two trials of each session are flawed (two fingers or,
/// on the pen, a hover that touches; and one too short) and must be discarded.
public enum CalibrationSimulator {
    public static func peakRanges(_ calibrationProtocol: CalibrationProtocol) -> [TrialClass: ClosedRange<Int32>] {
        switch calibrationProtocol {
        case .app: [.tap: 15...60, .peekPress: 110...160, .popPress: 200...250]
        case .touchpad: [.light: 30...45, .normal: 60...100, .thumb: 130...160, .palm: 190...240]
        case .pen: PenScript.default.peakRanges(trials: CalibrationProtocol.defaultTrials)
        // Not simulated (an evemu file holds no scale; simulate refuses it): `ForceScript` plays a force session.
        case .force: [.forceMedium: 1500...2500, .forceFull: 4000...4095]
        }
    }

    /// The touchpad-127's classes, on its 0..127 axis.
    static let touchpad127Ranges: [TrialClass: ClosedRange<Int32>] = [.light: 10...22, .normal: 30...50, .thumb: 65...80, .palm: 95...120]

    /// The simulated pressure pad's resolution: units per gram.
    public static let simulatedPressurepadUnitsPerGram: Int32 = 2

    public static func device(_ kind: SimulatedDevice) -> DeviceDescription {
        var device: DeviceDescription
        switch kind {
        case .touchpad127:
            device = Self.device(.touchpad)
            device.name = "forcetrace simulated touchpad 0..127"
            device.product = 0x7f05
            device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 127))
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 127))
            return device
        case .pressurepad:
            device = Self.device(.touchpad)
            device.name = "forcetrace simulated pressurepad"
            device.product = 0x7f06
            device.properties.append(InputProperty.pressurePad)
            device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 255, resolution: simulatedPressurepadUnitsPerGram))
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255, resolution: simulatedPressurepadUnitsPerGram))
            return device
        case .touchscreen, .touchpad:
            device = DeviceDescription(name: kind == .touchpad ? "forcetrace simulated touchpad" : "forcetrace simulated touchscreen")
            device.bus = 0x03; device.vendor = 0x1d6b; device.product = kind == .touchpad ? 0x7f02 : 0x7f03; device.version = 1
            device.properties = kind == .touchpad ? [InputProperty.pointer, InputProperty.buttonpad] : [InputProperty.direct]
            device.setAxis(AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: 4095, resolution: 40))
            device.setAxis(AxisInfo(code: AbsoluteAxis.y, minimum: 0, maximum: 4095, resolution: 40))
            device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 255))
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtSlot, minimum: 0, maximum: 1))
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: 4095, resolution: 40))
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionY, minimum: 0, maximum: 4095, resolution: 40))
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtTrackingID, minimum: 0, maximum: 65535))
            device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255))
            for code in [Button.toolFinger, Button.touch, Button.toolDoubleTap] { device.enable(type: EventType.key, code: code) }
            if kind == .touchpad { device.enable(type: EventType.key, code: 0x110) }   // BTN_LEFT
        case .pen:
            device = DeviceDescription(name: "forcetrace simulated pen")
            device.bus = 0x03; device.vendor = 0x1d6b; device.product = 0x7f04; device.version = 1
            device.properties = [InputProperty.direct]
            device.setAxis(AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: 20000, resolution: 100))
            device.setAxis(AxisInfo(code: AbsoluteAxis.y, minimum: 0, maximum: 12000, resolution: 100))
            device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 4095))
            for code in [Button.toolPen, Button.touch] { device.enable(type: EventType.key, code: code) }
        }
        device.enable(type: EventType.syn, code: EventType.key)
        return device
    }

    /// A whole session: `trials` rounds of the protocol's classes, with two
    /// flawed trials that a calibration must discard.
    /// - Parameter holds: add the touchpad's steady holds to each round: a level
    ///   from the light or normal range held 2 s with pressure noise of up to
    ///   `holdNoise` either way, every fifth frame at the full dip.
    public static func run(device kind: SimulatedDevice, protocol calibrationProtocol: CalibrationProtocol,
                           trials perClass: Int = CalibrationProtocol.defaultTrials, seed: UInt64 = 1,
                           penScript: PenScript = .default, holds: Bool = false) -> CalibrationSimulation {
        var random = SeededRandom(seed: seed)
        let scripted = calibrationProtocol == .pen ? penScript.peaks(trials: perClass, seed: seed) : [:]
        var used: [TrialClass: Int] = [:]
        var ranges = calibrationProtocol == .pen ? penScript.peakRanges(trials: perClass, seed: seed) : peakRanges(calibrationProtocol)
        if kind == .touchpad127, calibrationProtocol == .touchpad { ranges = touchpad127Ranges }
        if holds, calibrationProtocol == .touchpad { ranges[.holdLight] = 30...34; ranges[.holdNormal] = 60...100 }
        let device = device(kind)
        var script: [ScriptedTrial] = []
        var time: Int64 = 1_764_400_000 * 1_000_000_000 + 500_000_000
        for (index, trialClass) in calibrationProtocol.schedule(trials: perClass, holds: holds).enumerated() {
            // Pen: a hover that touches (trial 6, the second round's hover) and a stroke too short (trial 7).
            let flaws: [TrialRejection]
            switch (index, kind) {
            case (5, .pen): flaws = [.touchedWhileHovering]
            case (2, .touchscreen), (2, .touchpad), (2, .touchpad127), (2, .pressurepad): flaws = [.severalContacts(2)]
            case (6, _): flaws = [.tooShort(durationNs: 0)]
            default: flaws = []
            }
            for flaw in flaws + [nil] as [TrialRejection?] {
                let range = ranges[trialClass]!
                var peak = Int32(random.uniform(Double(range.lowerBound)...Double(range.upperBound)).rounded())
                // A kept pen stroke takes its class's next scripted peak.
                if flaw == nil, let peaks = scripted[trialClass] {
                    peak = peaks[used[trialClass, default: 0]]
                    used[trialClass, default: 0] += 1
                }
                var duration: Int64
                switch trialClass {
                case .tap, .light: duration = Int64(random.uniform(0.08...0.16) * 1e9)
                case .holdLight, .holdNormal: duration = 2_400_000_000
                case .hover: duration = Int64(random.uniform(0.4...0.7) * 1e9)
                default: duration = Int64(random.uniform(0.35...0.9) * 1e9)
                }
                // Under CalibrationSession.minimumTrialNs: two frames down (pen: two frames touching).
                if case .tooShort = flaw { duration = kind == .pen ? 40_000_000 : 16_000_000 }
                script.append(ScriptedTrial(trialClass: trialClass, peak: peak, startNs: time, durationNs: duration, flaw: flaw))
                time += duration + Int64(random.uniform(0.5...0.9) * 1e9)
            }
        }
        var renderer = FrameRenderer(device: device)
        for (index, trial) in script.enumerated() { renderer.render(trial, trackingID: Int32(100 + index), random: &random) }
        let recording = Recording(device: device, events: renderer.events, clock: .realtime,
                                  source: .simulated(seed: seed), name: "\(calibrationProtocol.rawValue)-calibration")
        return CalibrationSimulation(recording: recording, trials: script, peakRanges: ranges)
    }

    /// Emits frames as the kernel would: only changed values, no empty frames.
    struct FrameRenderer {
        let device: DeviceDescription
        var events: [InputEvent] = []
        private var last: [UInt32: Int32] = [:]
        private var frame: [InputEvent] = []
        private var slot: Int32 = 0
        static let frameNs: Int64 = 8_333_333
        /// How far a steady hold's pressure wanders from its level, in device units.
        static let holdNoise: Int32 = 9

        init(device: DeviceDescription) { self.device = device }

        private mutating func set(_ type: UInt16, _ code: UInt16, _ value: Int32, at time: Int64) {
            let key = UInt32(type) << 16 | UInt32(code)
            guard last[key] != value else { return }
            last[key] = value
            frame.append(InputEvent(timeNs: time, type: type, code: code, value: value))
        }

        private mutating func slotValue(_ slotIndex: Int32, _ code: UInt16, _ value: Int32, at time: Int64) {
            // Per-slot values are keyed by slot, and ABS_MT_SLOT is sent when it changes.
            let key = UInt32(0x8000 + Int(slotIndex) * 64 + Int(code))
            guard last[key] != value else { return }
            if slot != slotIndex { slot = slotIndex; frame.append(InputEvent(timeNs: time, type: EventType.abs, code: AbsoluteAxis.mtSlot, value: slotIndex)) }
            last[key] = value
            frame.append(InputEvent(timeNs: time, type: EventType.abs, code: code, value: value))
        }

        private mutating func report(at time: Int64) {
            guard !frame.isEmpty else { return }
            events.append(contentsOf: frame)
            events.append(InputEvent(timeNs: time, type: EventType.syn, code: Synchronization.report, value: 0))
            frame.removeAll()
        }

        /// Rise over 40 % of the trial, hold the peak for 20 %, fall over 40 %.
        static func shape(_ fraction: Double) -> Double {
            fraction < 0.4 ? fraction / 0.4 : fraction < 0.6 ? 1 : max(0, (1 - fraction) / 0.4)
        }

        mutating func render(_ trial: ScriptedTrial, trackingID: Int32, random: inout SeededRandom) {
            let steps = max(2, Int(trial.durationNs / Self.frameNs))
            let slotted = device.contactProtocol == .slots
            let x = Int32(random.uniform(1200...2800)), y = Int32(random.uniform(1200...2800))
            let second = trial.flaw.map { if case .severalContacts = $0 { true } else { false } } ?? false
            for step in 0...steps {
                let time = trial.startNs + Int64(step) * trial.durationNs / Int64(steps)
                let fraction = Double(step) / Double(steps)
                // The peak is reached exactly in the middle frames.
                var pressure = Int32((Double(trial.peak) * Self.shape(fraction)).rounded())
                if step == steps / 2 { pressure = trial.peak }
                if trial.trialClass == .holdLight || trial.trialClass == .holdNormal {
                    // 0.2 s down, 2 s held with noise (every fifth frame dips by the whole amount), 0.2 s up.
                    let held = fraction >= 1.0 / 12 && fraction <= 11.0 / 12
                    let noise = step % 5 == 0 ? -Self.holdNoise : Int32(random.uniform(-Double(Self.holdNoise)...Double(Self.holdNoise)).rounded())
                    pressure = held ? trial.peak + noise : Int32((Double(trial.peak) * min(fraction, 1 - fraction) * 12).rounded())
                }
                pressure = max(pressure, trial.trialClass.isHover ? 0 : 1)
                let last = step == steps
                if slotted {
                    if last {
                        slotValue(0, AbsoluteAxis.mtTrackingID, -1, at: time)
                        if second { slotValue(1, AbsoluteAxis.mtTrackingID, -1, at: time) }
                        set(EventType.key, Button.toolDoubleTap, 0, at: time)
                        set(EventType.key, Button.toolFinger, 0, at: time)
                        set(EventType.key, Button.touch, 0, at: time)
                        set(EventType.abs, AbsoluteAxis.pressure, 0, at: time)
                    } else {
                        slotValue(0, AbsoluteAxis.mtTrackingID, trackingID, at: time)
                        slotValue(0, AbsoluteAxis.mtPositionX, x, at: time)
                        slotValue(0, AbsoluteAxis.mtPositionY, y, at: time)
                        slotValue(0, AbsoluteAxis.mtPressure, pressure, at: time)
                        let both = second && step >= steps / 4
                        if both {
                            slotValue(1, AbsoluteAxis.mtTrackingID, trackingID + 1000, at: time)
                            slotValue(1, AbsoluteAxis.mtPositionX, x + 600, at: time)
                            slotValue(1, AbsoluteAxis.mtPositionY, y, at: time)
                            slotValue(1, AbsoluteAxis.mtPressure, pressure, at: time)
                        }
                        set(EventType.key, both ? Button.toolFinger : Button.toolDoubleTap, 0, at: time)
                        set(EventType.key, both ? Button.toolDoubleTap : Button.toolFinger, 1, at: time)
                        set(EventType.key, Button.touch, 1, at: time)
                        set(EventType.abs, AbsoluteAxis.x, x, at: time)
                        set(EventType.abs, AbsoluteAxis.y, y, at: time)
                        set(EventType.abs, AbsoluteAxis.pressure, pressure, at: time)
                    }
                } else {
                    let touching = !trial.trialClass.isHover || trial.flaw == .touchedWhileHovering && step == steps / 2
                    set(EventType.key, Button.toolPen, last ? 0 : 1, at: time)
                    set(EventType.abs, AbsoluteAxis.x, x * 5 + Int32(step) * 20, at: time)
                    set(EventType.abs, AbsoluteAxis.y, y * 3, at: time)
                    set(EventType.abs, AbsoluteAxis.pressure, last ? 0 : pressure, at: time)
                    if trial.trialClass.isHover {
                        set(EventType.key, Button.touch, touching && !last ? 1 : 0, at: time)
                    } else {
                        // The tip touches after the first frame in proximity and lifts before the last.
                        set(EventType.key, Button.touch, step > 0 && step < steps - 1 ? 1 : 0, at: time)
                    }
                }
                report(at: time)
            }
        }
    }
}
