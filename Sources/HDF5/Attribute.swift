import CHDF5
import CHDF5Guard
import Foundation

/// An attribute's value. Strings are stored as variable-length UTF-8, which
/// h5py returns as `str`; integers as int64; reals as float64.
public enum AttributeValue: Equatable, Sendable, CustomStringConvertible {
    case string(String)
    case int(Int64)
    case double(Double)
    case ints([Int64])
    case doubles([Double])
    case strings([String])

    public var description: String {
        switch self {
        case .string(let value): value
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .ints(let values): values.map(String.init).joined(separator: " ")
        case .doubles(let values): values.map { String($0) }.joined(separator: " ")
        case .strings(let values): values.joined(separator: ", ")
        }
    }

    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    public var intValue: Int64? {
        switch self {
        case .int(let value): value
        case .ints(let values) where values.count == 1: values[0]
        case .double(let value) where value.rounded() == value: Int64(exactly: value)
        default: nil
        }
    }
    public var intsValue: [Int64]? {
        switch self {
        case .ints(let values): values
        case .int(let value): [value]
        default: nil
        }
    }
    public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .int(let value): Double(value)
        default: nil
        }
    }
}

/// Creates a variable-length UTF-8 string type; the caller closes it.
func makeStringType() throws -> hid_t {
    let type = try checkID(H5Tcopy(CHDF5_C_S1()), "H5Tcopy", "string type")
    try checkStatus(H5Tset_size(type, CHDF5_T_VARIABLE()), "H5Tset_size", "string type")
    try checkStatus(H5Tset_cset(type, H5T_CSET_UTF8), "H5Tset_cset", "string type")
    return type
}

/// Writes variable-length strings with `write(pointers)`, keeping the C
/// strings alive for the duration of the call.
func withCStringArray<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) throws -> R) rethrows -> R {
    // Each distinct text copied once: a column such as the contacts' class
    // repeats a few texts, and a copy per row cost more than the dictionary.
    // Swift's == holds for canonically equivalent texts of different bytes,
    // so a copy is shared only when its bytes are the text's own.
    var copies: [String: UnsafeMutablePointer<CChar>] = [:], unshared: [UnsafeMutablePointer<CChar>] = []
    defer { copies.values.forEach { free($0) }; unshared.forEach { free($0) } }
    let pointers = strings.map { text -> UnsafePointer<CChar>? in
        if let copy = copies[text] {
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(copy).assumingMemoryBound(to: UInt8.self), count: strlen(copy))
            if text.utf8.elementsEqual(bytes) { return UnsafePointer(copy) }
            let other = strdup(text)
            if let other { unshared.append(other) }
            return UnsafePointer(other)
        }
        let copy = strdup(text)
        if let copy { copies[text] = copy }
        return UnsafePointer(copy)
    }
    return try body(pointers)
}

extension Group {
    /// Sets an attribute on this group, replacing any with that name.
    /// The corresponding C functions are `H5Acreate2` and `H5Awrite`.
    public func setAttribute(_ name: String, _ value: AttributeValue) throws {
        try withHDF5 { try writeAttribute(on: try handle.validID(displayPath), name, value, context: displayPath) }
    }

    /// Reads an attribute, or nil when there is none with that name.
    public func attribute(_ name: String) throws -> AttributeValue? {
        try withHDF5 { try readAttribute(on: try handle.validID(displayPath), name, context: displayPath) }
    }

    /// Sets an attribute on the dataset or group `member` of this group.
    /// The corresponding C functions are `H5Oopen`, `H5Acreate2` and `H5Awrite`.
    public func setAttribute(_ name: String, _ value: AttributeValue, onMember member: String) throws {
        try withMember(member) { try writeAttribute(on: $0, name, value, context: childDisplay(member)) }
    }

    /// Reads an attribute of the dataset or group `member`, or nil when it has none with that name.
    public func attribute(_ name: String, ofMember member: String) throws -> AttributeValue? {
        try withMember(member) { try readAttribute(on: $0, name, context: childDisplay(member)) }
    }

    private func withMember<T>(_ member: String, _ body: (hid_t) throws -> T) throws -> T {
        try withHDF5 {
            let id = try checkID(H5Oopen(try handle.validID(displayPath), member, CHDF5_P_DEFAULT()), "H5Oopen", childDisplay(member))
            defer { H5Oclose(id) }
            return try body(id)
        }
    }

    /// Names of this group's attributes.
    public func attributeNames() throws -> [String] {
        try withHDF5 { try listAttributes(on: try handle.validID(displayPath), context: displayPath) }
    }

    /// Names of the attributes of the member (a dataset or group) `member`.
    public func attributeNames(ofMember member: String) throws -> [String] {
        try withMember(member) { try listAttributes(on: $0, context: childDisplay(member)) }
    }
}

