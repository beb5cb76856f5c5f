import CHDF5

/// The element types the HDF5 layer stores, one per native HDF5 type.
public enum ScalarKind: String, Sendable, CaseIterable {
    case int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64

    /// Bytes of one element.
    public var byteCount: Int {
        switch self {
        case .int8, .uint8: 1
        case .int16, .uint16: 2
        case .int32, .uint32, .float32: 4
        case .int64, .uint64, .float64: 8
        }
    }

    /// The matching `H5T_NATIVE_*` type.
    var nativeType: hid_t {
        switch self {
        case .int8: CHDF5_NATIVE_INT8()
        case .int16: CHDF5_NATIVE_INT16()
        case .int32: CHDF5_NATIVE_INT32()
        case .int64: CHDF5_NATIVE_INT64()
        case .uint8: CHDF5_NATIVE_UINT8()
        case .uint16: CHDF5_NATIVE_UINT16()
        case .uint32: CHDF5_NATIVE_UINT32()
        case .uint64: CHDF5_NATIVE_UINT64()
        case .float32: CHDF5_NATIVE_FLOAT()
        case .float64: CHDF5_NATIVE_DOUBLE()
        }
    }
}

/// A fixed-size number that maps to one native HDF5 type. Reads convert from
/// the file's type to this memory type, so an int16 column reads as Int32 too.
public protocol HDF5Scalar: Sendable, Numeric {
    static var scalarKind: ScalarKind { get }
}

extension Int8: HDF5Scalar { public static var scalarKind: ScalarKind { .int8 } }
extension Int16: HDF5Scalar { public static var scalarKind: ScalarKind { .int16 } }
extension Int32: HDF5Scalar { public static var scalarKind: ScalarKind { .int32 } }
extension Int64: HDF5Scalar { public static var scalarKind: ScalarKind { .int64 } }
extension UInt8: HDF5Scalar { public static var scalarKind: ScalarKind { .uint8 } }
extension UInt16: HDF5Scalar { public static var scalarKind: ScalarKind { .uint16 } }
extension UInt32: HDF5Scalar { public static var scalarKind: ScalarKind { .uint32 } }
extension UInt64: HDF5Scalar { public static var scalarKind: ScalarKind { .uint64 } }
extension Float: HDF5Scalar { public static var scalarKind: ScalarKind { .float32 } }
extension Double: HDF5Scalar { public static var scalarKind: ScalarKind { .float64 } }
