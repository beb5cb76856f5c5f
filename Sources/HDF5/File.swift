import CHDF5
import Foundation

/// An open HDF5 file. Close it with `close()`; `deinit` closes it otherwise.
public final class File: @unchecked Sendable {
    /// How to open an existing file.
    public enum Mode: Sendable {
        case readOnly
        case readWrite
        /// Read-only, for reading while a SWMR writer appends (`H5F_ACC_SWMR_READ`).
        case swmrRead
    }

    public let path: String
    let handle: Handle

    private init(path: String, id: hid_t) {
        self.path = path
        self.handle = Handle(id, kind: "F", name: path, closer: H5Fclose)
    }

    /// Creates a file, replacing any file at `path`.
    ///
    /// - Parameter latestFormat: use the newest file format (libver latest),
    ///   which single-writer/multiple-reader (SWMR) mode requires.
    /// The corresponding C function is `H5Fcreate`.
    public static func create(_ path: String, latestFormat: Bool = false) throws -> File {
        try withHDF5 {
            let fapl = try checkID(H5Pcreate(CHDF5_P_FILE_ACCESS()), "H5Pcreate", path)
            defer { H5Pclose(fapl) }
            if latestFormat {
                try checkStatus(H5Pset_libver_bounds(fapl, CHDF5_LIBVER_LATEST(), CHDF5_LIBVER_LATEST()),
                                "H5Pset_libver_bounds", path)
            }
            // Close everything the file owns when the file closes, so a
            // forgotten dataset handle cannot keep it half-open.
            try checkStatus(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "H5Pset_fclose_degree", path)
            let fcpl = try checkID(H5Pcreate(CHDF5_P_FILE_CREATE()), "H5Pcreate", path)
            defer { H5Pclose(fcpl) }
            if !latestFormat {
                // HDF5's default K of 32 gives every chunked dataset a 2 KB
                // chunk index node, even with one chunk: 63 KB of a short
                // recording's 97 KB (the newest format indexes differently).
                try checkStatus(H5Pset_istore_k(fcpl, File.chunkIndexK), "H5Pset_istore_k", path)
            }
            let id = try checkID(H5Fcreate(path, CHDF5_ACC_TRUNC(), fcpl, fapl), "H5Fcreate", path)
            return File(path: path, id: id)
        }
    }

    /// Half the entries of a chunk index B-tree node (`H5Pset_istore_k`) in
    /// files of the default format: 16 chunks a node, 1 M rows of 65536.
    public static let chunkIndexK: UInt32 = 8

    /// Metadata read attempts of a SWMR reader: enough to ride out a
    /// writer's flush in progress (each retry sleeps twice as long as the
    /// last, from 1 ms), few enough that a damaged checksum fails in well
    /// under a second.
    public static let swmrMetadataReadAttempts: UInt32 = 8

    /// Opens an existing file.
    /// The corresponding C function is `H5Fopen`.
    public static func open(_ path: String, mode: Mode = .readOnly) throws -> File {
        try withHDF5 {
            let fapl = try checkID(H5Pcreate(CHDF5_P_FILE_ACCESS()), "H5Pcreate", path)
            defer { H5Pclose(fapl) }
            try checkStatus(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "H5Pset_fclose_degree", path)
            let flags: UInt32
            switch mode {
            case .readOnly: flags = CHDF5_ACC_RDONLY()
            case .readWrite: flags = CHDF5_ACC_RDWR()
            case .swmrRead: flags = CHDF5_ACC_RDONLY() | CHDF5_ACC_SWMR_READ()
            }
            if mode == .swmrRead {
                // A SWMR reader retries a metadata read whose checksum fails
                // (the writer may be mid-write), by default 100 times with
                // doubling sleeps: a damaged file then hangs for minutes.
                try checkStatus(H5Pset_metadata_read_attempts(fapl, swmrMetadataReadAttempts), "H5Pset_metadata_read_attempts", path)
            }
            let id = try checkID(H5Fopen(path, flags, fapl), "H5Fopen", path)
            return File(path: path, id: id)
        }
    }

