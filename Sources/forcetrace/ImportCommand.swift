import ForceTrace
import Foundation
import HDF5

/// `forcetrace import`: recordings into one trace file.
struct ImportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Import recordings (evemu, libinput record YAML, raw input_event, Android getevent, InkML, SVC2004 signatures, trace files) into an HDF5 trace file.",
        discussion: """
        Each RECORDING ("-" for standard input) becomes one group under /recordings
        in FILE.h5; a libinput record file with several devices becomes several.
        A RECORDING that is itself a trace file (told by its HDF5 signature) has
        every one of its recordings copied whole: tables, attributes, labels and
        units as they are, after the same validation 'info' and 'report' make.
        Names that are taken get -2, -3, ...; --name names every recording.
        --format, --desc, --salvage and --compression apply to recordings: a copied
        recording keeps its source's compression, and a damaged trace is an error.

        The format is told from the content (evemu text, libinput record YAML,
        binary input_event records, Android getevent output, W3C InkML, or SVC2004
        signature text);
        --format forces it. Raw streams and events-only evemu files take their device description
        from --desc (an evemu header); events-only evemu files also find a sibling
        .desc or .prop file. getevent captures ('getevent -lt', '-t', '-l') read their
        ranges from the 'getevent -p' (or -lp) blocks before the events, else from
        --desc; each device with events becomes one recording. Each InkML <trace>
        becomes one pen contact (X, Y, F pressure, T time, OTx/OTy tilt). In an
        SVC2004 signature (the point count, then 'X Y T BUTTON [AZIMUTH ALTITUDE
        PRESSURE]' lines) each pen-down run is one pen contact and pen-up points
        are hover; azimuth and altitude are not mapped.

        Inputs are read as a stream, in blocks (also from pipes, FIFOs and /dev/fd/N),
        so memory does not grow with their length. On any error nothing is written:
        FILE.h5 appears only when every input imported whole. With --salvage, a recording damaged after its description
        (cut off, garbage in the events) is imported up to its last complete frame
        and marked import_status = "partial" with the error in import_error.
        Odd but valid streams (values outside absinfo, unknown event types, time
        going backwards, tracking ids reused without -1) are kept as recorded,
        with a warning.
        """,
        positionals: [PositionalSpec(name: "RECORDING", help: "Recording or trace files to import, or - for standard input.", repeating: true)],
        options: [
            .value("output", short: "o", "FILE.h5", "Trace file to write (required)."),
            .choice("format", "FORMAT", "Input format: \(RecordingCodecs.names.joined(separator: ", ")) (default: detect from content).", RecordingCodecs.names),
            .flag("raw", "Inputs are raw 24-byte x86-64 input_event streams (same as --format raw)."),
            .value("name", "NAME", "Recording group name (default: the input's base name; a trace file's own names)."),
            .value("desc", "DESC", "Device description (evemu header) for raw streams, events-only evemu files and getevent captures without -p."),
            .flag("salvage", "Keep the complete frames of damaged recordings (import_status = \"partial\")."),
            .value("compression", "0-9", "Deflate level for the tables (default 4)."),
            .flag("force", short: "f", "Replace FILE.h5 if it exists."),
            .flag("quiet", short: "q", "No progress line (it shows only on a terminal)."),
        ])

    let inputs: [String]
    let output: String
    let format: RecordingFormat?
    let name: String?
    let description: String?
    let salvage: Bool
    let compression: Compression
    let force: Bool
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws {
        inputs = arguments.positionalList("RECORDING")
        guard let output = arguments.string("output") else { throw ParseError.missingArgument("--output FILE.h5") }
        self.output = output
        var format = arguments.string("format").map(RecordingFormat.init)
        if arguments.flag("raw") {
            if let format, format != .raw { throw ParseError.conflict("--raw conflicts with --format \(format.rawValue)") }
            format = .raw
        }
        self.format = format
        name = arguments.string("name")
        description = arguments.string("desc")
        if format == .raw && description == nil {
            throw ParseError.conflict("Raw input_event streams carry no device description: pass --desc DESC (an evemu header, e.g. from evemu-describe)")
        }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ParseError.conflict("Standard input ('-') can be read only once") }
        salvage = arguments.flag("salvage")
        compression = try Compression(deflateLevel: arguments.int("compression", in: 0...9) ?? 4)
        force = arguments.flag("force")
        quiet = arguments.flag("quiet")
    }

    func run() throws -> Int32 {
        // Before parsing: a wrong output path fails at once, not after minutes.
        let readFiles = inputs + (description.map { [$0] } ?? [])
        try OutputPath.check(output, replace: force, inputs: readFiles)
        let progress = ProgressLine(quiet: quiet)
        // Written to a temporary file, renamed only when every input imported.
        let target = try AtomicOutput(path: output, replace: force, inputs: readFiles)
        var options = TraceWriteOptions()
        options.compression = compression
        let writer = try TraceWriter(creating: target.temporaryPath, options: options)
        let sink = TraceImportSink(writer: writer, name: name)
        let decodeOptions = DecodeOptions(descriptionPath: description, salvage: salvage)
        // In input order, whether decoded or copied from a trace file.
        var written: [(summary: RecordingSummary, source: String, damage: ForceTraceError?, warnings: [String])] = []
        // Key presses as typed (an input recorded with --show-keycodes) stay the owner's.
        var typedKeys = false
        for (index, input) in inputs.enumerated() {
            let label: TerminalText = inputs.count == 1 ? "importing \(input)" : "importing \(index + 1)/\(inputs.count): \(input)"
            if TraceCopy.isTraceFile(input) {
                progress.update(label)
                let reader = try TraceReader(path: input)
                if reader.markedOpenByWriter { warnMarkedOpen(input) }
                for copy in try writer.copyRecordings(from: reader, name: name) {
                    written.append((copy.summary, copy.origin, nil, copy.warnings))
                }
                if try reader.holdsTypedKeys() { typedKeys = true }
                try reader.close()
            } else {
                let source = try ByteSource(path: input)
                if progress.isEnabled {
                    sink.onEvents = { events in progress.count(label, done: events, unit: "events", fraction: source.fractionRead) }
                }
                let before = sink.imported.count
                try RecordingImporter.decode(source, format: format, options: decodeOptions, into: sink)
                written += sink.imported[before...].map { ($0.summary, $0.source.description, $0.damage, $0.warnings) }
            }
        }
        try writer.close()
        if typedKeys || sink.holdsTypedKeys { target.access = .ownerOnly }
        try target.commit()
        progress.clear()
        for item in written {
            let summary = item.summary
            print("\(output): /recordings/\(summary.name): \(summary.events) events, \(summary.frames) frames, "
                  + "\(summary.contacts) contacts, \(summary.samples) samples (from \(item.source))"
                  + (item.damage == nil ? "" : ", PARTIAL"))
            if let damage = item.damage {
                printError("warning: \(summary.name): imported only up to the damage, import_status = \"partial\": \(damage)")
            }
            for warning in item.warnings {
                printError("warning: \(summary.name): \(warning)")
            }
            for anomaly in summary.anomalies {
                printError("warning: \(summary.name): event \(anomaly.eventIndex): \(anomaly.message)")
            }
            if summary.anomalyCount > summary.anomalies.count {
                printError("warning: \(summary.name): \(summary.anomalyCount - summary.anomalies.count) more anomalies not shown")
            }
        }
        return ExitStatus.success
    }
}
