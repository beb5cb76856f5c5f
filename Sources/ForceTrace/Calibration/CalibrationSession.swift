/// A trial the session kept: what was asked for and what the device showed.
public struct CalibrationTrial: Equatable, Sendable {
    public var trialClass: TrialClass
    public var observation: TrialObservation
}

/// Why a trial was not kept.
public enum TrialRejection: Equatable, Sendable {
    case severalContacts(Int)
    case tooShort(durationNs: Int64)
    case touchedWhileHovering

    /// The word said to the person before asking again.
    public var message: String {
        switch self {
        case .severalContacts(let count): "\(count) fingers at once; use one"
        case .tooShort(let duration): String(format: "too short (%.0f ms, shorter than a tap)", Double(duration) / 1e6)
        case .touchedWhileHovering: "the tip touched the surface; hover without touching"
        }
    }
}

/// What happened when the session saw a frame.
public enum SessionUpdate: Equatable, Sendable {
    case kept(CalibrationTrial, number: Int)
    case discarded(TrialClass, TrialRejection, number: Int)
}

/// A guided session: the schedule of trials and the ones kept so far. Feed
/// it the raw events; it takes the next contact that goes down and up as the
/// current trial, or discards it with a reason and asks again.
public struct CalibrationSession: Sendable {
    /// A contact shorter than this is no deliberate tap (a graze or a bounce).
    public static let minimumTrialNs: Int64 = 30_000_000

    public let calibrationProtocol: CalibrationProtocol
    public let schedule: [TrialClass]
    public let device: DeviceDescription
    public private(set) var trials: [CalibrationTrial] = []
    public private(set) var discardedCount = 0
    private var tracker: TrialTracker

    public init(protocol calibrationProtocol: CalibrationProtocol, trials perClass: Int, device: DeviceDescription, holds: Bool = false) {
        self.calibrationProtocol = calibrationProtocol
        schedule = calibrationProtocol.schedule(trials: perClass, holds: holds)
        self.device = device
        tracker = TrialTracker(device: device)
        tracker.span = schedule.first?.isHover == true ? .proximity : .contact
    }

    /// The class asked for now; nil once every trial is done.
    public var current: TrialClass? { trials.count < schedule.count ? schedule[trials.count] : nil }
    public var isComplete: Bool { current == nil }
    /// 1-based number of the current trial.
    public var number: Int { trials.count + 1 }
    public var currentPressure: Int32? { tracker.currentPressure }

    /// Feeds one event; returns what its frame decided, if anything.
    public mutating func feed(_ event: InputEvent) -> SessionUpdate? {
        guard let wanted = current, let observation = tracker.feed(event) else { return nil }
        if let rejection = Self.judge(observation, as: wanted) {
            discardedCount += 1
            return .discarded(wanted, rejection, number: number)
        }
        let trial = CalibrationTrial(trialClass: wanted, observation: observation)
        trials.append(trial)
        tracker.span = current?.isHover == true ? .proximity : .contact
        return .kept(trial, number: trials.count)
    }

    static func judge(_ observation: TrialObservation, as wanted: TrialClass) -> TrialRejection? {
        if wanted.isHover { return observation.touched ? .touchedWhileHovering : nil }
        // A palm lands as several contacts on many pads: judge palms by pressure only.
        if observation.maxContacts > 1 && wanted != .palm { return .severalContacts(observation.maxContacts) }
        if observation.durationNs < minimumTrialNs { return .tooShort(durationNs: observation.durationNs) }
        return nil
    }
}
