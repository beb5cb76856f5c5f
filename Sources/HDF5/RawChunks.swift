import CByteShuffle
import CDeflate
import CHDF5

/// How one column's chunks are stored, when this module can decode them
/// itself: one-dimensional chunks of the reader's own type, through a
/// pipeline of shuffle and/or deflate in HDF5's order (shuffle first on
/// write). Any other layout, type or filter is read through `H5Dread`.
struct RawChunkLayout: Sendable, Equatable {
    var chunkRows: Int
    var elementSize: Int
    /// The pipeline position of each filter, for the chunk's filter mask
    /// (bit `i` set: filter `i` was skipped for this chunk).
    var shuffleStage: Int?
    var deflateStage: Int?

    var chunkBytes: Int { chunkRows * elementSize }

    /// Inspects the dataset's creation properties and type; nil when the
    /// fast path does not apply. Call under the HDF5 lock.
    static func of(dataset id: hid_t, memoryType: hid_t) -> RawChunkLayout? {
        let dcpl = H5Dget_create_plist(id)
        guard dcpl >= 0 else { return nil }
        defer { H5Pclose(dcpl) }
        guard H5Pget_layout(dcpl) == H5D_CHUNKED else { return nil }
        var chunk: hsize_t = 0
        guard H5Pget_chunk(dcpl, 1, &chunk) == 1, chunk > 0 else { return nil }
        let fileType = H5Dget_type(id)
        guard fileType >= 0 else { return nil }
        defer { H5Tclose(fileType) }
        // Same size, order and sign as memory: the stored bytes are the values.
        guard H5Tequal(fileType, memoryType) > 0 else { return nil }
        var layout = RawChunkLayout(chunkRows: Int(chunk), elementSize: Int(H5Tget_size(fileType)))
        let filters = H5Pget_nfilters(dcpl)
        guard filters >= 0 else { return nil }
        for stage in 0..<Int(filters) {
            var flags: UInt32 = 0
            var values = [UInt32](repeating: 0, count: 8)
            var valueCount = values.count
            var name = [CChar](repeating: 0, count: 64)
            var config: UInt32 = 0
            let filter = H5Pget_filter2(dcpl, UInt32(stage), &flags, &valueCount, &values, name.count, &name, &config)
            switch filter {
            case H5Z_FILTER_SHUFFLE where layout.shuffleStage == nil && layout.deflateStage == nil:
                layout.shuffleStage = stage
            case H5Z_FILTER_DEFLATE where layout.deflateStage == nil:
                layout.deflateStage = stage
            default:
                return nil
            }
        }
        return layout
    }

    init(chunkRows: Int, elementSize: Int, shuffleStage: Int? = nil, deflateStage: Int? = nil) {
        self.chunkRows = chunkRows
        self.elementSize = elementSize
        self.shuffleStage = shuffleStage
        self.deflateStage = deflateStage
    }
}

/// One chunk as stored in the file, read by `H5Dread_chunk`.
struct RawChunk {
    var bytes: [UInt8] = []
    var count = 0
    var filterMask: UInt32 = 0

    /// Reads chunk `index` of a column; false when the chunk is not stored
    /// whole (past the extent, or never written), so the caller reads it
    /// through `H5Dread`, which also supplies fill values. Call under the
    /// HDF5 lock.
    /// The corresponding C functions are `H5Dget_chunk_storage_size` and `H5Dread_chunk`.
    mutating func read(dataset id: hid_t, index: Int, layout: RawChunkLayout) -> Bool {
        var offset = hsize_t(index * layout.chunkRows)
        var stored: hsize_t = 0
        guard H5Dget_chunk_storage_size(id, &offset, &stored) >= 0, stored > 0 else { return false }
        // A deflated chunk is never more than a few bytes over its raw size; more means damage.
        guard stored <= hsize_t(layout.chunkBytes + layout.chunkBytes / 8 + 1024) else { return false }
        count = Int(stored)
        if bytes.count < count { bytes = [UInt8](repeating: 0, count: count) }
        var mask: UInt32 = 0
        guard bytes.withUnsafeMutableBytes({ H5Dread_chunk(id, CHDF5_P_DEFAULT(), &offset, &mask, $0.baseAddress) }) >= 0 else {
            return false
        }
        filterMask = mask
        return true
    }
}

