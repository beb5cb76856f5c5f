import Foundation
import HDF5

/// What `report` does before and around the analysis: which files the
/// arguments name (folders walked, `--save` files told from trace files),
/// and the analysis of many files in parallel with one progress line.
public enum ReportInputs {
    /// FILE.h5 arguments as given; folders expanded to the .h5 files below them, sorted.
    /// - Parameter savedReports: the inputs are `--save` files (`--merge`), not
    ///   trace files. A folder's files of the other kind are passed over with a note.
    ///   - note: says what was passed over (the CLI prints it on stderr).
    public static func expand(_ inputs: [String], savedReports: Bool = false, note: (TerminalText) -> Void) throws -> [String] {
        var files: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
                throw ForceTraceError(file: input, "no such file or folder")
            }
            guard isDirectory.boolValue else {
                if !savedReports && isSavedReport(input) {
                    throw ForceTraceError(file: input, "is a report written by 'report --save', not a trace file",
                                     hint: "merge saved reports with 'forcetrace report --merge \(input) ...'")
                }
                files.append(input)
                continue
            }
            let found = try traceFiles(in: input, note: note)
                .filter { path in
                    // A folder often holds its own --save output beside the traces.
                    guard isSavedReport(path) != savedReports else { return true }
                    note(savedReports
                        ? "note: skipping \(path): not a report written by 'report --save' (--merge reads only those)"
                        : "note: skipping \(path): a report written by 'report --save', not a trace file (merge such files with --merge)")
                    return false
                }
            guard !found.isEmpty else {
                throw ForceTraceError(file: input, "is a folder with no .h5 trace files", hint: "import recordings first: forcetrace import RECORDING... -o \(input)/FILE.h5")
            }
            files.append(contentsOf: found)
        }
        return distinct(files, note: note)
    }

    /// `files` with each file once: a second name of one file (the same path
    /// spelt another way, a hard link, a symbolic link to it) is passed over
    /// with a note, as its contacts would be counted twice.
    static func distinct(_ files: [String], note: (TerminalText) -> Void) -> [String] {
        var first: [FileIdentity: String] = [:]
        return files.filter { file in
            guard let info = try? Syscall.status(file) else { return true }
            let identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            if let original = first[identity] {
                note("note: skipping \(file): the same file as \(original) (counted once)")
                return false
            }
            first[identity] = file
            return true
        }
    }

    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// The .h5 and .hdf5 regular files below `folder` (not hidden ones;
    /// links to files followed, to folders not), sorted, as paths to open
    /// (`InputPath`: a name that is not UTF-8 is opened as bytes). A FIFO,
    /// device or socket with such a name is passed over with a note: opening
    /// a FIFO would wait for a writer.
    /// A folder below that cannot be listed is an error: the report would
    /// leave out whatever it holds without a word.
    public static func traceFiles(in folder: String, note: (TerminalText) -> Void) throws -> [String] {
        let base = Array(URL(fileURLWithPath: folder).path.utf8)
        var found: [(name: [UInt8], path: String)] = []
        func walk(_ relative: [UInt8]) throws {
            let directory = Array(folder.utf8) + (relative.isEmpty ? [] : [UInt8(ascii: "/")] + relative)
            let names: [[UInt8]]
            do {
                names = try Syscall.entryNames(bytes: directory, shownAs: TerminalText.escape(bytes: directory))
            } catch {
                throw ForceTraceError(file: InputPath(bytes: directory).openable, "is a folder that cannot be read (\(error.reason)); the trace files in it would be left out of the report",
                                      hint: "make it readable, or name the files and folders to report on")
            }
            for name in names {
                let path = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
                let entryPath = directory + [UInt8(ascii: "/")] + name
                guard let status = try? Syscall.linkStatus(bytes: entryPath, shownAs: TerminalText.escape(bytes: entryPath)) else { continue }
                if status.st_mode & S_IFMT == S_IFDIR { try walk(path); continue }
                guard name.first != UInt8(ascii: "."), name.ends(with: ".h5") || name.ends(with: ".hdf5") else { continue }
                let full = InputPath(bytes: base + [UInt8(ascii: "/")] + path).openable
                let kind = FileKind(path: full)
                guard kind == .regular else {
                    note("note: skipping \(full): \(kind == .missing ? "a link to nothing" : "it is \(kind.description)"), not a regular file")
                    continue
                }
                found.append((path, full))
            }
        }
        try walk([])
        return found.sorted { $0.name.lexicographicallyPrecedes($1.name) }.map(\.path)
    }

    /// Whether `path` is a `--save` file: its root `format` attribute says
    /// "forcetrace-report" (docs/ANALYSIS.md, "The --save file").
    public static func isSavedReport(_ path: String) -> Bool {
        guard FileKind(path: path) == .regular, (try? File.isHDF5(path)) == true, let file = try? File.open(path) else { return false }
        defer { try? file.close() }
        return ((try? file.root.attribute(SavedReportLayout.Root.format.name)) ?? nil)?.stringValue == ReportFile.formatName
    }

    /// Analyses every file, up to one per core at a time; the first error wins.
    /// - Parameter markedOpen: called for a file still marked open by a writer (the CLI warns).
    public static func analyseInParallel(_ files: [String], options: AnalysisOptions, progress: ProgressLine,
                                         markedOpen: @escaping @Sendable (String) -> Void) throws -> [FileAnalysis] {
        let state = ParallelState(files: files, progress: progress)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            do {
                let reader = try TraceReader(path: files[index])
                if reader.markedOpenByWriter { markedOpen(files[index]) }
                guard !reader.recordingNames.isEmpty else { throw TraceValidation.noRecordings(files[index]) }
                let opened = try reader.recordingNames.map { try reader.recording($0) }
                state.start(index, samples: try opened.reduce(0) { $0 + (try $1.rowCount(.samples)) })
                var recordings: [RecordingAnalysis] = []
                for recording in opened {
                    var analysis = try PressureAnalyzer.analyze(recording, options: options) { done, _ in
                        state.progress(index, samplesInRecording: done)
                    }
                    analysis.keyWarning = try recording.unobfuscatedKeysWarning()
                    recordings.append(analysis)
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


/// Results of the parallel analysis, and the samples done, behind a lock.
final class ParallelState: @unchecked Sendable {
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
        let done = zip(finished, current).reduce(0) { $0 + $1.0 + $1.1 }
        line.count(label, done: Int64(done), unit: "samples",
                   fraction: Self.fraction(totals: totals, finished: finished, current: current))
    }

    /// The share of the work done: each file weighs the same, an opened file
    /// its samples done over its total (an empty file is done), a file not
    /// yet opened none.
    static func fraction(totals: [Int?], finished: [Int], current: [Int]) -> Double {
        let shares = totals.indices.map { file -> Double in
            guard let total = totals[file], total > 0 else { return totals[file] == 0 ? 1 : 0 }
            return min(1, Double(finished[file] + current[file]) / Double(total))
        }
        return shares.reduce(0, +) / Double(shares.count)
    }

    var results: [Result<FileAnalysis, any Error>?] {
        lock.lock(); defer { lock.unlock() }
        return slots
    }
}
