import CDeflate
import CHDF5
import Foundation

/// Compresses full column chunks on worker threads and stores them with
/// `H5Dwrite_chunk`, so that the thread filling the columns (an import's
/// parser) never waits for deflate. Workers deflate side by side and store
/// in the order the chunks came, one at a time, so the file is the same
/// whatever the threads' timing. The chunks are what HDF5's own shuffle
/// and deflate filters would store: any reader (h5py, h5dump) decodes them
/// through the dataset's filter pipeline as usual. libdeflate, not zlib,
/// makes the deflate stream, so the bytes differ, not the values.
///
/// One pipeline per file, shared by its columns (`Group.createColumn(...,
/// pipeline:)`); at most `capacity` chunks wait, which bounds the memory.
/// A failure on the worker (a full disk) is thrown by the next `submit`
/// or `drain`.
public final class ChunkPipeline: @unchecked Sendable {
    /// Chunks waiting or being compressed at most.
    public let capacity: Int
    private let condition = NSCondition()
    /// Compressing threads.
    public let workers: Int
    private var queue: [ChunkJob] = []
    /// Chunks taken from the queue and not yet stored.
    private var inFlight = 0
    /// The order number of the next chunk taken, and of the next to store.
    private var nextTaken = 0
    private var nextStored = 0
    /// Chunks compressed, by order number, until those before them are stored.
    private var ready: [Int: (job: ChunkJob, chunk: Result<EncodedChunk, any Error>)] = [:]
    private var failure: (any Error)?
    private var stopped = false
    /// Workers that have returned: once all have, nothing of this pipeline touches HDF5 any more.
    private var exited = 0

    /// - Parameter workers: compressing threads; by default two where the
    ///   machine has two cores, since one could not keep up with a parser.
    public init(capacity: Int = 8, workers: Int = min(2, ProcessInfo.processInfo.activeProcessorCount)) {
        self.capacity = max(1, capacity)
        self.workers = max(1, workers)
        for number in 0..<self.workers {
            let thread = Thread { [self] in run() }
            thread.name = "forcetrace chunk compressor \(number)"
            thread.start()
        }
    }

    /// Whether chunks are still taken (`shutdown()` not called).
    var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !stopped
    }

    /// Queues a chunk, waiting while `capacity` chunks are ahead of it.
    func submit(_ job: ChunkJob) throws {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && failure == nil && !stopped { condition.wait() }
        if let failure { throw failure }
        guard !stopped else {
            throw HDF5Error(function: "H5Dwrite_chunk", context: job.displayPath, stack: ["the chunk pipeline was shut down"])
        }
        queue.append(job)
        condition.broadcast()
    }

    /// Waits until every queued chunk is in the file; throws the worker's
    /// first failure.
    public func drain() throws {
        condition.lock()
        defer { condition.unlock() }
        while (!queue.isEmpty || inFlight > 0) && failure == nil && !stopped { condition.wait() }
        if let failure { throw failure }
    }

    /// Whether a worker is compressing or storing a chunk now (tests).
    var isBusy: Bool {
        condition.lock()
        defer { condition.unlock() }
        return inFlight > 0
    }

    /// Stops the workers and waits for them to end; chunks still queued are
    /// dropped (the writer drains first when it closes normally), those
    /// taken are finished. Waiting matters: a process must not exit while a
    /// worker is inside libdeflate or HDF5, where exit's HDF5 cleanup would
    /// meet it (a full disk made import crash so, 1 run in 7).
    public func shutdown() {
        condition.lock()
        stopped = true
        queue.removeAll()
        condition.broadcast()
        while exited < workers { condition.wait() }
        condition.unlock()
    }

    deinit { shutdown() }

    private func run() {
        let encoder = ChunkEncoder()
        while true {
            condition.lock()
            while queue.isEmpty && !stopped { condition.wait() }
            if stopped {
                exited += 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = queue.removeFirst()
            let order = nextTaken
            nextTaken += 1
            inFlight += 1
            condition.broadcast()
            condition.unlock()
            let result = Result { try encoder.encode(job) }
            condition.lock()
            ready[order] = (job, result)
            // The worker holding the next chunk in order stores it and every
            // compressed one after it; the others go on compressing.
            guard order == nextStored else {
                condition.unlock()
                continue
            }
            while let (job, result) = ready.removeValue(forKey: nextStored) {
                let skip = failure != nil
                condition.unlock()
                var error: (any Error)?
                do { if !skip { try job.store(try result.get()) } } catch let thrown { error = thrown }
                condition.lock()
                nextStored += 1
                inFlight -= 1
                if let error, failure == nil { failure = error }
                condition.broadcast()
            }
            condition.unlock()
        }
    }
}

