/// Where a recording's timestamps come from.
public enum RecordingClock: String, Sendable {
    /// Wall-clock time (CLOCK_REALTIME), the evdev default: evemu files
    /// with epoch timestamps.
    case realtime
    /// CLOCK_MONOTONIC, which the live recorder selects.
    case monotonic
    /// Times relative to the start of recording, as evemu 1.3 writes them.
    case relative
}

/// A device description and its events, as a format parser produces it and
/// a format writer consumes it. Event times are absolute on `clock`.
public struct Recording: Sendable {
    public var device: DeviceDescription
    public var events: [InputEvent]
    public var clock: RecordingClock
    /// Where it came from, such as "evemu:/path/file.events".
    public var source: RecordingSource
    /// Suggested name for its group in a trace file.
    public var name: String
    /// Labelled presses, when the recording carries them (the simulator's ground truth).
    public var groundTruth = GroundTruth()

    public init(device: DeviceDescription, events: [InputEvent], clock: RecordingClock, source: RecordingSource, name: String) {
        self.device = device
        self.events = events
        self.clock = clock
        self.source = source
        self.name = name
    }

    /// Time of the first event, the origin of `t_ns`.
    public var t0Ns: Int64 { events.first?.timeNs ?? 0 }

    /// What a sink or encoder is told before the events.
    public var header: RecordingHeader {
        RecordingHeader(device: device, clock: clock, t0Ns: t0Ns, source: source, name: name)
    }
}

/// A parsed recording and, when the input was damaged, the error that cut
/// it short. A damaged recording holds only the complete frames (up to the
/// last SYN_REPORT) before the damage.
public struct ParsedRecording: Sendable {
    public var recording: Recording
    public var damage: ForceTraceError?

    public init(recording: Recording, damage: ForceTraceError? = nil) {
        self.recording = recording
        self.damage = damage
    }
}
