import Foundation

/// A JSON value as `JSONReader` reads it. Objects keep their keys' order.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A few words for messages: "a string", "an array", ...
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON object: keys in input order, each once.
public struct JSONObject: Equatable, Sendable {
    public private(set) var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    public init() {}

    public subscript(key: String) -> JSONValue? { values[key] }

    /// Adds `key`; false when it is already there.
    mutating func insert(_ key: String, _ value: JSONValue) -> Bool {
        guard values.updateValue(value, forKey: key) == nil else { return false }
        keys.append(key)
        return true
    }
}

/// Strict JSON (RFC 8259) from untrusted bytes: one value, UTF-8, no
/// comments, trailing commas, NaN or duplicate keys. The work a file can
/// cause is bounded by its size, nesting depth and number of values; every
/// error names the file, the byte offset and the JSON path (`$.a[3].b`).
public struct JSONReader {
    public struct Limits: Sendable {
        public var maximumBytes: Int
        public var maximumDepth: Int
        public var maximumValues: Int
        public init(maximumBytes: Int, maximumDepth: Int, maximumValues: Int) {
            self.maximumBytes = maximumBytes; self.maximumDepth = maximumDepth; self.maximumValues = maximumValues
        }
    }

    private enum PathPart { case key(String), index(Int) }

    private let bytes: [UInt8]
    private let file: String
    private let limits: Limits
    private var position = 0
    private var values = 0
    private var path: [PathPart] = []

    /// Parses the whole of `bytes`.
    /// - Throws: `ForceTraceError` naming `file`, the byte offset and the path.
    public static func parse(_ bytes: [UInt8], file: String, limits: Limits) throws -> JSONValue {
        guard bytes.count <= limits.maximumBytes else {
            throw ForceTraceError(file: file, "is \(bytes.count) bytes; JSON inputs of at most \(limits.maximumBytes) bytes are read")
        }
        var reader = JSONReader(bytes: bytes, file: file, limits: limits)
        // UTF-8's byte-order mark, which RFC 8259 lets a reader ignore.
        if bytes.starts(with: [0xef, 0xbb, 0xbf]) { reader.position = 3 }
        reader.skipBlanks()
        let value = try reader.value(depth: 0)
        reader.skipBlanks()
        if reader.position < bytes.count { throw reader.error("text after the JSON value") }
        return value
    }

    /// `$`, `$.key`, `$.key[3]`: where an error is, as JSONPath writes it.
    static func pathText(_ parts: [String]) -> String { "$" + parts.joined() }

    private var currentPath: String {
        Self.pathText(path.map {
            switch $0 {
            case .index(let index): "[\(index)]"
            case .key(let key): Self.isPlainKey(key) ? "." + key : "[" + Self.quoted(key) + "]"
            }
        })
    }

