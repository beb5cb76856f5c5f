import CHDF5

extension Group {
    /// Writes `value` as a scalar (rank-0) dataset: one number that netCDF
    /// readers see as a variable without dimensions, where an attribute
    /// could not carry `units` and `long_name` of its own.
    /// The corresponding C functions are `H5Screate(H5S_SCALAR)`, `H5Dcreate2` and `H5Dwrite`.
    public func writeScalar<Element: HDF5Scalar>(_ name: String, _ value: Element) throws {
        let where_ = childDisplay(name)
        try withHDF5 {
            let space = try checkID(H5Screate(H5S_SCALAR), "H5Screate", where_)
            defer { H5Sclose(space) }
            let type = Element.scalarKind.nativeType
            let id = try checkID(H5Dcreate2(try handle.validID(displayPath), name, type, space,
                                            CHDF5_P_DEFAULT(), CHDF5_P_DEFAULT(), CHDF5_P_DEFAULT()), "H5Dcreate2", where_)
            defer { H5Dclose(id) }
            var copy = value
            try checkStatus(H5Dwrite(id, type, CHDF5_S_ALL(), CHDF5_S_ALL(), CHDF5_P_DEFAULT(), &copy), "H5Dwrite", where_)
        }
    }
}
