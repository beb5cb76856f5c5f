import Foundation

/// Writes to a temporary file in a private folder beside the output and
/// moves it into place only on `commit()`, so a failed or interrupted run
/// never leaves a file that looks complete and never harms the file already
/// there:
///
/// - the output is resolved first (`OutputTarget`): a link is written
///   through to the file it names, never replaced;
/// - the temporary cannot be hijacked (`TemporaryFile`: `mkdtemp`, 0700);
/// - without `replace`, `commit()` refuses a file that appeared at the
///   output meanwhile (another process wrote it), instead of replacing it;
/// - with `replace`, the old file is replaced by one rename, never removed
///   first, and the new file gets its mode (and owner, where allowed);
/// - a new file is 0666 minus the umask, or 0600 when `access` is
///   `.ownerOnly` (recordings that keep key codes as typed);
/// - the temporary is fsynced before the rename and the folder after it,
///   and either failing is an error (`FileDescriptor.sync`, one policy);
/// - the temporary is removed on error, on SIGINT/SIGTERM/SIGHUP, and, after
///   a SIGKILL, by the next run writing the output (see `TemporaryFiles`).
public final class AtomicOutput {
    /// The output as the user named it.
    public var path: String { target.requested }
    public let target: OutputTarget
    /// The file to write; it exists (empty, mode 0600) from `init` on.
    public var temporaryPath: String { temporary.path }
    /// Who may read the finished file. Settable until `commit()`: an import
    /// learns only at its end whether it holds key codes as typed.
    public var access: OutputAccess
    private let temporary: TemporaryFile
    private let replace: Bool
    private let refusingHeldFile: Bool
    private var finished = false

    /// - Parameters:
    ///   - replace: allow replacing an existing file at `path` (`--force`).
    ///   - inputs: the files the command reads; `path` must not be one of them.
    ///   - kind: what the temporary is for (its folder's name says it).
    public convenience init(path: String, replace: Bool, inputs: [String] = [], access: OutputAccess = .standard) throws {
        try self.init(path: path, replace: replace, inputs: inputs, access: access, kind: .partial, refusingHeldFile: true)
    }

    /// - Parameter refusingHeldFile: with `replace`, refuse a file another
    ///   process holds open. The recorder's compaction passes false: it
    ///   replaces its own live file, which readers following it may hold
    ///   (they keep reading the old inode).
    init(path: String, replace: Bool, inputs: [String] = [], access: OutputAccess = .standard,
         kind: TemporaryFile.Kind, refusingHeldFile: Bool) throws {
        target = try OutputTarget.resolve(path, replace: replace, inputs: inputs)
        self.replace = replace
        self.access = access
        self.refusingHeldFile = replace && refusingHeldFile
        if self.refusingHeldFile { try OutputPath.refuseIfHeld(target.anchoredPath, shownAs: path) }
        TemporaryFiles.removeStale(in: target.folder, outputName: target.name)
        temporary = try TemporaryFiles.create(in: target.folder, name: target.name, kind: kind, shownAs: path)
    }

