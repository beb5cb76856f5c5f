import CHDF5

/// An HDF5 call failed. `message` holds HDF5's own error stack, innermost
/// cause last, so the user sees why and not just which call.
public struct HDF5Error: Error, CustomStringConvertible, Sendable {
    /// The C function that failed, such as `H5Fopen`.
    public let function: String
    /// What we were doing, such as the file or dataset path.
    public let context: String
    /// HDF5's error stack, joined top (outermost) to bottom.
    public let stack: [String]

    public var description: String {
        var text = "\(function) failed"
        if !context.isEmpty { text += " for \(context)" }
        if !stack.isEmpty { text += ": " + stack.joined(separator: " <- ") }
        return text
    }

    /// The innermost cause, where HDF5 says what it found wrong, such as
    /// "inflate() failed (H5Z__filter_deflate)".
    public var innermostCause: String { stack.last ?? "\(function) failed" }

    /// Whether HDF5 found the file shorter than its superblock says.
    public var isTruncation: Bool { stack.contains { $0.hasPrefix("truncated file") } }

    /// One line for users: what failed and why, without HDF5's call chain.
    public var userMessage: String {
        let what = context.isEmpty ? function : context
        return "\(what): the file is damaged and HDF5 cannot read it (\(innermostCause))"
    }

    /// Reads and clears the current thread's HDF5 error stack.
    static func capture(_ function: String, _ context: String) -> HDF5Error {
        var lines: [String] = []
        withUnsafeMutablePointer(to: &lines) { linesPointer in
            _ = H5Ewalk2(CHDF5_E_DEFAULT(), H5E_WALK_DOWNWARD, { _, entry, clientData in
                guard let entry, let clientData else { return 0 }
                let lines = clientData.assumingMemoryBound(to: [String].self)
                let description = entry.pointee.desc.map { String(cString: $0) } ?? ""
                let function = entry.pointee.func_name.map { String(cString: $0) } ?? ""
                lines.pointee.append(description.isEmpty ? function : "\(description) (\(function))")
                return 0
            }, linesPointer)
        }
        H5Eclear2(CHDF5_E_DEFAULT())
        return HDF5Error(function: function, context: context, stack: lines)
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
