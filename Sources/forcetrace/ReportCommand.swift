import ForceTrace
import Foundation
import HDF5

/// `forcetrace report`: peek/pop thresholds, timing and event-rate inflation.
struct ReportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Report pressure curves, peek/pop thresholds and event-rate inflation.",
        discussion: """
        Reads trace files (and every .h5 file under each DIR) and prints, per
        recording, a per-contact table and a summary: press classes, when presses
        cross peek and pop, quantiles, the threshold sweep, suggested thresholds
        and how much pressure-only events inflate the motion event rate; then the
        total over all inputs. Files are analysed in parallel. docs/ANALYSIS.md
        defines every number. Thresholds are normalized pressure, 0 to 1; UIKit
        force = normalized × 6.667.
        """,
        positionals: [PositionalSpec(name: "FILE.h5", help: "Trace files or folders of them.", repeating: true)],
        options: [
            .flag("json", "Print JSON instead of text."),
            .value("save", "OUT.h5", "Also write curves, contacts, histograms and sweeps to OUT.h5."),
            .value("save-part", "PART.h5", "Write only what --merge reads (options, recordings, state) to PART.h5: no curves or contacts."),
            .value("html", "OUT.html", "Also write a self-contained HTML page with the charts to OUT.html."),
            .flag("force", short: "f", "Replace OUT.h5 or OUT.html if it exists."),
            .value("contacts", "N|all", "Rows of the per-contact table per recording (default 20)."),
            .value("peek", "X", "Peek threshold, normalized (default 0.60 × sensitivity)."),
            .value("pop", "X", "Pop threshold, normalized (default 0.80 × sensitivity)."),
            .value("hysteresis", "X", "Drop below threshold − X to re-arm (default 0.05)."),
            .choice("sensitivity", "LEVEL", "light, medium or firm: default thresholds × 0.8, 1.0, 1.2.", Sensitivity.allCases.map(\.rawValue)),
            .value("smooth", "ema:A", "Find crossings on an exponential moving average (0 < A ≤ 1)."),
            .value("tolerance", "T[mm]", "x/y change still counted as stationary: device units, or mm (default 0)."),
            .value("k", "N", "Points per contact on the duration-normalized curve grid (default 64)."),
            .flag("quiet", short: "q", "No progress line (it shows only on a terminal)."),
            .flag("merge", "Read --save files (FILE.h5 are parts) and print their merged report, as report over all their inputs with --contacts 0."),
        ])

    let inputs: [String]
    let json: Bool
    let save: String?
    let savePart: String?
    let html: String?
    let force: Bool
    let contactLimit: Int?
    let options: AnalysisOptions
    let merge: Bool
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws {
        inputs = arguments.positionalList("FILE.h5")
        merge = arguments.flag("merge")
        // The parts carry the options they were analysed with.
        for name in ["peek", "pop", "hysteresis", "sensitivity", "smooth", "tolerance", "k"] where merge && arguments.string(name) != nil {
            throw ParseError.conflict("--merge takes the analysis options from the parts; --\(name) cannot be given with it")
        }
        json = arguments.flag("json")
        save = arguments.string("save")
        savePart = arguments.string("save-part")
        html = arguments.string("html")
        try refuseOutputsOnOneFile([("--save", save), ("--save-part", savePart), ("--html", html)])
        if html != nil { try refuseUnmodelledLibinputSetting() }
        force = arguments.flag("force")
        quiet = arguments.flag("quiet")
        if let text = arguments.string("contacts") {
            if text == "all" {
                contactLimit = nil
            } else {
                guard let number = Int(text), number >= 0 else {
                    throw ParseError.invalidValue(option: "--contacts", value: text, expected: "a non-negative integer or 'all'")
                }
                contactLimit = number
            }
        } else {
            contactLimit = 20
        }
        let sensitivity = arguments.string("sensitivity").flatMap(Sensitivity.init(rawValue:)) ?? .medium
        var options = AnalysisOptions()
        options.thresholds = Thresholds(sensitivity: sensitivity,
                                        peek: try arguments.double("peek", in: 0...1),
                                        pop: try arguments.double("pop", in: 0...1),
                                        hysteresis: try arguments.double("hysteresis", in: 0...1) ?? Thresholds.defaultHysteresis)
        guard options.thresholds.peek < options.thresholds.pop else {
            throw ParseError.conflict(String(format: "The peek threshold (%.3f) must be below the pop threshold (%.3f)",
                                             options.thresholds.peek, options.thresholds.pop))
        }
        if let smooth = arguments.string("smooth") {
            if smooth == "none" {
                options.smoothing = .none
            } else {
                guard smooth.hasPrefix("ema:"), let alpha = Double(smooth.dropFirst(4)), alpha > 0, alpha <= 1 else {
                    throw ParseError.invalidValue(option: "--smooth", value: smooth, expected: "ema:A with 0 < A ≤ 1, such as ema:0.4, or none")
                }
                options.smoothing = .ema(alpha: alpha)
            }
        }
        if let tolerance = arguments.string("tolerance") {
            let isMM = tolerance.hasSuffix("mm")
            guard let value = Double(isMM ? String(tolerance.dropLast(2)) : tolerance), value >= 0, value.isFinite else {
                throw ParseError.invalidValue(option: "--tolerance", value: tolerance, expected: "a non-negative number of device units, or of mm such as 0.5mm")
            }
            options.tolerance = isMM ? .millimetres(value) : .deviceUnits(value)
        }
        options.curvePoints = try arguments.int("k", in: 2...4096) ?? options.curvePoints
        options.curves = save != nil || html != nil
        // The HTML page draws the bands only; --save also stores every contact's curves.
        options.curveMatrices = save != nil
        self.options = options
    }

    func run() throws -> Int32 {
        if merge { return try runMerge() }
        let files = try ReportInputs.expand(inputs, note: { printError($0) })
        for (option, output) in [("--save", save), ("--save-part", savePart), ("--html", html)] {
            guard let output else { continue }
            let target = URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path
            for file in files where URL(fileURLWithPath: file).standardizedFileURL.resolvingSymlinksInPath().path == target {
                throw ParseError.conflict("\(option) \(output) is one of the inputs; reports never modify their input")
            }
            // Also a hard link or bind mount of an input; and before the analysis, not after.
            try OutputPath.check(output, replace: force, inputs: files)
        }
        let progress = ProgressLine(quiet: quiet)
        let analyses = try ReportInputs.analyseInParallel(files, options: options, progress: progress, markedOpen: warnMarkedOpen)
        progress.clear()
        let report = PressureReport(options: options, files: analyses)
        if let save {
            try ReportFile.write(report, to: save, replace: force)
        }
        if let savePart {
            try ReportFile.write(report, to: savePart, replace: force, stateOnly: true)
        }
        let status = try output(report, contactLimit: contactLimit)
        // From the analysis, which has each recording open: opening every file again cost a tenth of the summary's main thread.
        for analysis in report.recordings {
            if let warning = analysis.keyWarning { printError("warning: \(analysis.file): \(analysis.name): \(warning)") }
        }
        return status
    }

    /// Prints the report as text or JSON (shared with --merge).
    func output(_ report: PressureReport, contactLimit: Int?) throws -> Int32 {
        if let html {
            let target = try AtomicOutput(path: html, replace: force)
            do {
                try Data(report.html(contactLimit: contactLimit).utf8).write(to: URL(fileURLWithPath: target.temporaryPath))
                try target.commit()
            } catch {
                target.discard()
                throw ForceTraceError(file: html, "cannot write the HTML report: \(error.localizedDescription)")
            }
        }
        if json {
            let output = JSONStandardOutput()
            report.writeJSON { output.write($0) }
        } else {
            print(report.text(contactLimit: contactLimit), terminator: "")
            if let save { print("\nsaved curves, contacts, histograms and sweeps to \(save)") }
            if let html { print("\nwrote the HTML report to \(html)") }
        }
        for analysis in report.recordings {
            for warning in analysis.warnings where json { printError("warning: \(analysis.file): \(analysis.name): \(warning)") }
        }
        return ExitStatus.success
    }
}

/// Standard output through write(2); goes quiet once the reader has gone
/// (EPIPE, as under `| head`), where FileHandle.write would trap.
private final class JSONStandardOutput {
    private var closed = false

    // Through the checked standard output, so a full disk is an error (main.swift).
    func write(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard !closed else { return }
        StandardOutput.write(UnsafeRawBufferPointer(buffer))
    }
}
