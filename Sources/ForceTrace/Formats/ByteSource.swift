import Foundation

/// An input read in blocks, never whole: a file, standard input ("-"), a
/// FIFO, /dev/fd/N, or bytes already in memory. Parsers look at a window of
/// it (`fill`, `window`, `consume`); the window grows only as far as one
/// item (a line, a record) needs.
public final class ByteSource {
    /// The name errors use: the path, or "standard input".
    public let file: String
    /// The path as given ("-" for standard input), or nil for bytes in memory.
    public let path: String?
    private var descriptor: Int32
    private let ownsDescriptor: Bool
    @exclusivity(unchecked) private(set) var buffer: [UInt8]
    /// The window: buffer[start..<end] is read but not consumed.
    @exclusivity(unchecked) private(set) var start = 0
    @exclusivity(unchecked) private(set) var end = 0
    /// Input offset of buffer[0].
    @exclusivity(unchecked) private var bufferOffset = 0
    /// Whether the input has no bytes beyond `end`.
    @exclusivity(unchecked) public private(set) var atEnd = false

    /// Bytes asked of read(2) at a time.
    static let blockSize = 1 << 20

    /// Opens `path`, or standard input for "-".
    /// - Throws: `ForceTraceError` naming the path when it is missing, a
    ///   directory or unreadable.
    public init(path: String) throws {
        self.path = path
        if path == "-" {
            file = "standard input"
            descriptor = STDIN_FILENO
            ownsDescriptor = false
        } else {
            file = path
            var status = stat()
            guard stat(path, &status) == 0 else {
                throw ForceTraceError(file: path, errno == ENOENT ? "no such file" : "cannot be read: \(String(cString: strerror(errno)))")
            }
            if status.st_mode & S_IFMT == S_IFDIR { throw ForceTraceError(file: path, "is a directory; expected a recording file") }
            // A FIFO or a device is read as a stream; a socket cannot be opened.
            if status.st_mode & S_IFMT == S_IFSOCK { throw ForceTraceError(file: path, "is a socket; expected a recording file") }
            let opened = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else {
                throw ForceTraceError(file: path, "cannot be read: \(String(cString: strerror(errno)))",
                                 hint: errno == EACCES ? "check the file's permissions" : nil)
            }
            descriptor = opened
            ownsDescriptor = true
            if status.st_mode & S_IFMT == S_IFREG { size = Int(status.st_size) }
        }
        buffer = [UInt8](repeating: 0, count: Self.blockSize)
    }

    /// The input's length when it is a regular file (for progress), else nil.
    public private(set) var size: Int?

    /// How much of a regular file has been consumed, 0...1; nil for streams.
    public var fractionRead: Double? {
        guard let size, size > 0 else { return nil }
        return min(1, Double(offset) / Double(size))
    }

    /// Bytes in memory, read as if from a file called `file`.
    public init(bytes: [UInt8], file: String) {
        self.file = file
        path = nil
        descriptor = -1
        ownsDescriptor = false
        buffer = bytes
        end = bytes.count
        atEnd = true
        size = bytes.count
    }

    deinit { if ownsDescriptor { Glibc.close(descriptor) } }

    /// Input offset of the window's first byte.
    public var offset: Int { bufferOffset + start }
    /// Bytes in the window.
    public var available: Int { end - start }
    /// Whether every byte has been consumed.
    public var isExhausted: Bool { atEnd && start == end }

    /// Reads until the window holds at least `count` bytes or the input ends.
    public func fill(_ count: Int) throws {
        while end - start < count && !atEnd {
            if buffer.count - start < count || end == buffer.count {
                // Move the window to the front, growing the buffer only for an item larger than it.
                let kept = end - start
                if start > 0 {
                    buffer.withUnsafeMutableBufferPointer { raw in
                        _ = memmove(raw.baseAddress!, raw.baseAddress! + start, kept)
                    }
                    bufferOffset += start
                    start = 0
                    end = kept
                }
                if buffer.count < count || end == buffer.count {
                    // Zeroed by memset: appending repeatElement(0, ...) went byte by byte
                    // in debug builds (most of 15 s detecting a 16 MiB head).
                    let grow = max(count, buffer.count) - buffer.count + Self.blockSize
                    buffer.append(contentsOf: [UInt8](unsafeUninitializedCapacity: grow) { raw, initialized in
                        _ = memset(raw.baseAddress!, 0, grow)
                        initialized = grow
                    })
                }
            }
            let wanted = buffer.count - end
            let got = buffer.withUnsafeMutableBufferPointer { raw in
                while true {
                    let result = Glibc.read(descriptor, raw.baseAddress! + end, wanted)
                    if result < 0 && errno == EINTR { continue }
                    return result
                }
            }
            if got < 0 {
                throw ForceTraceError(file: file, location: .byteOffset(bufferOffset + end),
                                 "read failed: \(String(cString: strerror(errno)))")
            }
            if got == 0 { atEnd = true } else { end += got }
        }
    }

