import ForceTrace
import Foundation

/// `forcetrace calibrate`: a guided session that records labelled trials and
/// suggests thresholds from them.
struct CalibrateCommand: Subcommand {
    static let spec = CommandSpec(
        name: "calibrate",
        abstract: "Guided calibration: record labelled trials and suggest thresholds (app, touchpad, pen).",
        discussion: """
        Asks for one trial at a time and takes the next contact that goes down and up
        as that trial. A trial with two fingers, one shorter than a tap (30 ms), or a
        pen hover that touches, is discarded with a word and asked again. Protocols,
        each asked --trials times, round by round:
          app       tap, peek-press, pop-press             -> peek/pop thresholds
          touchpad  light, normal, thumb, palm             -> libinput AttrPressureRange,
                                                              AttrThumbPressureThreshold,
                                                              AttrPalmPressureThreshold
          pen       hover, stroke-light, stroke-normal,    -> the tip threshold, the usable
                    stroke-firm, full-press                   range and a pressure curve for
                                                              xsetwacom, GNOME, KWin, libinput
                                                              (--targets, suggest --help)
          force     force-medium, force-full: slow presses -> with --scale: the scale's lag, the
                    onto a scale, held 2 s, released          initial activation force, the
                                                              pressure-vs-force curve pressing
                                                              and releasing (hysteresis), the
                                                              saturation force and libinput's tip
                                                              thresholds, in gram-force; the lag
                                                              is stored in the force table
        The device is read as 'record' reads it, into the same kind of file, flushed
        every --flush-ms; keys are obfuscated and keyboards refused as 'record' does.
        Each kept trial's class goes into the file's labels table. On a terminal a bar
        shows the current pressure with the reference thresholds marked (|); off a
        terminal each trial is one line. At the end the suggestion is printed
        ('forcetrace suggest FILE.h5' prints it again, also as JSON or a libinput quirk).
        --replay runs the session on an evemu recording instead (--fast: no waiting).
        Exit status: 0 every trial done, 1 stopped early (the file keeps the trials so
        far), 2 usage error, 3 the device was removed.
        """,
        positionals: [PositionalSpec(name: "DEVICE", help: "Device path or name substring.", optional: true)],
        options: [
            .value("output", short: "o", "FILE.h5", "Trace file to write (required)."),
            .choice("protocol", "PROTOCOL", "app, touchpad, pen or force (required; force needs --scale).", CalibrationProtocol.allCases.map(\.rawValue)),
            .value("trials", "N", "Trials per class (default \(CalibrationProtocol.defaultTrials))."),
            .value("targets", "L,N,F", "Pen: the outputs in % for light, normal, firm strokes (default 25,50,85)."),
            .value("libinput", "VERSION", "The libinput release the printed quirk is for (default: the installed one, else the newest)."),
            .flag("holds", "touchpad: add a steady hold (2 s still, light and normal) to each round; suggest sets the N–M gap from their noise."),
        ] + OptionSpec.guidedSessionCapture + [
            .flag("quiet", short: "q", "No pressure bar."),
            .flag("force", short: "f", "Replace FILE.h5 if it exists."),
        ])

    let capture: CaptureOptions
    let calibrationProtocol: CalibrationProtocol
    let trials: Int
    let holds: Bool
    let name: String?
    let options: RecorderOptions
    let quiet: Bool
    let targets: PenTargets
    let libinput: String?
    var output: String { capture.output }

    init(_ arguments: ParsedArguments) throws {
        capture = try CaptureOptions(arguments, command: Self.spec.name, takesPacing: false)
        guard let chosen = arguments.string("protocol") else {
            throw ParseError.missingArgument("--protocol PROTOCOL")
        }
        calibrationProtocol = CalibrationProtocol(rawValue: chosen)!
        trials = try arguments.int("trials", in: 1...1000) ?? CalibrationProtocol.defaultTrials
        holds = arguments.flag("holds")
        if holds && calibrationProtocol != .touchpad { throw ParseError.conflict("'--holds' needs '--protocol touchpad'") }
        name = arguments.string("name")
        var options = RecorderOptions()
        options.label = "calibrate --protocol \(chosen)"
        self.options = options
        quiet = arguments.flag("quiet")
        targets = try SuggestCommand.targets(arguments)
        libinput = try SuggestCommand.libinputRelease(arguments)
        if calibrationProtocol == .force && capture.scale == nil {
            throw ParseError.conflict("'--protocol force' needs '--scale SCALE[:BAUD]': the scale it presses onto")
        }
    }

