import CHDF5
import Foundation

extension Group {
    /// Writes a row-major array (`rows × columns`, `columns` nil for one
    /// dimension) as a chunked dataset with HDF5's shuffle and deflate
    /// filters, the chunks shuffled and deflated by libdeflate on worker
    /// threads (`ChunkEncoder`, as the trace writer's `ChunkPipeline`) and
    /// stored with `H5Dwrite_chunk`: zlib inside `H5Dwrite` would deflate on
    /// the calling thread, at about half libdeflate's speed. Any reader
    /// decodes the chunks through the filters as usual.
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
        let chunkElements = chunk * width
        // Every chunk compressed before any is stored; the compressed chunks are what the file will hold anyway.
        let encoded = ChunkSlots(count: chunks)
        let workers = min(chunks, max(1, ProcessInfo.processInfo.activeProcessorCount))
        values.withUnsafeBytes { whole in
            // Read only, and only inside this call.
            nonisolated(unsafe) let bytes = whole
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                let encoder = ChunkEncoder()
                var padded: [Element] = []
                while let index = encoded.claim() {
                    let start = index * chunkElements * elementSize
                    let end = min(bytes.count, start + chunkElements * elementSize)
                    do {
                        let result: (stored: Int, mask: UInt32)
                        if end - start == chunkElements * elementSize {
                            result = try encoder.encode(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), rows: chunkElements,
                                                        elementSize: elementSize, compression: compression, displayPath: where_)
                        } else {
                            // The last chunk is stored whole: padded with zeros past the dataset's end.
                            padded = Array(values[(start / elementSize)...]) + Array(repeating: 0, count: chunkElements - (end - start) / elementSize)
                            result = try padded.withUnsafeBytes {
                                try encoder.encode($0, rows: chunkElements, elementSize: elementSize, compression: compression, displayPath: where_)
                            }
                        }
                        encoded.store(index, (encoder.encoded(result.stored), result.mask))
                    } catch {
                        encoded.fail(error)
                    }
                }
            }
        }
        if let error = encoded.failure { throw error }
        try withHDF5 {
            var shape: [hsize_t] = columns == nil ? [hsize_t(rows)] : [hsize_t(rows), hsize_t(width)]
            let space = try checkID(H5Screate_simple(Int32(shape.count), &shape, nil), "H5Screate_simple", where_)
            defer { H5Sclose(space) }
            let dcpl = try chunkedCreationList(chunkShape: columns == nil ? [hsize_t(chunk)] : [hsize_t(chunk), hsize_t(width)],
                                               compression: compression, where_)
            defer { H5Pclose(dcpl) }
            let id = try checkID(H5Dcreate2(try handle.validID(displayPath), name, Element.scalarKind.nativeType, space,
                                            CHDF5_P_DEFAULT(), dcpl, CHDF5_P_DEFAULT()), "H5Dcreate2", where_)
            defer { H5Dclose(id) }
            for index in 0..<chunks {
                let (bytes, mask) = encoded.take(index)
                var offset: [hsize_t] = columns == nil ? [hsize_t(index * chunk)] : [hsize_t(index * chunk), 0]
                let status = bytes.withUnsafeBytes { H5Dwrite_chunk(id, CHDF5_P_DEFAULT(), mask, &offset, bytes.count, $0.baseAddress) }
                try checkStatus(status, "H5Dwrite_chunk", where_)
            }
        }
    }
}

/// The compressed chunks of one dataset, filled by the workers in any
/// order, and the first error of any of them.
private final class ChunkSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var slots: [(bytes: [UInt8], mask: UInt32)]
    private var error: (any Error)?

    init(count: Int) { slots = Array(repeating: ([], 0), count: count) }

    /// The next chunk to compress, nil when every one is taken.
    func claim() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < slots.count else { return nil }
        next += 1
        return next - 1
    }

    func store(_ index: Int, _ chunk: (bytes: [UInt8], mask: UInt32)) {
        lock.lock()
        slots[index] = chunk
        lock.unlock()
    }

    func fail(_ error: any Error) {
        lock.lock()
        if self.error == nil { self.error = error }
        lock.unlock()
    }

    var failure: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return error
    }

    func take(_ index: Int) -> (bytes: [UInt8], mask: UInt32) {
        lock.lock()
        defer { lock.unlock() }
        let chunk = slots[index]
        slots[index] = ([], 0)
        return chunk
    }
}
