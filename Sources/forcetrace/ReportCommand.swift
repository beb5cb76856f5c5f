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
            .value("html", "OUT.html", "Also write a self-contained HTML page with the charts to OUT.html."),
            .flag("force", short: "f", "Replace OUT.h5 or OUT.html if it exists."),
            .value("contacts", "N|all", "Rows of the per-contact table per recording (default 20)."),
            .value("peek", "X", "Peek threshold, normalized (default 0.60 × sensitivity)."),
            .value("pop", "X", "Pop threshold, normalized (default 0.80 × sensitivity)."),
            .value("hysteresis", "X", "Drop below threshold − X to re-arm (default 0.05)."),
            .value("sensitivity", "LEVEL", "light, medium or firm: default thresholds × 0.8, 1.0, 1.2."),
            .value("smooth", "ema:A", "Find crossings on an exponential moving average (0 < A ≤ 1)."),
            .value("tolerance", "T[mm]", "x/y change still counted as stationary: device units, or mm (default 0)."),
            .value("k", "N", "Points per contact on the duration-normalized curve grid (default 64)."),
            .flag("quiet", short: "q", "No progress line (it shows only on a terminal)."),
            .flag("merge", "Read --save files (FILE.h5 are parts) and print their merged report, as report over all their inputs with --contacts 0."),
        ])

    let inputs: [String]
    let json: Bool
    let save: String?
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
        html = arguments.string("html")
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
        let sensitivity = try arguments.choice("sensitivity", Sensitivity.allCases.map(\.rawValue)).flatMap(Sensitivity.init(rawValue:)) ?? .medium
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
        self.options = options
    }

    /// FILE.h5 arguments as given; folders expanded to the .h5 files below them, sorted.
    /// - Parameter savedReports: the inputs are `--save` files (`--merge`), not
    ///   trace files. A folder's files of the other kind are passed over with a note.
    static func expand(_ inputs: [String], savedReports: Bool = false) throws -> [String] {
        var files: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
                throw InputError(file: input, "no such file or folder")
            }
            guard isDirectory.boolValue else {
                if !savedReports && isSavedReport(input) {
                    throw InputError(file: input, "is a report written by 'report --save', not a trace file",
                                     hint: "merge saved reports with 'forcetrace report --merge \(input) ...'")
                }
                files.append(input)
                continue
            }
            let found = traceFiles(in: input)
                .filter { path in
                    // A folder often holds its own --save output beside the traces.
                    guard isSavedReport(path) != savedReports else { return true }
                    printError(savedReports
                        ? "note: skipping \(path): not a report written by 'report --save' (--merge reads only those)"
                        : "note: skipping \(path): a report written by 'report --save', not a trace file (merge such files with --merge)")
                    return false
                }
            guard !found.isEmpty else {
                throw InputError(file: input, "is a folder with no .h5 trace files", hint: "import recordings first: forcetrace import RECORDING... -o \(input)/FILE.h5")
            }
            files.append(contentsOf: found)
        }
        return files
    }

    /// The .h5 and .hdf5 regular files below `folder` (not hidden ones;
    /// links to files followed, to folders not), sorted, as paths to open
    /// (`InputPath`: a name that is not UTF-8 is opened as bytes). A FIFO,
    /// device or socket with such a name is passed over with a note: opening
    /// a FIFO would wait for a writer.
    static func traceFiles(in folder: String) -> [String] {
        let base = Array(URL(fileURLWithPath: folder).path.utf8)
        var found: [(name: [UInt8], path: String)] = []
        func walk(_ relative: [UInt8]) {
            let directory = Array(folder.utf8) + (relative.isEmpty ? [] : [UInt8(ascii: "/")] + relative)
            guard let stream = opendir(directory.map { CChar(bitPattern: $0) } + [0]) else { return }
            defer { closedir(stream) }
            var names: [[UInt8]] = []
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
                if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
            }
            for name in names {
                let path = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
                let entryPath = (directory + [UInt8(ascii: "/")] + name).map { CChar(bitPattern: $0) } + [0]
                var status = stat()
                guard lstat(entryPath, &status) == 0 else { continue }
                if status.st_mode & S_IFMT == S_IFDIR { walk(path); continue }
                guard name.first != UInt8(ascii: "."), name.ends(with: ".h5") || name.ends(with: ".hdf5") else { continue }
                let full = InputPath(bytes: base + [UInt8(ascii: "/")] + path).openable
                let kind = FileKind(path: full)
                guard kind == .regular else {
                    printError("note: skipping \(full): \(kind == .missing ? "a link to nothing" : "it is \(kind.description)"), not a regular file")
                    continue
                }
                found.append((path, full))
            }
        }
        walk([])
        return found.sorted { $0.name.lexicographicallyPrecedes($1.name) }.map(\.path)
    }

    /// Whether `path` is a `--save` file: its root `format` attribute says
    /// "forcetrace-report" (docs/ANALYSIS.md, "The --save file").
    static func isSavedReport(_ path: String) -> Bool {
        guard FileKind(path: path) == .regular, (try? File.isHDF5(path)) == true, let file = try? File.open(path) else { return false }
        defer { try? file.close() }
        return ((try? file.root.attribute("format")) ?? nil)?.stringValue == ReportFile.formatName
    }

    func run() throws -> Int32 {
        if merge { return try runMerge() }
        let files = try Self.expand(inputs)
        for (option, output) in [("--save", save), ("--html", html)] {
            guard let output else { continue }
            let target = URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path
            for file in files where URL(fileURLWithPath: file).standardizedFileURL.resolvingSymlinksInPath().path == target {
                throw ParseError.conflict("\(option) \(output) is one of the inputs; reports never modify their input")
            }
            // Also a hard link or bind mount of an input; and before the analysis, not after.
            try OutputPath.check(output, replace: force, inputs: files)
        }
        let progress = ProgressLine(quiet: quiet)
        let analyses = try analyseInParallel(files, options: options, progress: progress)
        progress.clear()
        let report = PressureReport(options: options, files: analyses)
        if let save {
            try ReportFile.write(report, to: save, replace: force)
        }
        let status = try output(report, contactLimit: contactLimit)
        try Self.warnAboutKeys(files)
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

    /// Says on stderr which recordings hold key presses that were not obfuscated.
    static func warnAboutKeys(_ files: [String]) throws {
        for file in files {
            let reader = try TraceReader(path: file)
            for name in reader.recordingNames {
                if let warning = try reader.recording(name).unobfuscatedKeysWarning() { printError("warning: \(file): \(name): \(warning)") }
            }
        }
    }

    /// Analyses every file, up to one per core at a time; the first error wins.
    func analyseInParallel(_ files: [String], options: AnalysisOptions, progress: ProgressLine) throws -> [FileAnalysis] {
        let state = ParallelState(files: files, progress: progress)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            do {
                let reader = try TraceReader(path: files[index])
                if reader.markedOpenByWriter { warnMarkedOpen(files[index]) }
                let opened = try reader.recordingNames.map { try reader.recording($0) }
                state.start(index, samples: try opened.reduce(0) { $0 + (try $1.rowCount(.samples)) })
                var recordings: [RecordingAnalysis] = []
                for recording in opened {
                    recordings.append(try PressureAnalyzer.analyze(recording, options: options) { done, _ in
                        state.progress(index, samplesInRecording: done)
                    })
                    state.recordingDone(index)
                }
                state.finish(index, .success(FileAnalysis(file: files[index], recordings: recordings)))
            } catch {
                state.finish(index, .failure(error))
            }
        }
        return try state.results.map { try $0!.get() }
    }
}

