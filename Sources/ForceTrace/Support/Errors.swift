import Foundation

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

    /// Any error as the user should see it: a lower layer's error in its
    /// `ForceTraceError` form (HDF5 failures classified), the project's own
    /// errors as they are.
    public static func userFacing(_ error: any Error) -> any Error {
        let plain: ForceTraceError
        switch error {
        case let error as any UserFacingError: plain = error.forceTraceError
        case let error as ForceTraceError: plain = error
        default: return error
        }
        // The user named the output, not the temporary it was written through.
        let name = TemporaryFiles.outputNames
        return ForceTraceError(file: name(plain.file), location: plain.location, name(plain.message), hint: plain.hint.map(name),
                               kind: plain.kind, errno: plain.errno)
    }
}

/// A lower layer's error that has one `ForceTraceError` form, which
/// `userFacing` shows. HDF5's conformance lives with the HDF5 code
/// (TraceFile/HDF5Errors.swift), so the parsers build without HDF5.
public protocol UserFacingError: Error {
    var forceTraceError: ForceTraceError { get }
}

extension SystemCallError: UserFacingError {
    public var forceTraceError: ForceTraceError { ForceTraceError(self) }
}
