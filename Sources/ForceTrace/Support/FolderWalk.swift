import Foundation

/// A folder held open (`O_PATH`), reached by `FolderWalk`: what is created
/// in it or published to it goes through this descriptor (`openat`,
/// `renameat`, `linkat`), so a component of its path swapped for a link
/// afterwards redirects nothing. Closed when the last reference goes.
public final class OpenedFolder: Sendable {
    let descriptor: FileDescriptor
    /// Its path, every link on the way resolved, for messages.
    public let path: String

    init(_ descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// A path naming this very folder, for what must be given a path (HDF5
    /// opens its files by name, `mkdtemp` takes a template): the kernel
    /// resolves `/proc/self/fd/N` to the held folder, not to its old path.
    var anchor: String { InputPath.prefix + String(descriptor.raw) }

    /// `name` in this folder as a path through `anchor`.
    func anchored(_ name: String) -> String { anchor + "/" + name }

    /// `name` in this folder as people see it.
    func shown(_ name: String) -> String { FolderWalk.join(path, name) }

    /// What `name` in this folder is, a link itself rather than its target.
    func entryStatus(_ name: String) throws(SystemCallError) -> stat { try descriptor.entryStatus(name) }

    deinit { descriptor.closeIgnoringErrors() }
}

/// The one walk from a path to the folder an output, or a temporary, is
/// written in: one component at a time, each opened relative to the one
/// before (`openat` with `O_PATH|O_NOFOLLOW|O_DIRECTORY`), every symbolic
/// link met read (`readlinkat`) and walked the same way after the kernel's
/// `fs.protected_symlinks` rule is applied to it (`mayFollow`). The kernel
/// applies that rule only where the sysctl is on; forcetrace, often run as
/// root, applies it everywhere, to every component and not only the last.
enum FolderWalk {
    /// Links followed before giving up (the kernel's limit, `ELOOP`).
    static let maximumLinks = 40

    /// The device of /proc: its links (`/proc/self/fd/N`, `/proc/self/cwd`)
    /// name open files, not paths, and only the kernel can follow them.
    static let procDevice: dev_t? = (try? Syscall.status("/proc/self/fd"))?.st_dev

    /// The kernel's `fs.protected_symlinks` rule: a link in a sticky
    /// world-writable folder (such as /tmp) is followed only when its owner
    /// is the follower or the folder's owner; elsewhere links are followed.
    static func mayFollow(linkOwner: uid_t, folderMode: mode_t, folderOwner: uid_t, follower: uid_t) -> Bool {
        let shared = folderMode & S_ISVTX != 0 && folderMode & S_IWOTH != 0
        return !shared || linkOwner == follower || linkOwner == folderOwner
    }

    /// Opens the folder `path` (relative paths from `start`, or the current
    /// folder without one).
    /// - Parameters:
    ///   - shownAs: the path the user gave, which errors name first.
    ///   - links: links followed so far (a chain of output links shares the limit).
    /// - Throws: a `ForceTraceError` naming the path, the component or the
    ///   refused link and its owner, and what to do.
    static func open(_ path: String, shownAs: String, from start: OpenedFolder? = nil, links: inout Int) throws -> OpenedFolder {
        var current: OpenedFolder
        if path.hasPrefix(InputPath.prefix) {
            // A name that is not UTF-8 (`InputPath`): its folder is held open already.
            let rest = path.dropFirst(InputPath.prefix.count)
            let number = rest.prefix(while: { $0.isNumber })
            let token = InputPath.prefix + number
            let descriptor: FileDescriptor
            do { descriptor = try FileDescriptor.open(String(token), InputPath.openPathOnly | O_DIRECTORY) } catch {
                throw walkError(shownAs, "cannot open the folder \(InputPath.displayName(String(token)))", error)
            }
            current = OpenedFolder(descriptor, path: InputPath.displayName(String(token)))
            return try walk(String(rest.dropFirst(number.count)), from: current, shownAs: shownAs, links: &links)
        }
        if path.hasPrefix("/") {
            current = try root(shownAs)
        } else if let start {
            current = start
        } else {
            do { current = OpenedFolder(try FileDescriptor.open(".", InputPath.openPathOnly | O_DIRECTORY), path: ".") } catch {
                throw walkError(shownAs, "cannot open the current folder", error)
            }
        }
        return try walk(path, from: current, shownAs: shownAs, links: &links)
    }

    private static func root(_ shownAs: String) throws -> OpenedFolder {
        do { return OpenedFolder(try FileDescriptor.open("/", InputPath.openPathOnly | O_DIRECTORY), path: "/") } catch {
            throw walkError(shownAs, "cannot open the root folder", error)
        }
    }

