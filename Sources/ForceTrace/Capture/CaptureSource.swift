import Foundation

/// What a capture source hands the recorder.
public enum CaptureItem: Equatable, Sendable {
    case event(InputEvent)
    /// The kernel dropped events: the SYN_DROPPED event, then libevdev's
    /// resync delta (ending with SYN_REPORT) that brings state up to date.
    case resync(dropped: InputEvent, delta: [InputEvent])
}

/// Why a source has no more events.
public enum CaptureEnd: String, Sendable {
    /// The device disappeared (ENODEV): unplugged, or its driver went away.
    case deviceRemoved = "device-removed"
    /// A replayed recording ran out of events.
    case endOfInput = "end-of-input"
}

/// Where the recorder's events come from: a live evdev device, or a
/// recording replayed at its original pace.
public protocol CaptureSource: AnyObject {
    /// The device with its absinfo values when the capture started.
    var device: DeviceDescription { get }
    var clock: RecordingClock { get }
    /// The recording's time origin on `clock`.
    var t0Ns: Int64 { get }
    /// The `source` attribute, e.g. "evdev:/dev/input/event5".
    var sourceName: String { get }
    var defaultRecordingName: String { get }
    var synDroppedPolicy: TraceDecoder.SynDroppedPolicy { get }
    /// A synthetic frame that sets the state the capture starts in, or empty.
    var initialEvents: [InputEvent] { get }
    /// Returns what is ready, waiting up to `timeoutNs` when nothing is,
    /// or less when `wakeDescriptor` becomes readable. `end` is set once
    /// the source has no more events (after `items`).
    func read(timeoutNs: Int64, wakeDescriptor: Int32?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?)
    func close()
}

/// A live /dev/input/event* device read through libevdev.
public final class LiveDeviceSource: CaptureSource {
    public let path: String
    public let device: DeviceDescription
    public let clock = RecordingClock.monotonic
    public let t0Ns: Int64
    public let initialEvents: [InputEvent]
    public let synDroppedPolicy = TraceDecoder.SynDroppedPolicy.applyFollowingEvents
    private let evdev: EvdevDevice

    /// Opens the device, switches it to CLOCK_MONOTONIC, optionally grabs
    /// it, and snapshots its state as the recording's starting point.
    public init(path: String, grab: Bool) throws {
        self.path = path
        evdev = try EvdevDevice(path: path)
        // Taken before the clock switch, which flushes the queue: every
        // event read afterwards is stamped later than t0.
        t0Ns = Syscall.monotonicNs()
        try evdev.useMonotonicClock()
        if grab { try evdev.grab() }
        device = evdev.describe()
        initialEvents = InitialState.events(description: device, state: evdev.state(), timeNs: t0Ns)
    }

    public var sourceName: String { "evdev:\(path)" }
    public var defaultRecordingName: String { device.name.isEmpty ? URL(fileURLWithPath: path).lastPathComponent : device.name }

    public func read(timeoutNs: Int64, wakeDescriptor: Int32?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?) {
        var items: [CaptureItem] = []
        if let end = try drain(into: &items, limit: limit) { return (items, end) }
        if items.isEmpty {
            let timeoutMs = Int32(clamping: max(0, (timeoutNs + 999_999) / 1_000_000))
            _ = try Syscall.poll([evdev.descriptor] + (wakeDescriptor.map { [$0] } ?? []), timeoutMs: timeoutMs)
            if let end = try drain(into: &items, limit: limit) { return (items, end) }
        }
        return (items, nil)
    }

    /// Reads until libevdev has nothing more or `limit` items are in;
    /// returns `.deviceRemoved` on ENODEV.
    private func drain(into items: inout [CaptureItem], limit: Int) throws -> CaptureEnd? {
        do {
            while items.count < limit {
                switch try evdev.nextEvent() {
                case .wouldBlock:
                    return nil
                case .event(let event):
                    items.append(.event(event))
                case .dropped(let dropped):
                    var delta: [InputEvent] = []
                    while let event = try evdev.nextSyncEvent() { delta.append(event) }
                    items.append(.resync(dropped: dropped, delta: delta))
                }
            }
            return nil
        } catch let error as SystemCallError where error.errno == ENODEV {
            return .deviceRemoved
        }
    }

    public func close() { evdev.close() }
}

/// A recording fed through the live pipeline at its original pace
/// (`speed` 1), faster or slower, or as fast as it can go (`speed` nil).
/// Timestamps stay the recording's own, so the result equals an import.
public final class ReplaySource: CaptureSource {
    public let recording: Recording
    public let speed: Double?
    public let initialEvents: [InputEvent] = []
    /// A recorded stream holds the kernel's own events after SYN_DROPPED,
    /// which are void until the next SYN_REPORT, exactly as on import.
    public let synDroppedPolicy = TraceDecoder.SynDroppedPolicy.discardUntilReport
    private var next = 0
    private var startedAtNs: Int64?

    public init(recording: Recording, speed: Double?) {
        self.recording = recording
        self.speed = speed
    }

    public var device: DeviceDescription { recording.device }
    public var clock: RecordingClock { recording.clock }
    public var t0Ns: Int64 { recording.t0Ns }
    public var sourceName: String { "replay:\(recording.source)" }
    public var defaultRecordingName: String { recording.name }

    /// When event `index` is due, on CLOCK_MONOTONIC.
    private func dueNs(_ index: Int, start: Int64) -> Int64 {
        guard let speed else { return start }
        return start + Int64(Double(recording.events[index].timeNs - recording.t0Ns) / speed)
    }

    public func read(timeoutNs: Int64, wakeDescriptor: Int32?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?) {
        let start = startedAtNs ?? Syscall.monotonicNs()
        startedAtNs = start
        var items: [CaptureItem] = []
        var now = Syscall.monotonicNs()
        if next < recording.events.count, dueNs(next, start: start) > now {
            let wait = min(timeoutNs, dueNs(next, start: start) - now)
            let timeoutMs = Int32(clamping: max(0, (wait + 999_999) / 1_000_000))
            _ = try Syscall.poll(wakeDescriptor.map { [$0] } ?? [], timeoutMs: timeoutMs)
            now = Syscall.monotonicNs()
        }
        while next < recording.events.count, items.count < limit, dueNs(next, start: start) <= now {
            items.append(.event(recording.events[next]))
            next += 1
        }
        return (items, next == recording.events.count ? .endOfInput : nil)
    }

    public func close() {}
}