    /// Whether `path` starts with the HDF5 signature.
    /// - Throws: `HDF5Error` when the file cannot be read at all (permission denied, no such file).
    /// The corresponding C function is `H5Fis_hdf5`.
    public static func isHDF5(_ path: String) throws -> Bool {
        try withHDF5 {
            let status = H5Fis_hdf5(path)
            try checkStatus(status, "H5Fis_hdf5", path)
            return status > 0
        }
    }

    /// Whether the file's superblock says a writer has it open: the write or
    /// SWMR-write access flag of a version 2 or 3 superblock (the format a
    /// live recorder writes), as a running or killed writer leaves it. Such
    /// a file can be, for a moment, shorter than the end its superblock
    /// records (space allocated, not yet written): HDF5 calls that
    /// "truncated" on a plain open and skips the check for SWMR readers.
    /// Reads the superblock's first bytes at 0, 512, 1024, ... (the places
    /// the format allows) and nothing else.
    public static func superblockMarksWriter(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let signature: [UInt8] = [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]
        var offset: UInt64 = 0
        while offset <= 1 << 20 {
            guard (try? handle.seek(toOffset: offset)) != nil,
                  let head = try? handle.read(upToCount: 12), head.count == 12 else { return false }
            let bytes = [UInt8](head)
            if Array(bytes[0..<8]) == signature {
                // Version (byte 8) 2 or 3: byte 11 holds the file consistency flags,
                // bit 0 write access, bit 2 SWMR-write access.
                return bytes[8] >= 2 && bytes[11] & 0b101 != 0
            }
            offset = offset == 0 ? 512 : offset * 2
        }
        return false
    }

    /// The root group, "/".
    public var root: Group {
        get throws { try Group.open(in: handle, path: "/", displayPath: path + ":/") }
    }

    /// Writes buffered column rows and HDF5's buffers to the operating system. Does not call fsync:
    /// use `sync()` when the data must survive a crash of the machine.
    /// The corresponding C function is `H5Fflush`.
    public func flush() throws {
        try handle.runFlushers()
        try withHDF5 {
            try checkStatus(H5Fflush(try handle.validID(path), H5F_SCOPE_GLOBAL), "H5Fflush", path)
        }
    }

    /// Flushes, then asks the kernel to put the file on disk (fsync).
    /// It syncs HDF5's own descriptor, not `path`, which may have been
    /// renamed since (the recorder moves its file into place after creating it).
    /// The corresponding C functions are `H5Fget_vfd_handle` and `fsync(2)`.
    public func sync() throws {
        try flush()
        let fd: Int32 = try withHDF5 {
            var pointer: UnsafeMutableRawPointer?
            try checkStatus(H5Fget_vfd_handle(try handle.validID(path), CHDF5_P_DEFAULT(), &pointer), "H5Fget_vfd_handle", path)
            // The sec2 driver (the default) hands out a pointer to its int descriptor.
            guard let pointer else { throw HDF5Error(function: "H5Fget_vfd_handle", context: path, stack: ["no file descriptor"]) }
            return pointer.load(as: Int32.self)
        }
        guard fsync(fd) == 0 else {
            throw HDF5Error(function: "fsync", context: path, errno: errno)
        }
    }

    /// Switches a file made with `latestFormat: true` into SWMR write mode.
    /// Create every group, dataset and attribute first: SWMR forbids adding
    /// objects or attributes afterwards.
    /// The corresponding C function is `H5Fstart_swmr_write`.
    public func startSWMRWrite() throws {
        try withHDF5 {
            try checkStatus(H5Fstart_swmr_write(try handle.validID(path)), "H5Fstart_swmr_write", path)
        }
    }

    /// Size of the file in bytes, as HDF5 sees it.
    /// The corresponding C function is `H5Fget_filesize`.
    public func fileSize() throws -> UInt64 {
        try withHDF5 {
            var size: hsize_t = 0
            try checkStatus(H5Fget_filesize(try handle.validID(path), &size), "H5Fget_filesize", path)
            return UInt64(size)
        }
    }

    /// Closes the file, reporting any error HDF5 meets while writing it out.
    public func close() throws { try handle.close() }

    /// A file dropped unclosed (an error on the way) stores no more chunks,
    /// and waits for the workers still in HDF5 (`DeflatingWorkers`).
    deinit {
        withHDF5 { handle.deflatingWorkers }?.cancel()
    }
}
