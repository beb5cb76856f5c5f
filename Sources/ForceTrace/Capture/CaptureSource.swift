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
    /// A calibration session has every trial it asked for.
    case sessionComplete = "session-complete"
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
    func read(timeoutNs: Int64, wakeDescriptor: FileDescriptor?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?)
    func close()
}

/// A source that changes or watches another's events and is otherwise that
/// source: device, clock, origin, names and close are forwarded to `inner`.
public protocol WrappingCaptureSource: CaptureSource {
    var inner: any CaptureSource { get }
}

extension WrappingCaptureSource {
    public var device: DeviceDescription { inner.device }
    public var clock: RecordingClock { inner.clock }
    public var t0Ns: Int64 { inner.t0Ns }
    public var sourceName: RecordingSource { inner.sourceName }
    public var defaultRecordingName: String { inner.defaultRecordingName }
    public var synDroppedPolicy: TraceDecoder.SynDroppedPolicy { inner.synDroppedPolicy }
    public var initialEvents: [InputEvent] { inner.initialEvents }
    public func close() { inner.close() }
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

    public func read(timeoutNs: Int64, wakeDescriptor: FileDescriptor?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?) {
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
    let readyDescriptor: FileDescriptor
    private let readyWriteEnd: FileDescriptor
    private let stopReadEnd: FileDescriptor
    private let stopWriteEnd: FileDescriptor
    private let finished = DispatchSemaphore(value: 0)
    private var stopped = false

    init(_ evdev: EvdevDevice) throws {
        self.evdev = evdev
        (readyDescriptor, readyWriteEnd) = try Syscall.pipe()
        (stopReadEnd, stopWriteEnd) = try Syscall.pipe()
        let thread = Thread { [self] in
            nameCurrentThread("ft evdev reader")
            run()
        }
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
        for end in [readyDescriptor, readyWriteEnd, stopReadEnd, stopWriteEnd] { end.closeIgnoringErrors() }
    }

    deinit { stop() }
}

/// A recording fed through the live pipeline at its original pace
/// (`speed` 1), faster or slower, or as fast as it can go (`speed` nil).
/// Timestamps stay the recording's own, so the result equals an import.
/// A file is decoded on a thread of its own into a short queue, so replay
/// holds a few chunks of events, never the recording.
public final class ReplaySource: CaptureSource {
    public let speed: Double?
    public let initialEvents: [InputEvent] = []
    /// A recorded stream holds the kernel's own events after SYN_DROPPED,
    /// which are void until the next SYN_REPORT, exactly as on import.
    public let synDroppedPolicy = TraceDecoder.SynDroppedPolicy.discardUntilReport
    private let feed: ReplayFeed
    private let header: RecordingHeader
    private var pending: [InputEvent] = []
    private var next = 0
    private var exhausted = false
    private var startedAtNs: Int64?

    /// Replays a recording held in memory.
    public init(recording: Recording, speed: Double?) {
        self.speed = speed
        header = recording.header
        feed = ReplayFeed(events: recording.events)
    }

    /// Replays the first recording in the file at `path` ("-" for standard
    /// input), in any format, decoding it as it goes.
    /// - Throws: `ForceTraceError` when the input is unreadable or its
    ///   description is bad; damage later in the input ends the replay with
    ///   that error from `read`.
    public init(path: String, format: RecordingFormat? = nil, options: DecodeOptions = DecodeOptions(), speed: Double?) throws {
        self.speed = speed
        var options = options
        options.salvage = false
        options.offerSalvage = false
        feed = ReplayFeed(path: path, format: format, options: options)
        header = try feed.waitForHeader()
    }

    public var device: DeviceDescription { header.device }
    public var clock: RecordingClock { header.clock }
    public var t0Ns: Int64 { header.t0Ns }
    public var sourceName: RecordingSource { .replay(header.source) }
    public var defaultRecordingName: String { header.name }
    /// Recordings after the first in the input, which replay skips.
    public var skippedRecordings: Int { feed.skippedRecordings }
    /// How much of the input file the decoder has read, 0...1 (it runs a few
    /// chunks ahead of the replay); nil for streams and recordings in memory.
    public var fractionRead: Double? { feed.fractionRead }

    /// When `event` is due, on CLOCK_MONOTONIC.
    private func dueNs(_ event: InputEvent, start: Int64) -> Int64 {
        guard let speed else { return start }
        return start + Int64(Double(event.timeNs - header.t0Ns) / speed)
    }

