import CHDF5

extension Group {
    /// Copies the object `name` (a group with everything under it, or a
    /// dataset, with their attributes) into `destination` as `newName`.
    /// Only live data is copied, so copying a file's contents into a new
    /// file drops the dead space that rewritten chunks leave behind.
    /// - Parameter attributes: false copies no attribute at all (the
    ///   caller copies those it wants), so none is read.
    /// The corresponding C functions are `H5Ocopy` and `H5Pset_copy_object`.
    public func copy(_ name: String, to destination: Group, as newName: String? = nil, attributes: Bool = true) throws {
        let target = newName ?? name
        let where_ = "\(childDisplay(name)) to \(destination.childDisplay(target))"
        try withHDF5 {
            var options = CHDF5_P_DEFAULT()
            if !attributes {
                options = try checkID(H5Pcreate(CHDF5_P_OBJECT_COPY()), "H5Pcreate", where_)
                try checkStatus(H5Pset_copy_object(options, CHDF5_O_COPY_WITHOUT_ATTR_FLAG()), "H5Pset_copy_object", where_)
            }
            defer { if !attributes { H5Pclose(options) } }
            try checkStatus(H5Ocopy(try handle.validID(displayPath), name, try destination.handle.validID(destination.displayPath),
                                    target, options, CHDF5_P_DEFAULT()),
                            "H5Ocopy", where_)
        }
    }
}

extension Group {
    /// Copies the values of the one-dimensional dataset `name` into a new,
    /// extendible dataset of that name and type in `destination`. Chunks
    /// stored with shuffle and deflate alone (every trace column) are copied
    /// as stored, with their chunking and filters (`H5Dread_chunk`,
    /// `H5Dwrite_chunk`); anything else is re-encoded a block of rows at a
    /// time through `H5Dread` and `H5Dwrite`, chunked by `chunkRows` and
    /// compressed with `compression`. Nothing else of the source crosses (no
    /// attribute, fill value or chunk index): `H5Ocopy` copies those as
    /// stored, and faulted inside HDF5 on damaged ones (byte-flipped trace
    /// files given to `import`).
    /// The corresponding C functions are `H5Dread_chunk`, `H5Dwrite_chunk`,
    /// `H5Dread`, `H5Dcreate2` and `H5Dwrite`.
    public func copyValues(_ name: String, to destination: Group, chunkRows: Int, compression: Compression,
                           blockRows: Int = 1 << 16) throws {
        let from = childDisplay(name), to = destination.childDisplay(name)
        guard chunkRows > 0, blockRows > 0 else {
            throw HDF5Error(function: "H5Pset_chunk", context: to, stack: ["chunk and block rows must be positive"])
        }
        try withHDF5 {
            let source = try checkID(H5Dopen2(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()), "H5Dopen2", from)
            defer { H5Dclose(source) }
            let sourceSpace = try checkID(H5Dget_space(source), "H5Dget_space", from)
            defer { H5Sclose(sourceSpace) }
            guard H5Sget_simple_extent_ndims(sourceSpace) == 1 else {
                throw HDF5Error(function: "H5Dopen2", context: from, stack: ["expected a one-dimensional dataset"])
            }
            var rows: hsize_t = 0
            try checkStatus(H5Sget_simple_extent_dims(sourceSpace, &rows, nil), "H5Sget_simple_extent_dims", from)
            // The type is made anew from its class, size and string form, not
            // copied: the new file holds only a type this code wrote, and a
            // committed type would belong to the source file.
            let storedType = try checkID(H5Dget_type(source), "H5Dget_type", from)
            defer { H5Tclose(storedType) }
            let type = try Self.freshType(like: storedType, from)
            defer { H5Tclose(type) }
            let variable = H5Tis_variable_str(type) > 0
            let rowBytes = H5Tget_size(type)
            guard rowBytes > 0, rowBytes <= 1 << 16 else {
                throw HDF5Error(function: "H5Tget_size", context: from, stack: ["a row of \(rowBytes) bytes"])
            }

            // Variable-length strings are references into the source's heap: never copied raw.
            let raw = variable ? nil : RawChunkLayout.of(dataset: source, memoryType: type)
            var maximum = CHDF5_S_UNLIMITED()
            let space = try checkID(H5Screate_simple(1, &rows, &maximum), "H5Screate_simple", to)
            defer { H5Sclose(space) }
            let dcpl: hid_t
            if let raw {
                // The source's pipeline, filter for filter, so its chunks decode here as they are.
                dcpl = try chunkedCreationList(chunkRows: raw.chunkRows, compression: .none, to)
                if raw.shuffleStage != nil { try checkStatus(H5Pset_shuffle(dcpl), "H5Pset_shuffle", to) }
                if raw.deflateStage != nil {
                    try checkStatus(H5Pset_deflate(dcpl, UInt32(max(1, compression.deflateLevel))), "H5Pset_deflate", to)
                }
            } else {
                dcpl = try chunkedCreationList(chunkRows: chunkRows, compression: compression, to)
            }
            defer { H5Pclose(dcpl) }
            let target = try checkID(H5Dcreate2(try destination.handle.validID(destination.displayPath), name, type, space,
                                                CHDF5_P_DEFAULT(), dcpl, CHDF5_P_DEFAULT()), "H5Dcreate2", to)
            defer { H5Dclose(target) }

            let block = raw.map { $0.chunkRows } ?? max(1, min(blockRows, Int(rows)))
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: block * rowBytes, alignment: 16)
            defer { buffer.deallocate() }
            var chunk = RawChunk()
            var start: hsize_t = 0
            while start < rows {
                var count = min(hsize_t(block), rows - start)
                if let raw, chunk.read(dataset: source, index: Int(start) / raw.chunkRows, layout: raw) {
                    var offset = start
                    let status = chunk.bytes.withUnsafeBytes {
                        H5Dwrite_chunk(target, CHDF5_P_DEFAULT(), chunk.filterMask, &offset, chunk.count, $0.baseAddress)
                    }
                    try checkStatus(status, "H5Dwrite_chunk", to)
                    start += count
                    continue
                }
                let memorySpace = try checkID(H5Screate_simple(1, &count, nil), "H5Screate_simple", from)
                defer { H5Sclose(memorySpace) }
                try checkStatus(H5Sselect_hyperslab(sourceSpace, H5S_SELECT_SET, &start, nil, &count, nil), "H5Sselect_hyperslab", from)
                try checkStatus(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nil, &count, nil), "H5Sselect_hyperslab", to)
                try checkStatus(H5Dread(source, type, memorySpace, sourceSpace, CHDF5_P_DEFAULT(), buffer), "H5Dread", from)
                let written = H5Dwrite(target, type, memorySpace, space, CHDF5_P_DEFAULT(), buffer)
                if variable { _ = H5Dvlen_reclaim(type, memorySpace, CHDF5_P_DEFAULT(), buffer) }
                try checkStatus(written, "H5Dwrite", to)
                start += count
            }
        }
    }
}

