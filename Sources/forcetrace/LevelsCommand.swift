import ForceTrace
import Foundation

/// `forcetrace levels`: how many pressure levels a person reaches and holds
/// on purpose (docs/ANALYSIS.md, "Levels").
struct LevelsCommand: Subcommand {
    static let spec = CommandSpec(
        name: "levels",
        abstract: "Guided levels session: how many pressure stages a person holds reliably.",
        discussion: """
        The person is asked to press into one of N equal bands of the pressure range
        (--range, normalized), hold it steady and lift; the bar on a terminal marks the
        band with |. Each level count in --levels is one block, every level of it
        asked --trials times, in an order shuffled by --seed (drawn at random and
        printed when not given; the file keeps it). The pressure a trial held is the
        highest it kept for 300 ms (the largest median of any 300 ms of it); a trial
        lifted sooner, or with two contacts, is asked again. Works on touchscreens, touchpads and pens alike.
        At the end: per count a confusion table (asked for / held in), the number of
        levels held reliably (at least 9 in 10 trials inside the band, at that count and
        every smaller one), and the stage thresholds for that many levels in raw,
        normalized and UIKit force units (UITouch.force, 1.0 = an average touch).
        The device is read as 'record' reads it; the trials go into the file's labels
        table. --replay runs the session on an evemu recording (--fast: no waiting),
        e.g. one from 'forcetrace simulate --protocol levels' with the same --seed.
        --show FILE.h5 prints the result of a recorded session again (--json).
        Exit status: 0 every trial done, 1 stopped early (the file keeps the trials so
        far), 2 usage error, 3 the device was removed.
        """,
        positionals: [PositionalSpec(name: "DEVICE", help: "Device path or name substring.", optional: true)],
        options: [
            .value("output", short: "o", "FILE.h5", "Trace file to write (required for a session)."),
            .value("levels", "LIST", "Level counts to test, e.g. 2-7 or 2,4,6 (each 2..12; default 2-7)."),
            .value("trials", "N", "Trials per level (default \(LevelsPlan.defaultTrials))."),
            .value("range", "LOW:HIGH", "Normalized pressure range the bands divide (default 0:1)."),
            .value("seed", "N", "Seed of the trial order (default: random, printed)."),
        ] + OptionSpec.guidedSessionCapture + [
            .value("show", "FILE.h5", "Print the result of a recorded levels session instead."),
            .value("recording", "NAME", "With --show: the recording, when the file holds several."),
            .flag("json", "With --show: print the result as JSON."),
            .flag("quiet", short: "q", "No pressure bar."),
            .flag("force", short: "f", "Replace FILE.h5 if it exists."),
        ])

    enum Mode {
        case session(CaptureOptions, LevelsPlan, name: String?, options: RecorderOptions)
        case show(file: String, recording: String?, json: Bool)
    }

    let mode: Mode
    let quiet: Bool

    /// The largest seed the file's int64 `seed` attribute holds as a non-negative number.
    static let seedRange: ClosedRange<UInt64> = 0...UInt64(Int64.max)

    init(_ arguments: ParsedArguments) throws {
        quiet = arguments.flag("quiet")
        if let file = arguments.string("show") {
            for option in ["output", "levels", "trials", "range", "seed", "replay", "name"] where arguments.string(option) != nil {
                throw ParseError.conflict("'--\(option)' belongs to a session; '--show' only reads FILE.h5")
            }
            if let device = arguments.positional("DEVICE") { throw ParseError.conflict("give either DEVICE ('\(device)') or '--show', not both") }
            mode = .show(file: file, recording: arguments.string("recording"), json: arguments.flag("json"))
            return
        }
        if arguments.flag("json") || arguments.string("recording") != nil {
            throw ParseError.conflict("'\(arguments.flag("json") ? "--json" : "--recording")' needs '--show FILE.h5'")
        }
        let capture = try CaptureOptions(arguments, command: Self.spec.name, takesPacing: false)
        var counts = LevelsPlan.defaultCounts
        if let text = arguments.string("levels") {
            guard let parsed = LevelsPlan.parseCounts(text) else {
                throw ParseError.invalidValue(option: "--levels", value: text, expected: "counts 2..12 as 'A-B' or 'A,B,C'")
            }
            counts = parsed
        }
        let trials = try arguments.int("trials", in: 1...100) ?? LevelsPlan.defaultTrials
        var range = LevelRange.full
        if let text = arguments.string("range") {
            guard let parsed = LevelRange(parsing: text) else {
                throw ParseError.invalidValue(option: "--range", value: text, expected: "LOW:HIGH with 0 <= LOW < HIGH <= 1")
            }
            range = parsed
        }
        let seed: UInt64
        if let text = arguments.string("seed") {
            guard let value = UInt64(text), Self.seedRange.contains(value) else {
                throw ParseError.invalidValue(option: "--seed", value: text, expected: "an integer 0..\(Int64.max)")
            }
            seed = value
        } else {
            seed = UInt64.random(in: Self.seedRange)
        }
        var options = RecorderOptions()
        options.label = "levels \(counts.map(String.init).joined(separator: ",")) x \(trials), seed \(seed)"
        mode = .session(capture, LevelsPlan(counts: counts, trialsPerLevel: trials, range: range, seed: seed),
                        name: arguments.string("name"), options: options)
    }