    func run() throws -> Int32 {
        var options = self.options
        let guided = GuidedSessionCommand<CalibrationSession>(capture: capture, name: name, quiet: quiet)
        let (source, axis) = try guided.openSource(&options, nothing: "there is nothing to calibrate")
        let calibration = CalibrationSource(source, protocol: calibrationProtocol, trials: trials, holds: holds)
        let marks = Self.referenceMarks(calibrationProtocol, axis: axis)
        let (result, recording) = try guided.record(
            calibration, options: options,
            intro: "\(calibrationProtocol.rawValue) calibration of \"\(source.device.name)\" (\(axis.name) \(axis.minimum)..\(axis.maximum)), \(calibration.session.schedule.count) trials, recording to \(output); Ctrl-C stops",
            prompt: Self.prompt, line: Self.line, bar: { pressure, _ in "\(Self.bar(pressure, axis: axis, marks: marks))" })
        let session = calibration.session
        try CalibrationLabels.write(session.trials, protocol: calibrationProtocol, toFile: output, recording: recording)
        let force = calibrationProtocol == .force ? try ForceCalibration.analyzeAndStoreLag(file: output, recording: recording) : nil
        let suggestion = CalibrationSuggestion(protocol: calibrationProtocol, trials: session.trials.map(LabelledTrial.init),
                                               device: source.device, axis: axis, file: output, recording: recording,
                                               targets: targets, force: force)
        print("")
        print(suggestion.text, terminator: "")
        let choice = LibinputChoice.choose(libinput, installed: LibinputChoice.onThisMachine)!
        if calibrationProtocol != .app && calibrationProtocol != .force, case .success(let quirk) = suggestion.quirks(release: (choice.rules[0], choice.version!.description)) {
            print("\nlibinput quirk ('forcetrace suggest \(output) --format quirks -o FILE.quirks' writes it):")
            // Shown to a person: each line of the section escaped.
            print(quirk.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText(escaping: $0) }.joined(separator: "\n"),
                  terminator: "")
        }
        if suggestion.pen?.profile?.rangeFit != nil {
            print("\neach desktop's pen setting: 'forcetrace suggest \(output) --format xsetwacom|gsettings|kwin|libinput-range|hyprland|libinput-plugin'")
        }
        print("\nsaved \(session.trials.count) labelled trials (\(session.discardedCount) discarded) to \(output):/recordings/\(recording)")
        return guided.exitStatus(result, source: source, session: session, uses: "suggestion")
    }

    private static func prompt(_ session: CalibrationSession) -> TerminalText? {
        guard let wanted = session.current else { return nil }
        return "\(session.number)/\(session.schedule.count)  \(wanted.rawValue): \(wanted.instruction)"
    }

    private static func line(_ update: SessionUpdate, _ session: CalibrationSession) -> TerminalText {
        switch update {
        case .kept(let trial, let number):
            let observation = trial.observation
            return "\(String(format: "%d/%d  %@: kept, peak %d, %.0f ms", number, session.schedule.count, trial.trialClass.rawValue, observation.peak, Double(observation.durationNs) / 1e6))"
        case .discarded(let wanted, let why, let number):
            return "\(number)/\(session.schedule.count)  \(wanted.rawValue): discarded: \(why.message); again"
        }
    }

    /// Where the bar marks the thresholds a user would get without calibrating.
    static func referenceMarks(_ calibrationProtocol: CalibrationProtocol, axis: AxisInfo) -> [Double] {
        switch calibrationProtocol {
        case .app: return [Thresholds.defaultPeek, Thresholds.defaultPop]
        case .touchpad:
            let range = Double(axis.maximum) - Double(axis.minimum)
            let palm = range > 0 ? (Double(CalibrationSuggestion.libinputPalmDefault) - Double(axis.minimum)) / range : 1
            return [CalibrationSuggestion.libinputBeginFraction, palm].filter { $0 <= 1 }
        case .pen, .force: return [CalibrationSuggestion.libinputTipDownFraction]
        }
    }

    /// `[#########|.....|......]  123/255`, like libinput debug-gui's pressure bar.
    static func bar(_ pressure: Int32, axis: AxisInfo, marks: [Double], width: Int = 40) -> String {
        let fraction = min(1, max(0, axis.normalized(pressure) ?? 0))
        let filled = Int((fraction * Double(width)).rounded())
        let markCells = Set(marks.map { min(width - 1, Int(($0 * Double(width)).rounded())) })
        let cells = (0..<width).map { index -> Character in
            markCells.contains(index) ? "|" : (index < filled ? "#" : ".")
        }
        return "[" + String(cells) + "]  \(pressure)/\(axis.maximum)"
    }
}
