import ForceTrace
import Foundation

/// `forcetrace whatif`: one libinput release's touchpad and tablet pressure
/// rules (or every release's) run over a recording, under quirk sets side by side.
struct WhatIfCommand: Subcommand {
    static let spec = CommandSpec(
        name: "whatif",
        abstract: "Show what libinput would do with a recording's pressure under each quirk set.",
        discussion: """
        Runs libinput's pressure rules over the recording (docs/ANALYSIS.md, "What
        libinput would do"), as the release given by --libinput has them: by default
        the release FORCETRACE_LIBINPUT names (any other value is refused), else
        the libinput installed here (libinput --version, else dpkg or pacman), else
        the newest modelled (1.31); 'all' puts every release where a rule changed side
        by side, merging neighbours that come out the same. The output names the release. On a touchpad, a touch begins at pressure >= N and ends
        below M (AttrPressureRange=N:M, default 12 % and 10 % of the range), is a palm
        once pressure > AttrPalmPressureThreshold (default 130), and a new single touch
        in the thumb area is jailed as a thumb; on a tablet, the tip goes down at >= 5 %
        and up at <= 1 % of the range (or AttrPressureRange), with libinput's pressure
        offset. Where libinput ignores pressure for the device, it says so.
        Quirk sets, side by side: libinput's defaults plus the shipped quirks that match
        the device (/usr/share/libinput, when it belongs to the modelled release), then
        each --quirks FILE on top of them. A file the release's parser refuses leaves it
        with no quirks at all, as libinput does; the output says which line. A calibration is scored per labelled class (light touches that
        begin and their delay, touches lost mid-stroke, palms and thumbs flagged);
        other recordings per minute.
        """,
        positionals: [PositionalSpec(name: "FILE.h5", help: "Trace file (from record, import or calibrate).")],
        options: [
            .value("recording", "NAME", "Recording to use; needed when the file holds several."),
            .value("quirks", "FILE", "A libinput quirks file to try (such as 'suggest --format quirks' writes); repeatable.", repeatable: true),
            .value("libinput", "VERSION", "libinput release to model (such as 1.25.0 or 1.30), or 'all'; default: FORCETRACE_LIBINPUT, else the installed one, else the newest."),
            .value("pressure-range", "MIN:MAX", "Tablets: the tool pressure range a desktop sets (0 <= MIN < MAX <= 1; GNOME 47, KWin, Hyprland; libinput 1.26+)."),
            .value("quirks-dir", "DIR", "Folder of the shipped quirks (default /usr/share/libinput, for the installed release)."),
            .flag("no-shipped", "Leave out the shipped quirks: libinput's built-in defaults only."),
            .flag("json", "Write JSON instead of text."),
            .flag("quiet", short: "q", "No progress line (it shows only on a terminal)."),
        ])

    let input: String
    let recording: String?
    let quirks: [String]
    let quirksDir: String?
    let noShipped: Bool
    let libinput: String?
    let pressureRange: LibinputPressureRange?
    let json: Bool
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws {
        input = arguments.positional("FILE.h5")!
        recording = arguments.string("recording")
        quirks = arguments.strings("quirks")
        noShipped = arguments.flag("no-shipped")
        quirksDir = arguments.string("quirks-dir")
        if noShipped && quirksDir != nil { throw ParseError.conflict("--no-shipped and --quirks-dir cannot be given together") }
        if let text = arguments.string("pressure-range") {
            guard let range = LibinputPressureRange(text) else {
                throw ParseError.invalidValue(option: "--pressure-range", value: text, expected: "MIN:MAX with 0 <= MIN < MAX <= 1, as libinput takes it")
            }
            pressureRange = range
        } else {
            pressureRange = nil
        }
        libinput = arguments.string("libinput")
        try refuseUnmodelledLibinputSetting()
        if let libinput, LibinputChoice.choose(libinput, installed: nil) == nil {
            throw ParseError.invalidValue(option: "--libinput", value: libinput, expected: LibinputChoice.expected)
        }
        json = arguments.flag("json")
        quiet = arguments.flag("quiet")
    }

    func run() throws -> Int32 {
        let reader = try TraceReader(path: input)
        if reader.markedOpenByWriter { warnMarkedOpen(input) }
        let chosen = try chooseRecording(reader, recording)
        let trace = try reader.recording(chosen)
        let choice = LibinputChoice.choose(libinput, installed: LibinputChoice.onThisMachine)!
        let shipped = noShipped ? (folder: nil, note: nil) : LibinputQuirkSet.shippedFolder(for: choice, given: quirksDir)
        // A candidate no modelled release reads is a mistake to fix, not a result to show.
        let candidates = try quirks.map { try LibinputQuirksFile.read($0) }
        for file in candidates {
            let refusals = choice.rules.map { file.refusal($0.quirks) }
            if let first = refusals.first ?? nil, refusals.allSatisfy({ $0 != nil }) {
                throw ForceTraceError(file: file.path, location: first.line.map { .line($0) } ?? .whole, first.reason,
                                      hint: "libinput refuses the whole quirks folder over one bad line; check it with 'libinput quirks validate --data-dir DIR'")
            }
        }
        let sets = try LibinputQuirkSet.sets(device: trace.device, shippedFolder: shipped.folder, candidates: candidates, rules: choice.rules)
        if let version = choice.version, let refused = sets.compactMap(\.refused).first {
            printError("warning: libinput \(version) refuses \(refused), and loads no quirks at all with it")
        }
        let progress = ProgressLine(quiet: quiet)
        var analysis = try WhatIfAnalysis.run(trace, file: input, quirkSets: sets, libinput: choice,
                                              pressureRange: pressureRange) { done, total in
            progress.count("whatif", done: done, unit: "events", fraction: total > 0 ? Double(done) / Double(total) : nil)
        }
        progress.clear()
        if let note = shipped.note { analysis.generalNotes.append(note) }
        if json { printExact(analysis.json) } else { print(analysis.text, terminator: "") }
        return ExitStatus.success
    }
}
