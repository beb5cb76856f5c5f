import Foundation
import HDF5

/// How a capture runs and when it stops.
public struct RecorderOptions: Sendable {
    /// Stop after this long (wall time from when the recorder was made,
    /// right after the device was opened).
    public var durationNs: Int64?
    /// Stop after this many events from the source (a resync delta is never cut).
    public var maxEvents: Int64?
    /// Flush and fsync at least this often.
    public var flushIntervalNs: Int64 = 250_000_000
    /// After taking events, wait this long for more before reading again:
    /// woken for every frame (1000 a second on a busy screen), the wake-ups
    /// cost more CPU than writing the events. The source holds them meanwhile
    /// (a live device's reader thread drains the kernel's buffer at once).
    public var batchIntervalNs: Int64 = 40_000_000
    public var compression: Compression = .standard
    /// Rows per chunk. Every flush rewrites the partial chunk at the end of
    /// each table, so live files use smaller chunks than imports.
    public var chunkRows = 1024
    /// Free text stored as the recording's `label` attribute.
    public var label: String?
    /// Stored as the `keycodes` attribute: what the source did with key codes
    /// (live devices); nil writes none (replays keep what the input said).
    public var keyCodes: KeyCodeHandling?

    public init() {}
}

/// Why a capture ended.
public enum StopReason: String, Sendable {
    case signal
    case duration
    case maxEvents = "max-events"
    case deviceRemoved = "device-removed"
    case endOfInput = "end-of-input"
    /// `calibrate` got every trial.
    case sessionComplete = "session-complete"
}

/// What the status line shows.
public struct RecorderStatus: Sendable {
    public var elapsedNs: Int64
    public var events: Int64
    /// Over the last second or so.
    public var eventsPerSecond: Double
    public var activeContacts: Int
    /// Largest raw pressure among the contacts down now; nil without contacts or pressure.
    public var maxPressure: Int32?
}

/// The outcome of a capture that closed its file cleanly.
public struct RecorderResult: Sendable {
    public var summary: RecordingSummary
    public var reason: StopReason
    /// The signal that stopped it, e.g. "SIGINT".
    public var signalName: String?
    public var resyncs: Int
    public var elapsedNs: Int64
    public var flushes: Int
    /// Why the file was marked complete in place instead of compacted
    /// (it keeps the live file's dead space), or nil when it was compacted.
    public var notCompacted: String?
    /// The `force` table written beside the events, with `--scale`.
    public var force: ForceTable?
}

/// Records a capture source into a trace file that stays readable while it
/// grows and survives a crash up to the last flush.
///
/// The file is created with the newest HDF5 format, every group, table and
/// attribute is made first, then it switches to SWMR (single writer,
/// multiple readers): from then on only rows are appended, and every flush
/// leaves a consistent file that `h5py.File(path, "r", swmr=True)` can read.
/// SWMR forbids new attributes, so a clean stop closes the file, reopens it
/// normally and adds `import_status = "complete"` and `stop_reason`.
/// The events go through the same `RecordingWriter` and decoder as `import`.
public final class Recorder {
    /// The file being recorded (where the output path's link points, if it is one).
    public let path: String
    public let source: any CaptureSource
    public let options: RecorderOptions
    private let trace: TraceWriter
    private let recording: RecordingWriter
    public private(set) var eventsRead: Int64 = 0
    private var resyncs = 0
    private var flushes = 0
    /// When capture began: elapsed time and `durationNs` count from here.
    private let startedAtNs = Syscall.monotonicNs()

    /// A shared flock on the live file, held while recording, so that
    /// `record --force` and `import --force` refuse to replace it. Taken on
    /// the temporary before it is moved to `path`, so the file is never
    /// there unlocked.
    private var liveLock: FileDescriptor?
    /// A scale read beside the device; its readings become the `force` table at the stop.
    private let scale: ScaleCapture?