/// The values of one chunk, whatever their type.
protocol ChunkPayload {
    func withChunkBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: ChunkPayload where Element: HDF5Scalar {
    func withChunkBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withUnsafeBytes(body) }
}

/// One full chunk of a column, to be compressed and stored.
struct ChunkJob: @unchecked Sendable {
    let handle: Handle
    let displayPath: String
    /// Chunk number: its first row is `index * chunkRows`.
    let index: Int
    let chunkRows: Int
    let elementSize: Int
    let compression: Compression
    let payload: any ChunkPayload

    /// Stores `chunk` as this chunk of its dataset.
    func store(_ chunk: EncodedChunk) throws {
        try withHDF5 {
            let id = try handle.validID(displayPath)
            var extent = hsize_t((index + 1) * chunkRows)
            try checkStatus(H5Dset_extent(id, &extent), "H5Dset_extent", displayPath)
            var offset = [hsize_t(index * chunkRows)]
            try chunk.bytes.withUnsafeBytes { try ChunkEncoder.writeChunk(id, offset: &offset, bytes: $0, mask: chunk.mask, displayPath: displayPath) }
        }
    }
}

/// A chunk's bytes as they go into the file, and its filter mask.
struct EncodedChunk: @unchecked Sendable {
    let bytes: [UInt8]
    let mask: UInt32
}

/// Shuffles and deflates chunks as HDF5's filters do. One per thread.
public final class ChunkEncoder {
    private var compressors: [Int: OpaquePointer] = [:]
    private var shuffled: [UInt8] = []
    private var compressed: [UInt8] = []

    public init() {}

    deinit { for compressor in compressors.values { libdeflate_free_compressor(compressor) } }

    /// The bytes one chunk of `values` takes stored with `compression`, as
    /// the pipeline's worker encodes it (the bench's floor for import's writing).
    public func storedSize(_ values: UnsafeRawBufferPointer, rows: Int, elementSize: Int, compression: Compression) throws -> Int {
        try encode(values, rows: rows, elementSize: elementSize, compression: compression, displayPath: "probe").stored
    }

    /// `job` compressed, in bytes of its own (a worker may compress the
    /// next chunk before this one is stored).
    func encode(_ job: ChunkJob) throws -> EncodedChunk {
        let (stored, mask) = try job.payload.withChunkBytes { values in
            try encode(values, rows: job.chunkRows, elementSize: job.elementSize, compression: job.compression, displayPath: job.displayPath)
        }
        return EncodedChunk(bytes: Array(compressed[..<stored]), mask: mask)
    }

    /// Stores the chunk `encode` left as the one starting at `row` of dataset `id`.
    func storeEncoded(_ id: hid_t, row: Int, stored: Int, mask: UInt32, displayPath: String) throws {
        var offset = [hsize_t(row)]
        try storeEncoded(id, offset: &offset, stored: stored, mask: mask, displayPath: displayPath)
    }

    /// The same for a dataset of any rank: `offset` is the chunk's first element, one index per dimension.
    func storeEncoded(_ id: hid_t, offset: inout [hsize_t], stored: Int, mask: UInt32, displayPath: String) throws {
        try compressed.withUnsafeBytes {
            try Self.writeChunk(id, offset: &offset, bytes: UnsafeRawBufferPointer(rebasing: $0[..<stored]), mask: mask, displayPath: displayPath)
        }
    }

    /// `bytes` stored as the chunk at `offset` of dataset `id`, as encoded
    /// (`mask`: the filters skipped). The corresponding C function is `H5Dwrite_chunk`.
    static func writeChunk(_ id: hid_t, offset: inout [hsize_t], bytes: UnsafeRawBufferPointer, mask: UInt32, displayPath: String) throws {
        let status = H5Dwrite_chunk(id, CHDF5_P_DEFAULT(), mask, &offset, bytes.count, bytes.baseAddress)
        try checkStatus(status, "H5Dwrite_chunk", displayPath)
    }

