import Foundation

/// A small, seedable generator (SplitMix64), so a seed gives the same
/// recording on every machine.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    public mutating func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &self) }

    /// A standard normal deviate (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(Double.random(in: 0..<1, using: &self), 1e-12)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * Foundation.log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// The kinds of press the simulator scripts.
public enum PressKind: String, CaseIterable, Sendable {
    /// A light, short tap that stays below the peek threshold.
    case tap
    /// A press that reaches peek but not pop.
    case peek
    /// A deep press that reaches pop and holds (iOS quick actions).
    case deep
    /// A press that slides while touching, at tap-level force.
    case moving
    /// Two fingers down together, each its own press.
    case twoFinger = "two-finger"
}

/// What a scripted press was meant to be: the simulator's ground truth.
public struct ScriptedPress: Sendable {
    public var kind: PressKind
    public var slot: Int
    public var trackingID: Int32
    public var startNs: Int64
    public var durationNs: Int64
    /// Intended peak, normalized 0...1.
    public var peak: Double
    /// Travel in device units over the press.
    public var travel: (dx: Double, dy: Double)
    public var start: (x: Double, y: Double)
}

public struct SimulationOptions: Sendable {
    public var seed: UInt64 = 1
    public var presses = 24
    /// Sensor scan rate in Hz.
    public var rateHz = 120.0
    /// Standard deviation of position noise, device units, before the kernel's fuzz filter.
    public var positionNoise = 1.5
    /// Standard deviation of pressure noise, device units.
    public var pressureNoise = 0.8
    public var kinds: [PressKind] = PressKind.allCases
    /// Wall-clock time of the first frame, seconds since the epoch.
    public var startEpochSeconds: Int64 = 1_764_400_000

    public init() {}
}

public struct Simulation: Sendable {
    public var recording: Recording
    public var presses: [ScriptedPress]
}

extension ScriptedPress {
    /// The class the press was scripted to reach, against the scripted thresholds.
    public var intendedClass: PressClass {
        PressClass.of(peak: peak, peek: Simulator.scriptedPeek, pop: Simulator.scriptedPop)
    }
}

/// Makes plausible recordings of presses on a pressure-capable multitouch
/// protocol-B touchscreen: a sensor scanned at a fixed rate with jitter,
/// Gaussian noise, quantization to integers, the kernel's fuzz filter, and
/// the kernel's rule that unchanged values are not sent.
public enum Simulator {
    public static let positionFuzz: Int32 = 4
    /// The thresholds the press kinds are scripted around: taps peak below
    /// peek, peek presses between peek and pop, deep presses above pop.
    public static let scriptedPeek = Thresholds.defaultPeek
    public static let scriptedPop = Thresholds.defaultPop

