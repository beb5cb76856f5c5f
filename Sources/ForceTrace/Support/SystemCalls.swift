import Foundation

/// A failed system or libevdev call: which call, on what, and errno. Users
/// see it as a `ForceTraceError` (`ForceTraceError(_:)`), the one rendering.
public struct SystemCallError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The C function, e.g. "open" or "libevdev_new_from_fd".
    public let function: String
    /// The path or device it was called on.
    public let path: String
    public let errno: Int32

    public init(function: String, path: String, errno: Int32) {
        self.function = function
        self.path = path
        self.errno = errno
    }

    /// strerror's text for `errno`.
    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { ForceTraceError(self).description }
}

/// An open file descriptor and the path it was opened on, for messages.
///
/// A copyable struct closed explicitly, not a ~Copyable owner: the
/// descriptors live in classes that close them in `deinit`, are polled in
/// arrays, cross to the evdev reader's thread and (the stop pipe) to a
/// signal handler, none of which a noncopyable value can do in Swift 6.
public struct FileDescriptor: Sendable, Equatable {
    public let raw: Int32
    /// As given to `open`, or a name ("standard input", "pipe").
    public let path: String

    public init(raw: Int32, path: String) {
        self.raw = raw
        self.path = path
    }

    public static let standardInput = FileDescriptor(raw: STDIN_FILENO, path: "standard input")
    public static let standardOutput = FileDescriptor(raw: STDOUT_FILENO, path: "standard output")
    public static let standardError = FileDescriptor(raw: STDERR_FILENO, path: "standard error")

    /// Whether it is a terminal.
    /// The corresponding C function is `isatty(3)`.
    public var isTerminal: Bool { Glibc.isatty(raw) == 1 }