    /// Moves the finished temporary file to the output.
    /// - Throws: `ForceTraceError` when the temporary cannot be synced or
    ///   moved, or, without `replace`, when a file appeared there meanwhile.
    public func commit() throws {
        defer { finished = true; TemporaryFiles.remove(temporary) }
        let file: FileDescriptor
        do { file = try FileDescriptor.open(temporary.path, O_RDONLY | O_NOFOLLOW) } catch {
            throw writeError(path, "cannot reopen the finished temporary file", error)
        }
        defer { file.closeIgnoringErrors() }
        do { try file.sync() } catch { throw writeError(path, "cannot write the file to disk (fsync)", error) }
        let replaced = replace ? (try? target.folder.entryStatus(target.name)).flatMap { ($0.st_mode & S_IFMT) == S_IFREG ? $0 : nil } : nil
        do { try file.setMode(access.mode(replacing: replaced?.st_mode)) } catch {
            throw writeError(path, "cannot set the file's mode", error)
        }
        // Another user's file keeps its owner (root replacing it), except
        // when it would then hold key presses as typed.
        if let replaced, access == .standard, replaced.st_uid != geteuid() || replaced.st_gid != getegid() {
            try? file.setOwner(geteuid() == 0 ? replaced.st_uid : uid_t.max, group: replaced.st_gid)
        }
        // Both folders are held open: the move lands in the folder that was
        // checked, whatever was done to its path since.
        let from = temporary.holder.descriptor, into = target.folder.descriptor
        if replace {
            if refusingHeldFile { try OutputPath.refuseIfHeld(target.anchoredPath, shownAs: path) }
            do { try Syscall.rename(temporary.name, in: from, to: target.name, in: into) } catch {
                throw writeError(path, "cannot move the finished file into place", error)
            }
        } else {
            try OutputPath.linkExclusively(temporary.name, in: from, to: target.name, in: into, shownAs: path)
        }
        try OutputPath.syncDirectory(target.folder, shownAs: path)
    }

    public func discard() {
        if !finished { TemporaryFiles.remove(temporary) }
        finished = true
    }

    deinit { discard() }
}

/// Who may read an output file.
public enum OutputAccess: Sendable, Equatable {
    /// 0666 minus the umask, as any new file; a replaced file's mode is kept.
    case standard
    /// 0600, whatever the umask; a replaced file's mode keeps only its
    /// owner's bits. For recordings that hold key presses as typed.
    case ownerOnly

    /// The process's umask, read once (reading it means setting it).
    private static let umaskBits: mode_t = {
        let bits = umask(0o022)
        umask(bits)
        return bits
    }()

    /// The mode of the finished file; `replacing` is the replaced file's mode.
    func mode(replacing: mode_t?) -> mode_t {
        let permissions = replacing.map { $0 & 0o777 } ?? (0o666 & ~Self.umaskBits)
        return self == .ownerOnly ? permissions & 0o600 : permissions
    }
}

/// An output as the user named it and the file that will be written: the
/// path itself, or, when it is a symbolic link, the existing regular file
/// the link names (written through, as `cp` and shells do; the link stays).
/// Its folder is held open (`FolderWalk`), and everything after the walk
/// is done relative to it.
public struct OutputTarget: Sendable {
    /// As given, for messages.
    public let requested: String
    /// The folder of the file that is created or replaced, held open.
    public let folder: OpenedFolder
    /// The file's name in `folder`.
    public let name: String
    /// Whether a file is there now (to be replaced with `--force`).
    public let exists: Bool

    /// The file that is created or replaced, every link resolved, for messages.
    public var path: String { folder.shown(name) }
    /// The same file as a path through the held folder (`OpenedFolder.anchor`).
    public var anchoredPath: String { folder.anchored(name) }