    /// Creates the file, writes the description and the initial-state
    /// frame, starts SWMR writing, and only then moves it to `path`: a
    /// failure before that leaves `path` as it was.
    /// - Parameter replace: replace a file at `path` (`--force`); refused
    ///   when another process holds that file open.
    public init(source: any CaptureSource, path: String, name: String? = nil, options: RecorderOptions = RecorderOptions(),
                replace: Bool = true, scale: ScaleCapture? = nil) throws {
        self.source = source
        self.scale = scale
        self.options = options
        var writeOptions = TraceWriteOptions()
        writeOptions.latestFormat = true
        // Partial chunks flushed for durability, in SWMR mode: written whole, cheaply deflated (OpenChunkWriter).
        writeOptions.compressOnWorker = false
        writeOptions.openChunks = true
        writeOptions.compression = options.compression
        writeOptions.chunkRows = options.chunkRows
        let output = try AtomicOutput(path: path, replace: replace,
                                      access: options.keyCodes == .asIs ? .ownerOnly : .standard)
        // The file recorded: a link's target, when the path is a link.
        self.path = output.target.path
        trace = try TraceWriter(creating: output.temporaryPath, options: writeOptions)
        do {
            recording = try trace.addRecording(name: name ?? source.defaultRecordingName, device: source.device,
                                               source: source.sourceName, clock: source.clock, t0Ns: source.t0Ns,
                                               synDroppedPolicy: source.synDroppedPolicy)
            if let label = options.label { try recording.setLabel(label) }
            if let keyCodes = options.keyCodes { try recording.group.setAttribute(KeyCodeHandling.attribute, .string(keyCodes.rawValue)) }
            if !source.initialEvents.isEmpty {
                try recording.addMarker(.initialState, atNs: source.t0Ns)
                for event in source.initialEvents { try recording.append(event) }
            }
            try trace.startSWMRWrite()
            try sync()
            liveLock = try Self.lockLiveFile(output.temporaryPath, shownAs: path)
            try output.commit()
        } catch {
            // Nothing was recorded yet: leave no half-made file behind.
            liveLock?.closeIgnoringErrors()
            try? trace.close()
            output.discard()
            throw error
        }
    }

