import CHDF5
import Foundation

extension Group {
    /// Writes a row-major array (`rows × columns`, `columns` nil for one
    /// dimension) as a chunked dataset with HDF5's shuffle and deflate
    /// filters. The dataset is made here; its chunks are shuffled, deflated
    /// by libdeflate and stored with `H5Dwrite_chunk` by the file's worker
    /// threads (`DeflatingWorkers`) while the caller goes on, and are all in
    /// the file once it flushes or closes, which throw the first failure.
    /// zlib inside `H5Dwrite` would deflate on the calling thread, at about
    /// half libdeflate's speed. Any reader decodes the chunks through the
    /// filters as usual.
    /// - Parameter chunkRows: rows per chunk (whole rows of a matrix); a shorter array is one chunk.
    /// The corresponding C functions are `H5Pset_chunk`, `H5Pset_shuffle`, `H5Pset_deflate`, `H5Dcreate2` and `H5Dwrite_chunk`.
    public func writeDeflated<Element: HDF5Scalar>(_ name: String, _ values: [Element], rows: Int, columns: Int? = nil,
                                                   chunkRows: Int, compression: Compression = .standard) throws {
        let where_ = childDisplay(name)
        let width = columns ?? 1
        guard rows > 0, width > 0, values.count == rows * width else {
            throw HDF5Error(function: "writeDeflated", context: where_, stack: ["\(values.count) values do not make \(rows) rows of \(width)"])
        }
        let chunk = max(1, min(rows, chunkRows))
        let chunks = (rows + chunk - 1) / chunk
        let elementSize = MemoryLayout<Element>.stride
        let (dataset, workers) = try withHDF5 { () -> (Handle, DeflatingWorkers) in
            let workers = DeflatingWorkers.of(fileHandle)
            var shape: [hsize_t] = columns == nil ? [hsize_t(rows)] : [hsize_t(rows), hsize_t(width)]
            let space = try checkID(H5Screate_simple(Int32(shape.count), &shape, nil), "H5Screate_simple", where_)
            defer { H5Sclose(space) }
            let dcpl = try chunkedCreationList(chunkShape: columns == nil ? [hsize_t(chunk)] : [hsize_t(chunk), hsize_t(width)],
                                               compression: compression, where_)
            defer { H5Pclose(dcpl) }
            let id = try checkID(H5Dcreate2(try handle.validID(displayPath), name, Element.scalarKind.nativeType, space,
                                            CHDF5_P_DEFAULT(), dcpl, CHDF5_P_DEFAULT()), "H5Dcreate2", where_)
            return (Handle(id, kind: "D", name: where_, file: fileHandle, closer: H5Dclose), workers)
        }
        try workers.submit((0..<chunks).map { index in
            DeflatingWorkers.Job(dataset: dataset, displayPath: where_,
                                 offset: columns == nil ? [hsize_t(index * chunk)] : [hsize_t(index * chunk), 0],
                                 elements: (index * chunk * width)..<min(values.count, (index + 1) * chunk * width),
                                 chunkElements: chunk * width, elementSize: elementSize, compression: compression, payload: values)
        })
    }
}

/// The threads that shuffle, deflate and store one file's `writeDeflated`
/// chunks, one per core, while the thread that makes the datasets goes on
/// to the next. Made on a file's first `writeDeflated`, and drained by its
/// flush or close (a flusher of the file's handle). Workers start when
/// chunks wait and end when none do, so an idle file holds no thread.
///
/// A failure (a full disk) stops the work: later chunks are dropped, and the
/// next `submit`, flush or close throws it. Dropping the `File` without
/// closing it (an error elsewhere) drops the chunks not begun and waits for
/// those being stored: a process must not exit while a worker is in HDF5.
final class DeflatingWorkers: @unchecked Sendable {
    /// One chunk: the elements of `payload` it holds, padded with zeros to
    /// `chunkElements` past the dataset's end.
    struct Job {
        let dataset: Handle
        let displayPath: String
        /// The chunk's first element, one index per dimension.
        let offset: [hsize_t]
        let elements: Range<Int>
        let chunkElements: Int
        let elementSize: Int
        let compression: Compression
        let payload: any ChunkPayload
    }

    private let condition = NSCondition()
    /// Chunks in submission order; a taken one is set to nil, so that its values and dataset are let go once stored.
    private var queue: [Job?] = []
    private var next = 0
    private var running = 0
    private var failure: (any Error)?
    private let threads: Int

    private init(threads: Int) { self.threads = max(1, threads) }

    /// The workers of the file `fileHandle`, made and registered as its flusher on first use. Under the HDF5 lock.
    static func of(_ fileHandle: Handle) -> DeflatingWorkers {
        if let existing = fileHandle.deflatingWorkers { return existing }
        let workers = DeflatingWorkers(threads: ProcessInfo.processInfo.activeProcessorCount)
        fileHandle.deflatingWorkers = workers
        fileHandle.registerLocked(workers) { try workers.drain() }
        return workers
    }

    func submit(_ jobs: [Job]) throws {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        if next == queue.count { queue.removeAll(keepingCapacity: true); next = 0 }
        queue.append(contentsOf: jobs.map(Optional.some))
        while running < threads && running < queue.count - next {
            running += 1
            let thread = Thread { [self] in work() }
            thread.name = "forcetrace chunk deflater"
            thread.start()
        }
        condition.broadcast()
    }

    /// Waits until every chunk submitted is in the file; throws the first failure.
    func drain() throws {
        condition.lock()
        defer { condition.unlock() }
        while running > 0 { condition.wait() }
        queue.removeAll()
        next = 0
        if let failure { throw failure }
    }

    /// Whether a worker is running (tests).
    var isWorking: Bool {
        condition.lock()
        defer { condition.unlock() }
        return running > 0
    }

    /// Drops the chunks not begun and waits for the workers to end.
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        queue.removeAll()
        next = 0
        while running > 0 { condition.wait() }
    }

    /// The next chunk, nil when none waits or a worker failed.
    private func take() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        guard next < queue.count, failure == nil else {
            running -= 1
            condition.broadcast()
            return nil
        }
        let job = queue[next]
        queue[next] = nil
        next += 1
        return job
    }

    private func fail(_ error: any Error) {
        condition.lock()
        if failure == nil { failure = error }
        condition.unlock()
    }

    private func work() {
        let encoder = ChunkEncoder()
        while let job = take() {
            do { try store(job, encoder) } catch { fail(error) }
        }
    }

    private func store(_ job: Job, _ encoder: ChunkEncoder) throws {
        let size = job.chunkElements * job.elementSize
        func encode(_ input: UnsafeRawBufferPointer) throws {
            let (stored, mask) = try encoder.encode(input, rows: job.chunkElements, elementSize: job.elementSize,
                                                    compression: job.compression, displayPath: job.displayPath)
            try withHDF5 {
                var offset = job.offset
                try encoder.storeEncoded(try job.dataset.validID(job.displayPath), offset: &offset, stored: stored, mask: mask,
                                         displayPath: job.displayPath)
            }
        }
        try job.payload.withChunkBytes { whole in
            let bytes = UnsafeRawBufferPointer(rebasing: whole[(job.elements.lowerBound * job.elementSize)..<(job.elements.upperBound * job.elementSize)])
            if bytes.count == size { return try encode(bytes) }
            // The last chunk is stored whole: zeros past the dataset's end.
            var padded = [UInt8](repeating: 0, count: size)
            padded.withUnsafeMutableBytes { $0.copyMemory(from: bytes) }
            try padded.withUnsafeBytes { try encode($0) }
        }
    }
}
