import Foundation

/// Text for a person at a terminal: `info`, `report`, `suggest` and `devices`
/// as text, status lines and summaries, warnings, notes, errors and the
/// progress line.
///
/// A terminal acts on control characters (an ESC sequence, OSC 52 writes the
/// clipboard, BEL) and bidirectional controls reorder what a reader sees;
/// device names, labels, paths and quoted input lines come from devices and
/// files someone else made. So the rule is in the type: in a `TerminalText`
/// only the string literals of this source are kept as written (the
/// renderer's own newlines, tabs and layout; the literal type is
/// `StaticString`, so no run-time string can pose as one), and every
/// interpolated value (a `String`, a number, anything) is escaped by
/// `escape`. The sinks (the CLI's `print` and `printError`, `ProgressLine`)
/// take only `TerminalText`. A reviewer reads the literals and the sinks,
/// not every caller; a trusted run-time string with a newline of its own
/// shows as `\n`, which is visible, never a hole.
///
/// What is escaped, and how:
/// - C0 controls and DEL as `\xHH` (`\x1b`, `\x7f`); newline, tab and
///   carriage return as `\n`, `\t`, `\r`;
/// - C1 controls (U+0080–U+009F) as `\u0085`;
/// - the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
///   U+2066–U+2069), the invisible direction marks (U+200E, U+200F, U+061C)
///   and the line and paragraph separators (U+2028, U+2029) as `\u202e`;
/// - a backslash as `\\`, so that the escaped form is unambiguous: `\x1b`
///   on screen is always the ESC byte, and a name holding those four
///   characters shows as `\\x1b`;
/// - bytes that are not UTF-8 (file names are bytes: `interpolation(bytes:)`)
///   as `\xff`.
/// JSON output and machine formats (exports, quirks) are not terminal text
/// and do not go through this type.
public struct TerminalText: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The text as it reaches the terminal: every outside value escaped.
    public private(set) var rendered: String

    public typealias StringLiteralType = StaticString

    /// A literal from this source, kept as written.
    public init(stringLiteral literal: StaticString) {
        rendered = literal.description
    }

    public init(stringInterpolation: Interpolation) {
        rendered = stringInterpolation.rendered
    }

    /// Text from outside, shown escaped.
    public init(escaping outside: some StringProtocol) {
        rendered = Self.escape(outside)
    }

    public var description: String { rendered }
    public var isEmpty: Bool { rendered.isEmpty }

    /// Literals kept, interpolated values escaped.
    public struct Interpolation: StringInterpolationProtocol {
        public typealias StringLiteralType = StaticString
        fileprivate var rendered = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            rendered.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: StaticString) {
            rendered += literal.description
        }

        /// Already terminal text: as it is.
        public mutating func appendInterpolation(_ text: TerminalText) {
            rendered += text.rendered
        }

        /// Anything else (names, paths, messages, numbers): escaped.
        public mutating func appendInterpolation<T>(_ value: T) {
            rendered += TerminalText.escape(String(describing: value))
        }

        /// A path or name as bytes, which need not be UTF-8.
        public mutating func appendInterpolation(bytes: some Sequence<UInt8>) {
            rendered += TerminalText.escape(bytes: bytes)
        }
    }

    public static func + (left: TerminalText, right: TerminalText) -> TerminalText {
        var result = left
        result.rendered += right.rendered
        return result
    }

    public static func += (left: inout TerminalText, right: TerminalText) {
        left.rendered += right.rendered
    }

    /// Padded with spaces to `width` characters as shown (escapes count).
    public func padded(to width: Int) -> TerminalText {
        var result = self
        let count = rendered.count
        if count < width { result.rendered += String(repeating: " ", count: width - count) }
        return result
    }

    /// Whether the scalar is shown escaped (see the type's comment).
    @inline(__always)
    static func needsEscape(_ value: UInt32) -> Bool {
        guard let scalar = Unicode.Scalar(value) else { return false }
        return scalar == "\\" || scalar.isControlCode || scalar.reordersOrBreaksText
    }

    /// `text` with every control, bidirectional control and backslash escaped;
    /// a name that is not UTF-8, which the library opens as `/proc/self/fd/N`
    /// (`InputPath`), shown as its own bytes.
    public static func escape(_ text: some StringProtocol) -> String {
        if let named = InputPath.replacingNames(in: String(text), name: { escape(bytes: $0) }, other: { escapeText($0) }) {
            return named
        }
        return escapeText(text)
    }

    private static func escapeText(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0.value) }) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars { append(scalar, to: &out) }
        return out
    }

    /// `bytes` as UTF-8, with what is not UTF-8 shown byte by byte as `\xHH`.
    public static func escape(bytes: some Sequence<UInt8>) -> String {
        let bytes = Array(bytes)
        var out = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var position = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                append(Unicode.UTF8.decode(encoded), to: &out)
                position += encoded.count
            case .error(let length):
                for byte in bytes[position..<position + length] { out += "\\x" + hex(UInt32(byte), digits: 2) }
                position += length
            case .emptyInput:
                return out
            }
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout String) {
        let value = scalar.value
        guard needsEscape(value) else { out.unicodeScalars.append(scalar); return }
        switch value {
        case 0x0A: out += "\\n"
        case 0x09: out += "\\t"
        case 0x0D: out += "\\r"
        case 0x5C: out += "\\\\"
        case ..<0x80: out += "\\x" + hex(value, digits: 2)
        default: out += "\\u" + hex(value, digits: 4)
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

extension Sequence where Element == TerminalText {
    public func joined(separator: TerminalText = "") -> TerminalText {
        var result: TerminalText = ""
        for (index, text) in enumerated() {
            if index > 0 { result += separator }
            result += text
        }
        return result
    }
}
