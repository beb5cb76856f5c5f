import Foundation

/// A scripted force session: a hand pressing a pen onto a scale slowly,
/// holding, releasing, several times; the pen's pressure a known function
/// of the force, the scale reading it late. What the force analysis must
/// recover (docs/ANALYSIS.md, "Force"), and what the kernel test's player
/// plays through uinput and a scale.
public struct ForceScript: Sendable, Equatable {
    public var presses = 6
    /// Per press: the ramp up to `peakGrams`, the hold, the ramp down, the rest after.
    public var rampUpNs: Int64 = 2_000_000_000
    public var holdNs: Int64 = 1_000_000_000
    public var rampDownNs: Int64 = 1_500_000_000
    public var restNs: Int64 = 1_000_000_000
    /// Presses alternate, as the protocol asks (force-medium, then force-full):
    /// the first to `lowPeakGrams`, the next to `peakGrams`. The full
    /// presses saturate the pen, the others stop below its maximum, where the
    /// end of the rise shows in both signals (the lag's landmark).
    public var peakGrams = 500.0
    public var lowPeakGrams = 250.0
    /// The pen: pressure above the axis minimum from `activationGrams` on
    /// (pressing), the axis maximum from `saturationGrams` on, along
    /// `((F - activation) / (saturation - activation))^gamma` between; on
    /// the release it reads the force as `hysteresisGrams` heavier (less
    /// below 5 g, so that it lets go at a light force), never above the
    /// pressure it held.
    public var activationGrams = 8.0
    public var saturationGrams = 400.0
    public var gamma = 0.7
    public var hysteresisGrams = 15.0
    public var axisMaximum: Int32 = 4095
    /// The pen's report rate.
    public var penIntervalNs: Int64 = 5_000_000
    /// The scale: a reading every `scaleIntervalNs` (not a divisor of the cycle, so the presses are
    /// read at different phases), of the force `lagNs` earlier, to `resolutionGrams`.
    public var scaleIntervalNs: Int64 = 93_000_000
    public var lagNs: Int64 = 150_000_000
    public var resolutionGrams = 0.1

    public init() {}

    var cycleNs: Int64 { rampUpNs + holdNs + rampDownNs + restNs }
    /// A second of rest before the first press.
    var leadNs: Int64 { 1_000_000_000 }
    public var durationNs: Int64 { leadNs + Int64(presses) * cycleNs }

    /// The force on the pen at `time` since the start, and whether it is being released.
    public func force(at time: Int64) -> (grams: Double, releasing: Bool, peak: Double) {
        let t = time - leadNs
        guard t >= 0, t < Int64(presses) * cycleNs else { return (0, false, 0) }
        let phase = t % cycleNs
        let peak = (t / cycleNs) % 2 == 0 ? lowPeakGrams : peakGrams
        if phase < rampUpNs { return (peak * Double(phase) / Double(rampUpNs), false, peak) }
        if phase < rampUpNs + holdNs { return (peak, false, peak) }
        if phase < rampUpNs + holdNs + rampDownNs {
            return (peak * (1 - Double(phase - rampUpNs - holdNs) / Double(rampDownNs)), true, peak)
        }
        return (0, false, peak)
    }

    /// The hysteresis at `grams` on a release.
    func hysteresis(_ grams: Double) -> Double { hysteresisGrams * min(1, max(0, grams) / 5) }

    /// The pen's raw pressure for a force (`peak`: the press's, which a release never reads above).
    public func pressure(grams: Double, releasing: Bool, peak: Double = .infinity) -> Int32 {
        func curve(_ felt: Double) -> Int32 {
            guard felt >= activationGrams else { return 0 }
            let fraction = min(1, (felt - activationGrams) / (saturationGrams - activationGrams))
            return max(1, Int32((pow(fraction, gamma) * Double(axisMaximum)).rounded()))
        }
        return releasing ? min(curve(peak), curve(grams + hysteresis(grams))) : curve(grams)
    }

    /// The force at which the press curve reaches `pressure` (the inverse of `pressure(grams:releasing: false)`).
    public func pressGrams(at pressure: Int32) -> Double {
        activationGrams + pow(Double(pressure) / Double(axisMaximum), 1 / gamma) * (saturationGrams - activationGrams)
    }

    /// The force at which a release leaves `pressure`.
    public func releaseGrams(at pressure: Int32) -> Double {
        let felt = pressGrams(at: pressure)
        return felt >= 5 + hysteresisGrams ? felt - hysteresisGrams : felt / (1 + hysteresisGrams / 5)
    }

    /// The simulated pen (`CalibrationSimulator`'s, with this axis).
    public var device: DeviceDescription {
        var device = DeviceDescription(name: "forcetrace simulated pen")
        device.bus = 0x03; device.vendor = 0x1d6b; device.product = 0x7f04; device.version = 1
        device.properties = [InputProperty.direct]
        device.setAxis(AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: 20000, resolution: 100))
        device.setAxis(AxisInfo(code: AbsoluteAxis.y, minimum: 0, maximum: 12000, resolution: 100))
        device.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: axisMaximum))
        for code in [Button.toolPen, Button.touch] { device.enable(type: EventType.key, code: code) }
        device.enable(type: EventType.syn, code: EventType.key)
        return device
    }

    /// The pen's events from `t0Ns` (in proximity throughout, touching
    /// while the pressure is above 0) and the scale's readings on the same clock.
    public func run(t0Ns: Int64 = 1_000_000_000) -> (recording: Recording, readings: [ScaleReading]) {
        var events: [InputEvent] = []
        func frame(_ time: Int64, _ changes: [(UInt16, UInt16, Int32)]) {
            for (type, code, value) in changes { events.append(InputEvent(timeNs: t0Ns + time, type: type, code: code, value: value)) }
            events.append(InputEvent(timeNs: t0Ns + time, type: EventType.syn, code: Synchronization.report, value: 0))
        }
        frame(0, [(EventType.key, Button.toolPen, 1), (EventType.abs, AbsoluteAxis.x, 10000), (EventType.abs, AbsoluteAxis.y, 6000)])
        var last: Int32 = 0
        var time = penIntervalNs
        while time < durationNs {
            let (grams, releasing, peak) = force(at: time)
            let value = pressure(grams: grams, releasing: releasing, peak: peak)
            if value != last {
                var changes: [(UInt16, UInt16, Int32)] = [(EventType.abs, AbsoluteAxis.pressure, value)]
                if (value > 0) != (last > 0) { changes.insert((EventType.key, Button.touch, value > 0 ? 1 : 0), at: 0) }
                frame(time, changes)
                last = value
            }
            time += penIntervalNs
        }
        frame(durationNs, [(EventType.key, Button.toolPen, 0)])
        var readings: [ScaleReading] = []
        var reading = scaleIntervalNs / 2
        while reading < durationNs {
            let grams = force(at: reading - lagNs).grams
            let shown = (grams / resolutionGrams).rounded() * resolutionGrams
            let moving = abs(force(at: reading - lagNs - scaleIntervalNs).grams - grams) > resolutionGrams
            readings.append(ScaleReading(timeNs: t0Ns + reading, grams: shown, status: moving ? .inMotion : .stable, rawValue: shown, rawUnit: "g"))
            reading += scaleIntervalNs
        }
        let recording = Recording(device: device, events: events, clock: .monotonic, source: .other("simulate:force"), name: "force")
        return (recording, readings)
    }
}
