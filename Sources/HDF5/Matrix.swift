import CHDF5

extension Group {
    /// Writes a row-major `rows × columns` matrix as a two-dimensional,
    /// chunked and compressed dataset (what h5py reads as a 2-D array).
    ///
    /// - Parameters:
    ///   - values: `rows * columns` elements, row after row.
    ///   - chunkRows: rows per chunk; whole rows, so one curve reads one chunk.
    /// - Throws: `HDF5Error` when the sizes disagree or HDF5 fails.
    /// The corresponding C functions are `H5Screate_simple`, `H5Pset_chunk`, `H5Dcreate2` and `H5Dwrite`.
    public func writeMatrix<Element: HDF5Scalar>(_ name: String, _ values: [Element], rows: Int, columns: Int,
                                                 chunkRows: Int = 1024, compression: Compression = .standard) throws {
        let where_ = childDisplay(name)
        guard rows >= 0, columns > 0, values.count == rows * columns else {
            throw HDF5Error(function: "writeMatrix", context: where_,
                            stack: ["\(values.count) values do not make a \(rows) × \(columns) matrix"])
        }
        try withHDF5 {
            var shape: [hsize_t] = [hsize_t(rows), hsize_t(columns)]
            let space = try checkID(H5Screate_simple(2, &shape, nil), "H5Screate_simple", where_)
            defer { H5Sclose(space) }
            let dcpl = try checkID(H5Pcreate(CHDF5_P_DATASET_CREATE()), "H5Pcreate", where_)
            defer { H5Pclose(dcpl) }
            if rows > 0 {
                var chunk: [hsize_t] = [hsize_t(max(1, min(rows, chunkRows))), hsize_t(columns)]
                try checkStatus(H5Pset_chunk(dcpl, 2, &chunk), "H5Pset_chunk", where_)
                if compression.deflateLevel > 0, H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 {
                    if compression.shuffle { try checkStatus(H5Pset_shuffle(dcpl), "H5Pset_shuffle", where_) }
                    try checkStatus(H5Pset_deflate(dcpl, UInt32(compression.deflateLevel)), "H5Pset_deflate", where_)
                }
            }
            let id = try checkID(H5Dcreate2(try handle.validID(displayPath), name, Element.scalarKind.nativeType, space,
                                            CHDF5_P_DEFAULT(), dcpl, CHDF5_P_DEFAULT()), "H5Dcreate2", where_)
            defer { H5Dclose(id) }
            if !values.isEmpty {
                let status = values.withUnsafeBufferPointer {
                    H5Dwrite(id, Element.scalarKind.nativeType, CHDF5_S_ALL(), CHDF5_S_ALL(), CHDF5_P_DEFAULT(), $0.baseAddress)
                }
                try checkStatus(status, "H5Dwrite", where_)
            }
        }
    }
}

extension Group {
    /// The shape of the dataset `name`: one extent per dimension.
    /// The corresponding C functions are `H5Dget_space` and `H5Sget_simple_extent_dims`.
    public func shape(of name: String) throws -> [Int] {
        let where_ = childDisplay(name)
        return try withHDF5 {
            let id = try checkID(H5Dopen2(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()), "H5Dopen2", where_)
            defer { H5Dclose(id) }
            let space = try checkID(H5Dget_space(id), "H5Dget_space", where_)
            defer { H5Sclose(space) }
            let rank = H5Sget_simple_extent_ndims(space)
            try checkStatus(rank, "H5Sget_simple_extent_ndims", where_)
            var dims = [hsize_t](repeating: 0, count: Int(rank))
            try checkStatus(H5Sget_simple_extent_dims(space, &dims, nil), "H5Sget_simple_extent_dims", where_)
            return dims.map { Int(clamping: $0) }
        }
    }

    /// Reads a whole `rows × columns` numeric dataset, row after row,
    /// converted to `Element`. Check its size first (`storage(of:)`): a
    /// damaged header may declare any extent.
    /// The corresponding C functions are `H5Dopen2` and `H5Dread`.
    public func readMatrix<Element: HDF5Scalar>(_ name: String, rows: Int, columns: Int, of type: Element.Type = Element.self) throws -> [Element] {
        let where_ = childDisplay(name)
        let found = try shape(of: name)
        guard found == [rows, columns] else {
            throw HDF5Error(function: "readMatrix", context: where_,
                            stack: ["expected a \(rows) × \(columns) matrix, found shape \(found.map(String.init).joined(separator: " × "))"])
        }
        return try withHDF5 {
            let id = try checkID(H5Dopen2(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()), "H5Dopen2", where_)
            defer { H5Dclose(id) }
            let type = try checkID(H5Dget_type(id), "H5Dget_type", where_)
            defer { H5Tclose(type) }
            guard H5Tget_class(type) == H5T_INTEGER || H5Tget_class(type) == H5T_FLOAT else {
                throw HDF5Error(function: "readMatrix", context: where_, stack: ["expected a numeric dataset"])
            }
            var values = [Element](repeating: .zero, count: rows * columns)
            if !values.isEmpty {
                let status = values.withUnsafeMutableBufferPointer {
                    H5Dread(id, Element.scalarKind.nativeType, CHDF5_S_ALL(), CHDF5_S_ALL(), CHDF5_P_DEFAULT(), $0.baseAddress)
                }
                try checkStatus(status, "H5Dread", where_)
            }
            return values
        }
    }

    /// Removes the link `name` from the group (the object goes when no other link holds it).
    /// The corresponding C function is `H5Ldelete`.
    public func removeLink(_ name: String) throws {
        let where_ = childDisplay(name)
        try withHDF5 {
            try checkStatus(H5Ldelete(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()), "H5Ldelete", where_)
        }
    }
}