    /// Runs `body` over the window without copying it.
    public func withWindow<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try buffer.withUnsafeBufferPointer { raw in
            try body(UnsafeBufferPointer(rebasing: raw[start..<end]))
        }
    }

    /// A copy of the window's first `count` bytes (at most).
    public func peek(_ count: Int) -> ArraySlice<UInt8> {
        buffer[start..<min(end, start + count)]
    }

    /// Drops `count` bytes from the front of the window.
    public func consume(_ count: Int) {
        precondition(count <= end - start, "consumed more than was read")
        start += count
        if start == end { bufferOffset += start; start = 0; end = 0 }
    }

    /// Reads up to `capacity` bytes into `destination`; 0 only at the end.
    public func read(into destination: UnsafeMutableRawPointer, capacity: Int) throws -> Int {
        if start == end { try fill(1) }
        let count = min(capacity, end - start)
        guard count > 0 else { return 0 }
        buffer.withUnsafeBufferPointer { raw in
            destination.copyMemory(from: raw.baseAddress! + start, byteCount: count)
        }
        consume(count)
        return count
    }

    /// The first `limit` bytes of the input (fewer if it is shorter), for
    /// telling the format, without consuming them.
    public func head(_ limit: Int) throws -> ArraySlice<UInt8> {
        try fill(limit)
        return peek(limit)
    }
}

/// A buffered output: a file, standard output, or bytes in memory. Writes
/// are buffered in blocks; errors (a full disk) surface as `ForceTraceError`s
/// naming the output.
public final class ByteOutput {
    public let file: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// Everything written, for an in-memory output.
    public private(set) var memory: [UInt8] = []
    private var pending: [UInt8] = []
    private let isMemory: Bool
    private var closed = false
    static let blockSize = 1 << 16

    /// Creates (or truncates) `path`.
    public init(path: String) throws {
        file = path
        let opened = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard opened >= 0 else { throw ForceTraceError(file: path, "cannot be written: \(String(cString: strerror(errno)))") }
        descriptor = opened
        ownsDescriptor = true
        isMemory = false
        pending.reserveCapacity(Self.blockSize * 2)
    }

    private init(descriptor: Int32, file: String) {
        self.file = file
        self.descriptor = descriptor
        ownsDescriptor = false
        isMemory = false
        pending.reserveCapacity(Self.blockSize * 2)
    }

    /// Collects the output in `memory`.
    public init() {
        file = "memory"
        descriptor = -1
        ownsDescriptor = false
        isMemory = true
    }

    public static func standardOutput() -> ByteOutput { ByteOutput(descriptor: STDOUT_FILENO, file: "standard output") }

    deinit { if ownsDescriptor && !closed { Glibc.close(descriptor) } }

    /// The pending buffer, to append formatted bytes to directly.
    public func append(_ body: (inout [UInt8]) -> Void) throws {
        body(&pending)
        if pending.count >= Self.blockSize { try drain() }
    }

    public func write(_ text: String) throws {
        pending.append(contentsOf: text.utf8)
        if pending.count >= Self.blockSize { try drain() }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        pending.append(contentsOf: bytes)
        if pending.count >= Self.blockSize { try drain() }
    }

    /// Standard output's reader closed the pipe: the rest is dropped.
    private var readerGone = false

    private func drain() throws {
        if readerGone { pending.removeAll(keepingCapacity: true); return }
        if isMemory {
            memory.append(contentsOf: pending)
            pending.removeAll(keepingCapacity: true)
            return
        }
        var written = 0
        try pending.withUnsafeBytes { raw in
            while written < raw.count {
                let result = Glibc.write(descriptor, raw.baseAddress! + written, raw.count - written)
                if result < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    // A reader that went away (`| head`) ends the output quietly.
                    if code == EPIPE && !ownsDescriptor { readerGone = true; return }
                    throw writeError(file, "write failed", errno: code)
                }
                written += result
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes everything buffered.
    public func flush() throws { try drain() }

    /// Writes everything buffered and closes the output, reporting a failed write.
    public func close() throws {
        try drain()
        if ownsDescriptor && !closed {
            closed = true
            if Glibc.close(descriptor) != 0 {
                throw ForceTraceError(file: file, "write failed: \(String(cString: strerror(errno)))")
            }
        }
    }
}
