import CHDF5

extension Group {
    /// Writes `value` as a scalar (rank-0) variable-length UTF-8 string
    /// dataset: one text of any length (an attribute in the default file
    /// format holds at most 64 KiB), which netCDF readers see as a variable
    /// without dimensions.
    /// The corresponding C functions are `H5Screate(H5S_SCALAR)`, `H5Dcreate2` and `H5Dwrite`.
    public func writeString(_ name: String, _ value: String) throws {
        try writeStringDataset(name, [value], scalar: true)
    }

    /// A variable-length UTF-8 string dataset holding `values`: one
    /// dimension, or rank 0 (`scalar`, one value).
    func writeStringDataset(_ name: String, _ values: [String], scalar: Bool) throws {
        let where_ = childDisplay(name)
        // The C texts are made before the HDF5 lock is taken, which the file's deflating workers wait for.
        try withCStringArray(values) { pointers in
            try withHDF5 {
                var count = hsize_t(values.count)
                let space = try checkID(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nil),
                                        scalar ? "H5Screate" : "H5Screate_simple", where_)
                defer { H5Sclose(space) }
                let type = try makeStringType()
                defer { H5Tclose(type) }
                let id = try checkID(H5Dcreate2(try handle.validID(displayPath), name, type, space,
                                                CHDF5_P_DEFAULT(), CHDF5_P_DEFAULT(), CHDF5_P_DEFAULT()), "H5Dcreate2", where_)
                defer { H5Dclose(id) }
                guard !values.isEmpty else { return }
                let status = pointers.withUnsafeBufferPointer {
                    H5Dwrite(id, type, CHDF5_S_ALL(), CHDF5_S_ALL(), CHDF5_P_DEFAULT(), $0.baseAddress)
                }
                try checkStatus(status, "H5Dwrite", where_)
            }
        }
    }
}
