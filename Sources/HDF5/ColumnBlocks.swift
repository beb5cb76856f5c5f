import CHDF5
import Foundation

/// A column the block reader can fill: any `Column`, without its element type.
public struct BlockColumn: Sendable {
    let source: any BlockSource
    public init<Element>(_ column: Column<Element>) { source = column }
}

protocol BlockSource: AnyObject, Sendable {
    var elementSize: Int { get }
    /// Rows `range` through `H5Dread`, converted to the column's type. Call under the HDF5 lock.
    func readThroughLibrary(_ range: Range<Int>, into destination: UnsafeMutableRawPointer) throws
    /// The raw-chunk layout, if this module can decode the chunks itself. Call under the HDF5 lock.
    func rawLayout() -> RawChunkLayout?
    func datasetID() throws -> hid_t
}

extension Column: BlockSource {
    var elementSize: Int { MemoryLayout<Element>.stride }

    func readThroughLibrary(_ range: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        try readRows(try handle.validID(displayPath), as: Element.scalarKind.nativeType, range, into: destination, displayPath)
    }

    func rawLayout() -> RawChunkLayout? {
        guard let id = try? handle.validID(displayPath) else { return nil }
        return RawChunkLayout.of(dataset: id, memoryType: Element.scalarKind.nativeType)
    }

    func datasetID() throws -> hid_t { try handle.validID(displayPath) }
}

/// A dataset of fixed-length strings as rows of bytes, for `Group.readStrings`:
/// open only while it reads (the caller holds the dataset and its type).
final class FixedStringRows: BlockSource, @unchecked Sendable {
    let elementSize: Int
    private let id: hid_t, type: hid_t, displayPath: String

    init(dataset id: hid_t, type: hid_t, size: Int, displayPath: String) {
        self.id = id
        self.type = type
        elementSize = size
        self.displayPath = displayPath
    }

    func readThroughLibrary(_ range: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        try readRows(id, as: type, range, into: destination, displayPath)
    }

    func rawLayout() -> RawChunkLayout? { RawChunkLayout.of(dataset: id, memoryType: type) }
    func datasetID() throws -> hid_t { id }
}

/// Rows `range` of a one-dimensional dataset through `H5Dread`, as `memoryType`. Call under the HDF5 lock.
private func readRows(_ id: hid_t, as memoryType: hid_t, _ range: Range<Int>, into destination: UnsafeMutableRawPointer,
                      _ displayPath: String) throws {
    let fileSpace = try checkID(H5Dget_space(id), "H5Dget_space", displayPath)
    defer { H5Sclose(fileSpace) }
    var start = hsize_t(range.lowerBound)
    var rows = hsize_t(range.count)
    try checkStatus(H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, &start, nil, &rows, nil), "H5Sselect_hyperslab", displayPath)
    let memorySpace = try checkID(H5Screate_simple(1, &rows, nil), "H5Screate_simple", displayPath)
    defer { H5Sclose(memorySpace) }
    try checkStatus(H5Dread(id, memoryType, memorySpace, fileSpace, CHDF5_P_DEFAULT(), destination), "H5Dread", displayPath)
}

/// Reads several equally long columns block by block, in row order, on
/// worker threads, while the caller works on the previous blocks.
///
/// Debian's libhdf5 is thread-safe behind one global lock, so threads that
/// call `H5Dread` take turns. Instead the workers read each chunk as stored
/// (`H5Dread_chunk`, cheap) under the lock, and inflate and unshuffle it
/// outside it with libdeflate. Chunks the fast path cannot decode — other
/// filters or types, a partial last chunk, a chunk never written, damaged
/// data — go through `H5Dread`, so values and errors are the library's.
///
/// Memory: as many blocks of every column as `readAheadBytes` holds, and at
/// least `2 × workers + 1`. A caller that is slower on some blocks than the
/// workers (two analysis lanes waiting for each other) leaves them a core
/// to fill the room with (Tests/bench/README.md, "Read-ahead").
public final class ColumnBlocks: @unchecked Sendable {
    /// One block of rows; its buffers stay valid until the next `next()`.
    public struct Block {
        public let rows: Range<Int>
        fileprivate let buffers: [UnsafeMutableRawPointer]