func writeAttribute(on object: hid_t, _ name: String, _ value: AttributeValue, context: String) throws {
    let where_ = "\(context) attribute \(name)"
    if H5Aexists(object, name) > 0 {
        try checkStatus(H5Adelete(object, name), "H5Adelete", where_)
    }
    var count: hsize_t = 1
    let isScalar: Bool
    switch value {
    case .string, .int, .double: isScalar = true
    case .ints(let values): isScalar = false; count = hsize_t(values.count)
    case .doubles(let values): isScalar = false; count = hsize_t(values.count)
    case .strings(let values): isScalar = false; count = hsize_t(values.count)
    }
    let space = try isScalar
        ? checkID(H5Screate(H5S_SCALAR), "H5Screate", where_)
        : checkID(H5Screate_simple(1, &count, nil), "H5Screate_simple", where_)
    defer { H5Sclose(space) }
    let fileType: hid_t
    var ownsType = false
    switch value {
    case .string, .strings: fileType = try makeStringType(); ownsType = true
    case .int, .ints: fileType = CHDF5_NATIVE_INT64()
    case .double, .doubles: fileType = CHDF5_NATIVE_DOUBLE()
    }
    defer { if ownsType { H5Tclose(fileType) } }
    let attribute = try checkID(H5Acreate2(object, name, fileType, space, CHDF5_P_DEFAULT(), CHDF5_P_DEFAULT()),
                                "H5Acreate2", where_)
    defer { H5Aclose(attribute) }
    let status: herr_t
    switch value {
    case .string(let text):
        status = withCStringArray([text]) { pointers in pointers.withUnsafeBufferPointer { H5Awrite(attribute, fileType, $0.baseAddress) } }
    case .strings(let texts):
        status = withCStringArray(texts) { pointers in pointers.withUnsafeBufferPointer { H5Awrite(attribute, fileType, $0.baseAddress) } }
    case .int(var number): status = H5Awrite(attribute, fileType, &number)
    case .double(var number): status = H5Awrite(attribute, fileType, &number)
    case .ints(let numbers): status = numbers.withUnsafeBufferPointer { H5Awrite(attribute, fileType, $0.baseAddress) }
    case .doubles(let numbers): status = numbers.withUnsafeBufferPointer { H5Awrite(attribute, fileType, $0.baseAddress) }
    }
    try checkStatus(status, "H5Awrite", where_)
}

func readAttribute(on object: hid_t, _ name: String, context: String) throws -> AttributeValue? {
    let where_ = "\(context) attribute \(name)"
    guard H5Aexists(object, name) > 0 else { return nil }
    let attribute = try checkID(H5Aopen(object, name, CHDF5_P_DEFAULT()), "H5Aopen", where_)
    // After a fault (`hdf5Poisoned`) no HDF5 call may run, not even a close.
    defer { if !hdf5Poisoned { H5Aclose(attribute) } }
    let type = try checkID(H5Aget_type(attribute), "H5Aget_type", where_)
    defer { if !hdf5Poisoned { H5Tclose(type) } }
    let space = try checkID(H5Aget_space(attribute), "H5Aget_space", where_)
    defer { if !hdf5Poisoned { H5Sclose(space) } }
    let scalar = H5Sget_simple_extent_type(space) == H5S_SCALAR
    let count = Int(max(0, H5Sget_simple_extent_npoints(space)))
    switch H5Tget_class(type) {
    case H5T_STRING:
        var strings: [String] = []
        if H5Tis_variable_str(type) > 0 {
            let memType = try makeStringType()
            defer { if !hdf5Poisoned { H5Tclose(memType) } }
            // A C buffer, not a Swift array: after a fault it is leaked, never released.
            let pointers = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: max(1, count))
            pointers.initialize(repeating: nil, count: max(1, count))
            let fault = HDF5Error(function: "H5Aread", context: where_, stack: [damagedHeapCause])
            let status = guardedRead(fault) { CHDF5Guard_Aread(attribute, memType, pointers, $0) }
            // A damaged global heap, as in `readStrings`: no HDF5 call may follow.
            if status == -2 { throw fault }
            defer { pointers.deallocate() }
            try checkStatus(status, "H5Aread", where_)
            strings = (0..<count).map { pointers[$0].map { String(cString: $0) } ?? "" }
            _ = H5Dvlen_reclaim(memType, space, CHDF5_P_DEFAULT(), pointers)
        } else {
            let size = H5Tget_size(type)
            var bytes = [UInt8](repeating: 0, count: size * count)
            try checkStatus(H5Aread(attribute, type, &bytes), "H5Aread", where_)
            for index in 0..<count {
                let slice = bytes[(index * size)..<((index + 1) * size)].prefix { $0 != 0 }
                strings.append(String(decoding: slice, as: UTF8.self))
            }
        }
        return scalar ? .string(strings.first ?? "") : .strings(strings)
    case H5T_INTEGER:
        var values = [Int64](repeating: 0, count: count)
        try checkStatus(H5Aread(attribute, CHDF5_NATIVE_INT64(), &values), "H5Aread", where_)
        return scalar ? .int(values.first ?? 0) : .ints(values)
    case H5T_FLOAT:
        var values = [Double](repeating: 0, count: count)
        try checkStatus(H5Aread(attribute, CHDF5_NATIVE_DOUBLE(), &values), "H5Aread", where_)
        return scalar ? .double(values.first ?? 0) : .doubles(values)
    default:
        return nil
    }
}

func listAttributes(on object: hid_t, context: String) throws -> [String] {
    var names: [String] = []
    let fault = HDF5Error(function: "H5Aiterate2", context: context, stack: ["its list of attributes is damaged"])
    let status = withUnsafeMutablePointer(to: &names) { pointer in
        guardedRead(fault) {
            CHDF5Guard_Anames(object, { name, data in
                guard let name, let data else { return }
                data.assumingMemoryBound(to: [String].self).pointee.append(String(cString: name))
            }, pointer, $0)
        }
    }
    if status == -2 { throw fault }
    // A list HDF5 could not decode also faults later, when HDF5 frees that
    // object header as the file closes (a flipped byte did): no HDF5 call
    // may follow, as after a fault.
    if status < 0 {
        let error = HDF5Error.capture("H5Aiterate2", context)
        hdf5Poisoned = true
        throw error
    }
    return names
}
