import CHDF5

extension Group {
    /// Whether `name` is a link in this group; unlike `contains`, a group
    /// that cannot be read (a damaged symbol table) is an error, not "no".
    /// The corresponding C function is `H5Lexists`.
    public func linkExists(_ name: String) throws -> Bool {
        let where_ = childDisplay(name)
        return try withHDF5 {
            let status = H5Lexists(try handle.validID(displayPath), name, CHDF5_P_DEFAULT())
            try checkStatus(status, "H5Lexists", where_)
            return status > 0
        }
    }
}
