import Foundation

/// Splits a text input into lines as it is read, block by block, without
/// copying them, tolerating CRLF endings and rejecting what is not text.
struct LineReader {
    /// Longest line accepted; longer ones are an error, not an allocation.
    static let maximumLineLength = 1 << 16

    let source: ByteSource
    var file: String { source.file }
    private(set) var lineNumber = 0
    /// Whether the line last returned ended the input without a newline.
    private(set) var lastLineUnterminated = false
    /// Bytes of the line last returned, with its newline, still to consume.
    private var pendingConsume = 0

    init(source: ByteSource) {
        self.source = source
    }

    /// The next line parsed in place by `parse`, when it is whole in the
    /// window (newline included) and `parse` accepts it; otherwise nil, and
    /// `next()` returns that same line. Common lines skip the slice (its
    /// retain and release) and the NUL scan: `parse` must accept no NUL.
    @inline(__always)
    mutating func nextParsed<R>(_ parse: (UnsafeBufferPointer<UInt8>) -> R?) -> R? {
        source.consume(pendingConsume)
        pendingConsume = 0
        let parsed: (R, Int)? = source.withWindow { window in
            let limit = min(window.count, Self.maximumLineLength)
            guard limit > 0, let base = window.baseAddress,
                  let hit = memchr(base, Int32(UInt8(ascii: "\n")), limit) else { return nil }
            let length = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            let crlf = length > 0 && base[length - 1] == UInt8(ascii: "\r")
            guard let value = parse(UnsafeBufferPointer(start: base, count: crlf ? length - 1 : length)) else { return nil }
            return (value, length + 1)
        }
        guard let (value, consumed) = parsed else { return nil }
        lineNumber += 1
        lastLineUnterminated = false
        pendingConsume = consumed
        return value
    }

    /// The next line without its terminator, or nil at the end. The slice
    /// is valid until the next call.
    mutating func next() throws -> ArraySlice<UInt8>? {
        source.consume(pendingConsume)
        pendingConsume = 0
        var searched = 0
        var found: Int?
        while true {
            let limit = min(source.available, Self.maximumLineLength + 1)
            found = source.withWindow { window in
                guard limit > searched,
                      let hit = memchr(window.baseAddress! + searched, Int32(UInt8(ascii: "\n")), limit - searched) else { return nil }
                return window.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }
            searched = limit
            if found != nil || source.atEnd || limit > Self.maximumLineLength { break }
            try source.fill(source.available + 1)
        }
        let available = source.available
        if found == nil && available == 0 { return nil }
        lineNumber += 1
        let length = found ?? min(available, Self.maximumLineLength + 1)
        if let nul = source.withWindow({ window in memchr(window.baseAddress!, 0, length) }) {
            let index = source.withWindow { window in window.baseAddress!.distance(to: nul.assumingMemoryBound(to: UInt8.self)) }
            throw ForceTraceError(file: file, location: .line(lineNumber),
                             "binary data (a NUL byte at byte \(source.offset + index)) where a text line was expected",
                             hint: "is this a raw input_event stream? Use 'forcetrace import --raw FILE --desc DESC'.")
        }
        if length > Self.maximumLineLength {
            throw ForceTraceError(file: file, location: .line(lineNumber),
                             "line is longer than \(Self.maximumLineLength) bytes; expected a short text line")
        }
        lastLineUnterminated = found == nil
        pendingConsume = found.map { $0 + 1 } ?? length
        let begin = source.start
        var line = source.buffer[begin..<begin + length]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        return line
    }
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

    /// A `Timestamp.decimal` as nanoseconds.
    mutating func timestampNs() -> Int64? {
        guard let token = token() else { return nil }
        return Timestamp.parseDecimal(token)?.ns
    }

    /// The rest of the line, trimmed.
    /// The rest of the line after the blanks that start it, without its
    /// trailing blanks unless `keepingTrailingBlanks`.
    mutating func rest(keepingTrailingBlanks: Bool = false) -> String {
        skipSpaces()
        var end = line.endIndex
        while !keepingTrailingBlanks && end > index && (line[end - 1] == UInt8(ascii: " ") || line[end - 1] == UInt8(ascii: "\t")) { end -= 1 }
        defer { index = line.endIndex }
        return String(decoding: line[index..<end], as: UTF8.self)
    }
}

