import ForceTrace
import Foundation
import HDF5

/// `forcetrace import`: recordings into one trace file.
struct ImportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Import recordings (evemu) into an HDF5 trace file.",
        discussion: """
        Each RECORDING becomes one group under /recordings in FILE.h5. Events-only
        evemu files find their description in a sibling .desc or .prop file, or in
        --desc. The output appears only when every input imported: on any error no
        file is left behind.
        """,
        positionals: [PositionalSpec(name: "RECORDING", help: "Recording files to import.", repeating: true)],
        options: [
            .value("output", short: "o", "FILE.h5", "Trace file to write (required)."),
            .value("name", "NAME", "Recording group name (default: the input's base name)."),
            .value("desc", "FILE", "Device description for events-only recordings."),
            .value("compression", "0-9", "Deflate level for the tables (default 4)."),
            .flag("force", short: "f", "Replace FILE.h5 if it exists."),
        ])

    let inputs: [String]
    let output: String
    let name: String?
    let description: String?
    let compression: Compression
    let force: Bool

    init(_ arguments: ParsedArguments) throws {
        inputs = arguments.positionalList("RECORDING")
        guard let output = arguments.string("output") else { throw ParseError.missingArgument("--output FILE.h5") }
        self.output = output
        name = arguments.string("name")
        description = arguments.string("desc")
        compression = try Compression(deflateLevel: arguments.int("compression", in: 0...9) ?? 4)
        force = arguments.flag("force")
    }

    func run() throws -> Int32 {
        let progress = ProgressLine()
        // Parse everything first: a bad input fails before anything is written.
        var recordings: [Recording] = []
        for (index, input) in inputs.enumerated() {
            progress.update("reading \(index + 1)/\(inputs.count): \(input)")
            recordings.append(try Evemu.read(input, descriptionPath: description))
        }
        let target = try AtomicOutput(path: output, replace: force)
        var options = TraceWriteOptions()
        options.compression = compression
        let writer = try TraceWriter(creating: target.temporaryPath, options: options)
        var summaries: [(RecordingSummary, String)] = []
        for (index, recording) in recordings.enumerated() {
            progress.update("writing \(index + 1)/\(recordings.count): \(recording.name)")
            summaries.append((try writer.write(recording, name: name), recording.source))
        }
        try writer.close()
        try target.commit()
        progress.clear()
        for (summary, source) in summaries {
            print("\(output): /recordings/\(summary.name): \(summary.events) events, \(summary.frames) frames, "
                  + "\(summary.contacts) contacts, \(summary.samples) samples (from \(source))")
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
