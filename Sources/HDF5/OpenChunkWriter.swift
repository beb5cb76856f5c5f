import CHDF5

/// Writes the last, still filling chunk of a SWMR writer's columns whole,
/// shuffled and deflated here as the dataset's filters would, with
/// `H5Dwrite_chunk`. Through `H5Dwrite`, HDF5 deflated that chunk with zlib
/// at the file's level at every flush until it filled; here a partial chunk
/// is deflated at level 1 by libdeflate (a few times cheaper) and the full
/// chunk once at the file's level. Readers inflate any level, so the format
/// is unchanged; only each table's last chunk keeps level 1's size.
/// One per file, shared by its columns (`Group.createColumn(openChunks:)`).
public final class OpenChunkWriter {
    /// The deflate level of a chunk still filling (at most the file's).
    static let partialLevel = 1
    private let encoder = ChunkEncoder()
    /// A partial chunk padded with zeros to the chunk's size.
    private var padded: [UInt8] = []

    public init() {}

    /// Stores chunk `index` of the dataset, holding its first `values.count /
    /// elementSize` rows, and sets the dataset's extent to end with them.
    func write(_ handle: Handle, displayPath: String, index: Int, chunkRows: Int, elementSize: Int,
               compression: Compression, values: UnsafeRawBufferPointer) throws {
        let size = chunkRows * elementSize
        let rows = values.count / elementSize
        var level = compression
        if rows < chunkRows && compression.deflateLevel > Self.partialLevel {
            level = try Compression(deflateLevel: Self.partialLevel, shuffle: compression.shuffle)
        }
        let (stored, mask): (Int, UInt32)
        if values.count == size {
            (stored, mask) = try encoder.encode(values, rows: chunkRows, elementSize: elementSize, compression: level,
                                                displayPath: displayPath)
        } else {
            if padded.count < size { padded = [UInt8](repeating: 0, count: size) }
            (stored, mask) = try padded.withUnsafeMutableBytes { buffer in
                buffer.baseAddress!.copyMemory(from: values.baseAddress!, byteCount: values.count)
                (buffer.baseAddress! + values.count).initializeMemory(as: UInt8.self, repeating: 0, count: size - values.count)
                return try encoder.encode(UnsafeRawBufferPointer(rebasing: buffer[0..<size]), rows: chunkRows,
                                          elementSize: elementSize, compression: level, displayPath: displayPath)
            }
        }
        try withHDF5 {
            let id = try handle.validID(displayPath)
            var extent = hsize_t(index * chunkRows + rows)
            try checkStatus(H5Dset_extent(id, &extent), "H5Dset_extent", displayPath)
            try encoder.storeEncoded(id, row: index * chunkRows, stored: stored, mask: mask, displayPath: displayPath)
        }
    }
}
