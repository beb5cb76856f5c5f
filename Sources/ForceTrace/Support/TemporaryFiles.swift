import Foundation

/// Hidden temporary files beside an output (`.NAME.partial-PID`,
/// `.NAME.compact-PID`): removed on SIGINT, SIGTERM, SIGHUP and on error,
/// and, when a run was killed (SIGKILL, a crash), by the next run that
/// writes the same output once the PID in the name is provably gone.
public enum TemporaryFiles {
    /// The suffixes forcetrace gives its temporaries, before "-PID".
    static let kinds = ["partial", "compact"]

    /// Room for this many temporaries at once; one command uses one or two.
    private static let capacity = 16

    /// C strings the signal handler unlinks. Changed only with the handled
    /// signals blocked, so the handler never sees a half-made entry.
    nonisolated(unsafe) private static let registered: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        table.initialize(repeating: nil, count: capacity)
        return table
    }()
    static let handledSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The temporary beside `path` for this process, e.g. `.out.h5.partial-1234`.
    public static func path(beside path: String, kind: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(kind)-\(getpid())").path
    }

    /// `text` with each of this process's temporary paths replaced by the
    /// output it stands for (`dir/.out.h5.partial-1234` → `dir/out.h5`).
    public static func outputNames(_ text: String) -> String {
        var result = text
        for kind in kinds {
            let marker = ".\(kind)-\(getpid())"
            var searchStart = result.startIndex
            while let found = result.range(of: marker, range: searchStart..<result.endIndex) {
                if found.upperBound < result.endIndex, result[found.upperBound].isNumber {
                    searchStart = found.upperBound
                    continue
                }
                var start = found.lowerBound
                while start > result.startIndex, !"/ '\"".contains(result[result.index(before: start)]) {
                    start = result.index(before: start)
                }
                guard result[start] == ".", result.index(after: start) < found.lowerBound else {
                    searchStart = found.upperBound
                    continue
                }
                let name = result[result.index(after: start)..<found.lowerBound]
                let offset = result.distance(from: result.startIndex, to: start) + name.count
                result.replaceSubrange(start..<found.upperBound, with: name)
                searchStart = result.index(result.startIndex, offsetBy: offset)
            }
        }
        return result
    }

    /// Makes sure `temporary` is removed if a stop signal ends the process
    /// before `unregister`. Signals someone else already handles (the
    /// recorder's StopSignal) keep their handler: they stop cleanly anyway.
    public static func register(_ temporary: String) {
        withSignalsBlocked {
            installHandlers()
            for index in 0..<capacity where registered[index] == nil {
                registered[index] = strdup(temporary)
                return
            }
        }
    }

    /// Forgets `temporary` (after it was renamed into place or removed).
    public static func unregister(_ temporary: String) {
        withSignalsBlocked {
            for index in 0..<capacity {
                if let entry = registered[index], String(cString: entry) == temporary {
                    registered[index] = nil
                    free(entry)
                }
            }
        }
    }

    /// Removes `temporary` and forgets it.
    public static func remove(_ temporary: String) {
        unlink(temporary)
        unregister(temporary)
    }

    private static func withSignalsBlocked(_ body: () -> Void) {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for signal in handledSignals { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        body()
        pthread_sigmask(SIG_SETMASK, &previous, nil)
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

    /// Temporaries of earlier runs for the output `path` whose process is
    /// gone (killed, crashed) are removed; those of running processes stay.
    /// - Returns: the paths removed.
    @discardableResult
    public static func removeStale(beside path: String) -> [String] {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let prefix = ".\(url.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.lastIndex(of: "-"), kinds.contains(String(rest[..<dash])),
                  let pid = pid_t(rest[rest.index(after: dash)...]), pid > 0, pid != getpid() else { continue }
            let candidate = directory + "/" + name
            var info = stat()
            guard lstat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if processIsGone(pid, fileModified: info.st_mtim.tv_sec) {
                if unlink(candidate) == 0 { removed.append(candidate) }
            }
        }
        return removed
    }

    /// True only when `pid` cannot be the process that wrote a file last
    /// modified at `fileModified` (epoch seconds): no such process, or one
    /// that started after the file was last written (the PID was reused).
    static func processIsGone(_ pid: pid_t, fileModified: Int) -> Bool {
        if kill(pid, 0) == -1 && errno == ESRCH { return true }
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

    /// The signal handler: async-signal-safe calls only (unlink, sigaction, raise).
    fileprivate static func unlinkRegistered() {
        for index in 0..<capacity {
            if let entry = registered[index] { unlink(entry) }
        }
    }
}

private func removeTemporariesAndDie(_ signal: Int32) {
    TemporaryFiles.unlinkRegistered()
    // Die of the same signal, so the parent sees how the run ended.
    var action = sigaction()
    action.__sigaction_handler.sa_handler = nil  // SIG_DFL
    sigemptyset(&action.sa_mask)
    sigaction(signal, &action, nil)
    raise(signal)
}
