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
        /// A second hard link to an object already reached at `original`.
        case secondLink(original: String)
        /// A group below more levels of groups than `limit`.
        case tooDeep(limit: Int)
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
        case .secondLink(let original): return "\(path) is a second hard link to \(original), which would be read twice"
        case .tooDeep(let limit): return "\(path) lies below more than \(limit) levels of groups"
        }
    }
}

extension Group {
    /// Groups below this one may nest this deep; forcetrace's own files nest at most 5.
    public static let maximumWalkDepth = 16

    /// Every link below this group that is not a hard link, every object
    /// reached through hard links that is not a group or a dataset, every
    /// second hard link to an object, and the first group nested deeper than
    /// `maximumDepth`. Nothing is followed: link messages are read, each
    /// object once (by its address). Linear in the links: HDF5's own visits
    /// (`H5Lvisit`, `H5Ovisit`) grow with the cube of the depth.
    /// The corresponding C functions are `H5Literate`, `H5Oget_info_by_name2` and `H5Lget_val`.
    public func foreignObjects(maximumDepth: Int = maximumWalkDepth) throws -> [ForeignObject] {
        try withHDF5 {
            let rootID = try handle.validID(displayPath)
            var walk = LinkWalk()
            var info = H5O_info_t()
            try checkStatus(H5Oget_info2(rootID, &info, UInt32(H5O_INFO_BASIC)), "H5Oget_info2", displayPath)
            walk.seen[info.addr] = "."
            // Groups still to list: their path relative to this one, and depth.
            var pending: [(path: String, depth: Int)] = [(".", 0)]
            while let (relative, depth) = pending.popLast() {
                let id = relative == "." ? rootID
                    : try checkID(H5Gopen2(rootID, relative, CHDF5_P_DEFAULT()), "H5Gopen2", childDisplay(relative))
                defer { if id != rootID { H5Gclose(id) } }
                walk.prefix = relative == "." ? "" : relative + "/"
                walk.groups = []
                var index: hsize_t = 0
                try withUnsafeMutablePointer(to: &walk) { pointer in
                    try checkStatus(H5Literate(id, H5_INDEX_NAME, H5_ITER_INC, &index, { group, name, info, data in
                        guard let name, let info, let data else { return 0 }
                        data.assumingMemoryBound(to: LinkWalk.self).pointee.visit(group, name, info.pointee)
                        return 0
                    }, pointer), "H5Literate", relative == "." ? displayPath : childDisplay(relative))
                }
                if !walk.found.isEmpty { break }
                for group in walk.groups.reversed() {
                    guard depth + 1 <= maximumDepth else {
                        walk.found.append(ForeignObject(path: group, kind: .tooDeep(limit: maximumDepth)))
                        break
                    }
                    pending.append((group, depth + 1))
                }
                if !walk.found.isEmpty { break }
            }
            // The walk names paths relative to this group.
            return walk.found.map { object in
                let kind: ForeignObject.Kind
                if case .secondLink(let original) = object.kind {
                    kind = .secondLink(original: original == "." ? path : childPath(original))
                } else {
                    kind = object.kind
                }
                return ForeignObject(path: childPath(object.path), kind: kind)
            }
        }
    }
}

/// The state of `foreignObjects`' walk, passed through `H5Literate`.
private struct LinkWalk {
    /// Each object's address, and the path it was first reached by.
    var seen: [haddr_t: String] = [:]
    var found: [ForeignObject] = []
    /// The listed group's path and "/", or "" for the walk's start.
    var prefix = ""
    /// The listed group's subgroups, first reached there.
    var groups: [String] = []

    mutating func visit(_ group: hid_t, _ name: UnsafePointer<CChar>, _ info: H5L_info_t) {
        let path = prefix + String(cString: name)
        let kind: ForeignObject.Kind
        switch info.type {
        case H5L_TYPE_HARD:
            if let original = seen[info.u.address] {
                kind = .secondLink(original: original)
                break
            }
            seen[info.u.address] = path
            var object = H5O_info_t()
            guard H5Oget_info_by_name2(group, name, &object, UInt32(H5O_INFO_BASIC), CHDF5_P_DEFAULT()) >= 0 else {
                kind = .otherObject
                break
            }
            if object.type == H5O_TYPE_GROUP { groups.append(path); return }
            if object.type == H5O_TYPE_DATASET { return }
            kind = .otherObject
        case H5L_TYPE_SOFT: kind = .softLink(target: linkValue(group, name, size: info.u.val_size).first ?? "?")
        case H5L_TYPE_EXTERNAL:
            let parts = externalLinkParts(group, name, size: info.u.val_size)
            kind = .externalLink(file: parts.file, object: parts.object)
        default: kind = .userDefinedLink
        }
        if found.isEmpty { found.append(ForeignObject(path: path, kind: kind)) }
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
