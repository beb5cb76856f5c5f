import Foundation

/// Which libinput `whatif` models, and why: the version asked for, the one
/// installed, or the newest modelled (docs/ANALYSIS.md, "Which libinput").
public struct LibinputChoice: Sendable {
    public enum Source: String, Sendable {
        /// `--libinput VERSION`
        case given
        /// `--libinput all`: every release where a rule changed, side by side.
        case all
        /// `FORCETRACE_LIBINPUT`, the default a user or a test sets for every command.
        case environment
        /// The libinput found on this machine.
        case installed
        /// None found: the newest release modelled.
        case newest
    }

    public var source: Source
    /// The release modelled; nil for `all`.
    public var version: LibinputVersion?
    /// The libinput found on this machine, and where it was found.
    public var installed: (version: LibinputVersion, how: String)?

    public init(source: Source, version: LibinputVersion?, installed: (version: LibinputVersion, how: String)? = nil) {
        self.source = source; self.version = version; self.installed = installed
    }

    /// The rules of each column: one entry for a version, every entry for `all`.
    public var rules: [LibinputRules] {
        if let version, let rules = LibinputRules.at(version) { return [rules] }
        return LibinputRules.history
    }

    /// `--libinput`'s argument: "all", a version, or nil for the installed or
    /// newest; nil for an argument that is neither ("expected" says what is).
    public static func choose(_ argument: String?, installed: (version: LibinputVersion, how: String)?,
                              environment: [String: String] = ProcessInfo.processInfo.environment) -> LibinputChoice? {
        if argument == "all" { return LibinputChoice(source: .all, version: nil, installed: installed) }
        if argument == nil, case .success(let version?) = fromEnvironment(environment) {
            return LibinputChoice(source: .environment, version: version, installed: installed)
        }
        if let argument {
            guard let version = LibinputVersion(argument), LibinputRules.at(version) != nil else { return nil }
            return LibinputChoice(source: .given, version: version, installed: installed)
        }
        if let installed, LibinputRules.at(installed.version) != nil {
            return LibinputChoice(source: .installed, version: installed.version, installed: installed)
        }
        return LibinputChoice(source: .newest, version: LibinputRules.newest, installed: installed)
    }

