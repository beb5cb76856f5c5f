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
    private let descriptor: FileDescriptor?
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
            descriptor = .standardInput
            ownsDescriptor = false
        } else {
            file = path
            let status: stat
            do { status = try Syscall.status(path) } catch {
                throw ForceTraceError(file: path, error.errno == ENOENT ? "no such file" : "cannot be read: \(error.reason)")
            }
            if status.st_mode & S_IFMT == S_IFDIR { throw ForceTraceError(file: path, "is a directory; expected a recording file") }
            // A FIFO or a device is read as a stream; a socket cannot be opened.
            if status.st_mode & S_IFMT == S_IFSOCK { throw ForceTraceError(file: path, "is a socket; expected a recording file") }
            do { descriptor = try FileDescriptor.open(path, O_RDONLY) } catch {
                throw ForceTraceError(file: path, "cannot be read: \(error.reason)",
                                 hint: error.errno == EACCES ? "check the file's permissions" : nil)
            }
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
        descriptor = nil
        ownsDescriptor = false
        buffer = bytes
        end = bytes.count
        atEnd = true
        size = bytes.count
    }

    deinit { if ownsDescriptor { descriptor?.closeIgnoringErrors() } }

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
            guard let descriptor else { atEnd = true; return }
            let wanted = buffer.count - end
            let got: Int
            do {
                got = try buffer.withUnsafeMutableBufferPointer { raw throws(SystemCallError) in
                    try descriptor.read(into: raw.baseAddress! + end, count: wanted)
                }
            } catch {
                throw ForceTraceError(file: file, location: .byteOffset(bufferOffset + end), "read failed: \(error.reason)")
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
    private let descriptor: FileDescriptor?
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
        do { descriptor = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644) } catch {
            throw ForceTraceError(file: path, "cannot be written: \(error.reason)")
        }
        ownsDescriptor = true
        isMemory = false
        pending.reserveCapacity(Self.blockSize * 2)
    }

    private init(descriptor: FileDescriptor, file: String) {
        self.file = file
        self.descriptor = descriptor
        ownsDescriptor = false
        isMemory = false
        pending.reserveCapacity(Self.blockSize * 2)
    }

    /// Collects the output in `memory`.
    public init() {
        file = "memory"
        descriptor = nil
        ownsDescriptor = false
        isMemory = true
    }

    public static func standardOutput() -> ByteOutput { ByteOutput(descriptor: .standardOutput, file: "standard output") }

    deinit { if ownsDescriptor && !closed { descriptor?.closeIgnoringErrors() } }

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
        guard let descriptor, !isMemory else {
            memory.append(contentsOf: pending)
            pending.removeAll(keepingCapacity: true)
            return
        }
        var written = 0
        try pending.withUnsafeBytes { raw in
            while written < raw.count {
                do throws(SystemCallError) { written += try descriptor.write(raw.baseAddress! + written, count: raw.count - written) } catch {
                    // A reader that went away (`| head`) ends the output quietly.
                    if error.errno == EPIPE && !ownsDescriptor { readerGone = true; return }
                    throw writeError(file, "write failed", error)
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes everything buffered.
    public func flush() throws { try drain() }

    /// Writes everything buffered and closes the output, reporting a failed write.
    public func close() throws {
        try drain()
        if ownsDescriptor && !closed, let descriptor {
            closed = true
            do { try descriptor.close() } catch { throw ForceTraceError(file: file, "write failed: \(error.reason)") }
        }
    }
}
