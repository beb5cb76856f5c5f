import CHDF5

/// A link or object in a file that is neither a hard link nor a group or
/// dataset: what a reader that trusts only its own file must not follow.
public struct ForeignObject: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A link to an object in another file (`H5L_TYPE_EXTERNAL`).
        case externalLink(file: String, object: String)
        /// A link by path inside the file (`H5L_TYPE_SOFT`).
        case softLink(target: String)
        /// A user-defined link class.
        case userDefinedLink
        /// A committed datatype, or an object type HDF5 does not name.
        case otherObject
    }

    /// The path inside the file.
    public let path: String
    public let kind: Kind

    public var description: String {
        switch kind {
        case .externalLink(let file, let object): return "\(path) is an external link to \(file):\(object)"
        case .softLink(let target): return "\(path) is a soft link to \(target)"
        case .userDefinedLink: return "\(path) is a user-defined link"
        case .otherObject: return "\(path) is neither a group nor a dataset"
        }
    }
}

extension Group {
    /// Every link below this group that is not a hard link, and every object
    /// reached through hard links that is not a group or a dataset. Nothing is
    /// followed: the visit reads link messages only, and objects through
    /// hard links.
    /// The corresponding C functions are `H5Lvisit`, `H5Lget_val` and `H5Ovisit2`.
    public func foreignObjects() throws -> [ForeignObject] {
        try withHDF5 {
            let id = try handle.validID(displayPath)
            var found: [ForeignObject] = []
            try withUnsafeMutablePointer(to: &found) { pointer in
                try checkStatus(H5Lvisit(id, H5_INDEX_NAME, H5_ITER_INC, { group, name, info, data in
                    guard let name, let info, let data else { return 0 }
                    let path = String(cString: name)
                    let kind: ForeignObject.Kind
                    switch info.pointee.type {
                    case H5L_TYPE_HARD: return 0
                    case H5L_TYPE_SOFT: kind = .softLink(target: linkValue(group, name, size: info.pointee.u.val_size).first ?? "?")
                    case H5L_TYPE_EXTERNAL:
                        let parts = externalLinkParts(group, name, size: info.pointee.u.val_size)
                        kind = .externalLink(file: parts.file, object: parts.object)
                    default: kind = .userDefinedLink
                    }
                    data.assumingMemoryBound(to: [ForeignObject].self).pointee.append(ForeignObject(path: path, kind: kind))
                    return 0
                }, pointer), "H5Lvisit", displayPath)
                try checkStatus(H5Ovisit2(id, H5_INDEX_NAME, H5_ITER_INC, { _, name, info, data in
                    guard let name, let info, let data else { return 0 }
                    let type = info.pointee.type
                    if type == H5O_TYPE_GROUP || type == H5O_TYPE_DATASET { return 0 }
                    data.assumingMemoryBound(to: [ForeignObject].self).pointee
                        .append(ForeignObject(path: String(cString: name), kind: .otherObject))
                    return 0
                }, pointer, UInt32(H5O_INFO_BASIC)), "H5Ovisit2", displayPath)
            }
            // The visits name paths relative to this group.
            return found.map { ForeignObject(path: childPath($0.path), kind: $0.kind) }
        }
    }
}

/// A link's value as HDF5 stores it, cut at NULs: a soft link's target; or
/// an external link's flags byte, file name and object path.
/// The corresponding C function is `H5Lget_val`.
private func linkValue(_ group: hid_t, _ name: UnsafePointer<CChar>, size: Int, skip: Int = 0) -> [String] {
    guard size > skip, size < 1 << 20 else { return [] }
    var buffer = [UInt8](repeating: 0, count: size + 1)
    guard H5Lget_val(group, name, &buffer, size, CHDF5_P_DEFAULT()) >= 0 else { return [] }
    return buffer[skip..<size].split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
}

/// An external link's value: a flags byte, then the file name and the
/// object path, each NUL-terminated (the layout `H5Lunpack_elink_val` reads).
private func externalLinkParts(_ group: hid_t, _ name: UnsafePointer<CChar>, size: Int) -> (file: String, object: String) {
    let strings = linkValue(group, name, size: size, skip: 1)
    return (strings.first ?? "?", strings.count > 1 ? strings[1] : "?")
}
