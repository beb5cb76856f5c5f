/// A small, strict XML 1.0 tokenizer for the XML formats import reads
/// (InkML): start and end tags with attributes, text and CDATA, comments
/// and processing instructions skipped. Entities are only the five XML
/// predefines and numeric character references; a DOCTYPE (and with it any
/// entity declaration) is refused, so no input can expand. Work is bounded
/// as the YAML reader's is: nesting depth, a name's and a text run's
/// length, attributes per element.
struct XMLTokens {
    static let maximumDepth = 64
    /// Longest text run or attribute value: a trace of 100,000 points fits.
    static let maximumText = 1 << 24
    static let maximumNameLength = 256
    static let maximumAttributes = 64

    enum Token: Equatable {
        /// `<name a="v">`, or `<name/>` with `empty`.
        case start(name: String, attributes: [String: String], empty: Bool)
        case end(name: String)
        /// Character data (entities resolved), CDATA included.
        case text(String)
    }

    let bytes: [UInt8]
    let file: String
    private(set) var index: Int
    /// The line `index` is on, 1-based.
    private(set) var line = 1
    /// The line the last token started on.
    private(set) var tokenLine = 1
    private var open: [String] = []
    private var pendingEnd: String?
    private var sawRoot = false

    init(_ bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
        index = bytes.starts(with: RecordingHead.byteOrderMark) ? 3 : 0
    }

    var depth: Int { open.count }

    private func fail(_ message: String, at line: Int? = nil) -> ForceTraceError {
        ForceTraceError(file: file, location: .line(line ?? self.line), message)
    }

    private mutating func advance(_ count: Int = 1) {
        for _ in 0..<count where index < bytes.count {
            if bytes[index] == 0x0a { line += 1 }
            index += 1
        }
    }

    private func starts(with text: String) -> Bool {
        var at = index
        for byte in text.utf8 {
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
        }
        return true
    }

    /// Skips to just past `terminator`; fails naming `what` at its start line.
    private mutating func skip(past terminator: String, what: String) throws {
        let start = line
        while index < bytes.count {
            if starts(with: terminator) { advance(terminator.utf8.count); return }
            advance()
        }
        throw fail("\(what) is not closed: the file ends before '\(terminator)'", at: start)
    }

