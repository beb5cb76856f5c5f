import Foundation

/// An unfinished recording (still being recorded, or left by a killed
/// recorder) made whole for analysis: its kept events decoded again, as
/// `import` decodes them, into a private temporary trace file.
///
/// A live or killed recorder's `contacts` table lacks the contacts that were
/// down at its last flush (rows are written in id order once a contact has
/// lifted), and its tables may stop at different flushes. The events table
/// is the record: decoding it again gives samples and contacts that agree
/// with each other and with the events, contacts still down at the end
/// included (`t_up_ns = -1`), so the analysis of the file is the analysis of
/// the events it kept.
public final class RebuiltRecording {
    /// The rebuilt recording; its `filePath` is the temporary's, which
    /// errors show as the original file (`TemporaryFiles.outputNames`).
    public let recording: TraceRecording
    /// Events decoded (every column of the original holds at least these).
    public let events: Int64
    private let reader: TraceReader
    private let temporary: TemporaryFile

    public init(_ original: TraceRecording) throws {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let name = folder + "/forcetrace-rebuilt.h5"
        TemporaryFiles.removeStale(beside: name)
        temporary = try TemporaryFiles.create(for: name, kind: .rebuilt, shownAs: original.filePath)
        do {
            let writer = try TraceWriter(creating: temporary.path, options: TraceWriteOptions())
            let sink = TraceImportSink(writer: writer, name: original.name)
            try original.encode(into: SinkEncoder(sink, file: original.filePath))
            try writer.close()
            events = sink.eventsWritten
            reader = try TraceReader(path: temporary.path)
            recording = try reader.recording(original.name)
        } catch {
            TemporaryFiles.remove(temporary)
            throw error
        }
    }

    deinit {
        try? reader.close()
        TemporaryFiles.remove(temporary)
    }
}

/// Hands an encoder's stream to a sink: a trace recording's events, read
/// back, go through the import path again.
private final class SinkEncoder: RecordingEncoder {
    let sink: any RecordingSink
    let file: String
    private var groundTruth = GroundTruth()
    private var events = 0
    private var order = FrameOrder()
    private var name = ""
    private var t0Ns: Int64 = 0

    init(_ sink: any RecordingSink, file: String) {
        self.sink = sink
        self.file = file
    }

    func begin(_ header: RecordingHeader, groundTruth: GroundTruth) throws {
        self.groundTruth = groundTruth
        name = header.name
        t0Ns = header.t0Ns
        try sink.begin(header)
    }

    func append(_ events: [InputEvent]) throws {
        for event in events {
            if let problem = order.check(event, t0Ns: t0Ns) { throw ForceTraceError(file: file, "recording '\(name)': \(problem)") }
        }
        self.events += events.count
        try sink.append(events)
    }

    func end() throws {
        try sink.end(RecordingEnding(groundTruth: groundTruth, damage: nil, events: events, frames: 0))
    }

    func finish() throws {}
}