extension Array where Element == UInt8 {
    func ends(with ending: String) -> Bool { count >= ending.utf8.count && ending.utf8.elementsEqual(suffix(ending.utf8.count)) }
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

/// Results of the parallel analysis, and the samples done, behind a lock.
private final class ParallelState: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<FileAnalysis, any Error>?]
    private let label: TerminalText
    /// Per file: its samples (once opened), those of its finished
    /// recordings, and those of the recording being analysed.
    private var totals: [Int?], finished: [Int], current: [Int]

    private let line: ProgressLine

    init(files: [String], progress: ProgressLine) {
        slots = Array(repeating: nil, count: files.count)
        label = files.count == 1 ? "analysing \(files[0])" : "analysing \(files.count) files"
        totals = Array(repeating: nil, count: files.count)
        finished = Array(repeating: 0, count: files.count)
        current = finished
        line = progress
    }

    func start(_ index: Int, samples: Int) {
        lock.withLock { totals[index] = samples }
    }

    func recordingDone(_ index: Int) {
        lock.withLock { finished[index] += current[index]; current[index] = 0 }
    }

    func finish(_ index: Int, _ result: Result<FileAnalysis, any Error>) {
        lock.lock(); defer { lock.unlock() }
        slots[index] = result
    }

    /// Samples done over every file; the time left from each file's share
    /// done (a file not yet opened counts as none done).
    func progress(_ index: Int, samplesInRecording done: Int) {
        guard line.isEnabled else { return }
        lock.lock(); defer { lock.unlock() }
        current[index] = done
        let shares = totals.indices.map { file -> Double in
            guard let total = totals[file], total > 0 else { return totals[file] == 0 ? 1 : 0 }
            return min(1, Double(finished[file] + current[file]) / Double(total))
        }
        let done = zip(finished, current).reduce(0) { $0 + $1.0 + $1.1 }
        line.count(label, done: Int64(done), unit: "samples", fraction: shares.reduce(0, +) / Double(shares.count))
    }

    var results: [Result<FileAnalysis, any Error>?] {
        lock.lock(); defer { lock.unlock() }
        return slots
    }
}