    /// The corresponding C function is `open(2)`, always with `O_CLOEXEC`.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemCallError) -> FileDescriptor {
        let raw = try Syscall.check("open", path) { Glibc.open(path, flags | O_CLOEXEC, mode) }
        return FileDescriptor(raw: raw, path: path)
    }

    /// Opens a path given as bytes (a name that is not UTF-8); `shownAs` is
    /// what messages call it.
    static func open(bytes: [UInt8], shownAs: String, _ flags: Int32) throws(SystemCallError) -> FileDescriptor {
        let cPath = bytes.map { CChar(bitPattern: $0) } + [0]
        let raw = try Syscall.check("open", shownAs) { Glibc.open(cPath, flags | O_CLOEXEC) }
        return FileDescriptor(raw: raw, path: shownAs)
    }

    /// Reads up to `count` bytes; 0 at the end. EINTR is retried.
    /// The corresponding C function is `read(2)`.
    @inline(__always)
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(SystemCallError) -> Int {
        try Syscall.check("read", path) { Glibc.read(raw, buffer, count) }
    }

    /// Writes up to `count` bytes; returns how many were written.
    /// The corresponding C function is `write(2)`.
    @inline(__always)
    public func write(_ buffer: UnsafeRawPointer, count: Int) throws(SystemCallError) -> Int {
        try Syscall.check("write", path) { Glibc.write(raw, buffer, count) }
    }

    /// Writes all of `buffer`, a partial write continued.
    public func writeAll(_ buffer: UnsafeRawBufferPointer) throws(SystemCallError) {
        var done = 0
        while done < buffer.count { done += try write(buffer.baseAddress! + done, count: buffer.count - done) }
    }

    /// Whether the descriptor is open (a standard stream may be closed at start).
    /// The corresponding C function is `fcntl(2)` with `F_GETFD`.
    public var isOpen: Bool {
        if case .failure(let error) = Syscall.valueOrErrno("fcntl", path, { Glibc.fcntl(raw, F_GETFD) }) { return error.errno != EBADF }
        return true
    }

    /// The corresponding C function is `close(2)`. EINTR is not retried:
    /// on Linux the descriptor is gone either way.
    public func close() throws(SystemCallError) {
        guard Glibc.close(raw) != 0 else { return }
        let code = Glibc.errno
        if code == EINTR { return }
        throw SystemCallError(function: "close", path: path, errno: code)
    }

    /// Closes, when nothing can be done about a failure (a read-only
    /// descriptor, or one being abandoned after another error).
    public func closeIgnoringErrors() {
        _ = Glibc.close(raw)
    }

    /// Waits until the file's data is on disk: the one durability policy of
    /// every output. A failure is an error, except EINVAL and EROFS, which
    /// say this kind of file (a pipe, a device, a folder on some file
    /// systems) has nothing to write back.
    /// The corresponding C function is `fsync(2)`.
    public func sync() throws(SystemCallError) {
        do { _ = try Syscall.check("fsync", path) { Glibc.fsync(raw) } } catch where error.errno == EINVAL || error.errno == EROFS {}
    }

    /// The corresponding C function is `fstat(2)`.
    public func status() throws(SystemCallError) -> stat {
        var info = Glibc.stat()
        _ = try Syscall.check("fstat", path) { Glibc.fstat(raw, &info) }
        return info
    }

    /// Takes or releases a `flock(2)` (`LOCK_SH`, `LOCK_EX`, `LOCK_UN`,
    /// with `LOCK_NB`: then EWOULDBLOCK says another open file holds it).
    public func lock(_ operation: Int32) throws(SystemCallError) {
        _ = try Syscall.check("flock", path) { flock(raw, operation) }
    }

    /// The corresponding C function is `fchmod(2)`.
    public func setMode(_ mode: mode_t) throws(SystemCallError) {
        _ = try Syscall.check("fchmod", path) { Glibc.fchmod(raw, mode) }
    }

    /// The corresponding C function is `fchown(2)`.
    public func setOwner(_ owner: uid_t, group: gid_t) throws(SystemCallError) {
        _ = try Syscall.check("fchown", path) { Glibc.fchown(raw, owner, group) }
    }

    /// `name` in this folder, without following a link.
    /// The corresponding C function is `fstatat(2)` with `AT_SYMLINK_NOFOLLOW`.
    func entryStatus(_ name: String) throws(SystemCallError) -> stat {
        var info = Glibc.stat()
        _ = try Syscall.check("fstatat", path + "/" + name) { Glibc.fstatat(raw, name, &info, AT_SYMLINK_NOFOLLOW) }
        return info
    }

    /// Opens `name` in this folder, always with `O_CLOEXEC`.
    /// The corresponding C function is `openat(2)`.
    func openEntry(_ name: String, _ flags: Int32, mode: mode_t = 0) throws(SystemCallError) -> FileDescriptor {
        let shown = path.hasSuffix("/") ? path + name : path + "/" + name
        let opened = try Syscall.check("openat", shown) { Glibc.openat(raw, name, flags | O_CLOEXEC, mode) }
        return FileDescriptor(raw: opened, path: shown)
    }

    /// The text of the link `name` in this folder, as bytes.
    /// The corresponding C function is `readlinkat(2)`.
    func entryLinkText(_ name: String) throws(SystemCallError) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try Syscall.check("readlinkat", path + "/" + name) { Glibc.readlinkat(raw, name, &buffer, buffer.count - 1) }
        return buffer[..<count].map { UInt8(bitPattern: $0) }
    }

    /// Removes `name` from this folder (a folder, empty, with `folder`).
    /// The corresponding C function is `unlinkat(2)`.
    func removeEntry(_ name: String, folder: Bool = false) throws(SystemCallError) {
        _ = try Syscall.check("unlinkat", path + "/" + name) { Glibc.unlinkat(raw, name, folder ? AT_REMOVEDIR : 0) }
    }

    /// `entryNames`, then closes this descriptor.
    func entryNamesClosing() throws(SystemCallError) -> [[UInt8]] {
        defer { closeIgnoringErrors() }
        return try entryNames()
    }

    /// The names in this folder, "." and ".." left out, as bytes.
    /// The corresponding C functions are `dup(2)`, `fdopendir(3)` and `readdir(3)`.
    func entryNames() throws(SystemCallError) -> [[UInt8]] {
        // fdopendir takes the descriptor it is given: it gets a copy.
        let copy = try Syscall.check("dup", path) { Glibc.dup(raw) }
        guard let stream = Glibc.fdopendir(copy) else {
            let code = Glibc.errno
            _ = Glibc.close(copy)
            throw SystemCallError(function: "fdopendir", path: path, errno: code)
        }
        defer { Glibc.closedir(stream) }
        return Syscall.names(in: stream)
    }
}