    func run() throws -> Int32 {
        switch mode {
        case .show(let file, let recording, let json): return try show(file, recording, json: json)
        case .session(let capture, let plan, let name, let options): return try session(capture, plan, name: name, options: options)
        }
    }

    private func show(_ file: String, _ recording: String?, json: Bool) throws -> Int32 {
        let reader = try TraceReader(path: file)
        if reader.markedOpenByWriter { warnMarkedOpen(file) }
        let chosen = try chooseRecording(reader, recording)
        guard let result = try reader.recording(chosen).levelsResult() else {
            throw ForceTraceError(file: file, "recording '\(chosen)' holds no levels session",
                                  hint: "record one with 'forcetrace levels DEVICE -o FILE.h5'")
        }
        if json { printExact(result.json) } else { print(result.text, terminator: "") }
        return ExitStatus.success
    }

    private func session(_ capture: CaptureOptions, _ plan: LevelsPlan, name: String?, options: RecorderOptions) throws -> Int32 {
        var options = options
        let output = capture.output
        let guided = GuidedSessionCommand<LevelsSession>(capture: capture, name: name, quiet: quiet)
        let (source, axis) = try guided.openSource(&options, nothing: "there are no levels to hold")
        let levels = LevelsSource(source, plan: plan, axis: axis)
        let (result, recording) = try guided.record(
            levels, options: options,
            intro: "levels session on \"\(source.device.name)\" (\(axis.name) \(axis.minimum)..\(axis.maximum)): counts \(plan.counts.map(String.init).joined(separator: ",")), \(plan.trialsPerLevel) trials per level, \(levels.session.schedule.count) trials, seed \(plan.seed); recording to \(output); Ctrl-C stops",
            prompt: Self.prompt, line: Self.line,
            bar: { pressure, session in
                guard let target = session.current else { return nil }
                let bands = session.bands(target.count)
                let marks = [bands.edges[target.level - 1], bands.edges[target.level]].compactMap { axis.normalized(min($0, axis.maximum)) }
                return "\(CalibrateCommand.bar(pressure, axis: axis, marks: marks))  level \(target.level) of \(target.count)"
            })
        let session = levels.session
        try LevelsLabels.write(session.trials, plan: plan, axis: axis, toFile: output, recording: recording)
        let outcome = LevelsResult(records: session.trials.map(LevelRecord.init), counts: plan.counts, range: plan.range, seed: plan.seed,
                                   device: source.device, axis: axis, file: output, recording: recording)
        print("")
        print(outcome.text, terminator: "")
        print("\nsaved \(session.trials.count) level trials (\(session.discardedCount) discarded) to \(output):/recordings/\(recording); 'forcetrace levels --show \(output) --json' prints the result as JSON")
        return guided.exitStatus(result, source: source, session: session, uses: "result")
    }

    private static func prompt(_ session: LevelsSession) -> TerminalText? {
        guard let target = session.current else { return nil }
        let bands = session.bands(target.count)
        let low = session.axis.normalized(bands.edges[target.level - 1]) ?? 0
        let high = session.axis.normalized(min(bands.edges[target.level], session.axis.maximum)) ?? 1
        return "\(session.number)/\(session.schedule.count)  level \(target.level) of \(target.count)\(String(format: " (%.2f..%.2f)", low, high)): \(TrialClass.level.instruction)"
    }

    private static func line(_ update: LevelsUpdate, _ session: LevelsSession) -> TerminalText {
        switch update {
        case .kept(let trial, let number):
            let landed: String
            switch session.bands(trial.target.count).place(trial.held) {
            case .below: landed = "below the range"
            case .above: landed = "above the range"
            case .level(let level): landed = level == trial.target.level ? "inside" : "in level \(level)"
            }
            return "\(number)/\(session.schedule.count)  level \(trial.target.level) of \(trial.target.count): held \(trial.held), \(landed)"
        case .discarded(let target, let why, let number):
            return "\(number)/\(session.schedule.count)  level \(target.level) of \(target.count): discarded: \(why.message); again"
        }
    }
}
