import CHDF5
import Foundation

/// An HDF5 call failed. `stack` holds HDF5's own error stack, innermost
/// cause last, so the user sees why and not just which call; `kind` says
/// what went wrong, classified from the stack's error codes and errno.
public struct HDF5Error: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for the message the user gets.
    public enum Kind: Sendable, Equatable {
        /// ENOSPC or EDQUOT while writing.
        case noSpace
        /// EACCES, EPERM or EROFS.
        case permissionDenied
        /// Another process holds HDF5's lock on the file (`H5E_CANTLOCKFILE`).
        case locked
        /// The file ends before the end its superblock records (`H5E_TRUNCATED`).
        case truncated
        /// ENOENT.
        case notFound
        /// Any other failure: a damaged file, or a bad request.
        case other
    }

    /// The C function that failed, such as `H5Fopen`.
    public let function: String
    /// What we were doing, such as the file or dataset path.
    public let context: String
    /// HDF5's error stack, joined top (outermost) to bottom.
    public let stack: [String]
    public let kind: Kind
    /// The operating system's error, when HDF5 (or the call) reported one.
    public let errno: Int32?

    public init(function: String, context: String, stack: [String], kind: Kind = .other, errno: Int32? = nil) {
        self.function = function
        self.context = context
        self.stack = stack
        self.kind = kind
        self.errno = errno
    }

    /// A failed system call made by this layer (fsync, open), classified by errno.
    init(function: String, context: String, errno code: Int32) {
        self.init(function: function, context: context, stack: [String(cString: strerror(code))],
                  kind: Self.kind(errno: code) ?? .other, errno: code)
    }

    public var description: String {
        var text = "\(function) failed"
        if !context.isEmpty { text += " for \(context)" }
        if !stack.isEmpty { text += ": " + stack.joined(separator: " <- ") }
        return text
    }

    /// The file the failure concerns: the part of `context` before the
    /// object path, as `File.root` builds display paths ("FILE:/group").
    public var file: String {
        guard let separator = context.range(of: ":/") else { return context }
        return String(context[..<separator.lowerBound])
    }

    /// The innermost cause, where HDF5 says what it found wrong, such as
    /// "inflate() failed (H5Z__filter_deflate)".
    public var innermostCause: String { stack.last ?? "\(function) failed" }

    /// Whether HDF5 found the file shorter than its superblock says.
    public var isTruncation: Bool { kind == .truncated }

    static func kind(errno code: Int32) -> Kind? {
        switch code {
        case ENOSPC, EDQUOT: .noSpace
        case EACCES, EPERM, EROFS: .permissionDenied
        case ENOENT: .notFound
        default: nil
        }
    }

    /// One entry of HDF5's error stack.
    private struct Entry {
        var major: hid_t
        var minor: hid_t
        var text: String
    }

    /// Reads and clears the current thread's HDF5 error stack, and
    /// classifies it: errno first (HDF5's file drivers write "errno = N"
    /// into the entry's description), then the minor codes.
    static func capture(_ function: String, _ context: String) -> HDF5Error {
        var entries: [Entry] = []
        withUnsafeMutablePointer(to: &entries) { pointer in
            _ = H5Ewalk2(CHDF5_E_DEFAULT(), H5E_WALK_DOWNWARD, { _, entry, clientData in
                guard let entry, let clientData else { return 0 }
                let description = entry.pointee.desc.map { String(cString: $0) } ?? ""
                let function = entry.pointee.func_name.map { String(cString: $0) } ?? ""
                clientData.assumingMemoryBound(to: [Entry].self).pointee.append(
                    Entry(major: entry.pointee.maj_num, minor: entry.pointee.min_num,
                          text: description.isEmpty ? function : "\(description) (\(function))"))
                return 0
            }, pointer)
        }
        H5Eclear2(CHDF5_E_DEFAULT())
        let code = entries.lazy.compactMap { reportedErrno($0.text) }.last
        var kind = code.flatMap { Self.kind(errno: $0) }
        if kind == nil {
            let minors = Set(entries.map(\.minor))
            if minors.contains(CHDF5_E_CANTLOCKFILE()) {
                kind = .locked
            } else if minors.contains(CHDF5_E_TRUNCATED()) {
                kind = .truncated
            } else if let code, code == EAGAIN || code == EWOULDBLOCK, minors.contains(CHDF5_E_CANTOPENFILE()) {
                kind = .locked
            }
        }
        return HDF5Error(function: function, context: context, stack: entries.map(\.text), kind: kind ?? .other, errno: code)
    }

    /// The N in "errno = N", as HDF5's sec2 driver words its failures.
    private static func reportedErrno(_ text: String) -> Int32? {
        guard let range = text.range(of: "errno = ") else { return nil }
        return Int32(text[range.upperBound...].prefix { $0.isNumber })
    }
}

/// Checks an `hid_t` result, the way every HDF5 call is checked here.
@inline(__always)
func checkID(_ id: hid_t, _ function: String, _ context: String) throws -> hid_t {
    if id < 0 { throw HDF5Error.capture(function, context) }
    return id
}

/// Checks an `herr_t` (or other signed status) result.
@inline(__always)
func checkStatus<T: BinaryInteger>(_ status: T, _ function: String, _ context: String) throws {
    if status < 0 { throw HDF5Error.capture(function, context) }
}
