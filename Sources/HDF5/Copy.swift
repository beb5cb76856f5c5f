import CHDF5

extension Group {
    /// Copies the object `name` (a group with everything under it, or a
    /// dataset, with their attributes) into `destination` as `newName`.
    /// Only live data is copied, so copying a file's contents into a new
    /// file drops the dead space that rewritten chunks leave behind.
    /// The corresponding C function is `H5Ocopy`.
    public func copy(_ name: String, to destination: Group, as newName: String? = nil) throws {
        let target = newName ?? name
        try withHDF5 {
            try checkStatus(H5Ocopy(try handle.validID(displayPath), name, try destination.handle.validID(destination.displayPath),
                                    target, CHDF5_P_DEFAULT(), CHDF5_P_DEFAULT()),
                            "H5Ocopy", "\(childDisplay(name)) to \(destination.childDisplay(target))")
        }
    }
}