    /// Resolves `requested` and refuses what cannot be an output: an empty
    /// path; a dangling link; a link anywhere on the way, in a sticky
    /// world-writable folder (such as /tmp), that neither this user nor the
    /// folder's owner owns, which the kernel's `fs.protected_symlinks` would
    /// not follow either (`FolderWalk`); a folder, a device, FIFO or socket;
    /// an existing file without `replace`; the same file (inode) as one of
    /// `inputs` ("-" is standard input); a folder that cannot be written.
    public static func resolve(_ requested: String, replace: Bool, inputs: [String] = []) throws -> OutputTarget {
        guard !requested.isEmpty else {
            throw ForceTraceError(file: "(empty path)", "the output path is empty", hint: "name a file, e.g. -o out.h5")
        }
        guard requested != "-" else {
            throw ForceTraceError(file: "-", "standard output cannot take this output: it is written to a file and moved into place when complete",
                                  hint: "name a file; 'export', 'simulate' and 'suggest' write to standard output with '-o -'")
        }
        // What the path names, as the kernel sees it (through every link,
        // magic /proc links included): a folder or special file is refused
        // before any link is read.
        let found = try? Syscall.status(requested)
        let exists = found != nil
        if let info = found {
            switch info.st_mode & S_IFMT {
            case S_IFDIR: throw ForceTraceError(file: requested, "is a directory; expected an output file path")
            case S_IFREG: break
            default:
                throw ForceTraceError(file: requested, "is not a regular file (a device, FIFO or socket); forcetrace writes outputs through a temporary file and a rename",
                                      hint: "write to a regular file, or to standard output with '-o -' where the command allows it")
            }
            if !replace {
                // --force would be refused too: say what holds it instead.
                if OutputPath.isHeld(requested) {
                    throw ForceTraceError(file: requested, "already exists, and is open in another process (a running recorder or a reader)",
                                          hint: "let that process finish ('fuser -v \(requested)' shows which), or write to another file")
                }
                throw ForceTraceError(file: requested, "already exists", hint: "pass --force to replace it")
            }
            for input in inputs where OutputPath.sameFile(info, input) {
                throw ForceTraceError(file: requested, "is also an input (\(input == "-" ? "standard input" : input)); writing it would destroy what is being read",
                                      hint: "write to another file")
            }
        }
        // The file to replace or create: the end of the chain of links,
        // each followed by the same walk as the folders.
        var (directory, name) = TemporaryFiles.split(requested)
        guard !name.isEmpty, name != ".", name != ".." else {
            throw ForceTraceError(file: requested, "names a folder; expected an output file path")
        }
        var links = 0
        var folder = try FolderWalk.open(directory, shownAs: requested, links: &links)
        var isLink = false
        while let link = try? folder.entryStatus(name), (link.st_mode & S_IFMT) == S_IFLNK {
            isLink = true
            links += 1
            guard links <= FolderWalk.maximumLinks else { throw writeError(requested, "cannot be resolved", errno: ELOOP) }
            try refuseUnprotectedLink(folder.shown(name), owner: link.st_uid, in: folder, requested: requested)
            let bytes: [UInt8]
            do { bytes = try folder.descriptor.entryLinkText(name) } catch { throw writeError(requested, "cannot read the link", error) }
            let destination = String(decoding: bytes, as: UTF8.self)
            (directory, name) = TemporaryFiles.split(destination)
            do { folder = try FolderWalk.open(directory, shownAs: requested, from: folder, links: &links) } catch where !exists {
                let shown = destination.hasPrefix("/") ? destination : folder.shown(destination)
                throw danglingLink(requested, to: shown)
            }
            guard !name.isEmpty, name != ".", name != ".." else {
                throw ForceTraceError(file: requested, "is a link to a folder (\(destination)); expected an output file path")
            }
        }
        let path = folder.shown(name)
        if isLink, !exists { throw danglingLink(requested, to: path) }
        if let info = found, (try? folder.entryStatus(name)).map({ $0.st_ino != info.st_ino || $0.st_dev != info.st_dev }) ?? true {
            throw ForceTraceError(file: requested, "is a link that does not resolve to a path (\(path))", hint: "name the file itself")
        }
        try OutputPath.requireWritable(folder, shownAs: requested)
        return OutputTarget(requested: requested, folder: folder, name: name, exists: exists)
    }

    private static func danglingLink(_ requested: String, to path: String) -> ForceTraceError {
        ForceTraceError(file: requested, "is a symbolic link to \(path), which does not exist; forcetrace writes through a link only to an existing file",
                        hint: "create the file first, remove the link, or write to \(path) itself")
    }

    /// The last component's link, by `FolderWalk`'s rule (a rename never
    /// follows the link it replaces, so the kernel's rule never applies here).
    private static func refuseUnprotectedLink(_ link: String, owner: uid_t, in folder: OpenedFolder, requested: String) throws {
        guard let info = try? folder.descriptor.status(),
              !FolderWalk.mayFollow(linkOwner: owner, folderMode: info.st_mode, folderOwner: info.st_uid, follower: geteuid()) else { return }
        throw ForceTraceError(file: requested, "is a symbolic link (\(link)) owned by another user (uid \(owner)) in the shared folder \(folder.path); forcetrace does not write through it",
                              hint: "remove the link, or name the file it points to yourself")
    }
}

