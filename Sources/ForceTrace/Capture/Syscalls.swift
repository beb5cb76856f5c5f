import CEvdev
import Foundation

/// A failed system or libevdev call: which call, on what, and errno.
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

    public var description: String { "\(path): \(function) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// Every raw call of the capture code goes through here: errno is read right
/// after the call, EINTR is retried, and each error carries the call's name.
enum Syscall {
    /// Runs `body` until it returns something other than -1 with EINTR.
    @inline(__always)
    static func valueOrErrno<T: FixedWidthInteger>(_ function: String, _ path: String, _ body: () -> T) -> Result<T, SystemCallError> {
        while true {
            let value = body()
            if value != -1 { return .success(value) }
            let code = Foundation.errno
            if code == EINTR { continue }
            return .failure(SystemCallError(function: function, path: path, errno: code))
        }
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

    /// The corresponding C function is `open(2)`, with `O_CLOEXEC`.
    static func open(_ path: String, flags: Int32) throws -> Int32 {
        try valueOrErrno("open", path) { Foundation.open(path, flags | O_CLOEXEC) }.get()
    }

    /// The corresponding C function is `close(2)`. EINTR is not retried:
    /// on Linux the descriptor is gone either way.
    static func close(_ fd: Int32) {
        _ = Foundation.close(fd)
    }

    /// Whether `fd` is a character device.
    /// The corresponding C function is `fstat(2)`.
    static func isCharacterDevice(_ fd: Int32, _ path: String) throws -> Bool {
        var info = stat()
        _ = try valueOrErrno("fstat", path) { fstat(fd, &info) }.get()
        return (info.st_mode & S_IFMT) == S_IFCHR
    }

    /// Waits for input on `descriptors`. Returns the `revents` of each, or
    /// all zero on timeout, and also when a signal interrupted the wait: the
    /// caller then checks why it was woken.
    /// The corresponding C function is `poll(2)`.
    static func poll(_ descriptors: [Int32], timeoutMs: Int32) throws -> [Int16] {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let result = fds.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeoutMs) }
        if result < 0 {
            let code = Foundation.errno
            if code == EINTR { return Array(repeating: 0, count: descriptors.count) }
            throw SystemCallError(function: "poll", path: "", errno: code)
        }
        return fds.map(\.revents)
    }

    /// A non-blocking, close-on-exec pipe: (read end, write end).
    /// The corresponding C functions are `pipe(2)` and `fcntl(2)` (Glibc's
    /// `pipe2` needs _GNU_SOURCE and does not import).
    static func pipe() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try valueOrErrno("pipe", "") { ends.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) } }.get()
        for end in ends {
            _ = try valueOrErrno("fcntl", "") { fcntl(end, F_SETFL, O_NONBLOCK) }.get()
            _ = try valueOrErrno("fcntl", "") { fcntl(end, F_SETFD, FD_CLOEXEC) }.get()
        }
        return (ends[0], ends[1])
    }

    /// Makes the read end of a pipe readable (one byte; a full pipe is
    /// readable already, so EAGAIN is fine).
    /// The corresponding C function is `write(2)`.
    static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = valueOrErrno("write", "") { Foundation.write(fd, &byte, 1) }
    }

    /// Reads and discards whatever is in a non-blocking descriptor.
    static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ Foundation.read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Now on CLOCK_MONOTONIC, in nanoseconds.
    /// The corresponding C function is `clock_gettime(2)`.
    static func monotonicNs() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