    /// One chunk as the dataset's filters would store it, in `compressed`:
    /// its stored byte count and the filter mask.
    func encode(_ values: UnsafeRawBufferPointer, rows: Int, elementSize: Int, compression: Compression,
                displayPath: String) throws -> (stored: Int, mask: UInt32) {
        let size = rows * elementSize
        let shuffle = compression.shuffle && compression.deflateLevel > 0 && elementSize > 1
        if shuffled.count < size { shuffled = [UInt8](repeating: 0, count: size) }
        if compressed.count < size { compressed = [UInt8](repeating: 0, count: size) }
        // The filter mask: bit i set means filter i of the dataset's pipeline
        // was skipped. Shuffle is filter 0 when present, deflate the last.
        let shuffleBit: UInt32 = compression.shuffle && compression.deflateLevel > 0 ? 1 : 0
        let deflateBit: UInt32 = compression.deflateLevel > 0 ? (shuffleBit == 1 ? 2 : 1) : 0
        // One-byte elements pass through HDF5's shuffle unchanged, bit clear.
        var mask: UInt32 = 0
        guard values.count == size else {
            throw HDF5Error(function: "H5Dwrite_chunk", context: displayPath, stack: ["chunk of \(values.count) bytes, expected \(size)"])
        }
        let stored: Int = shuffled.withUnsafeMutableBytes { planes -> Int in
            let input: UnsafeRawPointer
            if shuffle {
                Self.shuffle(values.baseAddress!, into: planes.baseAddress!, rows: rows, elementSize: elementSize)
                input = UnsafeRawPointer(planes.baseAddress!)
            } else {
                input = values.baseAddress!
            }
            guard compression.deflateLevel > 0 else {
                compressed.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: input, byteCount: size) }
                return size
            }
            let compressor = self.compressor(level: compression.deflateLevel)
            let produced = compressed.withUnsafeMutableBytes {
                libdeflate_zlib_compress(compressor, input, size, $0.baseAddress, size)
            }
            if produced > 0 { return produced }
            // Does not shrink: stored as the filters would, deflate skipped.
            mask |= deflateBit
            compressed.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: input, byteCount: size) }
            return size
        }
        return (stored, mask)
    }

    private func compressor(level: Int) -> OpaquePointer {
        if let existing = compressors[level] { return existing }
        let made = libdeflate_alloc_compressor(Int32(level))!
        compressors[level] = made
        return made
    }

    /// HDF5's shuffle filter: byte `j` of every element goes to plane `j`.
    static func shuffle(_ source: UnsafeRawPointer, into output: UnsafeMutableRawPointer, rows: Int, elementSize: Int) {
        let planes = output.assumingMemoryBound(to: UInt8.self)
        switch elementSize {
        case 2:
            let input = source.assumingMemoryBound(to: UInt16.self)
            let p1 = planes + rows
            for i in 0..<rows {
                let value = input[i]
                planes[i] = UInt8(truncatingIfNeeded: value); p1[i] = UInt8(truncatingIfNeeded: value >> 8)
            }
        case 4:
            let input = source.assumingMemoryBound(to: UInt32.self)
            let p1 = planes + rows, p2 = planes + 2 * rows, p3 = planes + 3 * rows
            for i in 0..<rows {
                let value = input[i]
                planes[i] = UInt8(truncatingIfNeeded: value); p1[i] = UInt8(truncatingIfNeeded: value >> 8)
                p2[i] = UInt8(truncatingIfNeeded: value >> 16); p3[i] = UInt8(truncatingIfNeeded: value >> 24)
            }
        case 8:
            let input = source.assumingMemoryBound(to: UInt64.self)
            for i in 0..<rows {
                let value = input[i]
                for j in 0..<8 { planes[j * rows + i] = UInt8(truncatingIfNeeded: value >> UInt64(8 * j)) }
            }
        default:
            let input = source.assumingMemoryBound(to: UInt8.self)
            for i in 0..<rows {
                for j in 0..<elementSize { planes[j * rows + i] = input[i * elementSize + j] }
            }
        }
    }
}
