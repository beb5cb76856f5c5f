import ForceTrace
import Foundation

/// `forcetrace whatif`: libinput 1.22's touchpad and tablet pressure rules
/// run over a recording, under quirk sets side by side.
struct WhatIfCommand: Subcommand {
    static let spec = CommandSpec(
        name: "whatif",
        abstract: "Show what libinput would do with a recording's pressure under each quirk set.",
        discussion: """
        Runs libinput 1.22's pressure rules over the recording (docs/ANALYSIS.md, "What
        libinput would do"): on a touchpad, a touch begins at pressure >= N and ends
        below M (AttrPressureRange=N:M, default 12 % and 10 % of the range), is a palm
        once pressure > AttrPalmPressureThreshold (default 130), and a new single touch
        in the thumb area is jailed as a thumb; on a tablet, the tip goes down at >= 5 %
        and up at <= 1 % of the range (or AttrPressureRange), with libinput's pressure
        offset. Where libinput ignores pressure for the device, it says so.
        Quirk sets, side by side: libinput's defaults plus the shipped quirks that match
        the device (/usr/share/libinput, when installed), then each --quirks FILE on
        top of them. A calibration is scored per labelled class (light touches that
        begin and their delay, touches lost mid-stroke, palms and thumbs flagged);
        other recordings per minute.
        """,
        positionals: [PositionalSpec(name: "FILE.h5", help: "Trace file (from record, import or calibrate).")],
        options: [
            .value("recording", "NAME", "Recording to use; needed when the file holds several."),
            .value("quirks", "FILE", "A libinput quirks file to try (such as 'suggest --format quirks' writes); repeatable.", repeatable: true),
            .value("quirks-dir", "DIR", "Folder of the shipped quirks (default /usr/share/libinput)."),
            .flag("no-shipped", "Leave out the shipped quirks: libinput's built-in defaults only."),
            .flag("json", "Write JSON instead of text."),
            .flag("quiet", short: "q", "No progress line (it shows only on a terminal)."),
        ])

    let input: String
    let recording: String?
    let quirks: [String]
    let quirksDir: String?
    let json: Bool
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws {
        input = arguments.positional("FILE.h5")!
        recording = arguments.string("recording")
        quirks = arguments.strings("quirks")
        if arguments.flag("no-shipped") {
            if arguments.string("quirks-dir") != nil { throw ParseError.conflict("--no-shipped and --quirks-dir cannot be given together") }
            quirksDir = nil
        } else {
            quirksDir = arguments.string("quirks-dir") ?? LibinputQuirksFile.shippedFolder
        }
        json = arguments.flag("json")
        quiet = arguments.flag("quiet")
    }

    func run() throws -> Int32 {
        let reader = try TraceReader(path: input)
        if reader.markedOpenByWriter { warnMarkedOpen(input) }
        let chosen = try chooseRecording(reader, recording)
        let trace = try reader.recording(chosen)
        let sets = try LibinputQuirkSet.sets(device: trace.device, shippedFolder: quirksDir, candidates: quirks)
        let progress = ProgressLine(quiet: quiet)
        let analysis = try WhatIfAnalysis.run(trace, file: input, quirkSets: sets) { done, total in
            progress.count("whatif", done: done, unit: "events", fraction: total > 0 ? Double(done) / Double(total) : nil)
        }
        progress.clear()
        if json { printExact(analysis.json) } else { print(analysis.text, terminator: "") }
        return ExitStatus.success
    }
}
