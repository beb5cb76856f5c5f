import Foundation

/// A HID report descriptor, parsed into the fields of its input reports
/// (Device Class Definition for HID 1.11, section 6.2.2: short and long
/// items; main, global and local state; Push and Pop).
///
/// Bounded as the kernel bounds it: at most 4096 bytes (HID_MAX_DESCRIPTOR_SIZE),
/// collections 32 deep, Push 16 deep, 256 fields, a report at most 4096 bytes.
/// Everything outside those, or an item cut short, is an error naming the byte.
public struct HIDReportDescriptor: Sendable {
    public static let maximumSize = 4096
    static let maximumCollectionDepth = 32
    static let maximumPushDepth = 16
    static let maximumFields = 256
    static let maximumReportBits = 4096 * 8

    /// One Input main item: `count` values of `size` bits from `bitOffset`
    /// in the report with `reportID` (0: the descriptor has no report IDs
    /// and the report has no ID byte).
    public struct Field: Sendable, Equatable {
        public var reportID: UInt8
        public var bitOffset: Int
        public var size: Int
        public var count: Int
        /// Input item flags: bit 0 constant, bit 1 variable (else array).
        public var flags: UInt32
        /// Usages as (page << 16 | id), for a variable field one per value
        /// (the last repeated), for an array the selectors it can name.
        public var usages: [UInt32]
        /// An array's range of selectors when given as Usage Minimum/Maximum.
        public var usageRange: ClosedRange<UInt32>?
        public var logicalMinimum: Int64
        public var logicalMaximum: Int64
        /// The Unit Exponent in force for the item (HID 1.11, 6.2.2.7).
        public var unitExponent: Int
        /// The usages of the collections around it, outermost first.
        public var collections: [UInt32]

        public var isConstant: Bool { flags & 1 != 0 }
        public var isVariable: Bool { flags & 2 != 0 }

        /// The usage of value `index` of a variable field.
        public func usage(at index: Int) -> UInt32? {
            if let range = usageRange, usages.isEmpty {
                let usage = UInt64(range.lowerBound) + UInt64(index)
                return usage <= UInt64(range.upperBound) ? UInt32(usage) : nil
            }
            return usages.isEmpty ? nil : usages[min(index, usages.count - 1)]
        }

        /// The selector an array value names, or nil for none (out of the
        /// logical range: HID's "no selection").
        public func selector(for value: Int64) -> UInt32? {
            guard value >= logicalMinimum, value <= logicalMaximum else { return nil }
            let index = value - logicalMinimum
            if let range = usageRange, usages.isEmpty {
                let usage = Int64(range.lowerBound) + index
                return usage <= Int64(range.upperBound) ? UInt32(usage) : nil
            }
            return index < usages.count ? usages[Int(index)] : nil
        }

        /// Value `index` of this field in `report` (the report ID byte
        /// removed), sign-extended when the logical minimum is negative;
        /// nil when the report is too short.
        public func value(at index: Int, in report: some RandomAccessCollection<UInt8>) -> Int64? {
            let start = bitOffset + index * size
            guard size > 0, size <= 32, start + size <= report.count * 8 else { return nil }
            var raw: UInt64 = 0
            for bit in 0..<size {
                let position = start + bit
                let byte = report[report.index(report.startIndex, offsetBy: position / 8)]
                if byte & (1 << (position % 8)) != 0 { raw |= 1 << UInt64(bit) }
            }
            if logicalMinimum < 0 && raw & (1 << UInt64(size - 1)) != 0 {
                return Int64(bitPattern: raw | ~((1 << UInt64(size)) - 1))
            }
            return Int64(raw)
        }
    }

    public private(set) var inputFields: [Field] = []
    /// Whether reports begin with a report ID byte.
    public private(set) var usesReportIDs = false

    /// The input report's length in bytes (without the ID byte) by ID.
    public private(set) var inputReportBytes: [UInt8: Int] = [:]

    private struct Globals {
        var usagePage: UInt32 = 0
        var logicalMinimum: Int64 = 0
        var logicalMaximum: Int64 = 0
        var unitExponent = 0
        var reportSize = 0
        var reportID: UInt8 = 0
        var reportCount = 0
    }