extension Group {
    /// A new type with the class, size, sign and string form of `stored`:
    /// native integers and floats, C strings (fixed or variable length,
    /// their padding and character set). Close it with `H5Tclose`.
    static func freshType(like stored: hid_t, _ where_: String) throws -> hid_t {
        switch H5Tget_class(stored) {
        case H5T_INTEGER, H5T_FLOAT:
            return try checkID(H5Tget_native_type(stored, H5T_DIR_ASCEND), "H5Tget_native_type", where_)
        case H5T_STRING:
            let type = try checkID(H5Tcopy(CHDF5_C_S1()), "H5Tcopy", where_)
            var ok = false
            defer { if !ok { H5Tclose(type) } }
            if H5Tis_variable_str(stored) > 0 {
                try checkStatus(H5Tset_size(type, CHDF5_T_VARIABLE()), "H5Tset_size", where_)
            } else {
                let size = H5Tget_size(stored)
                guard size > 0, size <= 1 << 16 else {
                    throw HDF5Error(function: "H5Tget_size", context: where_, stack: ["strings of \(size) bytes"])
                }
                try checkStatus(H5Tset_size(type, size), "H5Tset_size", where_)
                let padding = H5Tget_strpad(stored)
                if padding != H5T_STR_ERROR { try checkStatus(H5Tset_strpad(type, padding), "H5Tset_strpad", where_) }
            }
            let characters = H5Tget_cset(stored)
            if characters == H5T_CSET_UTF8 { try checkStatus(H5Tset_cset(type, H5T_CSET_UTF8), "H5Tset_cset", where_) }
            ok = true
            return type
        default:
            throw HDF5Error(function: "H5Dget_type", context: where_, stack: ["a column of neither numbers nor strings"])
        }
    }
}
