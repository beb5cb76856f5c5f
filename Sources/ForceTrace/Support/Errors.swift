import Foundation
import HDF5

/// The one error type users see: the file, where in it, what is wrong, and
/// what to do. Rendered one way everywhere (`description`; `terminalText`
/// at a terminal, the file, message and hint escaped):
/// "FILE[:LINE | : at byte N]: message", then "  hint: …" on its own line.
public struct ForceTraceError: Error, CustomStringConvertible, Sendable {
    public enum Location: Sendable, Equatable {
        case line(Int)
        case byteOffset(Int)
        case whole
    }

    /// What failed, for callers that act on it (a device error's errno in
    /// `devices --json`, the tests); the message says the rest. Usage errors
    /// are the command line's own (`ParseError` in the CLI, exit status 2).
    public enum Kind: Sendable, Equatable {
        /// An input is missing, unreadable or malformed.
        case input
        /// An output cannot be written or put in place (`writeError`).
        case output
        /// HDF5 failed on a file, classified by `HDF5Error.Kind`.
        case hdf5
        /// An input device cannot be opened or used (`ForceTraceError.device`).
        case device
        /// Any other system call failed (`SystemCallError`).
        case system
    }

    public let file: String
    public let location: Location
    public let message: String
    public let hint: String?
    public let kind: Kind
    /// errno of the failed call behind it, when there was one.
    public let errno: Int32?

    public init(file: String, location: Location = .whole, _ message: String, hint: String? = nil, kind: Kind = .input, errno: Int32? = nil) {
        self.file = file
        self.location = location
        self.message = message
        self.hint = hint
        self.kind = kind
        self.errno = errno
    }

    /// "FILE[:LINE | : at byte N]: message": the one layout of the first line.
    private var firstLine: String {
        switch location {
        case .line(let line): "\(file):\(line): \(message)"
        case .byteOffset(let offset): "\(file): at byte \(offset): \(message)"
        case .whole: "\(file): \(message)"
        }
    }

    public var description: String { firstLine + (hint.map { "\n  hint: " + $0 } ?? "") }

    /// `description` for a terminal: the file, the message (which may quote
    /// an input line) and the hint are text from outside. The layout's own
    /// characters (":", digits, spaces) are never escaped, so escaping the
    /// whole first line escapes exactly its outside parts.
    public var terminalText: TerminalText {
        var text = TerminalText(escaping: firstLine)
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }
}

extension ForceTraceError {
    /// What an HDF5 failure means for the user, from its classification
    /// (HDF5's error codes and errno, `HDF5Error.Kind`).
    public init(_ error: HDF5Error) {
        let file = error.file.isEmpty ? error.function : error.file
        let directory = TemporaryFiles.split(file).directory
        let message: String, hint: String?
        switch error.kind {
        case .noSpace:
            let quota = error.errno == EDQUOT ? " (disk quota exceeded)" : ""
            if let away = TemporaryFiles.awayFolder(of: file) {
                // A temporary away from the output (TMPDIR): its folder is full, not the output's.
                message = "no space left on the device holding \(away), where its temporary copy is written\(quota)"
                hint = "free space there (df -h \(away)), or set TMPDIR to a folder with room"
            } else {
                message = "no space left on the device holding \(file)\(quota)"
                hint = "free space on the file system of \(directory) (df -h \(directory)), or write the output elsewhere"
            }
        case .permissionDenied:
            let readOnly = error.errno == EROFS
            message = readOnly ? "the file system holding it is read-only (read-only file system)" : "permission denied"
            hint = readOnly ? "write the output to a writable file system"
                            : "check the permissions of the file and of \(directory) (ls -ld), or use another path"
        case .locked:
            message = "the file is locked by another process that has it open (HDF5 file locking)"
            hint = "find it with 'fuser -v \(file)' and let it finish; on a file system without working locks set HDF5_USE_FILE_LOCKING=FALSE"
        case .truncated:
            message = "truncated file: it ends before the end its HDF5 superblock records (\(error.innermostCause))"
            hint = "the file was cut short (an interrupted copy or download, or a full disk); copy it again from its source"
        case .notFound:
            (message, hint) = ("no such file or directory", nil)
        case .other:
            (message, hint) = ("the file is damaged and HDF5 cannot read it (\(error.innermostCause))", nil)
        }
        self.init(file: file, message, hint: hint, kind: .hdf5, errno: error.errno)
    }

    /// A failed system call as it is shown: the path, the call, strerror's
    /// text and errno. The one way from errno to a message, when the caller
    /// has nothing more specific to say (see `writeError` for outputs).
    public init(_ error: SystemCallError) {
        self.init(file: error.path, "\(error.function) failed: \(error.reason) (errno \(error.errno))", kind: .system, errno: error.errno)
    }

    /// Any error as a terminal shows it (`userFacing`, then `terminalText`).
    public static func terminalText(_ error: any Error) -> TerminalText {
        switch userFacing(error) {
        case let error as ForceTraceError: error.terminalText
        case let error: "\(String(describing: error))"
        }
    }

    /// Any error as the user should see it: HDF5 failures classified, the
    /// project's own errors as they are.
    public static func userFacing(_ error: any Error) -> any Error {
        let plain: ForceTraceError
        switch error {
        case let error as HDF5Error: plain = ForceTraceError(error)
        case let error as SystemCallError: plain = ForceTraceError(error)
        case let error as ForceTraceError: plain = error
        default: return error
        }
        // The user named the output, not the temporary it was written through.
        let name = TemporaryFiles.outputNames
        return ForceTraceError(file: name(plain.file), location: plain.location, name(plain.message), hint: plain.hint.map(name),
                               kind: plain.kind, errno: plain.errno)
    }
}