/// Every libc file call of forcetrace goes through here (and
/// `FileDescriptor`): errno is read right after the call, EINTR is retried,
/// and each error carries the call's name and the path.
/// `SystemCallsTests` fails when such a call appears anywhere else. Not
/// here: C stdio on standard output (`StandardOutput`: `print` writes
/// through the same FILE buffer), and Foundation's file APIs.
enum Syscall {
    /// Runs `body` until it returns something other than -1 with EINTR.
    @inline(__always)
    static func valueOrErrno<T: FixedWidthInteger>(_ function: String, _ path: String, _ body: () -> T) -> Result<T, SystemCallError> {
        while true {
            let value = body()
            if value != -1 { return .success(value) }
            let code = Glibc.errno
            if code == EINTR { continue }
            return .failure(SystemCallError(function: function, path: path, errno: code))
        }
    }

    /// `valueOrErrno`, throwing.
    @inline(__always)
    static func check<T: FixedWidthInteger>(_ function: String, _ path: String, _ body: () -> T) throws(SystemCallError) -> T {
        try valueOrErrno(function, path, body).get()
    }

    /// libevdev returns negative errno values instead of setting errno.
    @inline(__always)
    static func negativeErrno(_ function: String, _ path: String, _ body: () -> Int32) -> Result<Int32, SystemCallError> {
        while true {
            let value = body()
            if value >= 0 { return .success(value) }
            if value == -EINTR { continue }
            return .failure(SystemCallError(function: function, path: path, errno: -value))
        }
    }

    // MARK: - Paths

    /// What `path` names, links followed.
    /// The corresponding C function is `stat(2)`.
    static func status(_ path: String) throws(SystemCallError) -> stat {
        var info = Glibc.stat()
        _ = try check("stat", path) { stat(path, &info) }
        return info
    }

    /// `status` for a path given as bytes.
    static func status(bytes: [UInt8], shownAs: String) throws(SystemCallError) -> stat {
        var info = Glibc.stat()
        let cPath = bytes.map { CChar(bitPattern: $0) } + [0]
        _ = try check("stat", shownAs) { stat(cPath, &info) }
        return info
    }

    /// What `path` names, a link itself rather than what it points to.
    /// The corresponding C function is `lstat(2)`.
    static func linkStatus(_ path: String) throws(SystemCallError) -> stat {
        var info = Glibc.stat()
        _ = try check("lstat", path) { Glibc.lstat(path, &info) }
        return info
    }

    /// `linkStatus` for a path given as bytes.
    static func linkStatus(bytes: [UInt8], shownAs: String) throws(SystemCallError) -> stat {
        var info = Glibc.stat()
        let cPath = bytes.map { CChar(bitPattern: $0) } + [0]
        _ = try check("lstat", shownAs) { Glibc.lstat(cPath, &info) }
        return info
    }

    /// The corresponding C function is `access(2)`.
    static func access(_ path: String, _ mode: Int32) throws(SystemCallError) {
        _ = try check("access", path) { Glibc.access(path, mode) }
    }

