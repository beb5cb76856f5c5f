/// A levels trial the session kept: the target, the contact, and the raw
/// pressure it held (`HeldPressure`).
public struct LevelTrial: Equatable, Sendable {
    public var target: LevelTarget
    public var observation: TrialObservation
    public var held: Int32
}

/// Why a levels trial was not kept.
public enum LevelRejection: Equatable, Sendable {
    case severalContacts(Int)
    case tooShortToHold(durationNs: Int64)

    public var message: String {
        switch self {
        case .severalContacts(let count): "\(count) contacts at once; use one"
        case .tooShortToHold(let duration):
            String(format: "lifted after %.0f ms; hold the level for at least %.0f ms", Double(duration) / 1e6, Double(LevelsPlan.holdNs) / 1e6)
        }
    }
}

public enum LevelsUpdate: Equatable, Sendable {
    case kept(LevelTrial, number: Int)
    case discarded(LevelTarget, LevelRejection, number: Int)
}

/// A levels session (docs/ANALYSIS.md, "Levels"): the plan's schedule and
/// the trials kept so far. Each contact that goes down and up is the current
/// trial, judged by the pressure it held, or discarded with a reason.
public struct LevelsSession: Sendable {
    public let plan: LevelsPlan
    public let schedule: [LevelTarget]
    public let axis: AxisInfo
    public private(set) var trials: [LevelTrial] = []
    public private(set) var discardedCount = 0
    private var tracker: TrialTracker

    public init(plan: LevelsPlan, device: DeviceDescription, axis: AxisInfo) {
        self.plan = plan
        schedule = plan.schedule
        self.axis = axis
        tracker = TrialTracker(device: device)
        tracker.span = .contact
    }

    public var current: LevelTarget? { trials.count < schedule.count ? schedule[trials.count] : nil }
    public var isComplete: Bool { current == nil }
    public var number: Int { trials.count + 1 }
    public var currentPressure: Int32? { tracker.currentPressure }
    public func bands(_ count: Int) -> LevelBands { LevelBands(count: count, range: plan.range, axis: axis) }

    public mutating func feed(_ event: InputEvent) -> LevelsUpdate? {
        guard let wanted = current, let observation = tracker.feed(event) else { return nil }
        if observation.maxContacts > 1 {
            discardedCount += 1
            return .discarded(wanted, .severalContacts(observation.maxContacts), number: number)
        }
        guard let held = HeldPressure.held(observation.curve, endNs: observation.endNs) else {
            discardedCount += 1
            return .discarded(wanted, .tooShortToHold(durationNs: observation.durationNs), number: number)
        }
        let trial = LevelTrial(target: wanted, observation: observation, held: held)
        trials.append(trial)
        return .kept(trial, number: trials.count)
    }
}
