import Foundation

/// Turns what a decoder reads into recordings for a sink, doing for every
/// format what they share: naming the recording after its input, guessing
/// its clock, holding back each unfinished frame so that only complete
/// frames reach the sink, and the salvage cut at the last SYN_REPORT when
/// the input turns out damaged.
///
/// A decoder calls `startRecording`, then `add` for each event, then
/// `endRecording` (or `damaged` on bad input), per device; the importer
/// calls `finish` at the end of the input. A recording's `end` is handed
/// on only when the next one begins or the input ends, so damage after it
/// (a truncated device list) can still be reported on it.
public final class RecordingBuilder {
    /// Events handed to the sink at a time.
    public static let chunkEvents = 16384
    /// Longest unfinished frame held back; beyond it the frame's events are
    /// passed on as they come, so memory stays bounded even for a stream
    /// without SYN_REPORT. (A salvage cut can then not remove them.)
    static let maximumHeldEvents = 1 << 20
    /// Times from this far past the epoch on are wall-clock times.
    static let realtimeThresholdNs: Int64 = 100_000_000 * 1_000_000_000

    let sink: any RecordingSink
    public let file: String
    let codec: any RecordingCodec
    let options: DecodeOptions
    /// The input's base name, the default recording name.
    public let baseName: String

    private struct Current {
        var device: DeviceDescription
        var name: String
        var source: RecordingSource
        var clock: RecordingClock?
        var begun = false
        var events = 0
    }
    /// What `add` touches per event, kept out of the optional `Current`,
    /// whose every `current!` read its tag through an outlined call.
    private struct Flow {
        /// Whether `current` is set.
        var open = false
        var timeOffsetNs: Int64 = 0
        var t0Ns: Int64?
        var order = FrameOrder()
        var frames = 0
    }
    @exclusivity(unchecked) private var current: Current?
    // Touched per event (add): no run-time exclusivity checks (docs/ARCHITECTURE.md, "Import").
    @exclusivity(unchecked) private var flow = Flow()
    @exclusivity(unchecked) private var chunk: [InputEvent] = []
    @exclusivity(unchecked) private var held: [InputEvent] = []
    private var pendingEnd: RecordingEnding?
    @exclusivity(unchecked) private var framesInInput = 0
    /// The open recording was cut (salvaged) at a frame out of time order:
    /// the rest of its events are dropped, and it still counts as open, so
    /// that its decoder starts no new recording with them.
    private var cut = false

    /// - Parameters:
    ///   - file: the input's name in messages ("standard input" for "-").
    ///   - path: the input's path, for naming ("-" for standard input).
    public init(sink: any RecordingSink, file: String, path: String?, codec: any RecordingCodec, options: DecodeOptions) {
        self.sink = sink
        self.file = file
        self.codec = codec
        self.options = options
        if path == "-" || path == nil && file == "standard input" {
            baseName = "stdin"
        } else {
            baseName = URL(fileURLWithPath: InputPath.displayName(path ?? file)).deletingPathExtension().lastPathComponent
        }
        chunk.reserveCapacity(Self.chunkEvents)
    }

    /// Starts a recording of `device`.
    /// - Parameters:
    ///   - nameSuffix: appended to the base name with "-", for files with several devices.
    ///   - deviceIndex: which device of the file, for files with several.
    ///   - clock: the clock when the input says it; nil guesses it from the first event.
    ///   - timeOffsetNs: added to every event's time (a stored origin).
    public func startRecording(device: DeviceDescription, nameSuffix: String? = nil, deviceIndex: Int? = nil,
                               clock: RecordingClock? = nil, timeOffsetNs: Int64 = 0) {
        precondition(current == nil, "startRecording while a recording is open")
        cut = false
        current = Current(device: device, name: baseName + (nameSuffix.map { "-" + $0 } ?? ""),
                          source: codec.source(file: InputPath.displayName(file), device: deviceIndex), clock: clock)
        flow = Flow(open: true, timeOffsetNs: timeOffsetNs)
    }

    /// Whether a recording is open.
    public var isRecording: Bool { current != nil || cut }