/// A failed write of an output: names the file; ENOSPC and EDQUOT name the
/// device, since that is what the user must fix.
/// - Parameter folder: where the bytes went when that is not beside `file`
///   (a temporary in TMPDIR): a full disk is named by it.
public func writeError(_ file: String, _ what: String, errno code: Int32, folder: String? = nil) -> ForceTraceError {
    if code == ENOSPC || code == EDQUOT {
        if let folder {
            return ForceTraceError(file: file, "\(what): no space left on the device holding \(folder), where its temporary copy is written",
                                   hint: "free some space there (df -h \(folder)), or set TMPDIR to a folder with room, and run again",
                                   kind: .output, errno: code)
        }
        return ForceTraceError(file: file, "\(what): no space left on the device holding \(file)",
                               hint: "free some space (or write elsewhere) and run again; no existing file was replaced",
                               kind: .output, errno: code)
    }
    if code == EROFS {
        return ForceTraceError(file: file, "\(what): \(folder ?? TemporaryFiles.split(file).directory) is on a read-only file system",
                               hint: "write to a writable file system", kind: .output, errno: code)
    }
    return ForceTraceError(file: file, "\(what): \(String(cString: strerror(code)))", kind: .output, errno: code)
}

/// `writeError` for a failed call of the funnel.
public func writeError(_ file: String, _ what: String, _ error: SystemCallError) -> ForceTraceError {
    writeError(file, what, errno: error.errno)
}

/// Checks on output paths shared by every command that writes a file.
public enum OutputPath {
    /// Refuses what cannot be the output `path` (see `OutputTarget.resolve`):
    /// the early check commands make before their work.
    public static func check(_ path: String, replace: Bool, inputs: [String] = []) throws {
        _ = try OutputTarget.resolve(path, replace: replace, inputs: inputs)
    }

    /// Whether two outputs of one command name one file: one name in one
    /// folder (the same device and inode, reached by `FolderWalk` as the
    /// output will be, so links and `..` do not hide it; the file need not
    /// exist yet), or the same existing file (a hard link). Checked before
    /// either is written.
    public static func areOneFile(_ first: String, _ second: String) -> Bool {
        if let one = try? Syscall.status(first), let other = try? Syscall.status(second),
           one.st_dev == other.st_dev && one.st_ino == other.st_ino { return true }
        guard let one = try? place(first), let other = try? place(second) else { return first == second }
        return one == other
    }

    /// Where `path` would be written: its folder's device and inode and the
    /// name in it, after the links to an existing file are followed.
    static func place(_ path: String) throws -> [UInt64] {
        let target = try OutputTarget.resolve(path, replace: true)
        let folder = try target.folder.descriptor.status()
        return [UInt64(folder.st_dev), UInt64(folder.st_ino)] + target.name.utf8.map(UInt64.init)
    }

    /// Refuses a folder this user cannot create files in, saying why:
    /// a read-only file system is not a permission problem.
    static func requireWritable(_ folder: OpenedFolder, shownAs: String) throws {
        do { try Syscall.access(folder.anchor, W_OK | X_OK) } catch {
            switch error.errno {
            case EROFS:
                throw ForceTraceError(file: shownAs, "cannot be written: the folder \(folder.path) is on a read-only file system",
                                      hint: "write the output to a writable file system (or remount this one read-write)", kind: .output, errno: EROFS)
            case EACCES, EPERM:
                throw ForceTraceError(file: shownAs, "cannot be written: the folder \(folder.path) is not writable by this user (permission denied)",
                                      hint: "check its permissions (ls -ld \(folder.path)), or write to another folder", kind: .output, errno: error.errno)
            default:
                throw writeError(shownAs, "cannot be written: the folder \(folder.path)", error)
            }
        }
    }

