import ForceTrace
import Foundation

/// `forcetrace export`: a recording back into a recording format.
struct ExportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Export a recording from a trace file (evemu, libinput record YAML, raw input_event).",
        discussion: """
        Writes the recording's raw events and device description, unchanged, to OUT or
        standard output. libinput record files count time from the first event, as
        libinput does, and keep the absolute origin in a 'forcetrace' key that libinput
        ignores. raw writes 24-byte x86-64 struct input_event records with absolute
        times; its description is not included (export it with --format evemu).
        A live recording's 'keycodes' attribute ("obfuscated" or "as-is") becomes a
        '# keycodes: ...' comment line in evemu and libinput files.
        """,
        positionals: [PositionalSpec(name: "FILE.h5", help: "Trace file to read.")],
        options: [
            .value("format", "FORMAT", "Output format: evemu, libinput or raw (required)."),
            .value("recording", "NAME", "Recording to export; needed when the file holds several."),
            .value("output", short: "o", "OUT", "File to write (default: standard output)."),
            .flag("force", short: "f", "Replace OUT if it exists."),
        ])

    let input: String
    let format: String
    let recording: String?
    let output: String?
    let force: Bool

    init(_ arguments: ParsedArguments) throws {
        input = arguments.positional("FILE.h5")!
        guard let format = try arguments.choice("format", RecordingFormat.allCases.map(\.rawValue)) else { throw ParseError.missingArgument("--format FORMAT") }
        self.format = format
        recording = arguments.string("recording")
        output = arguments.string("output")
        force = arguments.flag("force")
    }

    func run() throws -> Int32 {
        let reader = try TraceReader(path: input)
        if reader.markedOpenByWriter { warnMarkedOpen(input) }
        let chosen = try chooseRecording(reader, recording)
        let trace = try reader.recording(chosen)
        let loaded = try trace.loadRecording()
        var comment = "exported by forcetrace \(ForceTraceVersion.string) from \(input):/recordings/\(chosen)"
        // Neither format has a field for it, so the recorder's key-code handling travels as a comment.
        if let keyCodes = trace.keyCodeHandling { comment += "\n\(KeyCodeHandling.attribute): \(keyCodes.rawValue)" }
        if let output {
            let target = try AtomicOutput(path: output, replace: force)
            guard var writer = TextFileStream(path: target.temporaryPath) else {
                throw InputError(file: output, "cannot be written")
            }
            write(loaded, comment: comment, to: &writer)
            try writer.close()
            try target.commit()
        } else {
            var writer = TextFileStream.standardOutput
            write(loaded, comment: comment, to: &writer)
            try writer.close()
        }
        return ExitStatus.success
    }
}

extension ExportCommand {
    private func write(_ recording: Recording, comment: String, to writer: inout TextFileStream) {
        switch RecordingFormat(rawValue: format)! {
        case .evemu: Evemu.write(recording, comment: comment, to: &writer)
        case .libinput: LibinputRecord.write([recording], comment: comment, to: &writer)
        case .raw: RawEventStream.write(recording) { writer.writeBytes($0) }
        }
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

/// A buffered text stream over a C FILE, for large exports.
struct TextFileStream: TextOutputStream {
    private let handle: UnsafeMutablePointer<FILE>
    private let ownsHandle: Bool
    private let path: String

    init?(path: String) {
        guard let handle = fopen(path, "w") else { return nil }
        self.handle = handle
        self.ownsHandle = true
        self.path = path
    }

    private init(handle: UnsafeMutablePointer<FILE>, path: String) {
        self.handle = handle
        self.ownsHandle = false
        self.path = path
    }

    static var standardOutput: TextFileStream { TextFileStream(handle: fdopen(STDOUT_FILENO, "w"), path: "standard output") }

    mutating func write(_ string: String) { fputs(string, handle) }

    func writeBytes(_ bytes: UnsafeRawBufferPointer) {
        if let base = bytes.baseAddress { fwrite(base, 1, bytes.count, handle) }
    }

    func close() throws {
        let failed = fflush(handle) != 0 || ferror(handle) != 0
        let savedErrno = errno
        if ownsHandle { fclose(handle) }
        if failed { throw InputError(file: path, "write failed: \(String(cString: strerror(savedErrno)))") }
    }
}