    /// Opens `file` and takes a shared, non-blocking flock on it, checked:
    /// a lock refused (EWOULDBLOCK: another open holds it exclusively) or
    /// failing is an error naming `shownAs`, since recording on would let
    /// another command replace the file under the recorder. A file system
    /// without locks (ENOSYS) records unguarded, as HDF5 does there.
    /// - Returns: the descriptor holding the lock, nil without locks.
    static func lockLiveFile(_ file: String, shownAs: String) throws -> FileDescriptor? {
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.open(file, O_RDONLY) } catch {
            throw ForceTraceError(file: shownAs, "cannot open the live file to lock it: \(error.reason)")
        }
        do {
            try descriptor.lock(LOCK_SH | LOCK_NB)
            return descriptor
        } catch {
            descriptor.closeIgnoringErrors()
            if error.errno == ENOSYS { return nil }
            if error.errno == EWOULDBLOCK {
                throw ForceTraceError(file: shownAs, "cannot be recorded: another process holds it locked (another recorder, or a command writing it)",
                                      hint: "let that process finish ('fuser -v \(shownAs)' shows which), or record to another file")
            }
            throw ForceTraceError(file: shownAs, "cannot lock the live file (flock failed: \(error.reason)), so another command could replace it while it is recorded",
                                  hint: "record to a file system with file locks, e.g. a local disk")
        }
    }

    private func releaseLiveLock() {
        liveLock?.closeIgnoringErrors()
        liveLock = nil
    }

    deinit { releaseLiveLock() }

    public var recordingName: String { recording.name }

    private func sync() throws {
        try recording.flush()
        try trace.sync()
        flushes += 1
    }

    private func apply(_ item: CaptureItem) throws {
        switch item {
        case .event(let event):
            try recording.append(event)
            eventsRead += 1
        case .resync(let dropped, let delta):
            // SYN_DROPPED itself (the decoder marks it), then the marker
            // saying the following rows are libevdev's resync delta.
            try recording.append(dropped)
            try recording.addMarker(.resync, atNs: dropped.timeNs)
            for event in delta { try recording.append(event) }
            eventsRead += 1 + Int64(delta.count)
            resyncs += 1
        }
    }

    /// Writes what the source already holds, without waiting: a stop signal
    /// must not drop events the device delivered before it (a slow start
    /// can leave a whole gesture queued when the signal comes).
    private func drainReady() throws {
        while true {
            let room = options.maxEvents.map { Int(clamping: max(0, $0 - eventsRead)) } ?? 4096
            guard room > 0 else { return }
            let (items, _) = try source.read(timeoutNs: 0, wakeDescriptor: nil, limit: min(room, 4096))
            if items.isEmpty { return }
            for item in items { try apply(item) }
        }
    }

    /// Captures until a stop signal, the duration, the event limit, the
    /// device's removal or the end of a replay; then closes the file cleanly.
    /// - Parameter status: called every pass of the loop (a few times a second at least).
    /// - Throws: on read or write errors, after closing the file without
    ///   marking it complete.
    public func run(stop: StopSignal?, status: (RecorderStatus) -> Void = { _ in }) throws -> RecorderResult {
        let start = startedAtNs
        var lastFlush = Syscall.monotonicNs()
        var window = (time: start, events: Int64(0))
        var rate = 0.0
        let reason: StopReason
        do {
            loop: while true {
                if stop?.check() == true {
                    try drainReady()
                    reason = .signal
                    break loop
                }
                var now = Syscall.monotonicNs()
                if let duration = options.durationNs, now - start >= duration { reason = .duration; break loop }
                if let maximum = options.maxEvents, eventsRead >= maximum { reason = .maxEvents; break loop }
                var timeout = min(lastFlush + options.flushIntervalNs - now, 100_000_000)
                if let duration = options.durationNs { timeout = min(timeout, start + duration - now) }
                let limit = min(options.maxEvents.map { Int(clamping: max(1, $0 - eventsRead)) } ?? 4096, 4096)
                let (items, end) = try source.read(timeoutNs: max(0, timeout), wakeDescriptor: stop?.descriptor, limit: limit)
                for item in items { try apply(item) }
                now = Syscall.monotonicNs()
                if now - lastFlush >= options.flushIntervalNs {
                    try sync()
                    lastFlush = now
                }
                // Events/s over the last second or so (from the start during the first).
                if now - window.time >= 250_000_000 {
                    rate = Double(eventsRead - window.events) / (Double(now - window.time) / 1e9)
                    if now - window.time >= 1_000_000_000 { window = (now, eventsRead) }
                }
                let decoder = recording.decoder
                status(RecorderStatus(elapsedNs: now - start, events: eventsRead, eventsPerSecond: rate,
                                      activeContacts: decoder.activeContacts, maxPressure: decoder.currentMaxPressure))
                if let end {
                    switch end {
                    case .deviceRemoved: reason = .deviceRemoved
                    case .endOfInput: reason = .endOfInput
                    case .sessionComplete: reason = .sessionComplete
                    }
                    break loop
                }
                // Events came and the source had no more: let the next ones gather (a stop signal still wakes it).
                if !items.isEmpty && items.count < limit {
                    var pause = min(options.batchIntervalNs, lastFlush + options.flushIntervalNs - now)
                    if let duration = options.durationNs { pause = min(pause, start + duration - now) }
                    if pause > 0 {
                        _ = try Syscall.poll(stop.map { [$0.descriptor] } ?? [], timeoutMs: Int32(clamping: (pause + 999_999) / 1_000_000))
                    }
                }
            }
        } catch {
            // Keep what was flushed; the missing import_status says it is incomplete.
            _ = try? recording.finish(markComplete: false)
            try? trace.close()
            source.close()
            releaseLiveLock()
            throw error
        }
        let elapsed = Syscall.monotonicNs() - start
        source.close()
        let force = scale.map { scale in
            let (readings, failure, _) = scale.finish()
            return ForceTable(capture: scale.scale, readings: readings, failure: failure, t0Ns: recording.t0Ns)
        }
        let summary = try recording.finish(markComplete: false)
        flushes += 1
        try trace.close()
        releaseLiveLock()
        let compacted = try finalize(reason: reason, force: force)
        return RecorderResult(summary: summary, reason: reason, signalName: stop?.receivedName, resyncs: resyncs,
                              elapsedNs: elapsed, flushes: flushes, notCompacted: compacted, force: force)
    }

    /// Makes the closed SWMR file final: copies its live contents into a
    /// fresh file (dropping the dead space that each flush's rewritten
    /// partial chunks leave), adds what SWMR cannot (`import_status`,
    /// `stop_reason`), and renames it over the original. If the copy cannot
    /// be made (too little free space for it: HDF5 1.10's H5Ocopy crashes
    /// when a write fails; or any error), the original is marked in place.
    /// - Returns: why it was not compacted, or nil.
    private func finalize(reason: StopReason, force: ForceTable?) throws -> String? {
        func mark(_ group: Group) throws {
            // SWMR forbids new datasets: the force table comes with the marks.
            if let force { try group.writeForceTable(force) }
            try group.setAttribute(RecordingAttribute.stopReason, .string(reason.rawValue))
            try group.setAttribute(RecordingAttribute.importStatus, .string(ImportStatus.complete.rawValue))
        }
        var notCompacted: String?
        if let free = Self.freeBytes(besides: path), let size = Self.fileSize(path), free < size + Self.compactionMargin {
            notCompacted = "only \(free / 1024) KiB free beside it, too little for a compacted copy"
        } else {
            do {
                // Replaces the live file, keeping its mode.
                let compacted = try AtomicOutput(path: path, replace: true, kind: .compact, refusingHeldFile: false)
                try compact(into: compacted.temporaryPath, mark: mark)
                try compacted.commit()
                return nil
            } catch {
                notCompacted = "the compacted copy failed (\(error))"
            }
        }
        let file = try File.open(path, mode: .readWrite)
        let group = try file.root.openGroup(TraceSchema.recordingsGroup).openGroup(recording.name)
        try mark(group)
        try TraceSchema.attachDimensionScales(in: group)
        try file.sync()
        try file.close()
        return notCompacted
    }

    /// Room beyond the live file's size that compaction asks for: HDF5's
    /// metadata and the attributes added.
    static let compactionMargin: UInt64 = 64 << 10

    private func compact(into compacted: String, mark: (Group) throws -> Void) throws {
        let original = try File.open(path, mode: .readOnly)
        let copy = try File.create(compacted, latestFormat: true)
        let from = try original.root, to = try copy.root
        try copyAttributes(from, to)
        let fromRecordings = try from.openGroup(TraceSchema.recordingsGroup)
        let toRecordings = try to.createGroup(TraceSchema.recordingsGroup)
        for name in try fromRecordings.memberNames() {
            // Group by group: HDF5 1.10.8's H5Ocopy crashes on a group
            // whose many string attributes sit in dense storage.
            let fromRecording = try fromRecordings.openGroup(name)
            let toRecording = try toRecordings.createGroup(name)
            try copyAttributes(fromRecording, toRecording)
            for table in TraceSchema.Table.allCases where fromRecording.contains(table.rawValue) {
                try fromRecording.copy(table.rawValue, to: toRecording)
            }
        }
        try mark(try toRecordings.openGroup(recording.name))
        // The live SWMR file cannot hold dimension scales (SWMR forbids new datasets): the copy gets them.
        for name in try toRecordings.memberNames() { try TraceSchema.attachDimensionScales(in: try toRecordings.openGroup(name)) }
        try copy.sync()
        try copy.close()
        try original.close()
    }

    static func fileSize(_ path: String) -> UInt64? {
        (try? Syscall.status(path)).map { UInt64($0.st_size) }
    }

    /// Bytes an unprivileged writer may still use on `path`'s filesystem.
    /// The corresponding C function is `statvfs(3)`.
    static func freeBytes(besides path: String) -> UInt64? {
        guard let info = try? Syscall.fileSystemStatus(TemporaryFiles.split(path).directory) else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    private func copyAttributes(_ from: Group, _ to: Group) throws {
        for name in try from.attributeNames() {
            if let value = try from.attribute(name) { try to.setAttribute(name, value) }
        }
    }
}