    /// The next token, or nil at the end of a complete document.
    mutating func next() throws -> Token? {
        if let name = pendingEnd {
            pendingEnd = nil
            open.removeLast()
            return .end(name: name)
        }
        while index < bytes.count {
            tokenLine = line
            if bytes[index] != UInt8(ascii: "<") {
                let text = try readText()
                if open.isEmpty {
                    guard text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else {
                        throw fail("text outside the root element", at: tokenLine)
                    }
                    continue
                }
                return .text(text)
            }
            if starts(with: "<!--") { try skip(past: "-->", what: "a comment"); continue }
            if starts(with: "<![CDATA[") {
                guard !open.isEmpty else { throw fail("CDATA outside the root element") }
                advance(9)
                let start = index
                try skip(past: "]]>", what: "a CDATA section")
                guard index - 3 - start <= Self.maximumText else { throw fail("a CDATA section longer than \(Self.maximumText) bytes", at: tokenLine) }
                return .text(String(decoding: bytes[start..<index - 3], as: UTF8.self))
            }
            if starts(with: "<!DOCTYPE") || starts(with: "<!ENTITY") || starts(with: "<!") {
                throw ForceTraceError(file: file, location: .line(line),
                                      "a document type or entity declaration ('<!DOCTYPE', '<!ENTITY'), which is refused: entities could expand without bound",
                                      hint: "remove the DOCTYPE; the format needs none")
            }
            if starts(with: "<?") { try skip(past: "?>", what: "a processing instruction"); continue }
            if starts(with: "</") {
                advance(2)
                let name = try readName()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw fail("expected '>' after '</\(name)'") }
                advance()
                guard let top = open.last else { throw fail("'</\(name)>' closes no element") }
                guard top == name else { throw fail("'</\(name)>' closes '<\(top)>'", at: tokenLine) }
                open.removeLast()
                return .end(name: name)
            }
            advance()
            let name = try readName()
            if open.isEmpty {
                guard !sawRoot else { throw fail("a second root element '<\(name)>'") }
                sawRoot = true
            }
            var attributes: [String: String] = [:]
            while true {
                let spaced = skipSpace()
                guard index < bytes.count else { throw fail("the file ends inside the tag '<\(name)'", at: tokenLine) }
                if bytes[index] == UInt8(ascii: ">") { advance(); break }
                if starts(with: "/>") { advance(2); pendingEnd = name; break }
                guard spaced else { throw fail("expected a space, '>' or '/>' in the tag '<\(name)'") }
                let attribute = try readName()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw fail("expected '=' after the attribute '\(attribute)'") }
                advance()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                    throw fail("expected a quoted value for the attribute '\(attribute)'")
                }
                let quote = bytes[index]
                advance()
                let value = try readText(until: quote)
                advance()
                guard attributes[attribute] == nil else { throw fail("the attribute '\(attribute)' is given twice") }
                guard attributes.count < Self.maximumAttributes else { throw fail("more than \(Self.maximumAttributes) attributes on '<\(name)>'") }
                attributes[attribute] = value
            }
            guard open.count < Self.maximumDepth else { throw fail("elements are nested deeper than \(Self.maximumDepth) levels", at: tokenLine) }
            open.append(name)
            return .start(name: name, attributes: attributes, empty: pendingEnd != nil)
        }
        if let unclosed = open.last { throw fail("the file ends inside '<\(unclosed)>'") }
        guard sawRoot else { throw fail("no root element") }
        return nil
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = index
        while index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { advance() }
        return index > start
    }

    private mutating func readName() throws -> String {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            let isNameByte = byte >= 0x80 || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                || (index > start && ((byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")))
            guard isNameByte else { break }
            guard index - start < Self.maximumNameLength else { throw fail("a name longer than \(Self.maximumNameLength) bytes") }
            advance()
        }
        guard index > start else { throw fail("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Text up to `<` (or the closing quote), with references resolved.
    private mutating func readText(until quote: UInt8? = nil) throws -> String {
        var result: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if let quote, byte == quote { return String(decoding: result, as: UTF8.self) }
            if byte == UInt8(ascii: "<") {
                if quote != nil { throw fail("'<' inside an attribute value") }
                break
            }
            if byte == 0 { throw fail("a NUL byte, which XML text cannot hold") }
            guard result.count < Self.maximumText else { throw fail("a text run longer than \(Self.maximumText) bytes", at: tokenLine) }
            if byte == UInt8(ascii: "&") {
                try readReference(into: &result)
                continue
            }
            result.append(byte)
            advance()
        }
        if quote != nil { throw fail("the file ends inside an attribute value", at: tokenLine) }
        return String(decoding: result, as: UTF8.self)
    }

    private static let predefined: [String: UInt8] = ["lt": 0x3c, "gt": 0x3e, "amp": 0x26, "quot": 0x22, "apos": 0x27]

    private mutating func readReference(into result: inout [UInt8]) throws {
        let start = index
        advance()
        while index < bytes.count, bytes[index] != UInt8(ascii: ";"), index - start < 12 { advance() }
        guard index < bytes.count, bytes[index] == UInt8(ascii: ";") else {
            throw fail("an '&' that starts no reference; write '&amp;' for '&'")
        }
        let name = String(decoding: bytes[start + 1..<index], as: UTF8.self)
        advance()
        if let byte = Self.predefined[name] { result.append(byte); return }
        var code: UInt32?
        if name.hasPrefix("#x") { code = UInt32(name.dropFirst(2), radix: 16) } else if name.hasPrefix("#") { code = UInt32(name.dropFirst(), radix: 10) }
        guard let code else {
            throw fail("the entity '&\(name);' is not one of XML's five (&lt; &gt; &amp; &quot; &apos;) or a character reference (&#N; &#xH;)")
        }
        guard code != 0, let scalar = Unicode.Scalar(code) else { throw fail("'&\(name);' is no character XML allows") }
        result.append(contentsOf: Array(String(Character(scalar)).utf8))
    }
}
