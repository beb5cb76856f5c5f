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
    var sourceName: RecordingSource { get }
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
///
/// A reader thread drains the device from the moment it is opened, so
/// neither a slow start (creating the file) nor a slow fsync lets the
/// kernel's small per-client buffer overflow, and events already read are
/// kept when the device disappears (after which read(2) only says ENODEV).
public final class LiveDeviceSource: CaptureSource {
    public let path: String
    public let device: DeviceDescription
    public let clock = RecordingClock.monotonic
    public let t0Ns: Int64
    public let initialEvents: [InputEvent]
    public let synDroppedPolicy = TraceDecoder.SynDroppedPolicy.applyFollowingEvents
    private let reader: DeviceReader

    /// Opens the device, switches it to CLOCK_MONOTONIC, optionally grabs
    /// it, snapshots its state as the recording's starting point, and
    /// starts reading.
    /// - Parameter admit: sees the device's description and may refuse it by
    ///   throwing, before the grab and before anything is read.
    public init(path: String, grab: Bool, admit: (DeviceDescription) throws -> Void = { _ in }) throws {
        self.path = path
        // Taken before the clock switch, which flushes the queue: every
        // event read afterwards is stamped later than t0.
        t0Ns = Syscall.monotonicNs()
        let evdev = try EvdevDevice(path: path, monotonicClock: true)
        do { try admit(evdev.describe()) } catch { evdev.close(); throw error }
        if grab { try evdev.grab() }
        device = evdev.describe()
        initialEvents = InitialState.events(description: device, state: evdev.state(), timeNs: t0Ns)
        reader = try DeviceReader(evdev)
    }

    public var sourceName: RecordingSource { .evdev(node: path) }
    public var defaultRecordingName: String { device.name.isEmpty ? URL(fileURLWithPath: path).lastPathComponent : device.name }

    public func read(timeoutNs: Int64, wakeDescriptor: Int32?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?) {
        var taken = try reader.take(limit: limit)
        if taken.items.isEmpty && taken.end == nil {
            let timeoutMs = Int32(clamping: max(0, (timeoutNs + 999_999) / 1_000_000))
            _ = try Syscall.poll([reader.readyDescriptor] + (wakeDescriptor.map { [$0] } ?? []), timeoutMs: timeoutMs)
            taken = try reader.take(limit: limit)
        }
        return taken
    }

    public func close() { reader.stop() }

    deinit { reader.stop() }
}

/// The thread that owns a device once capture starts: it waits for input,
/// reads it through libevdev (with the sync pass after SYN_DROPPED) and
/// queues it for the recorder, waking it through a pipe.
final class DeviceReader: @unchecked Sendable {
    private let evdev: EvdevDevice
    private let lock = NSLock()
    private var queue: [CaptureItem] = []
    private var end: CaptureEnd?
    private var failure: Error?
    /// Readable when items are queued.
    let readyDescriptor: Int32
    private let readyWriteEnd: Int32
    private let stopReadEnd: Int32
    private let stopWriteEnd: Int32
    private let finished = DispatchSemaphore(value: 0)
    private var stopped = false

    init(_ evdev: EvdevDevice) throws {
        self.evdev = evdev
        (readyDescriptor, readyWriteEnd) = try Syscall.pipe()
        (stopReadEnd, stopWriteEnd) = try Syscall.pipe()
        let thread = Thread { [self] in run() }
        thread.name = "forcetrace evdev reader"
        thread.start()
    }

    private func run() {
        defer { finished.signal() }
        while true {
            var items: [CaptureItem] = []
            var ending: CaptureEnd?
            do {
                let ready = try Syscall.poll([evdev.descriptor, stopReadEnd], timeoutMs: -1)
                if ready[1] != 0 { return }
                ending = try drain(into: &items)
            } catch {
                lock.withLock { failure = error }
                Syscall.wake(readyWriteEnd)
                return
            }
            if !items.isEmpty || ending != nil {
                lock.withLock {
                    queue.append(contentsOf: items)
                    if let ending { end = ending }
                }
                Syscall.wake(readyWriteEnd)
            }
            if ending != nil { return }
        }
    }

    /// Reads until libevdev has nothing more; `.deviceRemoved` on ENODEV.
    private func drain(into items: inout [CaptureItem]) throws -> CaptureEnd? {
        do {
            while items.count < 4096 {
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

    /// Up to `limit` queued items, and the end once everything before it was taken.
    func take(limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?) {
        Syscall.drain(readyDescriptor)
        return try lock.withLock {
            if let failure { throw failure }
            let count = min(limit, queue.count)
            let items = Array(queue.prefix(count))
            queue.removeFirst(count)
            if !queue.isEmpty { Syscall.wake(readyWriteEnd) }
            return (items, queue.isEmpty ? end : nil)
        }
    }

    /// Stops the thread, waits for it, and closes the device (releasing a grab).
    func stop() {
        guard !stopped else { return }
        stopped = true
        Syscall.wake(stopWriteEnd)
        finished.wait()
        evdev.close()
        for fd in [readyDescriptor, readyWriteEnd, stopReadEnd, stopWriteEnd] { Syscall.close(fd) }
    }

    deinit { stop() }
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
    public var sourceName: RecordingSource { .replay(recording.source) }
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