    /// Adds one event whose time is as the input gives it.
    @inline(__always)
    public func add(_ event: InputEvent) throws {
        // After a salvage cut the rest of the device's events are dropped.
        guard flow.open else { return }
        var event = event
        event.timeNs &+= flow.timeOffsetNs
        if flow.t0Ns == nil { flow.t0Ns = event.timeNs }
        if let problem = flow.order.check(event, t0Ns: flow.t0Ns) {
            try damaged(ForceTraceError(file: file, "recording '\(current!.name)': \(problem)"))
            cut = true
            return
        }
        held.append(event)
        if event.isSynReport {
            flow.frames += 1
            framesInInput += 1
            chunk.append(contentsOf: held)
            held.removeAll(keepingCapacity: true)
            if chunk.count >= Self.chunkEvents { try deliver() }
        } else if held.count >= Self.maximumHeldEvents {
            chunk.append(contentsOf: held)
            held.removeAll(keepingCapacity: true)
            try deliver()
        }
    }

    public func add(contentsOf events: [InputEvent]) throws {
        for event in events { try add(event) }
    }

    /// Ends the open recording; events after its last SYN_REPORT are kept
    /// (they are valid input, and the stream check warns about them).
    public func endRecording(groundTruth: GroundTruth = GroundTruth()) throws {
        guard current != nil else { return }
        chunk.append(contentsOf: held)
        held.removeAll(keepingCapacity: true)
        try close(RecordingEnding(groundTruth: groundTruth, damage: nil, events: 0, frames: 0))
    }

    /// Whether damage now would leave something to keep.
    public var hasSalvage: Bool { pendingEnd != nil || (flow.open && flow.frames > 0) }

    /// Reports damage in the input. Cuts the open recording at its last
    /// complete frame; with salvage on, the recording (or, if the open one
    /// has no complete frame, the last one before it) keeps the damage as
    /// its ending and decoding can stop. Throws the damage when salvage is
    /// off or nothing complete precedes it.
    public func damaged(_ damage: ForceTraceError, groundTruth: GroundTruth = GroundTruth()) throws {
        held.removeAll()
        // Already cut at its first damage.
        if cut { return }
        guard options.salvage, hasSalvage else {
            let hint = damage.hint ?? (options.offerSalvage && framesInInput > 0
                ? "pass --salvage to import the \(framesInInput) complete frames before it" : nil)
            throw ForceTraceError(file: damage.file, location: damage.location, damage.message, hint: hint)
        }
        if flow.open && flow.frames > 0 {
            try close(RecordingEnding(groundTruth: groundTruth, damage: damage, events: 0, frames: 0))
        } else {
            // Nothing complete in the open recording: the damage belongs to the one before.
            current = nil
            flow.open = false
            chunk.removeAll()
            pendingEnd?.damage = damage
        }
    }

    /// Ends the input: hands on the last recording's end.
    public func finish() throws {
        if current != nil { try endRecording() }
        if let ending = pendingEnd {
            pendingEnd = nil
            try sink.end(ending)
        }
    }

    private func close(_ ending: RecordingEnding) throws {
        try deliver(force: true)
        var ending = ending
        ending.events = current!.events
        ending.frames = flow.frames
        current = nil
        flow.open = false
        pendingEnd = ending
    }

    /// Hands the chunk on, beginning the recording first if need be.
    private func deliver(force: Bool = false) throws {
        guard !chunk.isEmpty || force else { return }
        if !current!.begun {
            if let ending = pendingEnd {
                pendingEnd = nil
                try sink.end(ending)
            }
            let t0 = chunk.first?.timeNs ?? 0
            let clock = current!.clock ?? (t0 >= Self.realtimeThresholdNs ? .realtime : .relative)
            try sink.begin(RecordingHeader(device: current!.device, clock: clock, t0Ns: t0,
                                           source: current!.source, name: current!.name))
            current!.begun = true
        }
        if !chunk.isEmpty {
            current!.events += chunk.count
            try sink.append(chunk)
            chunk.removeAll(keepingCapacity: true)
        }
    }
}

/// A sink that keeps whole recordings in memory: for tests, the fuzz
/// harnesses and other small inputs.
public final class RecordingCollector: RecordingSink {
    public private(set) var recordings: [ParsedRecording] = []
    private var open: Recording?

    public init() {}

    public func begin(_ header: RecordingHeader) throws {
        open = Recording(device: header.device, events: [], clock: header.clock, source: header.source, name: header.name)
    }

    public func append(_ events: [InputEvent]) throws { open!.events.append(contentsOf: events) }

    public func end(_ ending: RecordingEnding) throws {
        var recording = open!
        recording.groundTruth = ending.groundTruth
        recordings.append(ParsedRecording(recording: recording, damage: ending.damage))
        open = nil
    }
}