        /// Column `index`'s values for `rows`, as `T` (the column's element type).
        public func values<T>(_ index: Int, as type: T.Type = T.self) -> UnsafeBufferPointer<T> {
            UnsafeBufferPointer(start: buffers[index].assumingMemoryBound(to: T.self), count: rows.count)
        }
    }

    private let columns: [any BlockSource]
    private let layouts: [RawChunkLayout?]
    public let rowCount: Int
    public let blockRows: Int
    private let blockCount: Int
    private let capacity: Int

    private let state = NSCondition()
    private var nextToFetch = 0
    private var nextToHand = 0
    private var ready: [Int: Result<[UnsafeMutableRawPointer], Error>] = [:]
    private var free: [[UnsafeMutableRawPointer]] = []
    private var handedOut: [UnsafeMutableRawPointer]?
    private var cancelled = false
    private var running: Int
    private let threaded: Bool
    private var allocated: [[UnsafeMutableRawPointer]] = []
    private var counts = ChunkReads()

    /// Chunks decoded here, and reads that went through `H5Dread` (so far):
    /// for tests that the fast path is taken, and where it is not.
    public var readCounts: ChunkReads {
        state.lock()
        defer { state.unlock() }
        return counts
    }

    /// - Parameters:
    ///   - columns: columns of one table, all `rowCount` long.
    ///   - preferredRows: block size wanted; rounded to whole chunks when every column shares a chunk size.
    ///   - workers: threads that read and decode; 0 reads on the caller's thread.
    ///   - readAheadBytes: the blocks the workers may fill ahead of the caller,
    ///     in bytes of all columns: room to work on while the caller is busy
    ///     elsewhere, or slower than they are on some blocks.
    public init(_ columns: [BlockColumn], rowCount: Int, preferredRows: Int = 65536,
                workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount), readAheadBytes: Int = 32 << 20) throws {
        let columns = columns.map(\.source)
        self.columns = columns
        self.rowCount = rowCount
        let layouts = withHDF5 { columns.map { $0.rawLayout() } }
        let chunkSizes = Set(layouts.map { $0?.chunkRows ?? 0 })
        if chunkSizes.count == 1, let chunk = chunkSizes.first, chunk > 0 {
            blockRows = max(1, preferredRows / chunk) * chunk
            self.layouts = layouts
        } else {
            // Chunks that do not line up across columns: every column through H5Dread.
            blockRows = max(1, preferredRows)
            self.layouts = layouts.map { _ in nil }
        }
        blockCount = (rowCount + blockRows - 1) / blockRows
        let blockBytes = max(1, blockRows * columns.reduce(0) { $0 + $1.elementSize })
        capacity = workers > 0 ? max(2 * workers + 1, readAheadBytes / blockBytes) : 1
        threaded = workers > 0 && blockCount > 1
        running = threaded ? min(workers, blockCount) : 0
        for _ in 0..<min(capacity, max(1, blockCount)) {
            let set = columns.map { UnsafeMutableRawPointer.allocate(byteCount: max(1, blockRows * $0.elementSize), alignment: 16) }
            allocated.append(set)
            free.append(set)
        }
        if threaded {
            for _ in 0..<running {
                let thread = Thread { [self] in self.work() }
                thread.name = "forcetrace.column-blocks"
                thread.start()
            }
        }
    }

    deinit {
        for set in allocated { for buffer in set { buffer.deallocate() } }
    }

    /// The next block in row order, or nil after the last.
    /// - Throws: the read error of this block, in row order.
    public func next() throws -> Block? {
        state.lock()
        if let previous = handedOut {
            free.append(previous)
            handedOut = nil
            state.broadcast()
        }
        guard nextToHand < blockCount else { state.unlock(); return nil }
        let index = nextToHand
        if !threaded {
            // No workers: read on this thread.
            let buffers = free.removeLast()
            state.unlock()
            let decoder = ChunkDecoder()
            var raw = RawChunk()
            let done = try fill(index, into: buffers, decoder: decoder, raw: &raw)
            state.lock()
            counts += done
            nextToHand += 1
            handedOut = buffers
            state.unlock()
            return Block(rows: rows(of: index), buffers: buffers)
        }
        while ready[index] == nil { state.wait() }
        let result = ready.removeValue(forKey: index)!
        nextToHand += 1
        switch result {
        case .success(let buffers):
            handedOut = buffers
            state.unlock()
            return Block(rows: rows(of: index), buffers: buffers)
        case .failure(let error):
            cancelled = true
            state.broadcast()
            state.unlock()
            throw error
        }
    }

    /// Stops the workers and waits for them, so no HDF5 handle is used
    /// after the caller closes its file. Call when done or abandoning.
    public func finish() {
        state.lock()
        cancelled = true
        state.broadcast()
        while running > 0 { state.wait() }
        state.unlock()
    }

    private func rows(of block: Int) -> Range<Int> {
        (block * blockRows)..<min(rowCount, (block + 1) * blockRows)
    }

    private func work() {
        let decoder = ChunkDecoder()
        var raw = RawChunk()
        state.lock()
        while true {
            // Fetch only within `capacity` blocks of the consumer, so memory stays bounded.
            while !cancelled && nextToFetch < blockCount && (free.isEmpty || nextToFetch >= nextToHand + capacity) { state.wait() }
            if cancelled || nextToFetch >= blockCount { break }
            let index = nextToFetch
            nextToFetch += 1
            let buffers = free.removeLast()
            state.unlock()
            let result: Result<[UnsafeMutableRawPointer], Error>
            var done = ChunkReads()
            do {
                done = try fill(index, into: buffers, decoder: decoder, raw: &raw)
                result = .success(buffers)
            } catch {
                result = .failure(error)
            }
            state.lock()
            counts += done
            ready[index] = result
            if case .failure = result { free.append(buffers) }
            state.broadcast()
        }
        running -= 1
        state.broadcast()
        state.unlock()
    }

    /// Fills one block of every column: stored chunks under the HDF5 lock,
    /// decoded after it; anything else through `H5Dread`.
    private func fill(_ block: Int, into buffers: [UnsafeMutableRawPointer], decoder: ChunkDecoder,
                      raw: inout RawChunk) throws -> ChunkReads {
        let range = rows(of: block)
        var done = ChunkReads()
        for (index, column) in columns.enumerated() {
            done += try column.fill(range, layout: layouts[index], into: buffers[index], decoder: decoder, raw: &raw)
        }
        return done
    }
}

