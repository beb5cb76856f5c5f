import CHDF5

extension Group {
    /// The most bytes a chunk of a trace file's column holds uncompressed:
    /// a reader inflates a chunk whole for any part of it, so this bounds
    /// each read's work (`TraceValidation` refuses larger chunks on read).
    public static let maximumChunkBytes = 16 << 20

    /// Writes a whole array as a chunked, compressed, extendible column, for
    /// tables written at once (a recording's labels).
    /// - Parameter chunkRows: rows per chunk; a shorter array is one chunk.
    public func writeCompressedArray<Element: HDF5Scalar>(_ name: String, _ values: [Element], chunkRows: Int = 16384,
                                                          compression: Compression = .standard) throws {
        let column: Column<Element> = try createColumn(name, chunkRows: max(1, min(chunkRows, values.count)), compression: compression)
        try values.withUnsafeBufferPointer { try column.append(contentsOf: $0) }
        try column.close()
    }

    /// Writes UTF-8 strings as fixed-length strings (NUL-padded to the
    /// longest), chunked and compressed. Variable-length strings live in
    /// HDF5's global heap, which no filter compresses: 48 000 class names
    /// took 2 MB that way, and 5 kB like this. h5py reads them as `bytes`
    /// (`.asstr()` gives `str`), xarray as `str` (the `_Encoding`
    /// attribute); `readStrings` reads both kinds. A NUL ends a string.
    /// The corresponding C functions are `H5Tset_size`, `H5Pset_chunk`, `H5Pset_deflate` and `H5Dwrite`.
    public func writeCompressedStrings(_ name: String, _ values: [String], chunkRows: Int = 16384,
                                       compression: Compression = .standard) throws {
        let where_ = childDisplay(name)
        // A NUL ends a string, as in a variable-length one (HDF5 strings are C strings).
        func stored(_ value: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
            var value = value
            value.withUTF8 { utf8 in body(UnsafeBufferPointer(rebasing: utf8[..<(utf8.firstIndex(of: 0) ?? utf8.count)])) }
        }
        var width = 1
        for value in values { stored(value) { width = max(width, $0.count) } }
        guard width <= Self.maximumChunkBytes else {
            throw HDF5Error(function: "H5Dwrite", context: where_,
                            stack: ["a string of \(width) bytes is longer than the \(Self.maximumChunkBytes) bytes a chunk may hold"])
        }
        var bytes = [UInt8](repeating: 0, count: width * values.count)
        bytes.withUnsafeMutableBufferPointer { bytes in
            for (row, value) in values.enumerated() {
                stored(value) { utf8 in
                    _ = UnsafeMutableBufferPointer(rebasing: bytes[(row * width)...]).initialize(from: utf8)
                }
            }
        }
        try withHDF5 {
            let type = try checkID(H5Tcopy(CHDF5_C_S1()), "H5Tcopy", where_)
            defer { H5Tclose(type) }
            try checkStatus(H5Tset_size(type, width), "H5Tset_size", where_)
            try checkStatus(H5Tset_cset(type, H5T_CSET_UTF8), "H5Tset_cset", where_)
            try checkStatus(H5Tset_strpad(type, H5T_STR_NULLPAD), "H5Tset_strpad", where_)
            var count = hsize_t(values.count)
            var maximum = CHDF5_S_UNLIMITED()
            let space = try checkID(H5Screate_simple(1, &count, &maximum), "H5Screate_simple", where_)
            defer { H5Sclose(space) }
            let dcpl = try checkID(H5Pcreate(CHDF5_P_DATASET_CREATE()), "H5Pcreate", where_)
            defer { H5Pclose(dcpl) }
            var chunk = hsize_t(max(1, min(chunkRows, values.count, Self.maximumChunkBytes / width)))
            try checkStatus(H5Pset_chunk(dcpl, 1, &chunk), "H5Pset_chunk", where_)
            if compression.deflateLevel > 0 {
                if compression.shuffle { try checkStatus(H5Pset_shuffle(dcpl), "H5Pset_shuffle", where_) }
                try checkStatus(H5Pset_deflate(dcpl, UInt32(compression.deflateLevel)), "H5Pset_deflate", where_)
            }
            let id = try checkID(H5Dcreate2(try handle.validID(displayPath), name, type, space, CHDF5_P_DEFAULT(), dcpl, CHDF5_P_DEFAULT()),
                                 "H5Dcreate2", where_)
            defer { H5Dclose(id) }
            if !values.isEmpty {
                try checkStatus(H5Dwrite(id, type, CHDF5_S_ALL(), CHDF5_S_ALL(), CHDF5_P_DEFAULT(), bytes), "H5Dwrite", where_)
            }
        }
        // The netCDF/CF mark for text in a byte array: xarray decodes it to `str`.
        try setAttribute("_Encoding", .string("utf-8"), onMember: name)
    }
}