    /// Parses `bytes`; `name` is what errors call it (the hidraw node).
    public init(_ bytes: [UInt8], name: String) throws {
        func fail(_ offset: Int, _ message: String) -> ForceTraceError {
            ForceTraceError(file: name, location: .byteOffset(offset), "HID report descriptor: \(message)",
                            hint: "is this a HID scale? 'forcetrace record --help' says which scales are read", kind: .device)
        }
        guard bytes.count <= Self.maximumSize else {
            throw ForceTraceError(file: name, "HID report descriptor of \(bytes.count) bytes, over the kernel's limit of \(Self.maximumSize)", kind: .device)
        }
        var globals = Globals()
        var stack: [Globals] = []
        var usages: [UInt32] = []
        var usageMinimum: UInt32?
        var usageMaximum: UInt32?
        var collections: [UInt32] = []
        var inputBits: [UInt8: Int] = [:]
        var offset = 0
        while offset < bytes.count {
            let prefix = bytes[offset]
            if prefix == 0xFE { // a long item: skipped, its length checked
                guard offset + 2 < bytes.count else { throw fail(offset, "long item cut short") }
                let length = Int(bytes[offset + 1])
                guard offset + 3 + length <= bytes.count else { throw fail(offset, "long item cut short") }
                offset += 3 + length
                continue
            }
            let size = [0, 1, 2, 4][Int(prefix & 3)]
            guard offset + 1 + size <= bytes.count else { throw fail(offset, "item 0x\(String(prefix, radix: 16)) cut short") }
            var unsigned: UInt32 = 0
            for index in 0..<size { unsigned |= UInt32(bytes[offset + 1 + index]) << (8 * UInt32(index)) }
            let signed: Int64 = switch size {
            case 1: Int64(Int8(bitPattern: UInt8(unsigned)))
            case 2: Int64(Int16(bitPattern: UInt16(unsigned)))
            case 4: Int64(Int32(bitPattern: unsigned))
            default: 0
            }
            let itemOffset = offset
            offset += 1 + size
            let type = (prefix >> 2) & 3
            let tag = prefix >> 4
            func fullUsage(_ value: UInt32) -> UInt32 { size == 4 ? value : globals.usagePage << 16 | value }
            switch (type, tag) {
            case (0, 0x8): // Input
                let bits = globals.reportSize * globals.reportCount
                let start = inputBits[globals.reportID, default: 0]
                guard globals.reportSize <= 32 || unsigned & 1 != 0 else { throw fail(itemOffset, "a data field of \(globals.reportSize) bits (at most 32)") }
                guard start + bits <= Self.maximumReportBits else { throw fail(itemOffset, "input report over \(Self.maximumReportBits / 8) bytes") }
                inputBits[globals.reportID] = start + bits
                if unsigned & 1 == 0 && bits > 0 {
                    guard inputFields.count < Self.maximumFields else { throw fail(itemOffset, "more than \(Self.maximumFields) input fields") }
                    var range: ClosedRange<UInt32>?
                    if let low = usageMinimum, let high = usageMaximum {
                        guard low <= high else { throw fail(itemOffset, "Usage Minimum above Usage Maximum") }
                        range = low...high
                    }
                    inputFields.append(Field(reportID: globals.reportID, bitOffset: start, size: globals.reportSize,
                                             count: globals.reportCount, flags: unsigned, usages: usages, usageRange: range,
                                             logicalMinimum: globals.logicalMinimum, logicalMaximum: globals.logicalMaximum,
                                             unitExponent: globals.unitExponent, collections: collections))
                }
            case (0, 0x9), (0, 0xB): break // Output, Feature: not read
            case (0, 0xA): // Collection
                guard collections.count < Self.maximumCollectionDepth else { throw fail(itemOffset, "collections nested over \(Self.maximumCollectionDepth) deep") }
                collections.append(usages.first ?? usageMinimum ?? 0)
            case (0, 0xC): // End Collection
                guard !collections.isEmpty else { throw fail(itemOffset, "End Collection without a Collection") }
                collections.removeLast()
            case (0, _): throw fail(itemOffset, "unknown main item 0x\(String(prefix, radix: 16))")
            case (1, 0x0): globals.usagePage = unsigned & 0xFFFF
            case (1, 0x1): globals.logicalMinimum = signed
            // As the kernel does: a maximum is signed only when the minimum is negative.
            case (1, 0x2): globals.logicalMaximum = globals.logicalMinimum < 0 ? signed : Int64(unsigned)
            case (1, 0x3), (1, 0x4), (1, 0x6): break // physical range, unit: not needed for a weight
            // HID 1.11 gives the exponent as a 4-bit two's complement nibble; some devices send a whole byte.
            case (1, 0x5): globals.unitExponent = unsigned <= 0xF ? (unsigned >= 8 ? Int(unsigned) - 16 : Int(unsigned)) : Int(signed)
            case (1, 0x7): globals.reportSize = Int(unsigned)
            case (1, 0x8):
                guard unsigned >= 1, unsigned <= 255 else { throw fail(itemOffset, "Report ID \(unsigned) (1 to 255)") }
                globals.reportID = UInt8(unsigned)
                usesReportIDs = true
            case (1, 0x9):
                guard unsigned <= UInt32(Self.maximumReportBits) else { throw fail(itemOffset, "Report Count \(unsigned)") }
                globals.reportCount = Int(unsigned)
            case (1, 0xA):
                guard stack.count < Self.maximumPushDepth else { throw fail(itemOffset, "Push over \(Self.maximumPushDepth) deep") }
                stack.append(globals)
            case (1, 0xB):
                guard let top = stack.popLast() else { throw fail(itemOffset, "Pop without a Push") }
                globals = top
            case (1, _): throw fail(itemOffset, "unknown global item 0x\(String(prefix, radix: 16))")
            case (2, 0x0):
                guard usages.count < Self.maximumFields else { throw fail(itemOffset, "more than \(Self.maximumFields) usages for one item") }
                usages.append(fullUsage(unsigned))
            case (2, 0x1): usageMinimum = fullUsage(unsigned)
            case (2, 0x2): usageMaximum = fullUsage(unsigned)
            case (2, _): break // designators, strings, delimiters
            default: throw fail(itemOffset, "reserved item type in 0x\(String(prefix, radix: 16))")
            }
            if type == 0 { // a main item ends the local state
                usages = []
                usageMinimum = nil
                usageMaximum = nil
            }
        }
        guard collections.isEmpty else { throw fail(bytes.count, "\(collections.count) collection(s) not ended") }
        if usesReportIDs, inputBits[0] != nil { throw fail(0, "an input item before the first Report ID") }
        inputReportBytes = inputBits.mapValues { ($0 + 7) / 8 }
    }
}