/// What filled some rows: chunks decoded here, and `H5Dread` calls.
public struct ChunkReads: Equatable, Sendable {
    public var decoded = 0
    public var library = 0

    static func += (total: inout ChunkReads, part: ChunkReads) {
        total.decoded += part.decoded
        total.library += part.library
    }
}

extension BlockSource {
    /// Rows `range` into `destination`: each stored chunk it touches read as
    /// stored and decoded here (with `layout`), a part of a chunk copied from
    /// the whole decoded; a chunk not stored, or that does not decode, through
    /// `H5Dread`. Returns the chunks decoded and the `H5Dread` calls. Takes
    /// the HDF5 lock itself, only to read.
    func fill(_ range: Range<Int>, layout: RawChunkLayout?, into destination: UnsafeMutableRawPointer, decoder: ChunkDecoder,
              raw: inout RawChunk) throws -> ChunkReads {
        let size = elementSize
        guard !range.isEmpty else { return ChunkReads() }
        guard let layout, layout.elementSize == size else {
            try withHDF5 { try readThroughLibrary(range, into: destination) }
            return ChunkReads(library: 1)
        }
        var done = ChunkReads()
        var chunk = range.lowerBound / layout.chunkRows
        while chunk * layout.chunkRows < range.upperBound {
            let chunkRange = (chunk * layout.chunkRows)..<((chunk + 1) * layout.chunkRows)
            let part = chunkRange.clamped(to: range)
            let target = destination + (part.lowerBound - range.lowerBound) * size
            let stored = try withHDF5 { raw.read(dataset: try datasetID(), index: chunk, layout: layout) }
            let rows = (part.lowerBound - chunkRange.lowerBound)..<(part.upperBound - chunkRange.lowerBound)
            if stored && (part == chunkRange ? decoder.decode(raw, layout: layout, into: target)
                                             : decoder.decode(raw, layout: layout, rows: rows, into: target)) {
                done.decoded += 1
            } else {
                try withHDF5 { try readThroughLibrary(part, into: target) }
                done.library += 1
            }
            chunk += 1
        }
        return done
    }
}
