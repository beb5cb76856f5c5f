/// Writes JSON straight into a byte buffer, in the layout of `JSONText`
/// (two-space indent; arrays of plain values on one line), with no
/// allocation per value: `report --json` writes millions of numbers.
/// Callers write keys in byte order; debug builds check that they do.
struct JSONWriter: TextOutputStream {
    private(set) var bytes: [UInt8] = []
    private struct Level {
        var isObject: Bool
        var isFlat: Bool
        var count = 0
        var lastKey: StaticString?
    }
    private var levels: [Level] = []

    init(capacity: Int = 1 << 16) { bytes.reserveCapacity(capacity) }

    // MARK: - Containers

    mutating func beginObject() {
        beforeValue()
        bytes.append(UInt8(ascii: "{"))
        levels.append(Level(isObject: true, isFlat: false))
    }

    mutating func endObject() {
        let level = levels.removeLast()
        if level.count > 0 { newline(levels.count) }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `flat`: every element is a number, string, bool or null (one line).
    mutating func beginArray(flat: Bool) {
        beforeValue()
        bytes.append(UInt8(ascii: "["))
        levels.append(Level(isObject: false, isFlat: flat))
    }

    mutating func endArray() {
        let level = levels.removeLast()
        if level.count > 0 && !level.isFlat { newline(levels.count) }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func key(_ name: StaticString) {
        let depth = levels.count
        assert(levels.last?.isObject == true, "a key outside an object")
        if let last = levels[depth - 1].lastKey {
            assert(Self.precedes(last, name), "JSON keys out of order: \(last) before \(name)")
        }
        levels[depth - 1].lastKey = name
        if levels[depth - 1].count > 0 { bytes.append(UInt8(ascii: ",")) }
        levels[depth - 1].count += 1
        newline(depth)
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":"), UInt8(ascii: " ")])
    }

    // MARK: - Values

    mutating func null() { beforeValue(); append("null") }
    mutating func bool(_ value: Bool) { beforeValue(); append(value ? "true" : "false") }

    mutating func int<T: BinaryInteger>(_ value: T) {
        beforeValue()
        writeInteger(Int64(value))
    }

    /// Shortest text that reads back as the same double (Swift's `description`); null when not finite.
    mutating func double(_ value: Double) {
        beforeValue()
        if value.isFinite { value.write(to: &self) } else { append("null") }
    }

    mutating func double(_ value: Double?) {
        if let value { double(value) } else { null() }
    }

    mutating func seconds(_ ns: Int64?) {
        if let ns { double(Double(ns) / 1e9) } else { null() }
    }

    mutating func string(_ value: String) {
        beforeValue()
        bytes.append(UInt8(ascii: "\""))
        var utf8 = value.utf8
        if utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: utf8)
        } else {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": append("\\\"")
                case "\\": append("\\\\")
                case "\n": append("\\n")
                case "\r": append("\\r")
                case "\t": append("\\t")
                case let control where control.value < 0x20:
                    append("\\u00")
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(hex[Int(control.value >> 4)]); bytes.append(hex[Int(control.value & 15)])
                default:
                    utf8 = String(scalar).utf8
                    bytes.append(contentsOf: utf8)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func string(_ value: StaticString) {
        beforeValue()
        bytes.append(UInt8(ascii: "\""))
        value.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func integers<C: Collection>(_ values: C) where C.Element: BinaryInteger {
        beginArray(flat: true)
        for value in values { int(value) }
        endArray()
    }

    mutating func doubles<C: Collection>(_ values: C) where C.Element == Double {
        beginArray(flat: true)
        for value in values { double(value) }
        endArray()
    }

    /// The document, ending in a newline.
    mutating func finish() -> [UInt8] {
        precondition(levels.isEmpty, "unclosed JSON container")
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    // MARK: - TextOutputStream, for Double.write(to:)

    mutating func write(_ string: String) { bytes.append(contentsOf: string.utf8) }
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }

    // MARK: - Layout

    private mutating func beforeValue() {
        guard let depth = levels.indices.last, !levels[depth].isObject else { return }
        if levels[depth].count > 0 {
            bytes.append(UInt8(ascii: ","))
            if levels[depth].isFlat { bytes.append(UInt8(ascii: " ")) }
        }
        levels[depth].count += 1
        if !levels[depth].isFlat { newline(depth) }
    }

    private mutating func newline(_ depth: Int) {
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<(2 * depth) { bytes.append(UInt8(ascii: " ")) }
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func writeInteger(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes of scratch, no allocation
        var count = 0
        withUnsafeMutableBytes(of: &digits) { scratch in
            repeat {
                scratch[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: scratch[(24 - count)...])
        }
    }

    private static func precedes(_ lhs: StaticString, _ rhs: StaticString) -> Bool {
        lhs.withUTF8Buffer { left in rhs.withUTF8Buffer { right in left.lexicographicallyPrecedes(right) } }
    }
}
