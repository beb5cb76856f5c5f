/// What a guided session (calibrate, levels) offers the source that feeds
/// it and the command that shows it: one contact in, one update out.
public protocol GuidedSession: Sendable {
    associatedtype Update: Sendable
    associatedtype Target
    associatedtype Trial
    var schedule: [Target] { get }
    var trials: [Trial] { get }
    var currentPressure: Int32? { get }
    /// Feeds one event; returns what its frame decided, if anything.
    mutating func feed(_ event: InputEvent) -> Update?
    /// True once every scheduled trial is kept.
    var isComplete: Bool { get }
}

extension CalibrationSession: GuidedSession {}
extension LevelsSession: GuidedSession {}

/// Runs a guided session on the events a capture source delivers, on their
/// way to the recorder: the file gets every event, and the session ends the
/// capture once it has every trial.
public final class GuidedSessionSource<Session: GuidedSession>: WrappingCaptureSource {
    public let inner: any CaptureSource
    public private(set) var session: Session
    private var updates: [Session.Update] = []
    private var ended: CaptureEnd?

    public init(_ inner: any CaptureSource, session: Session) {
        self.inner = inner
        self.session = session
        for event in inner.initialEvents { _ = self.session.feed(event) }
    }

    /// What happened since the last call.
    public func takeUpdates() -> [Session.Update] {
        defer { updates.removeAll() }
        return updates
    }

    public func read(timeoutNs: Int64, wakeDescriptor: FileDescriptor?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?) {
        if let ended { return ([], ended) }
        let (items, end) = try inner.read(timeoutNs: timeoutNs, wakeDescriptor: wakeDescriptor, limit: limit)
        var taken: [CaptureItem] = []
        for item in items {
            taken.append(item)
            let events: [InputEvent]
            switch item {
            case .event(let event): events = [event]
            case .resync(let dropped, let delta): events = [dropped] + delta
            }
            for event in events {
                if let update = session.feed(event) { updates.append(update) }
            }
            // The frame that completed the last trial ends the capture.
            if session.isComplete {
                ended = .sessionComplete
                return (taken, .sessionComplete)
            }
        }
        if let end { ended = end }
        return (taken, end)
    }
}

/// A calibration session on its way to the recorder.
public typealias CalibrationSource = GuidedSessionSource<CalibrationSession>
/// A levels session on its way to the recorder.
public typealias LevelsSource = GuidedSessionSource<LevelsSession>

extension GuidedSessionSource where Session == CalibrationSession {
    public convenience init(_ inner: any CaptureSource, protocol calibrationProtocol: CalibrationProtocol, trials: Int, holds: Bool = false) {
        self.init(inner, session: CalibrationSession(protocol: calibrationProtocol, trials: trials, device: inner.device, holds: holds))
    }
}

extension GuidedSessionSource where Session == LevelsSession {
    public convenience init(_ inner: any CaptureSource, plan: LevelsPlan, axis: AxisInfo) {
        self.init(inner, session: LevelsSession(plan: plan, device: inner.device, axis: axis))
    }
}