    private static func walk(_ path: String, from start: OpenedFolder, shownAs: String, links: inout Int) throws -> OpenedFolder {
        var current = start
        // Components still to walk, the next last.
        var pending = components(path).reversed() as [String]
        while let name = pending.popLast() {
            if name == "." { continue }
            if name == ".." {
                current = try step(current, "..", shownAs: shownAs, shownPath: parent(current.path))
                continue
            }
            let here = current.shown(name)
            let info: stat
            do { info = try current.entryStatus(name) } catch {
                if error.errno == ENOENT {
                    throw ForceTraceError(file: shownAs, "cannot be written: the folder \(here) does not exist",
                                          hint: "create it first (mkdir -p), or write to another folder", kind: .output, errno: ENOENT)
                }
                throw walkError(shownAs, "cannot be written: the folder \(here) cannot be reached", error)
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                current = try step(current, name, shownAs: shownAs, shownPath: here)
            case S_IFLNK:
                links += 1
                guard links <= maximumLinks else { throw walkError(shownAs, "cannot be resolved: more than \(maximumLinks) links", errno: ELOOP) }
                try refuseUnprotectedLink(here, owner: info.st_uid, in: current, shownAs: shownAs)
                if let proc = procDevice, (try? current.descriptor.status())?.st_dev == proc {
                    // /proc's links name open files: only the kernel can follow them.
                    let text = (try? current.descriptor.entryLinkText(name)).map { String(decoding: $0, as: UTF8.self) } ?? here
                    current = try step(current, name, shownAs: shownAs, shownPath: text, following: true)
                    continue
                }
                let bytes: [UInt8]
                do { bytes = try current.descriptor.entryLinkText(name) } catch { throw walkError(shownAs, "cannot read the link \(here)", error) }
                guard let text = String(validating: bytes, as: UTF8.self), !text.isEmpty else {
                    throw ForceTraceError(file: shownAs, "cannot be written: the link \(here) points to a name that is not UTF-8 text (\(TerminalText.escape(bytes: bytes)))",
                                          hint: "name the folder it points to yourself", kind: .output)
                }
                if text.hasPrefix("/") { current = try root(shownAs) }
                pending += components(text).reversed()
            default:
                throw ForceTraceError(file: shownAs, "cannot be written: \(here) is not a folder", hint: "name a path whose folders exist", kind: .output, errno: ENOTDIR)
            }
        }
        return current
    }

    /// Opens `name` in `folder` as a folder; a link put there since it was
    /// looked at is refused (`O_NOFOLLOW`), unless `following` one of /proc's.
    private static func step(_ folder: OpenedFolder, _ name: String, shownAs: String, shownPath: String, following: Bool = false) throws -> OpenedFolder {
        let flags = InputPath.openPathOnly | O_DIRECTORY | (following ? 0 : O_NOFOLLOW)
        do { return OpenedFolder(try folder.descriptor.openEntry(name, flags), path: shownPath) } catch {
            if error.errno == ENOTDIR || error.errno == ELOOP {
                throw ForceTraceError(file: shownAs, "cannot be written: \(shownPath) changed while it was opened, or is not a folder",
                                      hint: "run again; if it keeps changing, another process is swapping it", kind: .output, errno: error.errno)
            }
            throw walkError(shownAs, "cannot be written: cannot open the folder \(shownPath)", error)
        }
    }

    /// Refuses the link `link` in `folder` that `mayFollow` would not follow.
    static func refuseUnprotectedLink(_ link: String, owner: uid_t, in folder: OpenedFolder, shownAs: String) throws {
        guard let info = try? folder.descriptor.status(),
              !mayFollow(linkOwner: owner, folderMode: info.st_mode, folderOwner: info.st_uid, follower: geteuid()) else { return }
        throw ForceTraceError(file: shownAs, "is reached through a symbolic link (\(link)) owned by another user (uid \(owner)) in the shared folder \(folder.path); forcetrace does not follow it",
                              hint: "remove the link, or name the folder or file it points to yourself", kind: .output)
    }

    /// The components of `path`, empty ones (from `//` or a trailing `/`) left out.
    static func components(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// `name` in the folder `folder`, as people see it.
    static func join(_ folder: String, _ name: String) -> String {
        folder == "." ? name : folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The folder above `path` (its links already resolved), as people see it.
    static func parent(_ path: String) -> String {
        if path == "/" { return "/" }
        if path == "." { return ".." }
        if path == ".." || path.hasSuffix("/..") { return path + "/.." }
        return TemporaryFiles.split(path).directory
    }

    private static func walkError(_ file: String, _ what: String, _ error: SystemCallError) -> ForceTraceError {
        walkError(file, what, errno: error.errno)
    }

    private static func walkError(_ file: String, _ what: String, errno code: Int32) -> ForceTraceError {
        ForceTraceError(file: file, "\(what): \(String(cString: strerror(code)))", kind: .output, errno: code)
    }
}
