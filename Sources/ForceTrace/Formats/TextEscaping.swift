/// How exports write a string from a recording (device name, kernel and DMI
/// strings, label kinds, comments) into text that cannot hold every
/// character, and how import reads it back (docs/FORMAT.md, "Names and
/// strings in exports"). One syntax, YAML's double-quoted escapes, so that
/// libyaml and PyYAML decode libinput exports and forcetrace decodes evemu
/// ones the same way: `\\`, `\"`, `\n`, `\r`, `\t`, `\xHH` (the code point
/// U+00HH, not a byte) and `\uHHHH`.
public enum TextEscaping {
    /// Whether `scalar` is written as an escape: it breaks a line (LF, CR,
    /// NEL, U+2028, U+2029), is not printable in YAML 1.1 (the other C0
    /// controls, DEL, C1, U+FEFF, U+FFFE, U+FFFF), or reorders the text it
    /// is shown in (the bidirectional controls).
    public static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isControlCode || scalar.reordersOrBreaksText || [0xFEFF, 0xFFFE, 0xFFFF].contains(scalar.value)
    }

    /// Whether `text` holds a character `mustEscape` names.
    public static func needsEscaping(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains(where: mustEscape)
    }

    /// `text` with `\` and every character `mustEscape` names escaped,
    /// `"` too when `quote`, and the characters of `also` as `\xHH` (evemu
    /// label words escape the space that separates them).
    public static func escaped(_ text: some StringProtocol, quote: Bool = false, also: Set<Unicode.Scalar> = []) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"" where quote: result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if mustEscape(scalar) || also.contains(scalar) {
                    result += scalar.value < 0x100 ? "\\x" + hex(scalar.value, digits: 2) : "\\u" + hex(scalar.value, digits: 4)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// `text` as a YAML double-quoted scalar, which YAML readers decode to
    /// exactly `text`.
    public static func yamlQuoted(_ text: some StringProtocol) -> String {
        "\"" + escaped(text, quote: true) + "\""
    }

    /// `text` with its escapes decoded, or nil when one is malformed (an
    /// unknown letter, too few hex digits, a surrogate, a lone `\` at the end).
    public static func unescaped(_ text: some StringProtocol) -> String? {
        // By its byte: `contains` of a string went through Foundation's search.
        guard text.utf8.contains(UInt8(ascii: "\\")) else { return String(text) }
        var result = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\\" else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalars.next() {
            case "\\": result += "\\"
            case "\"": result += "\""
            case "n": result += "\n"
            case "r": result += "\r"
            case "t": result += "\t"
            case let letter? where letter == "x" || letter == "u":
                var value: UInt32 = 0
                for _ in 0..<(letter == "x" ? 2 : 4) {
                    guard let digit = scalars.next(), let nibble = Character(digit).hexDigitValue else { return nil }
                    value = value << 4 | UInt32(nibble)
                }
                guard let decoded = Unicode.Scalar(value) else { return nil }  // a surrogate
                result.unicodeScalars.append(decoded)
            default: return nil
            }
        }
        return result
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
