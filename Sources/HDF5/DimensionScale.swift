import CHDF5

extension Group {
    /// netCDF-4's mark for a dimension that is not also a variable; h5netcdf
    /// and netCDF-C then list the scale as a dimension only.
    static let dimensionOnlyName = "This is a netCDF dimension but not a netCDF variable."

    /// Creates the dataset `name` as a dimension scale of `rows` rows that
    /// stores no data (netCDF-4's dimension without a variable), and attaches
    /// it to dimension 0 of each one-dimensional dataset in `datasets`, so
    /// netCDF readers (xarray, h5netcdf) see them share a named dimension.
    /// Does nothing when `name` already exists.
    /// The corresponding C functions are `H5DSset_scale` and `H5DSattach_scale`.
    public func attachDimensionScale(_ name: String, rows: Int, to datasets: [String]) throws {
        guard !contains(name) else { return }
        let where_ = childDisplay(name)
        try withHDF5 {
            let group = try handle.validID(displayPath)
            var size = hsize_t(rows)
            let space = try checkID(H5Screate_simple(1, &size, nil), "H5Screate_simple", where_)
            defer { H5Sclose(space) }
            let dcpl = try checkID(H5Pcreate(CHDF5_P_DATASET_CREATE()), "H5Pcreate", where_)
            defer { H5Pclose(dcpl) }
            // Never written, so never allocated: the scale costs no space.
            try checkStatus(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_LATE), "H5Pset_alloc_time", where_)
            try checkStatus(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time", where_)
            let scale = try checkID(H5Dcreate2(group, name, CHDF5_NATIVE_FLOAT(), space, CHDF5_P_DEFAULT(), dcpl, CHDF5_P_DEFAULT()),
                                    "H5Dcreate2", where_)
            defer { H5Dclose(scale) }
            let label = Self.dimensionOnlyName + String(repeating: " ", count: max(0, 10 - String(rows).count)) + String(rows)
            try checkStatus(H5DSset_scale(scale, label), "H5DSset_scale", where_)
            for dataset in datasets {
                let id = try checkID(H5Dopen2(group, dataset, CHDF5_P_DEFAULT()), "H5Dopen2", childDisplay(dataset))
                defer { H5Dclose(id) }
                try checkStatus(H5DSattach_scale(id, scale, 0), "H5DSattach_scale", childDisplay(dataset))
            }
        }
    }

    /// Whether the dataset `name` is a dimension scale.
    /// The corresponding C function is `H5DSis_scale`.
    public func isDimensionScale(_ name: String) throws -> Bool {
        try withHDF5 {
            let id = try checkID(H5Dopen2(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()), "H5Dopen2", childDisplay(name))
            defer { H5Dclose(id) }
            let status = H5DSis_scale(id)
            try checkStatus(status, "H5DSis_scale", childDisplay(name))
            return status > 0
        }
    }
}
