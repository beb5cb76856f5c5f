import CHDF5
import Foundation

/// Serializes every call into HDF5. Debian's libhdf5 is built without
/// thread safety, so two threads must never be inside it at once (the same
/// reason h5py holds its global `phil` lock).
let hdf5Lock = NSRecursiveLock()

/// Set when HDF5 faulted inside a call (a damaged file, see
/// `CHDF5Guard_Dread`): its state is undefined, so handles are no longer
/// closed and the process should end with `_exit`, skipping HDF5's atexit.
nonisolated(unsafe) var hdf5Poisoned = false

/// Whether HDF5 faulted on a damaged file; see `hdf5Poisoned`.
public var hdf5IsPoisoned: Bool { withHDF5 { hdf5Poisoned } }

/// When true (the command line tool sets it), a fault inside a guarded
/// read ends the process from C at once, with one line on stderr and status
/// 1. The fault can come after HDF5 already wrote past a buffer (a heap
/// object's damaged size): unwinding, or even malloc, may then crash.
nonisolated(unsafe) public var hdf5ExitOnFault = false

/// Runs a guarded read, handing it the line to print if it faults and
/// `hdf5ExitOnFault` is set; marks HDF5 poisoned when it faulted (-2).
func guardedRead(_ fault: HDF5Error, _ read: (UnsafePointer<CChar>?) -> Int32) -> Int32 {
    let status: Int32
    if hdf5ExitOnFault {
        // The rendering of ForceTraceError for damage, which this layer cannot import.
        status = "Error: \(fault.file): the file is damaged and HDF5 cannot read it (\(fault.innermostCause))\n".withCString(read)
    } else {
        status = read(nil)
    }
    if status == -2 { hdf5Poisoned = true }
    return status
}

/// The cause a guarded read reports when HDF5 faulted.
let damagedHeapCause = "variable-length strings point into a damaged global heap"

/// Set when closing a file or an object in it failed (a write error such
/// as a full disk):
/// HDF5 keeps the half-closed file in its list, and its atexit cleanup
/// then crashes retrying it. Handles stay usable.
nonisolated(unsafe) var hdf5FileCloseFailed = false

/// Whether the process must end with `_exit`, skipping HDF5's atexit
/// cleanup: after a fault (`hdf5IsPoisoned`) or a failed file close.
public var hdf5SkipsExitCleanup: Bool { withHDF5 { hdf5Poisoned || hdf5FileCloseFailed } }

/// Runs `body` under the HDF5 lock, after making sure the library is set up.
@inline(__always)
func withHDF5<T>(_ body: () throws -> T) rethrows -> T {
    hdf5Lock.lock()
    defer { hdf5Lock.unlock() }
    _ = libraryReady
    // A thread-safe libhdf5 (Debian's is) keeps the auto-print setting per
    // thread, so threads other than the first would print HDF5-DIAG dumps.
    H5Eset_auto2(CHDF5_E_DEFAULT(), nil, nil)
    return try body()
}

/// One-time setup: silence HDF5's own stack printer, since every failure is
/// turned into an `HDF5Error` that carries the stack as its message.
private let libraryReady: Bool = {
    H5open()
    H5Eset_auto2(CHDF5_E_DEFAULT(), nil, nil)
    return true
}()

/// The HDF5 library version, as "major.minor.release".
public var hdf5LibraryVersion: String {
    withHDF5 {
        var major: UInt32 = 0, minor: UInt32 = 0, release: UInt32 = 0
        H5get_libversion(&major, &minor, &release)
        return "\(major).\(minor).\(release)"
    }
}