    /// The text of the link at `path`.
    /// The corresponding C function is `readlink(2)`.
    static func readLink(_ path: String) throws(SystemCallError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try check("readlink", path) { Glibc.readlink(path, &buffer, buffer.count - 1) }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The corresponding C function is `rename(2)`.
    static func rename(_ from: String, to: String) throws(SystemCallError) {
        _ = try check("rename", to) { Glibc.rename(from, to) }
    }

    /// Fails with EEXIST when `to` exists, atomically.
    /// The corresponding C function is `link(2)`.
    static func link(_ from: String, to: String) throws(SystemCallError) {
        _ = try check("link", to) { Glibc.link(from, to) }
    }

    /// Renames `name` in `folder` to `newName` in `newFolder`, both folders
    /// held open, so no later change to their paths redirects it.
    /// The corresponding C function is `renameat(2)`.
    static func rename(_ name: String, in folder: FileDescriptor, to newName: String, in newFolder: FileDescriptor) throws(SystemCallError) {
        _ = try check("renameat", newFolder.path + "/" + newName) { Glibc.renameat(folder.raw, name, newFolder.raw, newName) }
    }

    /// `link` between two held folders: fails with EEXIST when `newName` exists.
    /// The corresponding C function is `linkat(2)` (links never followed).
    static func link(_ name: String, in folder: FileDescriptor, to newName: String, in newFolder: FileDescriptor) throws(SystemCallError) {
        _ = try check("linkat", newFolder.path + "/" + newName) { Glibc.linkat(folder.raw, name, newFolder.raw, newName, 0) }
    }

    /// The corresponding C function is `unlink(2)`.
    static func unlink(_ path: String) throws(SystemCallError) {
        _ = try check("unlink", path) { Glibc.unlink(path) }
    }

    /// The corresponding C function is `rmdir(2)`.
    static func removeDirectory(_ path: String) throws(SystemCallError) {
        _ = try check("rmdir", path) { Glibc.rmdir(path) }
    }

    /// Creates a folder, mode 0700, named `template` with its trailing
    /// XXXXXX replaced; returns its path.
    /// The corresponding C function is `mkdtemp(3)`.
    static func makeTemporaryDirectory(_ template: String) throws(SystemCallError) -> String {
        var bytes = Array(template.utf8CString)
        guard let made = bytes.withUnsafeMutableBufferPointer({ Glibc.mkdtemp($0.baseAddress!) }) else {
            throw SystemCallError(function: "mkdtemp", path: template, errno: Glibc.errno)
        }
        return String(cString: made)
    }

    /// The names in the folder `bytes`, "." and ".." left out.
    /// The corresponding C functions are `opendir(3)` and `readdir(3)`.
    static func entryNames(bytes: [UInt8], shownAs: String) throws(SystemCallError) -> [[UInt8]] {
        guard let stream = Glibc.opendir(bytes.map { CChar(bitPattern: $0) } + [0]) else {
            throw SystemCallError(function: "opendir", path: shownAs, errno: Glibc.errno)
        }
        defer { Glibc.closedir(stream) }
        return names(in: stream)
    }

    fileprivate static func names(in stream: OpaquePointer) -> [[UInt8]] {
        var names: [[UInt8]] = []
        while let entry = Glibc.readdir(stream) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
            if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
        }
        return names
    }

    /// The file system holding `path`.
    /// The corresponding C function is `statvfs(3)`.
    static func fileSystemStatus(_ path: String) throws(SystemCallError) -> statvfs {
        var info = Glibc.statvfs()
        _ = try check("statvfs", path) { statvfs(path, &info) }
        return info
    }

    // MARK: - Signal handlers (async-signal-safe: no allocation, no Swift strings)

    /// Writes one byte to `raw`, keeping errno.
    /// The corresponding C function is `write(2)`.
    static func writeInSignalHandler(_ raw: Int32, _ byte: UInt8) {
        let saved = Glibc.errno
        var byte = byte
        _ = Glibc.write(raw, &byte, 1)
        Glibc.errno = saved
    }

    /// Removes a file and a folder named by C strings.
    /// The corresponding C functions are `unlink(2)` and `rmdir(2)`.
    static func removeInSignalHandler(file: UnsafePointer<CChar>?, folder: UnsafePointer<CChar>?) {
        if let file { _ = Glibc.unlink(file) }
        if let folder { _ = Glibc.rmdir(folder) }
    }

    /// Whether no process `pid` exists (ESRCH); one of another user's is there.
    /// The corresponding C function is `kill(2)` with signal 0.
    static func processIsGone(_ pid: pid_t) -> Bool {
        if case .failure(let error) = valueOrErrno("kill", "", { Glibc.kill(pid, 0) }) { return error.errno == ESRCH }
        return false
    }

    // MARK: - Capture: pipes, poll, clock

