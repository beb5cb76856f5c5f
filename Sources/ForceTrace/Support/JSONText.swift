import Foundation

/// Serializes the `[String: Any]` trees the commands build (dictionaries,
/// arrays, strings, integers, doubles, Bool, NSNull) as JSON with sorted keys
/// and two-space indentation. Foundation's JSONSerialization sorts keys with
/// ICU collation, which dominated `report --json` on large files.
public enum JSONText {
    public static func encode(_ value: Any) -> String {
        var out = ""
        out.reserveCapacity(4096)
        write(value, indent: 0, into: &out)
        out += "\n"
        return out
    }

    private static func newline(_ indent: Int, _ out: inout String) {
        out += "\n"
        out += String(repeating: " ", count: indent)
    }

    private static func write(_ value: Any, indent: Int, into out: inout String) {
        switch value {
        case let dictionary as [String: Any]:
            if dictionary.isEmpty { out += "{}"; return }
            out += "{"
            // Byte order: the same as Python's json.dumps(sort_keys=True) for ASCII keys.
            for (index, key) in dictionary.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { out += "," }
                newline(indent + 2, &out)
                writeString(key, into: &out)
                out += ": "
                write(dictionary[key]!, indent: indent + 2, into: &out)
            }
            newline(indent, &out)
            out += "}"
        case let array as [Any]:
            if array.isEmpty { out += "[]"; return }
            // Arrays of plain numbers stay on one line: histograms and sweeps are long.
            let flat = array.allSatisfy { !($0 is [String: Any]) && !($0 is [Any]) }
            out += "["
            for (index, element) in array.enumerated() {
                if index > 0 { out += flat ? ", " : "," }
                if !flat { newline(indent + 2, &out) }
                write(element, indent: indent + 2, into: &out)
            }
            if !flat { newline(indent, &out) }
            out += "]"
        case let string as String: writeString(string, into: &out)
        case let flag as Bool: out += flag ? "true" : "false"
        case let number as Int: out += String(number)
        case let number as Int64: out += String(number)
        case let number as Int32: out += String(number)
        case let number as UInt64: out += String(number)
        case let number as Double: out += number.isFinite ? formatDouble(number) : "null"
        case let number as Float: out += number.isFinite ? formatDouble(Double(number)) : "null"
        case is NSNull: out += "null"
        default: writeString(String(describing: value), into: &out)
        }
    }

    /// Shortest text that reads back as the same double; integers keep ".0".
    static func formatDouble(_ value: Double) -> String {
        value.description
    }

    private static func writeString(_ string: String, into out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20: out += String(format: "\\u%04x", control.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
