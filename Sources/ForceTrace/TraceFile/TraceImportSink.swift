/// Writes decoded recordings into a trace file as they stream in, checking
/// each stream on the way: the import path, through the same
/// `RecordingWriter` the live recorder uses.
public final class TraceImportSink: RecordingSink {
    /// What one imported recording came to.
    public struct Imported {
        public var summary: RecordingSummary
        public var source: RecordingSource
        public var damage: ForceTraceError?
        /// `StreamCheck`'s warnings.
        public var warnings: [String]
    }

    public let writer: TraceWriter
    /// Group name for every recording, instead of its own.
    public let name: String?
    public private(set) var imported: [Imported] = []
    private var open: (writer: RecordingWriter, source: RecordingSource, check: StreamCheck)?
    /// Called with each recording's name as it begins.
    public var onBegin: (String) -> Void = { _ in }
    /// Called after each chunk with the events written so far, for progress.
    public var onEvents: (Int64) -> Void = { _ in }
    public private(set) var eventsWritten: Int64 = 0
    /// Whether a recording written so far holds common key presses as
    /// typed (`TraceRecording.unobfuscatedKeysWarning`'s rule), counted as the
    /// events pass: only devices with common keys are looked at.
    public var holdsTypedKeys: Bool { keyCensus.revealingPresses > 0 }
    private var keyCensus = KeyPressCensus()
    private var countsKeys = false

    public init(writer: TraceWriter, name: String? = nil) {
        self.writer = writer
        self.name = name
    }

    public func begin(_ header: RecordingHeader) throws {
        let recording = try writer.addRecording(name: name ?? header.name, device: header.device, source: header.source,
                                                clock: header.clock, t0Ns: header.t0Ns)
        open = (recording, header.source, StreamCheck(header))
        countsKeys = header.device.hasCommonKeys
        onBegin(recording.name)
    }

    public func append(_ events: [InputEvent]) throws {
        open!.check.check(events)
        let recording = open!.writer
        for event in events { try recording.append(event) }
        if countsKeys {
            for event in events { keyCensus.count(type: event.type, code: event.code, value: event.value) }
        }
        eventsWritten += Int64(events.count)
        onEvents(eventsWritten)
    }

    public func end(_ ending: RecordingEnding) throws {
        let (recording, source, check) = open!
        open = nil
        let summary = try writer.finishImport(recording, groundTruth: ending.groundTruth, importError: ending.damage?.description)
        imported.append(Imported(summary: summary, source: source, damage: ending.damage, warnings: check.warnings()))
    }
}

extension TraceRecording {
    /// What an encoder is told before the events.
    public var header: RecordingHeader {
        RecordingHeader(device: device, clock: clock, t0Ns: t0Ns, source: source, name: name)
    }

    /// Streams the recording (raw events, absolute times, and labels) into
    /// `encoder`, block by block: the export path.
    public func encode(into encoder: any RecordingEncoder) throws {
        try encoder.begin(header, groundTruth: try groundTruth())
        var absolute: [InputEvent] = []
        try forEachEventBlock(blockRows: RecordingBuilder.chunkEvents) { block in
            absolute.removeAll(keepingCapacity: true)
            for event in block {
                absolute.append(InputEvent(timeNs: event.timeNs + t0Ns, type: event.type, code: event.code, value: event.value))
            }
            try encoder.append(absolute)
        }
        try encoder.end()
    }
}
