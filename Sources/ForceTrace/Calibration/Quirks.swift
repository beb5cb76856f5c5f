import Foundation

/// A libinput quirks section that libinput reads exactly as written: every
/// comment, header and value of `suggest --format quirks` goes through it.
///
/// The grammar it relies on, from libinput's `src/quirks.c` (read in its
/// source; Debian's 1.22.1 `libinput quirks validate` and `quirks list` check
/// it in the tests):
/// - `parse_file` reads lines with `fgets` into `char line[512]`: a line of
///   more than 510 bytes plus its newline is split, and the rest is parsed as
///   a line of its own (an attribute, if it looks like one).
/// - `parse_file` cuts every line at its first `#`, wherever it is, and the
///   blanks before it; a line that then starts or ends with a blank is
///   rejected, and a NUL byte ends it (`strlen`).
/// - A header is a line starting with `[` whose last byte is `]`.
/// - `parse_value_line` splits at `=` with `strv_from_string`, which drops
///   empty pieces: a second `=` rejects the file, a leading or trailing one
///   vanishes silently. A value starting with `"` or `'` is rejected.
/// - `quirk_match_section` matches `MatchName` with `fnmatch(pattern, name,
///   0)`: `*`, `?` and `[...]` are patterns, a backslash makes the next
///   character literal (no `FNM_NOESCAPE`).
/// - `match_fill_name` takes the name from udev's `NAME`, one `"` stripped at
///   each end (the kernel writes `NAME="..."`): the device's own bytes.
public struct QuirksSection: Sendable {
    /// The longest line libinput reads whole, without its newline.
    public static let lineLimit = 510

    private var lines: [String] = []

    public init() {}

    /// The section as the file's text, one line each.
    public var text: String { lines.map { $0 + "\n" }.joined() }

    /// A `# ` line: controls and `\` as escapes, cut to fit a line (a comment
    /// may lose its end; an attribute never does).
    public mutating func comment(_ text: String) {
        lines.append(Self.fitted(prefix: "# ", Self.visible(text, escaping: []), suffix: ""))
    }

    /// The header `[TITLE]`, a free label: `#` (a comment), `[` and `]` are
    /// escaped as well, and a long title is cut.
    public mutating func header(_ title: String) {
        lines.append(Self.fitted(prefix: "[", Self.visible(title, escaping: ["#", "[", "]"]), suffix: "]"))
    }

    /// A `Match` or `Attr` line with a value forcetrace made itself (a number,
    /// one of libinput's names): such a value always fits the grammar.
    public mutating func entry(_ key: String, _ value: String) {
        let line = "\(key)=\(value)"
        precondition(Self.isPlainValue(value) && line.utf8.count <= Self.lineLimit, "not a quirks value: \(line)")
        lines.append(line)
    }

    /// `MatchName` matching exactly `name`, or why the grammar cannot hold
    /// it (then nothing is written).
    public mutating func matchName(_ name: String) -> UnusableName? {
        switch Self.namePattern(name) {
        case .success(let pattern):
            entry("MatchName", pattern)
            return nil
        case .failure(let problem):
            return problem
        }
    }

    /// Why a device name cannot be a `MatchName`.
    public enum UnusableName: Error, Equatable, Sendable, CustomStringConvertible {
        case comment, equals
        case control(Unicode.Scalar)
        /// U+FFFD: the name's bytes were not UTF-8, so they are not known.
        case notUTF8
        case tooLong(bytes: Int)

        public var description: String {
            switch self {
            case .comment: "the device name holds '#', which starts a comment in a quirks file"
            case .equals: "the device name holds '=', which a quirks line allows only once"
            case .control(let scalar): "the device name holds the control character \(QuirksSection.escape(scalar))"
            case .notUTF8: "the device name was not valid UTF-8, so its bytes are not known"
            case .tooLong(let bytes):
                "the device name makes a MatchName line of \(bytes) bytes; libinput reads \(QuirksSection.lineLimit)"
            }
        }
    }

    /// The fnmatch pattern that matches exactly `name`, as a `MatchName` value.
    public static func namePattern(_ name: String) -> Result<String, UnusableName> {
        var pattern = ""
        let scalars = Array(name.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case "#": return .failure(.comment)
            case "=": return .failure(.equals)
            case "\u{FFFD}": return .failure(.notUTF8)
            case _ where scalar.isControlCode: return .failure(.control(scalar))
            case "*", "?", "[", "]", "\\": pattern += "\\\(scalar)"
            // A value may not start with a quote; escaped, it is a literal one.
            case "\"" where index == 0, "'" where index == 0: pattern += "\\\(scalar)"
            // A line may not end with a blank; a bracket expression matches it.
            case " " where index == scalars.count - 1: pattern += "[ ]"
            default: pattern.unicodeScalars.append(scalar)
            }
        }
        let bytes = "MatchName=".utf8.count + pattern.utf8.count
        return bytes <= lineLimit ? .success(pattern) : .failure(.tooLong(bytes: bytes))
    }

    /// Whether libinput reads `value` after `KEY=` as it is.
    static func isPlainValue(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, let last = value.unicodeScalars.last else { return false }
        return !value.unicodeScalars.contains { $0 == "#" || $0 == "=" || $0.isControlCode }
            && first != "\"" && first != "'" && last != " "
    }

    /// `\x1b`, `\u202e`, `\\`.
    static func escape(_ scalar: Unicode.Scalar) -> String {
        if scalar == "\\" { return "\\\\" }
        return scalar.value < 0x100 ? String(format: "\\x%02x", scalar.value) : String(format: "\\u%04x", scalar.value)
    }

    /// `text` in pieces, one per character, escaped where needed, so a cut
    /// never splits an escape.
    private static func visible(_ text: String, escaping extra: Set<Unicode.Scalar>) -> [String] {
        text.unicodeScalars.map { scalar in
            scalar == "\\" || scalar.isControlCode || scalar.reordersOrBreaksText || extra.contains(scalar)
                ? escape(scalar) : String(scalar)
        }
    }

    /// `prefix`, the pieces and `suffix` within `lineLimit` bytes, the pieces
    /// cut and ended with `...` when they do not fit.
    private static func fitted(prefix: String, _ pieces: [String], suffix: String) -> String {
        let room = lineLimit - prefix.utf8.count - suffix.utf8.count
        if pieces.reduce(0, { $0 + $1.utf8.count }) <= room { return prefix + pieces.joined() + suffix }
        var kept = ""
        var bytes = 0
        for piece in pieces {
            guard bytes + piece.utf8.count <= room - 3 else { break }
            kept += piece
            bytes += piece.utf8.count
        }
        return prefix + kept + "..." + suffix
    }
}
