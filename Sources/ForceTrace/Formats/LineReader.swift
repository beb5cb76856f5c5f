import Foundation

/// Splits a text file held in memory into lines without copying, tolerating
/// CRLF endings and rejecting what is not text.
struct LineReader {
    /// Longest line accepted; longer ones are an error, not an allocation.
    static let maximumLineLength = 1 << 16

    let bytes: [UInt8]
    let file: String
    private(set) var position = 0
    private(set) var lineNumber = 0

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    /// The next line without its terminator, or nil at the end.
    mutating func next() throws -> ArraySlice<UInt8>? {
        guard position < bytes.count else { return nil }
        lineNumber += 1
        let start = position
        var end = start
        while end < bytes.count && bytes[end] != UInt8(ascii: "\n") {
            if bytes[end] == 0 {
                throw InputError(file: file, location: .line(lineNumber),
                                 "binary data (a NUL byte at byte \(end)) where a text line was expected",
                                 hint: "is this a raw input_event stream? Use 'forcetrace import --raw FILE --desc DESC'.")
            }
            end += 1
            if end - start > Self.maximumLineLength {
                throw InputError(file: file, location: .line(lineNumber),
                                 "line is longer than \(Self.maximumLineLength) bytes; expected a short text line")
            }
        }
        position = end + 1
        var line = bytes[start..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        return line
    }

    /// Whether the file ends without a final newline.
    var endsMidLine: Bool { !bytes.isEmpty && bytes.last != UInt8(ascii: "\n") }
}

/// A cursor over one line's fields, for allocation-free number parsing.
struct FieldScanner {
    let line: ArraySlice<UInt8>
    var index: Int

    init(_ line: ArraySlice<UInt8>) {
        self.line = line
        self.index = line.startIndex
    }

    mutating func skipSpaces() {
        while index < line.endIndex && (line[index] == UInt8(ascii: " ") || line[index] == UInt8(ascii: "\t")) { index += 1 }
    }

    var atEnd: Bool {
        var probe = self
        probe.skipSpaces()
        return probe.index >= line.endIndex
    }

    /// The next whitespace-separated token.
    mutating func token() -> ArraySlice<UInt8>? {
        skipSpaces()
        let start = index
        while index < line.endIndex && line[index] != UInt8(ascii: " ") && line[index] != UInt8(ascii: "\t") { index += 1 }
        return start == index ? nil : line[start..<index]
    }

    mutating func hex() -> Int64? {
        guard let token = token() else { return nil }
        var value: Int64 = 0
        var digits = token[...]
        if digits.count > 2, digits.first == UInt8(ascii: "0"), digits[digits.startIndex + 1] | 0x20 == UInt8(ascii: "x") {
            digits = digits.dropFirst(2)
        }
        // Eight digits cover every evemu field; more could reach the sign bit.
        guard !digits.isEmpty, digits.count <= 8 else { return nil }
        for byte in digits {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | Int64(digit)
        }
        return value
    }

    mutating func decimal() -> Int64? {
        guard let token = token() else { return nil }
        return Self.parseDecimal(token)
    }

    static func parseDecimal(_ token: ArraySlice<UInt8>) -> Int64? {
        var digits = token[...]
        var negative = false
        if digits.first == UInt8(ascii: "-") { negative = true; digits = digits.dropFirst() }
        else if digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return negative ? -value : value
    }

    /// "SEC.FRACTION" seconds as nanoseconds, exact up to 9 fraction digits.
    mutating func timestampNs() -> Int64? {
        guard let token = token() else { return nil }
        let dot = token.firstIndex(of: UInt8(ascii: "."))
        let secondsPart = dot.map { token[token.startIndex..<$0] } ?? token
        guard let seconds = Self.parseDecimal(secondsPart), seconds >= 0, seconds < 9_000_000_000 else { return nil }
        var nanoseconds: Int64 = 0
        if let dot {
            let fraction = token[(dot + 1)...]
            guard !fraction.isEmpty, fraction.count <= 9 else { return nil }
            for byte in fraction {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                nanoseconds = nanoseconds * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            for _ in fraction.count..<9 { nanoseconds *= 10 }
        }
        return seconds * 1_000_000_000 + nanoseconds
    }

    /// The rest of the line, trimmed.
    mutating func rest() -> String {
        skipSpaces()
        var end = line.endIndex
        while end > index && (line[end - 1] == UInt8(ascii: " ") || line[end - 1] == UInt8(ascii: "\t")) { end -= 1 }
        defer { index = line.endIndex }
        return String(decoding: line[index..<end], as: UTF8.self)
    }
}

/// Reads a whole file, or standard input for "-", naming the file on failure.
func readInputFile(_ path: String) throws -> [UInt8] {
    if path == "-" {
        return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw InputError(file: path, "no such file")
    }
    guard !isDirectory.boolValue else {
        throw InputError(file: path, "is a directory; expected a recording file")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw InputError(file: path, "cannot be read (permission denied?)")
    }
    return [UInt8](data)
}
