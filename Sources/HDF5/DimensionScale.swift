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
    public func attachDimensionScale(_ name: String, rows: Int, to datasets: [String]) throws {
        guard !contains(name) else { return }
        try createDimensionScale(name, rows: rows)
        try attachScale(name, to: datasets)
    }

    /// Creates the dataset `name` as a dimension scale of `rows` rows that
    /// stores no data: netCDF-4's dimension without a variable.
    /// The corresponding C function is `H5DSset_scale`.
    public func createDimensionScale(_ name: String, rows: Int) throws {
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
        }
    }

    /// Makes the existing one-dimensional dataset `name` the dimension scale
    /// of a dimension of the same name: netCDF-4's coordinate variable, whose
    /// values label the dimension's points (xarray shows it as a coordinate).
    /// The corresponding C function is `H5DSset_scale`.
    public func makeCoordinateScale(_ name: String) throws {
        try withDataset(name) { id in try checkStatus(H5DSset_scale(id, name), "H5DSset_scale", childDisplay(name)) }
    }

    /// Attaches the scale `scale` to dimension `axis` of each dataset in
    /// `datasets`. Both are paths relative to this group, so a scale may
    /// serve datasets in subgroups (netCDF-4 dimensions are visible in the
    /// groups below the one that defines them).
    /// The corresponding C function is `H5DSattach_scale`.
    public func attachScale(_ scale: String, to datasets: [String], axis: Int = 0) throws {
        try withDataset(scale) { scaleID in
            for dataset in datasets {
                try withDataset(dataset) { id in
                    try checkStatus(H5DSattach_scale(id, scaleID, UInt32(axis)), "H5DSattach_scale", childDisplay(dataset))
                }
            }
        }
    }

    /// Whether the dataset `name` is a dimension scale.
    /// The corresponding C function is `H5DSis_scale`.
    public func isDimensionScale(_ name: String) throws -> Bool {
        try withDataset(name) { id in
            let status = H5DSis_scale(id)
            try checkStatus(status, "H5DSis_scale", childDisplay(name))
            return status > 0
        }
    }

    /// One dimension scale attached to one axis of a dataset, both as paths
    /// relative to the group that lists it.
    public struct ScaleAttachment: Equatable, Sendable {
        public var dataset: String
        public var axis: Int
        public var scale: String
    }

    /// Every scale attached to a dataset in this group or below it, where
    /// the scale is in this group or below it too.
    /// The corresponding C functions are `H5DSget_num_scales` and `H5DSiterate_scales`.
    public func scaleAttachments() throws -> [ScaleAttachment] {
        try withHDF5 {
            var result: [ScaleAttachment] = []
            let prefix = path == "/" ? "/" : path + "/"
            for (member, isGroup) in try descendants() where !isGroup {
                try withDataset(member) { id in
                    let space = try checkID(H5Dget_space(id), "H5Dget_space", childDisplay(member))
                    defer { H5Sclose(space) }
                    for axis in 0..<max(0, Int(H5Sget_simple_extent_ndims(space))) where H5DSget_num_scales(id, UInt32(axis)) > 0 {
                        var paths: [String] = []
                        let status = withUnsafeMutablePointer(to: &paths) { pointer in
                            H5DSiterate_scales(id, UInt32(axis), nil, { _, _, scale, context in
                                let length = H5Iget_name(scale, nil, 0)
                                guard length > 0, let context else { return -1 }
                                var buffer = [CChar](repeating: 0, count: Int(length) + 1)
                                H5Iget_name(scale, &buffer, buffer.count)
                                context.assumingMemoryBound(to: [String].self).pointee.append(String(cString: buffer))
                                return 0
                            }, pointer)
                        }
                        try checkStatus(status, "H5DSiterate_scales", childDisplay(member))
                        for scale in paths where scale.hasPrefix(prefix) {
                            result.append(ScaleAttachment(dataset: member, axis: axis, scale: String(scale.dropFirst(prefix.count))))
                        }
                    }
                }
            }
            return result
        }
    }

    /// Copies the group `name` into `destination` (see `copy`) with its
    /// dimension scales. HDF5 copies a scale's references to its datasets
    /// (and theirs back) only within one file; into another it leaves them
    /// dangling, which h5py and netCDF readers refuse. So the copy's scale
    /// bookkeeping is dropped and each scale attached again as in the original.
    /// `leaving`: members of the group the copy goes without (paths
    /// relative to it), with their attachments.
    /// The corresponding C functions are `H5Ocopy`, `H5Adelete`, `H5Ldelete` and `H5DSattach_scale`.
    public func copyKeepingScales(_ name: String, to destination: Group, as newName: String? = nil, leaving: Set<String> = []) throws {
        let target = newName ?? name
        let attachments = try openGroup(name).scaleAttachments()
        try copy(name, to: destination, as: target)
        guard !attachments.isEmpty || !leaving.isEmpty else { return }
        let copied = try destination.openGroup(target)
        try copied.detachAll(Set(attachments.map(\.dataset)), scales: Set(attachments.map(\.scale)))
        for member in leaving.sorted() where copied.contains(member) { try copied.removeLink(member) }
        for attachment in attachments where !leaving.contains(attachment.dataset) && !leaving.contains(attachment.scale) {
            try copied.attachScale(attachment.scale, to: [attachment.dataset], axis: attachment.axis)
        }
    }

    /// Drops the references that tie `datasets` to `scales`, which stay
    /// scales (their `CLASS` and `NAME`).
    private func detachAll(_ datasets: Set<String>, scales: Set<String>) throws {
        try withHDF5 {
            for (member, attribute) in datasets.map({ ($0, "DIMENSION_LIST") }) + scales.map({ ($0, "REFERENCE_LIST") }) {
                try withDataset(member) { id in
                    if H5Aexists(id, attribute) > 0 {
                        try checkStatus(H5Adelete(id, attribute), "H5Adelete", childDisplay(member))
                    }
                }
            }
        }
    }

    /// Paths (relative to this group) of every object below it, depth first,
    /// and whether each is a group.
    private func descendants() throws -> [(path: String, isGroup: Bool)] {
        var result: [(String, Bool)] = []
        for name in try memberNames() {
            let type: H5I_type_t = try withHDF5 {
                let id = try checkID(H5Oopen(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()), "H5Oopen", childDisplay(name))
                defer { H5Oclose(id) }
                return H5Iget_type(id)
            }
            if type == H5I_GROUP {
                result.append((name, true))
                result += try openGroup(name).descendants().map { ("\(name)/\($0.path)", $0.isGroup) }
            } else if type == H5I_DATASET {
                result.append((name, false))
            }
        }
        return result
    }

    private func withDataset<T>(_ name: String, _ body: (hid_t) throws -> T) throws -> T {
        try withHDF5 {
            let id = try checkID(H5Dopen2(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()), "H5Dopen2", childDisplay(name))
            defer { H5Dclose(id) }
            return try body(id)
        }
    }
}
