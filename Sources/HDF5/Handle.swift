import CHDF5

/// Owns one HDF5 identifier and closes it exactly once: in `close()` or,
/// failing that, in `deinit`. Everything public holds one of these instead of
/// a raw `hid_t`.
final class Handle: @unchecked Sendable {
    private(set) var id: hid_t
    private let closer: (hid_t) -> herr_t
    private let kind: String
    /// The file path or display path, for messages.
    private let name: String
    /// The file's handle, for objects inside a file. Files close with
    /// H5F_CLOSE_STRONG, which closes every object in them, so once the
    /// file is closed these ids are void and must not be closed again.
    private let file: Handle?

    init(_ id: hid_t, kind: String, name: String, file: Handle? = nil, closer: @escaping (hid_t) -> herr_t) {
        self.id = id
        self.kind = kind
        self.name = name
        self.file = file
        self.closer = closer
    }

    var isOpen: Bool { id >= 0 && (file?.isOpen ?? true) }

    /// For file handles: writers of buffered rows (open columns), run before
    /// the file flushes or closes so that no buffered row is lost.
    private var flushers: [ObjectIdentifier: () throws -> Void] = [:]

    func register(_ owner: AnyObject, flusher: @escaping () throws -> Void) {
        withHDF5 { registerLocked(owner, flusher: flusher) }
    }

    /// `register`, for a caller that holds the HDF5 lock.
    func registerLocked(_ owner: AnyObject, flusher: @escaping () throws -> Void) {
        flushers[ObjectIdentifier(owner)] = flusher
    }

    /// For file handles: the threads storing `writeDeflated`'s chunks, once
    /// there are any. Read and set under the HDF5 lock.
    var deflatingWorkers: DeflatingWorkers?

    func unregister(_ owner: AnyObject) {
        withHDF5 { _ = flushers.removeValue(forKey: ObjectIdentifier(owner)) }
    }

    func runFlushers() throws {
        let pending = withHDF5 { Array(flushers.values) }
        for flusher in pending { try flusher() }
    }

    /// The identifier, or an error if this handle was already closed.
    func validID(_ context: String) throws -> hid_t {
        guard id >= 0 else {
            throw HDF5Error(function: kind, context: context, stack: ["the \(kind) was already closed"])
        }
        if let file, !file.isOpen {
            throw HDF5Error(function: kind, context: context, stack: ["its file was already closed"])
        }
        return id
    }

    /// Closes, even when writing the buffered rows fails (that error is
    /// then the one thrown): a file left open would be flushed again by
    /// HDF5's atexit cleanup.
    func close() throws {
        var flushError: (any Error)?
        do { try runFlushers() } catch { flushError = error }
        try withHDF5 {
            guard isOpen, !hdf5Poisoned else { id = -1; return }
            let status = closer(id)
            id = -1
            noteFailedClose(status)
            if let flushError { throw flushError }
            try checkStatus(status, "H5\(kind)close", name)
        }
    }

    /// HDF5 1.10.8 keeps a file whose close failed (ENOSPC while flushing)
    /// half-open, and its atexit cleanup then faults on it: the process must
    /// skip that cleanup. Not poisoned: the recorder still opens and marks
    /// its file after a failed compaction.
    private func noteFailedClose(_ status: herr_t) {
        if status < 0 { hdf5FileCloseFailed = true }
    }

    deinit {
        if isOpen { withHDF5 { if !hdf5Poisoned { noteFailedClose(closer(id)) } } }
    }
}