    /// Whether `input` is the file described by `output`.
    static func sameFile(_ output: stat, _ input: String) -> Bool {
        guard let info = try? (input == "-" ? FileDescriptor.standardInput.status() : Syscall.status(input)) else { return false }
        return info.st_dev == output.st_dev && info.st_ino == output.st_ino
    }

    /// Refuses to replace a file that another process has open through HDF5
    /// (which holds a flock on it: readers shared, writers exclusive) or
    /// that a running recorder holds. Taken before anything is truncated.
    /// - Parameter shownAs: the output as the user named it, for messages.
    /// The corresponding C function is `flock(2)`.
    public static func refuseIfHeld(_ path: String, shownAs: String? = nil) throws {
        guard isHeld(path) else { return }
        throw ForceTraceError(file: shownAs ?? path, "is open in another process (a reader or a recorder holds it); refusing to replace it",
                              hint: "close the program that has it open ('fuser -v \(shownAs ?? path)' shows which), or write to another file")
    }

    /// Whether another open file holds a flock on the regular file `path`
    /// (an exclusive one cannot be taken now, EWOULDBLOCK).
    static func isHeld(_ path: String) -> Bool {
        guard let file = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK) else { return false }
        defer { file.closeIgnoringErrors() }
        guard let info = try? file.status(), (info.st_mode & S_IFMT) == S_IFREG else { return false }
        do { try file.lock(LOCK_EX | LOCK_NB) } catch { return error.errno == EWOULDBLOCK }
        try? file.lock(LOCK_UN)
        return false
    }

    /// Moves `name` in the folder `from` to `newName` in `into` only if
    /// nothing is there: link(2) fails with EEXIST atomically, where a check
    /// and a rename would race, and never follows a link planted meanwhile.
    /// - Parameter hardLink: `Syscall.link`; tests pass one that fails as vfat's does.
    static func linkExclusively(_ name: String, in from: FileDescriptor, to newName: String, in into: FileDescriptor, shownAs: String,
                                hardLink: (String, FileDescriptor, String, FileDescriptor) throws(SystemCallError) -> Void = {
                                    try Syscall.link($0, in: $1, to: $2, in: $3)
                                }) throws {
        let code: Int32
        do { try hardLink(name, from, newName, into); return } catch { code = error.errno }
        let appeared = ForceTraceError(file: shownAs, "already exists: another process created it while this one was writing; it was left as it is",
                                       hint: "pass --force to replace it, or write to another file")
        if code == EEXIST { throw appeared }
        // Filesystems without hard links (vfat, some FUSE): check, then rename.
        guard code == EPERM || code == EOPNOTSUPP || code == EMLINK else {
            throw writeError(shownAs, "cannot move the finished file into place", errno: code)
        }
        if (try? into.entryStatus(newName)) != nil { throw appeared }
        do { try Syscall.rename(name, in: from, to: newName, in: into) } catch { throw writeError(shownAs, "cannot move the finished file into place", error) }
    }

    /// Makes a rename in `folder` survive a crash, with the same
    /// policy as the file's own fsync (`FileDescriptor.sync`): a failed
    /// fsync is an error, since the new name may be lost in a crash while
    /// the command said it was written. A folder this user may write but not
    /// read (mode -wx) cannot be opened to sync: nothing can be done there.
    /// - Parameter shownAs: the output as the user named it, for messages.
    static func syncDirectory(_ held: OpenedFolder, shownAs: String) throws {
        let directory = held.path
        guard let folder = try? held.descriptor.openEntry(".", O_RDONLY | O_DIRECTORY) else { return }
        defer { folder.closeIgnoringErrors() }
        // Not `writeError`: its ENOSPC hint says nothing was replaced, and here the rename is done.
        do { try folder.sync() } catch {
            throw ForceTraceError(file: shownAs, "is in place, but its folder \(directory) could not be written to disk (fsync: \(error.reason)), so a crash may lose it",
                                  hint: "check the device (dmesg shows I/O errors), then run again")
        }
    }
}
