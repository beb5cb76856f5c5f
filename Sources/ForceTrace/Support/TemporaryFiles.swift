import Foundation
import Synchronization

/// The temporary an output is written through: one file in a private folder
/// beside the output, `.NAME.partial-PID-XXXXXX/NAME`.
///
/// The folder is made by `mkdtemp(3)`: its name cannot be predicted, it is
/// created exclusively (a link or folder planted at that name makes it fail
/// rather than be used), and its mode 0700 keeps every other user from
/// planting anything inside it. So the file in it can be opened by path (HDF5
/// opens files by name, with `O_CREAT|O_TRUNC`) without following anyone
/// else's link or reusing anyone else's file.
public struct TemporaryFile: Sendable, Equatable {
    /// Why it exists; part of the folder's name.
    public enum Kind: String, Sendable, CaseIterable {
        /// An output being written (`import`, `export`, `record`, ...).
        case partial
        /// The recorder's compacted copy of its live file.
        case compact
        /// An unfinished recording decoded again for analysis (`RebuiltRecording`).
        case rebuilt
    }

    /// The file to write, inside `folder`, as a path through the held
    /// private folder (`/proc/self/fd/N/NAME`): HDF5 opens it by name.
    public let path: String
    /// The private folder holding it, as a path through the held folder it is in.
    public let folder: String
    /// The file's name (the output's).
    let name: String
    /// The private folder, held open: the file is published from it (`renameat`, `linkat`).
    let holder: OpenedFolder
    /// The folder the private folder is in, held open.
    let parent: OpenedFolder

    public static func == (left: TemporaryFile, right: TemporaryFile) -> Bool { left.path == right.path && left.folder == right.folder }
}

/// Temporaries of this process: removed on SIGINT, SIGTERM, SIGHUP and on
/// error, and, when a run was killed (SIGKILL, a crash), by the next run that
/// writes the same output once the PID in the name is provably gone.
public enum TemporaryFiles {
    /// Room for this many temporaries at once; one command uses one or two.
    private static let capacity = 16