/// Inflates and unshuffles raw chunks, outside the HDF5 lock. One per
/// thread: a libdeflate decompressor keeps state between calls.
final class ChunkDecoder {
    /// Made at the first chunk: a read that decodes none (`Column.read` of
    /// less than a chunk, a layout read through `H5Dread`) makes none.
    private var decompressor: OpaquePointer?
    private var scratch: [UInt8] = []
    /// A chunk decoded whole, for a part of it.
    private var whole: [UInt8] = []

    init() {}
    deinit { if let decompressor { libdeflate_free_decompressor(decompressor) } }

    /// Decodes `chunk` into `output` (exactly `layout.chunkBytes`); false
    /// when the data does not decode to that size, so the caller can let
    /// HDF5 read the chunk and report the damage in its own words.
    func decode(_ chunk: RawChunk, layout: RawChunkLayout, into output: UnsafeMutableRawPointer) -> Bool {
        func applied(_ stage: Int?) -> Bool { stage.map { chunk.filterMask & (1 << UInt32($0)) == 0 } ?? false }
        let unmasked = chunk.filterMask & ~((layout.shuffleStage.map { 1 << UInt32($0) } ?? 0) | (layout.deflateStage.map { 1 << UInt32($0) } ?? 0))
        guard unmasked == 0 else { return false }
        let inflate = applied(layout.deflateStage)
        let unshuffle = applied(layout.shuffleStage) && layout.elementSize > 1
        let size = layout.chunkBytes
        if decompressor == nil { decompressor = libdeflate_alloc_decompressor() }
        return chunk.bytes.withUnsafeBytes { stored -> Bool in
            guard let source = stored.baseAddress, let decompressor else { return false }
            switch (inflate, unshuffle) {
            case (false, false):
                guard chunk.count == size else { return false }
                output.copyMemory(from: source, byteCount: size)
                return true
            case (false, true):
                guard chunk.count == size else { return false }
                self.unshuffle(source, into: output, layout: layout)
                return true
            case (true, false):
                var produced = 0
                return libdeflate_zlib_decompress(decompressor, source, chunk.count, output, size, &produced) == LIBDEFLATE_SUCCESS
                    && produced == size
            case (true, true):
                if scratch.count < size { scratch = [UInt8](repeating: 0, count: size) }
                return scratch.withUnsafeMutableBytes { inflated -> Bool in
                    var produced = 0
                    guard libdeflate_zlib_decompress(decompressor, source, chunk.count, inflated.baseAddress, size, &produced) == LIBDEFLATE_SUCCESS,
                          produced == size else { return false }
                    self.unshuffle(UnsafeRawPointer(inflated.baseAddress!), into: output, layout: layout)
                    return true
                }
            }
        }
    }

    private func unshuffle(_ source: UnsafeRawPointer, into output: UnsafeMutableRawPointer, layout: RawChunkLayout) {
        Self.unshuffle(source, into: output, rows: layout.chunkRows, elementSize: layout.elementSize)
    }

    /// Rows `rows` of `chunk` into `output`: the chunk decoded whole (an edge
    /// chunk is stored whole, its rows past the extent as fill), then those
    /// rows copied.
    func decode(_ chunk: RawChunk, layout: RawChunkLayout, rows: Range<Int>, into output: UnsafeMutableRawPointer) -> Bool {
        guard rows.lowerBound >= 0, rows.upperBound <= layout.chunkRows else { return false }
        if whole.count < layout.chunkBytes { whole = [UInt8](repeating: 0, count: layout.chunkBytes) }
        return whole.withUnsafeMutableBytes { buffer -> Bool in
            guard let base = buffer.baseAddress, decode(chunk, layout: layout, into: base) else { return false }
            output.copyMemory(from: base + rows.lowerBound * layout.elementSize, byteCount: rows.count * layout.elementSize)
            return true
        }
    }

    /// Undoes HDF5's shuffle filter: byte `j` of every element is stored
    /// together, as plane `j` of `rows` bytes. Elements of 2, 4 and 8 bytes
    /// go sixteen rows at a time through SSE2's unpacks (Sources/CByteShuffle).
    static func unshuffle(_ source: UnsafeRawPointer, into output: UnsafeMutableRawPointer, rows: Int, elementSize: Int) {
        ft_unshuffle(source.assumingMemoryBound(to: UInt8.self), output.assumingMemoryBound(to: UInt8.self), rows, elementSize)
    }
}
