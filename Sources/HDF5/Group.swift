import CHDF5

/// A group in an open file. Also the place attributes and datasets hang from.
public final class Group: @unchecked Sendable {
    /// Path inside the file, such as "/recordings/press".
    public let path: String
    /// "file.h5:/recordings/press", for messages.
    public let displayPath: String
    let handle: Handle
    /// The file's handle, kept so the file outlives its groups.
    let fileHandle: Handle

    init(id: hid_t, fileHandle: Handle, path: String, displayPath: String) {
        self.handle = Handle(id, kind: "G", name: displayPath, file: fileHandle, closer: H5Gclose)
        self.fileHandle = fileHandle
        self.path = path
        self.displayPath = displayPath
    }

    static func open(in fileHandle: Handle, path: String, displayPath: String) throws -> Group {
        try withHDF5 {
            let id = try checkID(H5Gopen2(try fileHandle.validID(displayPath), path, CHDF5_P_DEFAULT()),
                                 "H5Gopen2", displayPath)
            return Group(id: id, fileHandle: fileHandle, path: path, displayPath: displayPath)
        }
    }

    func childPath(_ name: String) -> String { path == "/" ? "/" + name : path + "/" + name }
    func childDisplay(_ name: String) -> String {
        displayPath.hasSuffix("/") ? displayPath + name : displayPath + "/" + name
    }

    /// Creates a subgroup.
    /// The corresponding C function is `H5Gcreate2`.
    public func createGroup(_ name: String) throws -> Group {
        try withHDF5 {
            let id = try checkID(H5Gcreate2(try handle.validID(displayPath), name, CHDF5_P_DEFAULT(),
                                            CHDF5_P_DEFAULT(), CHDF5_P_DEFAULT()), "H5Gcreate2", childDisplay(name))
            return Group(id: id, fileHandle: fileHandle, path: childPath(name), displayPath: childDisplay(name))
        }
    }

    /// Opens a subgroup.
    public func openGroup(_ name: String) throws -> Group {
        try withHDF5 {
            let id = try checkID(H5Gopen2(try handle.validID(displayPath), name, CHDF5_P_DEFAULT()),
                                 "H5Gopen2", childDisplay(name))
            return Group(id: id, fileHandle: fileHandle, path: childPath(name), displayPath: childDisplay(name))
        }
    }

    /// Whether a link named `name` exists directly in this group.
    /// The corresponding C function is `H5Lexists`.
    public func contains(_ name: String) -> Bool {
        withHDF5 {
            guard let id = try? handle.validID(displayPath) else { return false }
            return H5Lexists(id, name, CHDF5_P_DEFAULT()) > 0
        }
    }

    /// Whether `name` in this group is a dataset (not a group, nor missing).
    /// The corresponding C function is `H5Oget_info_by_name2`.
    public func isDataset(_ name: String) -> Bool {
        withHDF5 {
            guard let id = try? handle.validID(displayPath) else { return false }
            var info = H5O_info_t()
            return H5Oget_info_by_name2(id, name, &info, UInt32(H5O_INFO_BASIC), CHDF5_P_DEFAULT()) >= 0 && info.type == H5O_TYPE_DATASET
        }
    }

    /// Names of the links in this group, in name order.
    /// The corresponding C function is `H5Literate`.
    public func memberNames() throws -> [String] {
        try withHDF5 {
            var names: [String] = []
            var index: hsize_t = 0
            try withUnsafeMutablePointer(to: &names) { pointer in
                try checkStatus(H5Literate(try handle.validID(displayPath), H5_INDEX_NAME, H5_ITER_INC, &index, { _, name, _, data in
                    guard let name, let data else { return 0 }
                    data.assumingMemoryBound(to: [String].self).pointee.append(String(cString: name))
                    return 0
                }, pointer), "H5Literate", displayPath)
            }
            return names
        }
    }

    public func close() throws { try handle.close() }
}