    /// C strings the signal handler removes: `capacity` pairs of (file,
    /// folder). Changed only with the handled signals blocked, so the handler
    /// never sees a half-made entry.
    nonisolated(unsafe) private static let registered: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity * 2)
        table.initialize(repeating: nil, count: capacity * 2)
        return table
    }()
    static let handledSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Blocking the signals holds them off the creating thread only: a
    /// process-directed signal may run the handler on another thread while a
    /// temporary is made but not yet registered. The handler then leaves the
    /// signal in `deferredSignal`, and the creator dies of it once the
    /// temporary is registered (lock-free atomics, safe in a handler).
    static let creating = Atomic<Int32>(0)
    static let deferredSignal = Atomic<Int32>(0)

    /// Temporary paths this process made, and the output each stands for:
    /// kept for the life of the process, since errors are rendered after the
    /// temporary is gone.
    nonisolated(unsafe) private static var outputs: [(temporary: String, output: String, awayIn: String?)] = []
    private static let outputsLock = NSLock()

    /// Creates the private folder beside `output` (`output` is the file
    /// that will be replaced or created: a link's target, not the link),
    /// its folder reached by `FolderWalk`. See `create(in:name:kind:shownAs:)`.
    public static func create(for output: String, kind: TemporaryFile.Kind, shownAs: String) throws -> TemporaryFile {
        let (directory, name) = split(output)
        var links = 0
        let folder = try FolderWalk.open(directory, shownAs: shownAs, links: &links)
        return try create(in: folder, name: name, kind: kind, shownAs: shownAs)
    }

    /// Creates a private folder in `folder` (held open: no later change to
    /// its path moves the temporary elsewhere) and an empty file `name` in
    /// it, mode 0600, and registers both for removal.
    /// - Parameter shownAs: the output as the user named it, for messages.
    /// - Throws: when `folder` cannot be written; a full disk is named by
    ///   the folder, since that is where the room is missing.
    /// The corresponding C functions are `mkdtemp(3)` and `open(2)` with
    /// `O_CREAT|O_EXCL|O_NOFOLLOW`.
    public static func create(in parent: OpenedFolder, name: String, kind: TemporaryFile.Kind, shownAs: String) throws -> TemporaryFile {
        // NAME_MAX is 255: a long output name is cut in the folder's name
        // (the file inside keeps the whole name).
        let stem = String(decoding: Array(name.utf8.prefix(200)), as: UTF8.self)
        let template = parent.anchored(".\(stem).\(kind.rawValue)-\(getpid())-XXXXXX")
        let beside = kind != .rebuilt
        // The stop signals wait from mkdtemp until both are registered: one
        // arriving in between would leave the folder and file behind.
        creating.add(1, ordering: .sequentiallyConsistent)
        defer {
            creating.subtract(1, ordering: .sequentiallyConsistent)
            let signal = deferredSignal.exchange(0, ordering: .sequentiallyConsistent)
            if signal != 0 { removeTemporariesAndDie(signal) }
        }
        let temporary: TemporaryFile = try withSignalsBlocked {
            let folder: String
            do throws(SystemCallError) { folder = try Syscall.makeTemporaryDirectory(template) } catch {
                throw writeError(shownAs, "cannot create a temporary folder in \(parent.path)", errno: error.errno, folder: beside ? nil : parent.path)
            }
            let folderName = split(folder).name
            let holder: OpenedFolder
            do throws(SystemCallError) {
                holder = OpenedFolder(try parent.descriptor.openEntry(folderName, InputPath.openPathOnly | O_DIRECTORY | O_NOFOLLOW),
                                      path: parent.shown(folderName))
                try holder.descriptor.openEntry(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600).closeIgnoringErrors()
            } catch {
                try? Syscall.removeDirectory(folder)
                throw writeError(shownAs, "cannot create a temporary file in \(parent.shown(folderName))", errno: error.errno, folder: beside ? nil : parent.path)
            }
            let temporary = TemporaryFile(path: holder.anchored(name), folder: folder, name: name, holder: holder, parent: parent)
            register(temporary)
            // The registered paths go through these descriptors: they stay open until it is forgotten.
            heldLock.withLock { held[temporary.path] = [holder, parent] }
            return temporary
        }
        outputsLock.lock()
        // The file first: the folder's path is a prefix of it.
        outputs.append((temporary.path, shownAs, beside ? nil : parent.path))
        outputs.append((temporary.folder, beside ? split(shownAs).directory : parent.path, nil))
        outputsLock.unlock()
        return temporary
    }

    /// The folder a temporary written away from its output is in (the
    /// rebuilt copy of a recording, in TMPDIR): a full disk there is that
    /// folder's, not the output's. Nil for a temporary beside its output.
    public static func awayFolder(of temporaryPath: String) -> String? {
        outputsLock.lock()
        defer { outputsLock.unlock() }
        return outputs.first(where: { $0.temporary == temporaryPath })?.awayIn
    }

    /// `(folder, last component)` of `path`; "." for a bare name.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }

    /// `text` with each temporary path of this process replaced by the
    /// output it stands for (`dir/.out.h5.partial-1234-Ab3xYz/out.h5` →
    /// `dir/out.h5`, and the folder alone → `dir`).
    public static func outputNames(_ text: String) -> String {
        outputsLock.lock()
        let known = outputs
        outputsLock.unlock()
        var result = text
        for (temporary, output, _) in known where result.contains(temporary) {
            result = result.replacingOccurrences(of: temporary, with: output)
        }
        return result
    }

    /// Makes sure `temporary` is removed if a stop signal ends the process
    /// before `unregister`. Signals someone else already handles (the
    /// recorder's StopSignal) keep their handler: they stop cleanly anyway.
    static func register(_ temporary: TemporaryFile) {
        withSignalsBlocked {
            installHandlers()
            for index in 0..<capacity where registered[2 * index] == nil {
                registered[2 * index] = strdup(temporary.path)
                registered[2 * index + 1] = strdup(temporary.folder)
                return
            }
        }
    }

    /// The folders each registered temporary's paths go through (`OpenedFolder.anchor`).
    nonisolated(unsafe) private static var held: [String: [OpenedFolder]] = [:]
    private static let heldLock = NSLock()

    /// Forgets `temporary` (after it was moved into place or removed).
    static func unregister(_ temporary: TemporaryFile) {
        defer { _ = heldLock.withLock { held.removeValue(forKey: temporary.path) } }
        withSignalsBlocked {
            for index in 0..<capacity {
                if let entry = registered[2 * index], String(cString: entry) == temporary.path {
                    free(entry)
                    free(registered[2 * index + 1])
                    registered[2 * index] = nil
                    registered[2 * index + 1] = nil
                }
            }
        }
    }

    /// Removes `temporary`'s file (if it is still there) and folder, and forgets it.
    public static func remove(_ temporary: TemporaryFile) {
        try? Syscall.unlink(temporary.path)
        try? Syscall.removeDirectory(temporary.folder)
        unregister(temporary)
    }

    private static func withSignalsBlocked<T>(_ body: () throws -> T) rethrows -> T {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for signal in handledSignals { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }

    /// Checked at every registration: the recorder's StopSignal resets its
    /// handlers to the default after the first signal, and from then on a
    /// second signal must still remove the temporaries.
    private static func installHandlers() {
        for signal in handledSignals {
            var current = sigaction()
            sigaction(signal, nil, &current)
            // Only replace the default action: an ignored SIGHUP (nohup) stays ignored.
            guard current.__sigaction_handler.sa_handler == nil else { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = removeTemporariesAndDie
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }

    /// What a killed run left beside an output: its name says which
    /// process made it, and only that process's death frees it.
    struct Leftover {
        let path: String
        let pid: pid_t
        /// A private folder (this version), or a bare file (versions before it).
        let isFolder: Bool
    }

    /// Parses `name` as one of forcetrace's temporaries for the output named
    /// `outputName`: `.NAME.KIND-PID-XXXXXX` (a folder) or `.NAME.KIND-PID`
    /// (a file, as versions before the folders wrote).
    static func leftover(named name: String, in directory: String, outputName: String) -> Leftover? {
        let stem = String(decoding: Array(outputName.utf8.prefix(200)), as: UTF8.self)
        for kind in TemporaryFile.Kind.allCases {
            let prefix = ".\(stem).\(kind.rawValue)-"
            guard name.hasPrefix(prefix) else { continue }
            let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard let pid = pid_t(parts[0]), pid > 0 else { continue }
            if parts.count == 2, parts[1].utf8.count == 6 { return Leftover(path: directory + "/" + name, pid: pid, isFolder: true) }
            if parts.count == 1, stem == outputName { return Leftover(path: directory + "/" + name, pid: pid, isFolder: false) }
        }
        return nil
    }

    /// Temporaries of earlier runs for the output `path` whose process is
    /// gone (killed, crashed) are removed; those of running processes stay.
    /// Only what is provably this user's own is touched: a folder or file
    /// owned by this user, never a link, and inside a folder only its entries
    /// (`unlinkat`, which never follows a link); a folder that holds another
    /// folder is left alone.
    /// - Returns: the paths removed.
    @discardableResult
    public static func removeStale(beside path: String) -> [String] {
        let (directory, outputName) = split(path)
        var links = 0
        guard let folder = try? FolderWalk.open(directory, shownAs: path, links: &links) else { return [] }
        return removeStale(in: folder, outputName: outputName)
    }

    /// `removeStale(beside:)` for the output `outputName` in the held `folder`.
    @discardableResult
    static func removeStale(in folder: OpenedFolder, outputName: String) -> [String] {
        guard let names = try? folder.descriptor.openEntry(".", O_RDONLY | O_DIRECTORY).entryNamesClosing() else { return [] }
        var removed: [String] = []
        for bytes in names {
            guard let name = String(validating: bytes, as: UTF8.self),
                  let found = leftover(named: name, in: folder.anchor, outputName: outputName), found.pid != getpid() else { continue }
            guard let info = try? folder.entryStatus(name), info.st_uid == geteuid() else { continue }
            let type = info.st_mode & S_IFMT
            guard type == (found.isFolder ? S_IFDIR : S_IFREG),
                  processIsGone(found.pid, fileModified: info.st_mtim.tv_sec) else { continue }
            if found.isFolder ? removeFolder(name, in: folder) : (try? folder.descriptor.removeEntry(name)) != nil { removed.append(folder.shown(name)) }
        }
        return removed
    }

    /// Empties and removes the temporary folder `name` in `parent` without
    /// following any link in it. The corresponding C functions are
    /// `openat(2)` with `O_NOFOLLOW`, `fstatat(2)` and `unlinkat(2)`.
    private static func removeFolder(_ name: String, in parent: OpenedFolder) -> Bool {
        guard let directory = try? parent.descriptor.openEntry(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) else { return false }
        defer { directory.closeIgnoringErrors() }
        guard let names = try? directory.entryNames() else { return false }
        for bytes in names {
            // Names this process made are UTF-8; any other is not its own.
            guard let entry = String(validating: bytes, as: UTF8.self),
                  let info = try? directory.entryStatus(entry), (info.st_mode & S_IFMT) != S_IFDIR else { return false }
            try? directory.removeEntry(entry)
        }
        return (try? parent.descriptor.removeEntry(name, folder: true)) != nil
    }

    /// True only when `pid` cannot be the process that wrote a file last
    /// modified at `fileModified` (epoch seconds): no such process, or one
    /// that started after the file was last written (the PID was reused).
    static func processIsGone(_ pid: pid_t, fileModified: Int) -> Bool {
        if Syscall.processIsGone(pid) { return true }
        guard let started = processStartTime(pid) else { return false }
        return started > fileModified + 1
    }

    /// Start time of `pid` in epoch seconds, from /proc (field 22 of
    /// /proc/PID/stat, in clock ticks since boot, plus /proc/stat's btime).
    static func processStartTime(_ pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3, starttime field 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Int(fields[19]),
              let system = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = system.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
              let boot = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) else { return nil }
        let hertz = max(1, sysconf(Int32(_SC_CLK_TCK)))
        return boot + ticks / hertz
    }

    /// The signal handler: async-signal-safe calls only (unlink, rmdir, sigaction, raise).
    fileprivate static func removeRegistered() {
        for index in 0..<capacity {
            Syscall.removeInSignalHandler(file: registered[2 * index], folder: registered[2 * index + 1])
        }
    }
}

private func removeTemporariesAndDie(_ signal: Int32) {
    if TemporaryFiles.creating.load(ordering: .sequentiallyConsistent) > 0 {
        TemporaryFiles.deferredSignal.store(signal, ordering: .sequentiallyConsistent)
        // Still creating: the creator dies of it. Done meanwhile: whoever takes the signal back acts on it.
        if TemporaryFiles.creating.load(ordering: .sequentiallyConsistent) > 0 { return }
        if TemporaryFiles.deferredSignal.exchange(0, ordering: .sequentiallyConsistent) == 0 { return }
    }
    TemporaryFiles.removeRegistered()
    // Die of the same signal, so the parent sees how the run ended.
    var action = sigaction()
    action.__sigaction_handler.sa_handler = nil  // SIG_DFL
    sigemptyset(&action.sa_mask)
    sigaction(signal, &action, nil)
    raise(signal)
}
