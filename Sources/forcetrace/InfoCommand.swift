import ForceTrace
import Foundation

/// `forcetrace info`: what a trace file holds.
struct InfoCommand: Subcommand {
    static let spec = CommandSpec(
        name: "info",
        abstract: "Describe a trace file: recordings, devices, axes, counts, size.",
        positionals: [PositionalSpec(name: "FILE.h5", help: "Trace file to describe.")],
        options: [.flag("json", "Print JSON instead of text.")])

    let input: String
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        input = arguments.positional("FILE.h5")!
        json = arguments.flag("json")
    }

    func run() throws -> Int32 {
        let info = try TraceFileInfo(TraceReader(path: input))
        if json { printExact(info.json) } else { print(info.text, terminator: "") }
        for recording in info.recordings {
            if let warning = recording.keyWarning { printError("warning: \(input): \(recording.name): \(warning)") }
        }
        return ExitStatus.success
    }
}
