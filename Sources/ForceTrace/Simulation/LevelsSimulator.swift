/// A simulated person doing a levels session, whose capacity is known: at
/// every level count up to `capacity` each trial lands inside its band; above
/// it, `missesPerTen` in ten trials of every level (rounded up) land in a
/// neighbouring band: with 2 or more no larger count is reliable, with 1 (9
/// in 10 inside, on the rule) every count is.
public struct SimulatedLevelsPerson: Equatable, Sendable {
    public var capacity: Int
    public var missesPerTen: Int

    public init(capacity: Int, missesPerTen: Int = 3) {
        self.capacity = capacity; self.missesPerTen = missesPerTen
    }

    /// Sure of 4 levels, unsure from 5 on (the 'simulate --protocol levels' default).
    public static let standard = SimulatedLevelsPerson(capacity: 4)

    /// Of `trials` of one level, how many miss above the capacity (rounded up).
    public func misses(of trials: Int) -> Int { (trials * missesPerTen + 9) / 10 }
}

/// A simulated levels session: the recording, the plan, and each scripted
/// trial with the pressure it holds.
public struct LevelsSimulation: Sendable {
    public var recording: Recording
    public var plan: LevelsPlan
    public var trials: [ScriptedTrial]
    /// The kept trials' targets and held values, in order.
    public var kept: [LevelRecord]
}

public enum LevelsSimulator {
    /// The pressure axis the levels divide.
    public static func axis(_ device: DeviceDescription) -> AxisInfo { device.contactPressureAxis! }

    /// A session of `person` following `plan` on `kind`.
    public static func run(device kind: SimulatedDevice, plan: LevelsPlan, person: SimulatedLevelsPerson) -> LevelsSimulation {
        let device = CalibrationSimulator.device(kind)
        let axis = axis(device)
        var random = SeededRandom(seed: plan.seed ^ 0x5EED_1E7E)
        var seen: [LevelTarget: Int] = [:]
        let held = plan.schedule.map { target -> Int32 in
            let occurrence = seen[target, default: 0]
            seen[target] = occurrence + 1
            let bands = LevelBands(count: target.count, range: plan.range, axis: axis)
            var aimed = target.level
            if target.count > person.capacity && occurrence < person.misses(of: plan.trialsPerLevel) {
                aimed = target.level < target.count ? target.level + 1 : target.level - 1
            }
            // The middle half of the band, so the value sits clear of both edges.
            let low = bands.edges[aimed - 1], high = min(bands.edges[aimed], axis.maximum + 1) - 1
            let quarter = (high - low) / 4
            return Int32(random.uniform(Double(low + quarter)...Double(high - quarter)).rounded())
        }
        return run(device: kind, plan: plan, held: held, random: &random)
    }

    /// A session whose trials hold exactly `held` (one per scheduled trial),
    /// for fixtures on band edges.
    public static func run(device kind: SimulatedDevice, plan: LevelsPlan, held: [Int32]) -> LevelsSimulation {
        var random = SeededRandom(seed: plan.seed ^ 0x5EED_1E7E)
        return run(device: kind, plan: plan, held: held, random: &random)
    }

    private static func run(device kind: SimulatedDevice, plan: LevelsPlan, held: [Int32], random: inout SeededRandom) -> LevelsSimulation {
        let device = CalibrationSimulator.device(kind)
        let schedule = plan.schedule
        precondition(held.count == schedule.count, "one held value per scheduled trial")
        var script: [ScriptedTrial] = []
        var kept: [LevelRecord] = []
        var time: Int64 = 1_764_400_000 * 1_000_000_000 + 500_000_000
        for (index, target) in schedule.enumerated() {
            // Two flawed trials the session must ask again: two fingers (not on the pen) and one lifted before the hold.
            var flaws: [TrialRejection] = []
            if index == 1 && kind != .pen { flaws.append(.severalContacts(2)) }
            if index == 3 { flaws.append(.tooShort(durationNs: 0)) }
            for flaw in flaws + [nil] as [TrialRejection?] {
                // Rise over 40 %, hold 20 % (at least 360 ms, more than the 300 ms hold), fall over 40 %.
                var duration = Int64(random.uniform(1.8...2.4) * 1e9)
                if case .tooShort = flaw { duration = 250_000_000 }
                script.append(ScriptedTrial(trialClass: .level, peak: held[index], startNs: time, durationNs: duration, flaw: flaw))
                time += duration + Int64(random.uniform(0.5...0.9) * 1e9)
            }
            kept.append(LevelRecord(target: target, held: held[index]))
        }
        var renderer = CalibrationSimulator.FrameRenderer(device: device)
        for (index, trial) in script.enumerated() { renderer.render(trial, trackingID: Int32(100 + index), random: &random) }
        let recording = Recording(device: device, events: renderer.events, clock: .realtime,
                                  source: .simulated(seed: plan.seed), name: "levels")
        return LevelsSimulation(recording: recording, plan: plan, trials: script, kept: kept)
    }
}