    /// Waits for input on `descriptors`. Returns the `revents` of each, or
    /// all zero on timeout, and also when a signal interrupted the wait: the
    /// caller then checks why it was woken.
    /// The corresponding C function is `poll(2)`.
    static func poll(_ descriptors: [FileDescriptor], timeoutMs: Int32) throws(SystemCallError) -> [Int16] {
        var fds = descriptors.map { pollfd(fd: $0.raw, events: Int16(POLLIN), revents: 0) }
        let result = fds.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeoutMs) }
        if result < 0 {
            let code = Glibc.errno
            if code == EINTR { return Array(repeating: 0, count: descriptors.count) }
            throw SystemCallError(function: "poll", path: "", errno: code)
        }
        return fds.map(\.revents)
    }

    /// A non-blocking, close-on-exec pipe: (read end, write end).
    /// The corresponding C functions are `pipe(2)` and `fcntl(2)` (Glibc's
    /// `pipe2` needs _GNU_SOURCE and does not import).
    static func pipe() throws(SystemCallError) -> (FileDescriptor, FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        _ = try check("pipe", "") { ends.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) } }
        for end in ends {
            _ = try check("fcntl", "") { Glibc.fcntl(end, F_SETFL, O_NONBLOCK) }
            _ = try check("fcntl", "") { Glibc.fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        return (FileDescriptor(raw: ends[0], path: "pipe"), FileDescriptor(raw: ends[1], path: "pipe"))
    }

    /// Makes the read end of a pipe readable (one byte; a full pipe is
    /// readable already, so EAGAIN is fine).
    static func wake(_ writeEnd: FileDescriptor) {
        var byte: UInt8 = 1
        _ = try? writeEnd.write(&byte, count: 1)
    }

    /// Reads and discards whatever is in a non-blocking descriptor.
    static func drain(_ readEnd: FileDescriptor) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while let got = try? buffer.withUnsafeMutableBytes({ raw throws(SystemCallError) in try readEnd.read(into: raw.baseAddress!, count: raw.count) }), got > 0 {}
    }

    /// Now on CLOCK_MONOTONIC, in nanoseconds.
    /// The corresponding C function is `clock_gettime(2)`.
    static func monotonicNs() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

// MARK: - Scales: serial lines and hidraw

extension FileDescriptor {
    /// Makes a tty raw (no echo, no line editing, 8 data bits, no parity,
    /// receiver on, modem lines ignored) at `baud`, and drops what was
    /// queued before. Fails with EINVAL for a rate the kernel does not know.
    /// The corresponding C functions are `tcgetattr(3)`, `cfmakeraw(3)`,
    /// `cfsetspeed(3)`, `tcsetattr(3)` and `tcflush(3)`.
    func makeRawSerial(baud: speed_t) throws(SystemCallError) {
        var settings = termios()
        _ = try Syscall.check("tcgetattr", path) { tcgetattr(raw, &settings) }
        cfmakeraw(&settings)
        _ = try Syscall.check("cfsetspeed", path) { cfsetspeed(&settings, baud) }
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        _ = try Syscall.check("tcsetattr", path) { tcsetattr(raw, TCSANOW, &settings) }
        _ = try Syscall.check("tcflush", path) { tcflush(raw, TCIFLUSH) }
    }

    /// The HID report descriptor of a hidraw node, at most 4096 bytes.
    /// The corresponding C function is `ioctl(2)` with HIDIOCGRDESCSIZE and HIDIOCGRDESC.
    func hidReportDescriptor() throws(SystemCallError) -> [UInt8] {
        var size: Int32 = 0
        _ = try Syscall.check("ioctl(HIDIOCGRDESCSIZE)", path) { Glibc.ioctl(raw, UInt(0x8004_4801), &size) }
        // struct hidraw_report_descriptor: a 32-bit size, then HID_MAX_DESCRIPTOR_SIZE (4096) bytes.
        var buffer = [UInt8](repeating: 0, count: 4 + 4096)
        let wanted = UInt32(max(0, min(Int(size), 4096)))
        withUnsafeBytes(of: wanted) { buffer.replaceSubrange(0..<4, with: $0) }
        _ = try Syscall.check("ioctl(HIDIOCGRDESC)", path) { buffer.withUnsafeMutableBytes { Glibc.ioctl(raw, UInt(0x9004_4802), $0.baseAddress!) } }
        return Array(buffer[4..<4 + Int(wanted)])
    }

    /// The device's name as the HID driver knows it (HIDIOCGRAWNAME), as bytes.
    /// The corresponding C function is `ioctl(2)`.
    func hidRawName() throws(SystemCallError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 256)
        // _IOC(_IOC_READ, 'H', 0x04, 256)
        let count = try Syscall.check("ioctl(HIDIOCGRAWNAME)", path) { buffer.withUnsafeMutableBytes { Glibc.ioctl(raw, UInt(0x8100_4804), $0.baseAddress!) } }
        return Array(buffer.prefix(max(0, Int(count))).prefix(while: { $0 != 0 }))
    }
}
