import Foundation

/// Writes to a hidden temporary file beside `path` and moves it into place
/// only on `commit()`, so a failed or interrupted run never leaves a file
/// that looks complete and never harms the file already at `path`:
///
/// - without `replace`, `commit()` refuses a file that appeared at `path`
///   meanwhile (another process wrote it), instead of replacing it;
/// - with `replace`, the old file is replaced by one rename, never removed first;
/// - the temporary is fsynced before the rename and the directory after it;
/// - the temporary is removed on error, on SIGINT/SIGTERM/SIGHUP, and, after
///   a SIGKILL, by the next run writing `path` (see `TemporaryFiles`).
public final class AtomicOutput {
    public let path: String
    public let temporaryPath: String
    private let replace: Bool
    private var finished = false

    /// - Parameters:
    ///   - replace: allow replacing an existing file at `path` (`--force`).
    ///   - inputs: the files the command reads; `path` must not be one of them.
    public init(path: String, replace: Bool, inputs: [String] = []) throws {
        self.path = path
        self.replace = replace
        try OutputPath.check(path, replace: replace, inputs: inputs)
        if replace { try OutputPath.refuseIfHeld(path) }
        temporaryPath = TemporaryFiles.path(beside: path, kind: "partial")
        TemporaryFiles.removeStale(beside: path)
        TemporaryFiles.register(temporaryPath)
    }

    /// Moves the finished temporary file to `path`.
    /// - Throws: `InputError` when the temporary cannot be synced or moved,
    ///   or, without `replace`, when a file appeared at `path` meanwhile.
    public func commit() throws {
        defer { finished = true; TemporaryFiles.remove(temporaryPath) }
        try OutputPath.fsync(temporaryPath, output: path)
        if replace {
            try OutputPath.refuseIfHeld(path)
            guard rename(temporaryPath, path) == 0 else { throw writeError(path, "cannot move the finished file into place", errno: errno) }
        } else {
            try OutputPath.linkExclusively(temporaryPath, to: path)
        }
        try OutputPath.fsyncDirectory(of: path)
    }

    public func discard() {
        if !finished { TemporaryFiles.remove(temporaryPath) }
        finished = true
    }

    deinit { discard() }
}

/// A failed write of an output: names the file; ENOSPC and EDQUOT name the
/// device, since that is what the user must fix.
public func writeError(_ file: String, _ what: String, errno code: Int32) -> InputError {
    if code == ENOSPC || code == EDQUOT {
        return InputError(file: file, "\(what): no space left on the device holding \(file)",
                          hint: "free some space (or write elsewhere) and run again; no existing file was replaced")
    }
    return InputError(file: file, "\(what): \(String(cString: strerror(code)))")
}

/// Checks on output paths shared by every command that writes a file.
public enum OutputPath {
    /// Refuses an output that is a directory or a special file, that exists
    /// without `replace`, or that is the same file (inode) as one of `inputs`
    /// ("-" is standard input).
    public static func check(_ path: String, replace: Bool, inputs: [String] = []) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR: throw InputError(file: path, "is a directory; expected an output file path")
            case S_IFREG: break
            default:
                throw InputError(file: path, "is not a regular file (a device, FIFO or socket); forcetrace writes outputs through a temporary file and a rename",
                                 hint: "write to a regular file (export and simulate write to standard output without -o)")
            }
            if !replace { throw InputError(file: path, "already exists", hint: "pass --force to replace it") }
            for input in inputs where sameFile(info, input) {
                throw InputError(file: path, "is also an input (\(input == "-" ? "standard input" : input)); writing it would destroy what is being read",
                                 hint: "write to another file")
            }
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard access(directory.isEmpty ? "." : directory, W_OK | X_OK) == 0 else {
            throw InputError(file: path, "cannot be written: the directory \(directory) does not exist or is not writable")
        }
    }

    /// Whether `input` is the file described by `output`.
    static func sameFile(_ output: stat, _ input: String) -> Bool {
        var info = stat()
        let found = input == "-" ? fstat(STDIN_FILENO, &info) == 0 : stat(input, &info) == 0
        return found && info.st_dev == output.st_dev && info.st_ino == output.st_ino
    }

    /// Refuses to replace a file that another process has open through HDF5
    /// (which holds a flock on it: readers shared, writers exclusive) or
    /// that a running recorder holds. Taken before anything is truncated.
    /// The corresponding C function is `flock(2)`.
    public static func refuseIfHeld(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK else { return }
            throw InputError(file: path, "is open in another process (a reader or a recorder holds it); refusing to replace it",
                             hint: "close the program that has it open ('fuser -v \(path)' shows which), or write to another file")
        }
        flock(fd, LOCK_UN)
    }

    /// Moves `temporary` to `path` only if nothing is there: link(2) fails
    /// with EEXIST atomically, where a check and a rename would race.
    static func linkExclusively(_ temporary: String, to path: String) throws {
        if link(temporary, path) == 0 { return }
        let code = errno
        if code == EEXIST {
            throw InputError(file: path, "already exists: another process created it while this one was writing; it was left as it is",
                             hint: "pass --force to replace it, or write to another file")
        }
        // Filesystems without hard links (vfat, some FUSE): check, then rename.
        guard code == EPERM || code == EOPNOTSUPP || code == EMLINK else {
            throw writeError(path, "cannot move the finished file into place", errno: code)
        }
        if access(path, F_OK) == 0 {
            throw InputError(file: path, "already exists: another process created it while this one was writing; it was left as it is",
                             hint: "pass --force to replace it, or write to another file")
        }
        guard rename(temporary, path) == 0 else { throw writeError(path, "cannot move the finished file into place", errno: errno) }
    }

    /// Puts `file`'s data on disk before it is renamed into place.
    static func fsync(_ file: String, output: String) throws {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw writeError(output, "cannot reopen the finished temporary file", errno: errno) }
        defer { close(fd) }
        guard Foundation.fsync(fd) == 0 else { throw writeError(output, "cannot write the file to disk (fsync)", errno: errno) }
    }

    /// Makes a rename in `path`'s directory survive a crash.
    static func fsyncDirectory(of path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = Foundation.fsync(fd)
    }
}
