import ForceTrace
import Foundation

/// `forcetrace export`: a recording back into a recording format.
struct ExportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Export recordings from a trace file (evemu, libinput record YAML, raw input_event).",
        discussion: """
        Writes the recording's raw events and device description, unchanged, to OUT or
        standard output. A libinput record file holds several devices: without
        --recording, every recording of FILE.h5 becomes one device in it, in the
        order 'info' lists them. evemu and raw hold one, so a file with several
        recordings needs --recording. libinput record files count time from the first event, as
        libinput does, and keep the absolute origin in a 'forcetrace' key that libinput
        ignores. raw writes 24-byte x86-64 struct input_event records with absolute
        times; its description is not included (export it with --format evemu).
        A live recording's 'keycodes' attribute ("obfuscated" or "as-is") becomes a
        '# keycodes: ...' comment line in evemu and libinput files.
        """,
        positionals: [PositionalSpec(name: "FILE.h5", help: "Trace file to read.")],
        options: [
            .choice("format", "FORMAT", "Output format: \(RecordingCodecs.writableNames.joined(separator: ", ")) (required).", RecordingCodecs.writableNames),
            .value("recording", "NAME", "Recording to export (default: all of them for libinput; needed for evemu and raw when the file holds several)."),
            .value("output", short: "o", "OUT", "File to write (default, or -: standard output)."),
            .flag("force", short: "f", "Replace OUT if it exists."),
            .flag("quiet", short: "q", "No progress line (it shows only on a terminal)."),
        ])

    let input: String
    let codec: any RecordingCodec
    let recording: String?
    let output: String?
    let force: Bool
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws {
        input = arguments.positional("FILE.h5")!
        guard let format = arguments.string("format") else { throw ParseError.missingArgument("--format FORMAT") }
        codec = RecordingCodecs.codec(named: format)!
        recording = arguments.string("recording")
        output = arguments.outputPath("output")
        force = arguments.flag("force")
        quiet = arguments.flag("quiet")
    }

    func run() throws -> Int32 {
        if let output { try OutputPath.check(output, replace: force, inputs: [input]) }
        let reader = try TraceReader(path: input)
        if reader.markedOpenByWriter { warnMarkedOpen(input) }
        let chosen = try chooseRecordings(reader)
        let traces = try chosen.map(reader.recording)
        var comment = "exported by forcetrace \(ForceTraceVersion.string) from "
            + chosen.map { "\(InputPath.displayName(input)):/recordings/\($0)" }.joined(separator: ", ")
        // Neither format has a field for it, so the recorder's key-code handling travels as a comment.
        for trace in traces {
            guard let keyCodes = trace.keyCodeHandling else { continue }
            comment += "\n\(KeyCodeHandling.attribute): \(keyCodes.rawValue)" + (traces.count > 1 ? " (\(trace.name))" : "")
        }
        let progress = ProgressLine(quiet: quiet)
        let total = try traces.reduce(0) { $0 + (try $1.rowCount(.events)) }
        let label: TerminalText = chosen.count == 1 ? "exporting \(chosen[0])" : "exporting \(chosen.count) recordings"
        func counted(_ encoder: any RecordingEncoder) -> any RecordingEncoder {
            guard progress.isEnabled else { return encoder }
            return CountingEncoder(encoder) { events, _ in
                progress.count(label, done: events, unit: "events", fraction: total > 0 ? Double(events) / Double(total) : nil)
            }
        }
        // Streamed block by block: memory does not grow with the recordings.
        func write(to stream: ByteOutput) throws {
            let encoder = counted(try codec.encoder(to: stream, count: traces.count, comment: comment))
            for trace in traces { try trace.encode(into: encoder) }
            try encoder.finish()
            try stream.close()
        }
        if let output {
            let target = try AtomicOutput(path: output, replace: force, inputs: [input])
            try write(to: try ByteOutput(path: target.temporaryPath))
            try target.commit()
        } else {
            try write(to: ByteOutput.standardOutput())
        }
        progress.clear()
        return ExitStatus.success
    }

    /// The recording --recording names; else every one, in a format that
    /// holds several devices (libinput), or the only one.
    func chooseRecordings(_ reader: TraceReader) throws -> [String] {
        if recording != nil || !codec.holdsSeveralRecordings || reader.recordingNames.isEmpty {
            guard recording != nil || reader.recordingNames.count < 2 else {
                throw ForceTraceError(file: reader.path,
                                     "holds \(reader.recordingNames.count) recordings, and \(codec.format) files hold one device",
                                     hint: "choose one with --recording NAME: " + reader.recordingNames.joined(separator: ", ")
                                         + "; or export them all with --format libinput")
            }
            return [try chooseRecording(reader, recording)]
        }
        return reader.recordingNames
    }
}

/// Says that a file is read in SWMR mode because a writer still marks it open.
func warnMarkedOpen(_ path: String) {
    printError("warning: \(path) is still marked open by a writer (recording now, or killed); reading it up to the last flush")
}

/// Picks the recording a command works on: the named one, or the only one.
func chooseRecording(_ reader: TraceReader, _ requested: String?) throws -> String {
    if let requested { return requested }
    guard reader.recordingNames.count == 1 else {
        throw ForceTraceError(file: reader.path,
                             reader.recordingNames.isEmpty ? "holds no recordings" : "holds \(reader.recordingNames.count) recordings",
                             hint: reader.recordingNames.isEmpty ? nil : "choose one with --recording NAME: " + reader.recordingNames.joined(separator: ", "))
    }
    return reader.recordingNames[0]
}