    /// `FORCETRACE_LIBINPUT`'s release: nil when unset or empty; its text as
    /// the failure when it is not a release forcetrace models, for the
    /// commands to refuse (a setting silently ignored models the wrong release).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<LibinputVersion?, UnmodelledRelease> {
        guard let text = environment["FORCETRACE_LIBINPUT"], !text.isEmpty else { return .success(nil) }
        guard let version = LibinputVersion(text), LibinputRules.at(version) != nil else { return .failure(UnmodelledRelease(text: text)) }
        return .success(version)
    }

    /// A `FORCETRACE_LIBINPUT` value that names no modelled release.
    public struct UnmodelledRelease: Error, Sendable {
        public let text: String
    }

    /// What `--libinput` takes, for its error.
    public static let expected = "a libinput release from \(LibinputRules.oldest) on (such as 1.25.0 or 1.30), or 'all'"

    /// How the output names the choice: "libinput 1.22.1 (installed: libinput --version)".
    public var label: String {
        switch source {
        case .all: "every libinput from \(LibinputRules.oldest) to \(LibinputRules.newest), where a rule changed"
        case .given: "libinput \(version!)"
        case .environment: "libinput \(version!) (FORCETRACE_LIBINPUT)"
        case .installed: "libinput \(version!) (installed; \(installed!.how))"
        case .newest: "libinput \(version!) (the newest modelled; \(installed.map { "libinput \($0.version) found, older than forcetrace models" } ?? "no libinput found on this machine"))"
        }
    }

    /// What a reader must know about the choice.
    public var notes: [String] {
        var notes: [String] = []
        if let version, version > LibinputRules.newest, version.major == LibinputRules.newest.major,
           version.minor > LibinputRules.newest.minor {
            notes.append("libinput \(version) is newer than forcetrace knows: modelled with \(LibinputRules.newest)'s rules")
        }
        if let version {
            let within = LibinputRules.differentWithin(version)
            if !within.isEmpty {
                notes.append("libinput \(version).x releases differ (\(within.map { "\($0.since): \($0.change)" }.joined(separator: "; "))); modelled as the newest \(version).x, give the release to pick another")
            }
        }
        return notes
    }

    /// The column label of a run of entries with the same outcome, from `first` to `last` (inclusive).
    public func columnLabel(_ first: LibinputRules, _ last: LibinputRules) -> String {
        if let version { return version.description }
        func start(_ v: LibinputVersion) -> String { v.patch == 0 ? "\(v.major).\(v.minor)" : v.description }
        guard let next = last.until else {
            return first == last ? "\(start(first.since))+" : "\(start(first.since)) to \(start(last.since))+"
        }
        let end = next.patch == 0 || next.patch == nil ? "\(next.major).\(next.minor - 1)" : "\(next.major).\(next.minor).\(next.patch! - 1)"
        return start(first.since) == end ? end : "\(start(first.since)) to \(end)"
    }

    /// The libinput on this machine, asked once per process (`findInstalled`).
    public static let onThisMachine: (version: LibinputVersion, how: String)? = findInstalled()

    /// The libinput on this machine: `libinput --version`, else the package
    /// managers' queries (dpkg-query, rpm, pacman), each found on PATH; nil when none answers.
    public static func findInstalled(environment: [String: String] = ProcessInfo.processInfo.environment) -> (version: LibinputVersion, how: String)? {
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").filter { $0.hasPrefix("/") }
        func tool(_ name: String) -> String? {
            path.lazy.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        let queries: [(String, [String], String)] = [
            ("libinput", ["--version"], "libinput --version"),
            ("dpkg-query", ["-W", "-f=${Version}\n", "libinput10"], "dpkg-query"),
            ("rpm", ["-q", "--qf", "%{VERSION}\n", "libinput"], "rpm"),
            ("pacman", ["-Q", "libinput"], "pacman"),
        ]
        for (name, arguments, how) in queries {
            guard let executable = tool(name), let output = run(executable, arguments) else { continue }
            // pacman answers "libinput 1.31.0-1"; dpkg may put an epoch ("1:1.22.1-1") first.
            let word = output.split(whereSeparator: \.isWhitespace).last.map(String.init) ?? ""
            let upstream = word.split(separator: ":", maxSplits: 1).last.map(String.init) ?? word
            if let version = LibinputVersion(upstream) { return (version, how) }
        }
        return nil
    }

    /// A short tool run: its standard output, or nil when it fails or takes
    /// over 5 s. posix_spawn and poll, not Foundation's Process, which needs
    /// a socket pair and hangs where there is no loopback (the kernel guest).
    private static func run(_ path: String, _ arguments: [String]) -> String? {
        guard let (readEnd, writeEnd) = try? Syscall.pipe() else { return nil }
        defer { readEnd.closeIgnoringErrors() }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The pipe's ends are close-on-exec; dup2 gives the child its own stdout.
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd.raw, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        writeEnd.closeIgnoringErrors()
        guard spawned == 0 else { return nil }
        var data: [UInt8] = []
        let deadline = Syscall.monotonicNs() + 5_000_000_000
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < 4096 {
            let left = Int32(clamping: (deadline - Syscall.monotonicNs()) / 1_000_000)
            guard left > 0 else { kill(pid, SIGKILL); break }
            guard let ready = try? Syscall.poll([readEnd], timeoutMs: left) else { kill(pid, SIGKILL); break }
            if ready[0] == 0 { continue }
            let count = (try? buffer.withUnsafeMutableBytes { raw throws(SystemCallError) in
                try readEnd.read(into: raw.baseAddress!, count: raw.count) }) ?? -1
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0, data.count < 4096 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