    static func isPlainKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f }
    }

    /// A key for a message, with quotes and control characters escaped.
    static func quoted(_ key: String) -> String {
        "'" + TextEscaping.escaped(String(key.prefix(60)), also: ["'"]) + "'"
    }

    private func error(_ message: String) -> ForceTraceError {
        ForceTraceError(file: file, location: .byteOffset(position), "\(currentPath): \(message)",
                        hint: "the file is not valid JSON; save the capture again from the page")
    }

    private mutating func skipBlanks() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0a, 0x0d: position += 1
            default: return
            }
        }
    }

    private func describeByte() -> String {
        guard position < bytes.count else { return "the end of the file" }
        let byte = bytes[position]
        return byte >= 0x21 && byte < 0x7f ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02x", byte)
    }

    private mutating func value(depth: Int) throws -> JSONValue {
        values += 1
        if values > limits.maximumValues { throw error("more than \(limits.maximumValues) values") }
        guard position < bytes.count else { throw error("expected a value, found the end of the file") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("expected a value, found \(describeByte())")
        }
    }

    private mutating func literal(_ word: String) throws {
        let utf8 = Array(word.utf8)
        guard bytes.count - position >= utf8.count, Array(bytes[position..<position + utf8.count]) == utf8 else {
            throw error("expected a value, found \(describeByte())")
        }
        position += utf8.count
    }

    private mutating func object(depth: Int) throws -> JSONValue {
        if depth > limits.maximumDepth { throw error("nested deeper than \(limits.maximumDepth) levels") }
        position += 1
        var object = JSONObject()
        skipBlanks()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(object) }
        while true {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a key in double quotes, found \(describeByte())")
            }
            let key = try string()
            skipBlanks()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':' after the key, found \(describeByte())") }
            position += 1
            skipBlanks()
            path.append(.key(key))
            let item = try value(depth: depth)
            path.removeLast()
            guard object.insert(key, item) else { throw error("the key \(Self.quoted(key)) appears twice") }
            skipBlanks()
            guard position < bytes.count else { throw error("expected ',' or '}', found the end of the file") }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(object) }
            guard bytes[position] == UInt8(ascii: ",") else { throw error("expected ',' or '}', found \(describeByte())") }
            position += 1
            skipBlanks()
        }
    }

    private mutating func array(depth: Int) throws -> JSONValue {
        if depth > limits.maximumDepth { throw error("nested deeper than \(limits.maximumDepth) levels") }
        position += 1
        var items: [JSONValue] = []
        skipBlanks()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
        while true {
            path.append(.index(items.count))
            items.append(try value(depth: depth))
            path.removeLast()
            skipBlanks()
            guard position < bytes.count else { throw error("expected ',' or ']', found the end of the file") }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
            guard bytes[position] == UInt8(ascii: ",") else { throw error("expected ',' or ']', found \(describeByte())") }
            position += 1
            skipBlanks()
        }
    }

    private mutating func hexQuad() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("expected four hex digits after \\u") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected four hex digits after \\u, found \(describeByte())")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func string() throws -> String {
        position += 1
        var out: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else { throw error("a string runs to the end of the file") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                out.append(contentsOf: bytes[runStart..<position])
                position += 1
                break
            }
            if byte < 0x20 { throw error("a control character (byte 0x\(String(byte, radix: 16))) inside a string; JSON writes it as \\u00XX") }
            guard byte == UInt8(ascii: "\\") else { position += 1; continue }
            out.append(contentsOf: bytes[runStart..<position])
            position += 1
            guard position < bytes.count else { throw error("a string runs to the end of the file") }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0c)
            case UInt8(ascii: "n"): out.append(0x0a)
            case UInt8(ascii: "r"): out.append(0x0d)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hexQuad()
                if (0xd800..<0xdc00).contains(scalar) {
                    guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw error("a lone high surrogate \\u\(String(scalar, radix: 16)); expected its low half next")
                    }
                    position += 2
                    let low = try hexQuad()
                    guard (0xdc00..<0xe000).contains(low) else { throw error("\\u\(String(low, radix: 16)) is no low surrogate") }
                    scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
                } else if (0xdc00..<0xe000).contains(scalar) {
                    throw error("a lone low surrogate \\u\(String(scalar, radix: 16))")
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default:
                position -= 1
                throw error("unknown escape \\\(describeByte()) in a string")
            }
            runStart = position
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
        return text
    }

    private mutating func number() throws -> Double {
        let start = position
        func digits() -> Int {
            let from = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
            return position - from
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0 else { throw error("expected a digit in a number, found \(describeByte())") }
        if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") {
            position = integerStart
            throw error("a number with a leading zero")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("expected a digit after the decimal point, found \(describeByte())") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error("expected a digit in the exponent, found \(describeByte())") }
        }
        guard let value = Double(String(decoding: bytes[start..<position], as: UTF8.self)), value.isFinite else {
            position = start
            throw error("a number beyond the range of a double")
        }
        return value
    }
}
