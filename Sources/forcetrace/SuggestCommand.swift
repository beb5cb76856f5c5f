import ForceTrace
import Foundation

/// `forcetrace suggest`: thresholds from a labelled trace, as text, JSON or a
/// libinput quirks section.
struct SuggestCommand: Subcommand {
    static let spec = CommandSpec(
        name: "suggest",
        abstract: "Suggest thresholds from labelled trials: peek/pop, a libinput quirk, a pen's tip.",
        discussion: """
        Reads the recording's labels table (written by 'calibrate', or by 'simulate'
        and 'import' for tap/peek-press/pop-press labels) and derives, per protocol
        (docs/ANALYSIS.md, "Calibration"):
          app       peek/pop at the best balanced accuracy, its confusion matrix, and
                    how often pop comes before a 400 ms and a 500 ms long press
          touchpad  AttrPressureRange=N:M (N below the lightest light touch, M = N
                    minus libinput's default hysteresis), AttrThumbPressureThreshold=P
                    and AttrPalmPressureThreshold=O between the classes; an attribute
                    whose classes overlap is left out with the reason
          pen       the tip threshold: below every light stroke, above hover noise; the
                    usable range, the activation level, and a pressure curve (Bezier,
                    control points 0-100) putting the light, normal and firm medians
                    on --targets (default 25,50,85 %), with the error at each
        --format quirks writes a libinput quirks section ([forcetrace NAME] with
        MatchName, MatchBus, MatchVendor, MatchProduct and MatchUdevType) for the
        touchpad and pen protocols; put it in /etc/libinput/local-overrides.quirks, or,
        with libinput 1.30 or later, for one session in $XDG_RUNTIME_DIR/libinput/
        (/run/user/UID/libinput/) as a file ending in .quirks. It is written
        for the release --libinput names (default: the installed one, else the newest):
        its parser reads every line, and its rules score it. libinput 1.26.0 to 1.30.1
        read a tablet's range swapped; there the pressure-range setting is the way.
        The pen's settings for each desktop (docs/ANALYSIS.md, "Pen settings"):
          xsetwacom        shell commands: PressureCurve and Threshold for the stylus
          gsettings        shell commands: GNOME's stylus pressure-curve, and from
                           GNOME 47 its pressure-range with the curve over that range
          kwin             KWin's pressureCurve, pressureRangeMin, pressureRangeMax
          libinput-range   the range for libinput_tablet_tool_config_pressure_range_set
          hyprland         Hyprland 0.56's tablettool pressure range, for hyprland.lua
          libinput-plugin  a Lua plugin for libinput 1.30 or later: the range as the
                           device's pressure axis, and the curve on each pressure value
        """,
        positionals: [PositionalSpec(name: "FILE.h5", help: "Trace file with labelled trials.")],
        options: [
            .value("recording", "NAME", "Recording to use; needed when the file holds several."),
            .choice("format", "FORMAT", "text (default), json, quirks, xsetwacom, gsettings, kwin, libinput-range, hyprland or libinput-plugin.", SuggestionFormat.allCases.map(\.rawValue)),
            .value("libinput", "VERSION", "quirks: the libinput release that will read the section (such as 1.25.0); default: the installed one, else the newest."),
            .value("targets", "L,N,F", "Pen: the outputs in % for light, normal, firm strokes (default 25,50,85)."),
            .value("output", short: "o", "OUT", "File to write (default, or -: standard output)."),
            .flag("force", short: "f", "Replace OUT if it exists."),
        ])

    let input: String
    let recording: String?
    let format: SuggestionFormat
    let output: String?
    let force: Bool
    let targets: PenTargets
    let libinput: String?

    init(_ arguments: ParsedArguments) throws {
        input = arguments.positional("FILE.h5")!
        recording = arguments.string("recording")
        format = arguments.string("format").flatMap(SuggestionFormat.init(rawValue:)) ?? .text
        output = arguments.outputPath("output")
        force = arguments.flag("force")
        targets = try Self.targets(arguments)
        libinput = try Self.libinputRelease(arguments)
    }

    /// `--libinput`, shared with calibrate: one release, not 'all'.
    static func libinputRelease(_ arguments: ParsedArguments) throws -> String? {
        try refuseUnmodelledLibinputSetting()
        guard let text = arguments.string("libinput") else { return nil }
        guard text != "all", LibinputChoice.choose(text, installed: nil) != nil else {
            throw ParseError.invalidValue(option: "--libinput", value: text, expected: "one libinput release from \(LibinputRules.oldest) on, such as 1.25.0")
        }
        return text
    }

    /// `--targets`, shared with calibrate.
    static func targets(_ arguments: ParsedArguments) throws -> PenTargets {
        guard let text = arguments.string("targets") else { return .default }
        guard let targets = PenTargets(parsing: text) else {
            throw ParseError.invalidValue(option: "--targets", value: text, expected: PenTargets.rule)
        }
        return targets
    }

    func run() throws -> Int32 {
        let reader = try TraceReader(path: input)
        if reader.markedOpenByWriter { warnMarkedOpen(input) }
        let chosen = try chooseRecording(reader, recording)
        let trace = try reader.recording(chosen)
        guard let calibrationProtocol = try trace.calibrationProtocol() else {
            throw ForceTraceError(file: input, "recording '\(chosen)' has no labelled trials",
                                 hint: "record some with 'forcetrace calibrate DEVICE -o FILE.h5 --protocol app|touchpad|pen'")
        }
        guard let axis = trace.device.contactPressureAxis else {
            throw ForceTraceError(file: input, "recording '\(chosen)': the device has no per-contact pressure axis")
        }
        let trials = try trace.labelledTrials(for: calibrationProtocol)
        let analysis = calibrationProtocol == .force ? try ForceAnalysis.analyze(trace) : nil
        let suggestion = CalibrationSuggestion(protocol: calibrationProtocol, trials: trials, device: trace.device, axis: axis,
                                               file: input, recording: chosen, targets: targets, force: analysis)
        let text: String
        switch format {
        // Text is for a person, in a file too (-o): escaped as at a terminal.
        case .text: text = suggestion.text.rendered
        case .json: text = suggestion.json
        case .xsetwacom, .gsettings, .kwin, .libinputRange, .hyprland: text = try suggestion.penSettingText(format).get()
        case .libinputPlugin: text = try suggestion.libinputPlugin().get().text
        case .quirks:
            // The section run through libinput's rules over this calibration, against the defaults (whatif).
            let date = Date()
            let choice = LibinputChoice.choose(libinput, installed: LibinputChoice.onThisMachine)!
            let release = (rules: choice.rules[0], name: choice.version!.description)
            let plain = try suggestion.quirks(date: date, release: release).get()
            let shipped = LibinputQuirkSet.shippedFolder(for: choice, given: nil).folder
            let comment = try WhatIfAnalysis.suggestComment(trace, file: input, section: plain, shippedFolder: shipped, libinput: choice)
            text = try suggestion.quirks(date: date, whatIf: comment, release: release).get()
        }
        if let output {
            let target = try AtomicOutput(path: output, replace: force)
            do {
                try text.write(toFile: target.temporaryPath, atomically: false, encoding: .utf8)
            } catch {
                throw ForceTraceError(file: output, "cannot be written: \(error.localizedDescription)")
            }
            try target.commit()
        } else {
            printExact(text)
        }
        return ExitStatus.success
    }
}