    /// The next event, pulling a chunk from the feed when needed; nil at the end.
    private func peekEvent() throws -> InputEvent? {
        if next == pending.count && !exhausted {
            if let chunk = try feed.take() {
                pending = chunk
                next = 0
            } else {
                exhausted = true
            }
        }
        return next < pending.count ? pending[next] : nil
    }

    public func read(timeoutNs: Int64, wakeDescriptor: FileDescriptor?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?) {
        let start = startedAtNs ?? Syscall.monotonicNs()
        startedAtNs = start
        var items: [CaptureItem] = []
        var now = Syscall.monotonicNs()
        if let event = try peekEvent(), dueNs(event, start: start) > now {
            let wait = min(timeoutNs, dueNs(event, start: start) - now)
            let timeoutMs = Int32(clamping: max(0, (wait + 999_999) / 1_000_000))
            _ = try Syscall.poll(wakeDescriptor.map { [$0] } ?? [], timeoutMs: timeoutMs)
            now = Syscall.monotonicNs()
        }
        while items.count < limit, let event = try peekEvent(), dueNs(event, start: start) <= now {
            items.append(.event(event))
            next += 1
        }
        if items.count < limit { _ = try peekEvent() }
        return (items, exhausted && next == pending.count ? .endOfInput : nil)
    }

    public func close() { feed.cancel() }

    deinit { feed.cancel() }
}

/// Chunks of one recording's events for `ReplaySource`: from memory, or
/// decoded from a file by a thread that waits while the queue is full.
final class ReplayFeed: RecordingSink, @unchecked Sendable {
    /// Chunks queued ahead of the replay at most.
    static let queuedChunks = 4
    private let condition = NSCondition()
    private var queue: [[InputEvent]] = []
    private var header: RecordingHeader?
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private var recordingsSeen = 0
    private(set) var skippedRecordings = 0

    /// Thrown into the decoder to stop it: replay ended or was closed.
    private struct Stop: Error {}

    init(events: [InputEvent]) {
        var start = 0
        while start < events.count {
            let end = min(events.count, start + RecordingBuilder.chunkEvents)
            queue.append(Array(events[start..<end]))
            start = end
        }
        finished = true
    }

    /// The input's size and the bytes decoded, for `fractionRead`.
    private var inputSize: Int?
    private var bytesDecoded = 0
    private var input: ByteSource?

    var fractionRead: Double? {
        condition.withLock {
            guard let inputSize, inputSize > 0 else { return nil }
            return min(1, Double(bytesDecoded) / Double(inputSize))
        }
    }

    init(path: String, format: RecordingFormat?, options: DecodeOptions) {
        let thread = Thread { [self] in
            nameCurrentThread("ft replay parse")
            do {
                let source = try ByteSource(path: path)
                condition.withLock { input = source; inputSize = source.size }
                try RecordingImporter.decode(source, format: format, options: options, into: self)
            } catch is Stop {
            } catch {
                condition.withLock { failure = error }
            }
            condition.withLock {
                finished = true
                condition.broadcast()
            }
        }
        thread.name = "forcetrace replay decoder"
        thread.start()
    }

    /// Waits for the recording's header (its description and first event).
    func waitForHeader() throws -> RecordingHeader {
        try condition.withLock {
            while header == nil && !finished { condition.wait() }
            if let failure { throw failure }
            guard let header else { preconditionFailure("the decoder ended without a recording or an error") }
            return header
        }
    }

    /// The next chunk, waiting for the decoder; nil at the end.
    func take() throws -> [InputEvent]? {
        try condition.withLock {
            while queue.isEmpty && !finished { condition.wait() }
            if !queue.isEmpty {
                let chunk = queue.removeFirst()
                condition.broadcast()
                return chunk
            }
            if let failure { throw failure }
            return nil
        }
    }

    func cancel() {
        condition.withLock {
            cancelled = true
            condition.broadcast()
        }
    }

    func begin(_ header: RecordingHeader) throws {
        try condition.withLock {
            recordingsSeen += 1
            if recordingsSeen > 1 {
                // Replay feeds one recording; count the rest without decoding them.
                skippedRecordings = recordingsSeen - 1
                throw Stop()
            }
            self.header = header
            condition.broadcast()
        }
    }

    func append(_ events: [InputEvent]) throws {
        try condition.withLock {
            while queue.count >= Self.queuedChunks && !cancelled { condition.wait() }
            if cancelled { throw Stop() }
            queue.append(events)
            bytesDecoded = input?.offset ?? 0
            condition.broadcast()
        }
    }

    func end(_ ending: RecordingEnding) throws {}
}
