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
