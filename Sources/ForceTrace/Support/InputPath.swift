import Foundation

/// A path as the user or a folder gave it: bytes, which need not be UTF-8.
///
/// Swift's `String`, HDF5 and Foundation cannot hold or take a name that is
/// not UTF-8 (`CommandLine.arguments` replaces its bytes). So such a name is
/// opened once with `O_PATH` (which reads nothing, so it needs no read
/// permission and never waits for a FIFO's writer), and the library opens it
/// as `/proc/self/fd/N` of that descriptor, kept open for the process's life:
/// the same file, so HDF5's locks and SWMR work as on its real name.
/// People never see `/proc/self/fd/N`: `TerminalText` shows the real name in
/// its place, escaped (`a\xffb.h5`), and JSON, HTML, `--save` files and the
/// recordings' names and sources hold that escaped form (`displayName`).
public struct InputPath: Sendable {
    /// What the library opens: the path itself when it is UTF-8, else `/proc/self/fd/N`.
    public let openable: String

    /// - Parameter bytes: the path (an argument, or a folder entry joined to
    ///   its folder's `openable`).
    public init(bytes: [UInt8]) {
        if let text = String(validating: bytes, as: UTF8.self), !text.contains("\0") {
            openable = text
            return
        }
        // A folder's `/proc/self/fd/N` prefix stands for the folder's real name.
        let real = Self.realBytes(bytes)
        // Kept open for the process's life: never closed.
        let descriptor = try? FileDescriptor.open(bytes: bytes, shownAs: TerminalText.escape(bytes: real), Self.openPathOnly)
        openable = Self.withNames { names in
            // A name that cannot be opened gets a path that does not exist,
            // so opening it fails as the real name would (no such file).
            let token: String
            if let descriptor {
                token = Self.prefix + String(descriptor.raw)
            } else {
                names.missing += 1
                token = Self.prefix + "-" + String(names.missing)
            }
            names.bytes[token] = real
            return token
        }
    }

    /// A command-line argument: its text when it is UTF-8, else `openable`.
    public static func argument(_ cString: UnsafePointer<CChar>) -> String {
        let bytes = Array(UnsafeBufferPointer(start: cString, count: strlen(cString))).map { UInt8(bitPattern: $0) }
        return InputPath(bytes: bytes).openable
    }

    /// Whether `path` holds a name that is not UTF-8 (an `openable` of one).
    public static func isNotUTF8(_ path: String) -> Bool {
        replacingNames(in: path, name: { _ in "" }, other: { String($0) }) != nil
    }

    /// `path` as a person or a file should see it: itself when it is UTF-8;
    /// else escaped as `TerminalText` shows it (`a\xffb.h5`, a backslash doubled).
    public static func displayName(_ path: String) -> String {
        replacingNames(in: path, name: { TerminalText.escape(bytes: $0) }, other: { TerminalText.escape($0) }) ?? path
    }

    // MARK: - The names behind `/proc/self/fd/N`

    static let prefix = "/proc/self/fd/"
    /// Linux's O_PATH, which Swift's Glibc module does not export.
    static let openPathOnly: Int32 = 0o10000000

    private struct Names {
        var bytes: [String: [UInt8]] = [:]
        var missing = 0
    }

    nonisolated(unsafe) private static var names = Names()
    private static let namesLock = NSLock()

    private static func withNames<R>(_ body: (inout Names) -> R) -> R {
        namesLock.withLock { body(&names) }
    }

    /// `text` with each known `/proc/self/fd/N` replaced by `name(real
    /// bytes)` and the rest by `other`; nil when it holds none.
    static func replacingNames(in text: String, name: ([UInt8]) -> String, other: (Substring) -> String) -> String? {
        // Every interpolation of terminal text comes here: most runs know no such name.
        let known = withNames { $0.bytes }
        guard !known.isEmpty, text.contains(prefix) else { return nil }
        var out = ""
        var rest = Substring(text)
        var found = false
        while let range = rest.range(of: prefix) {
            var end = range.upperBound
            if end < rest.endIndex, rest[end] == "-" { end = rest.index(after: end) }
            while end < rest.endIndex, rest[end].isASCII, rest[end].isNumber { end = rest.index(after: end) }
            let token = String(rest[range.lowerBound..<end])
            // A longer number, or a name that goes on (…/fd/12x), is not the token.
            if let bytes = known[token], end == rest.endIndex || !(rest[end].isLetter || rest[end].isNumber) {
                out += other(rest[..<range.lowerBound]) + name(bytes)
                found = true
            } else {
                out += other(rest[..<end])
            }
            rest = rest[end...]
        }
        out += other(rest)
        return found ? out : nil
    }

    /// `bytes` with a leading known `/proc/self/fd/N` replaced by the real name's bytes.
    private static func realBytes(_ bytes: [UInt8]) -> [UInt8] {
        let known = withNames { $0.bytes }
        for (token, real) in known where bytes.starts(with: Array(token.utf8)) {
            let after = bytes.dropFirst(token.utf8.count)
            if after.isEmpty || after.first == UInt8(ascii: "/") { return real + after }
        }
        return bytes
    }
}

/// What kind of file a path names, from `stat` (links followed), which never
/// opens it: opening a FIFO waits for a writer, and a device streams forever.
public enum FileKind: Equatable, Sendable {
    case regular, directory, fifo, characterDevice, blockDevice, socket
    case missing
    case unreadable(errno: Int32)

    public init(path: String) {
        let status: stat
        do { status = try Syscall.status(path) } catch {
            self = error.errno == ENOENT || error.errno == ENOTDIR ? .missing : .unreadable(errno: error.errno)
            return
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        default: self = .regular
        }
    }

    /// "a FIFO", for "is a FIFO, not a trace file".
    public var description: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .fifo: "a FIFO"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .missing: "missing"
        case .unreadable(let code): "unreadable (\(String(cString: strerror(code))))"
        }
    }

    /// Checks, before anything opens it, that `path` is a regular file.
    /// - Parameter what: what it should be: "a trace file", "a saved report".
    /// - Throws: a one-line `ForceTraceError` naming the path and what it is.
    public static func requireRegular(_ path: String, _ what: String) throws {
        switch FileKind(path: path) {
        case .regular: return
        case .missing: throw ForceTraceError(file: path, "no such file")
        case .unreadable(let code):
            throw ForceTraceError(file: path, "cannot be read: \(String(cString: strerror(code)))",
                                  hint: code == EACCES ? "check the permissions of the file and of its folders" : nil)
        case let kind: throw ForceTraceError(file: path, "is \(kind.description), not \(what)")
        }
    }
}