    /// The simulated device: 5 slots, 20 units/mm, 8-bit pressure.
    public static var device: DeviceDescription {
        var device = DeviceDescription(name: "forcetrace simulated touchscreen")
        device.bus = 0x18   // BUS_I2C
        device.vendor = 0x1d6b
        device.product = 0x0f70
        device.version = 1
        device.properties = [InputProperty.direct]
        // Type 0's bits are the supported event types (EVIOCGBIT(0)): SYN, KEY, ABS.
        device.codes[EventType.syn] = [EventType.syn, EventType.key, EventType.abs]
        device.codes[EventType.key] = [Button.toolFinger, Button.touch, Button.toolDoubleTap]
        device.setAxis(AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: 4095, fuzz: positionFuzz, resolution: 20))
        device.setAxis(AxisInfo(code: AbsoluteAxis.y, minimum: 0, maximum: 2559, fuzz: positionFuzz, resolution: 20))
        device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 255))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtSlot, minimum: 0, maximum: 4))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: 4095, fuzz: positionFuzz, resolution: 20))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionY, minimum: 0, maximum: 2559, fuzz: positionFuzz, resolution: 20))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtTrackingID, minimum: 0, maximum: 65535))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255))
        return device
    }

    /// The kernel's hysteresis filter for axes with fuzz (input_defuzz_abs_event
    /// in drivers/input/input.c): small changes are held or averaged.
    public static func defuzz(_ value: Int32, previous: Int32, fuzz: Int32) -> Int32 {
        guard fuzz > 0 else { return value }
        if value > previous - fuzz / 2 && value < previous + fuzz / 2 { return previous }
        if value > previous - fuzz && value < previous + fuzz { return (previous * 3 + value) / 4 }
        if value > previous - fuzz * 2 && value < previous + fuzz * 2 { return (previous + value) / 2 }
        return value
    }

    public static func run(_ options: SimulationOptions) -> Simulation {
        var events: [InputEvent] = []
        let (header, truth, presses) = plan(options)
        var random = presses.random
        render(presses.list, options: options, random: &random) { events.append(contentsOf: $0) }
        var recording = Recording(device: header.device, events: events, clock: header.clock, source: header.source, name: header.name)
        recording.groundTruth = truth
        return Simulation(recording: recording, presses: presses.list)
    }

    /// Simulates straight into `encoder`, frame by frame, so memory holds
    /// the script but never the events.
    /// - Returns: the presses scripted and the events written.
    public static func stream(_ options: SimulationOptions, into encoder: any RecordingEncoder) throws -> (presses: Int, events: Int) {
        let (header, truth, presses) = plan(options)
        var random = presses.random
        try encoder.begin(header, groundTruth: truth)
        var count = 0
        var chunk: [InputEvent] = []
        chunk.reserveCapacity(RecordingBuilder.chunkEvents + 64)
        try render(presses.list, options: options, random: &random) { frame in
            chunk.append(contentsOf: frame)
            count += frame.count
            if chunk.count >= RecordingBuilder.chunkEvents {
                try encoder.append(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        try encoder.append(chunk)
        try encoder.end()
        try encoder.finish()
        return (presses.list.count, count)
    }

    /// Time of the first frame, the recording's origin.
    static func firstFrameNs(_ options: SimulationOptions) -> Int64 { options.startEpochSeconds * 1_000_000_000 }

    /// The script, the device header and the labels, before any event.
    private static func plan(_ options: SimulationOptions) -> (RecordingHeader, GroundTruth, (list: [ScriptedPress], random: SeededRandom)) {
        var random = SeededRandom(seed: options.seed)
        let presses = script(options, random: &random)
        let header = RecordingHeader(device: device, clock: .realtime, t0Ns: firstFrameNs(options),
                                     source: .simulated(seed: options.seed), name: "simulated-seed\(options.seed)")
        let base = options.startEpochSeconds * 1_000_000_000
        let truth = GroundTruth(peek: scriptedPeek, pop: scriptedPop, labels: presses.map {
            ContactLabel(slot: Int16($0.slot), trackingID: $0.trackingID, tNs: base + $0.startNs / 1000 * 1000,
                         label: $0.intendedClass, kind: $0.kind.rawValue,
                         intendedPeak: ($0.peak * 10_000).rounded() / 10_000)   // as the evemu comment prints it
        })
        return (header, truth, (presses, random))
    }

    /// Lays out the presses one after another, with pauses between them.
    static func script(_ options: SimulationOptions, random: inout SeededRandom) -> [ScriptedPress] {
        var presses: [ScriptedPress] = []
        var time: Int64 = 200_000_000
        var trackingID: Int32 = 100
        let kinds = options.kinds.isEmpty ? PressKind.allCases : options.kinds
        for index in 0..<options.presses {
            let kind = kinds[index % kinds.count]
            func press(slot: Int, peak: ClosedRange<Double>, duration: ClosedRange<Double>, travelMM: Double = 0,
                       offsetNs: Int64 = 0) -> ScriptedPress {
                let angle = random.uniform(0...(2 * .pi))
                let travel = travelMM * 20
                let startX = random.uniform(800...3300), startY = random.uniform(500...2000)
                defer { trackingID += 1 }
                return ScriptedPress(kind: kind, slot: slot, trackingID: trackingID, startNs: time + offsetNs,
                                     durationNs: Int64(random.uniform(duration) * 1e9), peak: random.uniform(peak),
                                     travel: (travel * cos(angle), travel * sin(angle)), start: (startX, startY))
            }
            var group: [ScriptedPress]
            switch kind {
            case .tap: group = [press(slot: 0, peak: 0.15...0.45, duration: 0.07...0.16)]
            case .peek: group = [press(slot: 0, peak: 0.64...0.76, duration: 0.35...0.7)]
            case .deep: group = [press(slot: 0, peak: 0.86...0.98, duration: 0.6...1.2)]
            case .moving: group = [press(slot: 0, peak: 0.25...0.5, duration: 0.4...0.9, travelMM: random.uniform(15...50))]
            case .twoFinger:
                group = [press(slot: 0, peak: 0.2...0.5, duration: 0.3...0.6),
                         press(slot: 1, peak: 0.2...0.5, duration: 0.3...0.6, offsetNs: Int64(random.uniform(0.02...0.08) * 1e9))]
            }
            presses.append(contentsOf: group)
            let end = group.map { $0.startNs + $0.durationNs }.max() ?? time
            time = end + Int64(random.uniform(0.3...0.7) * 1e9)
        }
        return presses
    }

    /// Normalized pressure of `press` at `fraction` (0...1) of its duration:
    /// a smooth rise, a plateau with physiological tremor, a quicker release.
    static func pressureShape(_ press: ScriptedPress, fraction: Double, seconds: Double) -> Double {
        let rise = press.kind == .tap ? 0.45 : 0.35
        let release = press.kind == .tap ? 0.4 : 0.2
        let level: Double
        if fraction < rise {
            let t = fraction / rise
            level = t * t * (3 - 2 * t)
        } else if fraction > 1 - release {
            let t = (1 - fraction) / release
            level = t * t * (3 - 2 * t)
        } else {
            level = 1
        }
        let tremor = 0.012 * sin(2 * .pi * 9.5 * seconds)
        return max(0, press.peak * level + (level > 0.2 ? tremor * level : 0))
    }

    private struct SlotOutput {
        var trackingID: Int32 = -1
        var x: Int32 = -1
        var y: Int32 = -1
        var pressure: Int32 = -1
    }

    /// Renders the presses frame by frame; each frame, SYN_REPORT included, goes to `body`.
    static func render(_ presses: [ScriptedPress], options: SimulationOptions, random: inout SeededRandom,
                       frame body: ([InputEvent]) throws -> Void) rethrows {
        let device = self.device
        let slotCount = device.slotCount
        let period = 1e9 / options.rateHz
        let end = (presses.map { $0.startNs + $0.durationNs }.max() ?? 0) + Int64(period * 4)
        let base = options.startEpochSeconds * 1_000_000_000
        var slots = [SlotOutput](repeating: SlotOutput(), count: slotCount)
        var frame: [InputEvent] = []
        var emulated = (x: Int32(-1), y: Int32(-1), pressure: Int32(-1), touch: false, fingers: 0)
        var frameTime = 0.0
        var currentSlot = 0
        let bySlot = (0..<slotCount).map { slot in presses.filter { $0.slot == slot }.sorted { $0.startNs < $1.startNs } }
        var cursors = [Int](repeating: 0, count: slotCount)
        while Int64(frameTime) <= end {
            let time = base + Int64(frameTime) / 1000 * 1000   // evdev times have microsecond resolution
            frame.removeAll(keepingCapacity: true)
            func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                frame.append(InputEvent(timeNs: time, type: type, code: code, value: value))
            }
            var oldestActive: Int?
            var oldestStart = Int64.max
            for slot in 0..<slotCount {
                // Presses of a slot never overlap and are in start order, so a cursor per slot finds the active one.
                let now = Int64(frameTime)
                while cursors[slot] < bySlot[slot].count,
                      bySlot[slot][cursors[slot]].startNs + bySlot[slot][cursors[slot]].durationNs <= now {
                    cursors[slot] += 1
                }
                let candidate = cursors[slot] < bySlot[slot].count ? bySlot[slot][cursors[slot]] : nil
                let active = candidate.flatMap { now >= $0.startNs ? $0 : nil }
                var selected = false
                func select() {
                    if !selected && currentSlot != slot { emit(EventType.abs, AbsoluteAxis.mtSlot, Int32(slot)); currentSlot = slot }
                    selected = true
                }
                guard let press = active else {
                    if slots[slot].trackingID >= 0 {
                        select()
                        emit(EventType.abs, AbsoluteAxis.mtTrackingID, -1)
                        slots[slot].trackingID = -1
                    }
                    continue
                }
                let seconds = (frameTime - Double(press.startNs)) / 1e9
                let fraction = (frameTime - Double(press.startNs)) / Double(press.durationNs)
                let level = pressureShape(press, fraction: fraction, seconds: seconds)
                // Touch sensors read a little force as soon as the finger lands.
                let pressure = Int32(min(255, max(1, (level * 255 + options.pressureNoise * random.gaussian()).rounded())))
                let rawX = press.start.x + press.travel.dx * min(1, fraction * 1.2) + options.positionNoise * random.gaussian()
                let rawY = press.start.y + press.travel.dy * min(1, fraction * 1.2) + options.positionNoise * random.gaussian()
                var x = Int32(min(4095, max(0, rawX.rounded())))
                var y = Int32(min(2559, max(0, rawY.rounded())))
                if slots[slot].trackingID == press.trackingID {
                    x = defuzz(x, previous: slots[slot].x, fuzz: positionFuzz)
                    y = defuzz(y, previous: slots[slot].y, fuzz: positionFuzz)
                }
                if slots[slot].trackingID != press.trackingID {
                    select()
                    emit(EventType.abs, AbsoluteAxis.mtTrackingID, press.trackingID)
                    slots[slot].trackingID = press.trackingID
                }
                if x != slots[slot].x { select(); emit(EventType.abs, AbsoluteAxis.mtPositionX, x); slots[slot].x = x }
                if y != slots[slot].y { select(); emit(EventType.abs, AbsoluteAxis.mtPositionY, y); slots[slot].y = y }
                if pressure != slots[slot].pressure { select(); emit(EventType.abs, AbsoluteAxis.mtPressure, pressure); slots[slot].pressure = pressure }
                if press.startNs < oldestStart { oldestStart = press.startNs; oldestActive = slot }
            }
            // The kernel's pointer emulation (input_mt_report_pointer_emulation)
            // follows the oldest contact on the legacy axes.
            let fingers = slots.filter { $0.trackingID >= 0 }.count
            if fingers > 0 && !emulated.touch { emit(EventType.key, Button.touch, 1); emulated.touch = true }
            if fingers == 0 && emulated.touch { emit(EventType.key, Button.touch, 0); emulated.touch = false }
            if fingers != emulated.fingers {
                let oldTool: UInt16? = emulated.fingers == 1 ? Button.toolFinger : (emulated.fingers >= 2 ? Button.toolDoubleTap : nil)
                let newTool: UInt16? = fingers == 1 ? Button.toolFinger : (fingers >= 2 ? Button.toolDoubleTap : nil)
                if oldTool != newTool {
                    if let oldTool { emit(EventType.key, oldTool, 0) }
                    if let newTool { emit(EventType.key, newTool, 1) }
                }
                emulated.fingers = fingers
            }
            if let oldest = oldestActive {
                if slots[oldest].x != emulated.x { emit(EventType.abs, AbsoluteAxis.x, slots[oldest].x); emulated.x = slots[oldest].x }
                if slots[oldest].y != emulated.y { emit(EventType.abs, AbsoluteAxis.y, slots[oldest].y); emulated.y = slots[oldest].y }
                if slots[oldest].pressure != emulated.pressure {
                    emit(EventType.abs, AbsoluteAxis.pressure, slots[oldest].pressure); emulated.pressure = slots[oldest].pressure
                }
            } else if emulated.pressure != 0 && emulated.pressure != -1 {
                emit(EventType.abs, AbsoluteAxis.pressure, 0); emulated.pressure = 0
            }
            if !frame.isEmpty {
                frame.append(InputEvent(timeNs: time, type: EventType.syn, code: Synchronization.report, value: 0))
                try body(frame)
            }
            frameTime += period * (1 + 0.03 * random.gaussian())
        }
    }
}
