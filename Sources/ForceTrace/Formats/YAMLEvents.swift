import CYAML

/// One libyaml parse event, copied out of C memory. Lines and columns are
/// 1-based, as editors show them.
struct YAMLEvent {
    enum Kind: Equatable {
        case streamStart, streamEnd, documentStart, documentEnd
        case alias
        case scalar(String)
        case sequenceStart, sequenceEnd, mappingStart, mappingEnd
    }

    var kind: Kind
    var line: Int
    var column: Int
    /// Whether nothing but blanks follows it: the file may have been cut here.
    var atEndOfInput = false

    /// How the event reads in an error message.
    var shown: String {
        switch kind {
        case .scalar(let text): "'\(text.count > 40 ? String(text.prefix(40)) + "…" : text)'"
        case .sequenceStart: "a list"
        case .mappingStart: "a mapping"
        case .sequenceEnd: "the end of a list"
        case .mappingEnd: "the end of a mapping"
        case .documentEnd, .streamEnd: "the end of the file"
        case .documentStart: "a new document"
        case .streamStart: "the start of the file"
        case .alias: "a YAML alias"
        }
    }
}

/// A pull parser over libyaml's event API: YAML syntax is libyaml's job,
/// the meaning of the keys is the caller's. This file is the only one that
/// touches libyaml's C structures.
final class YAMLEventReader {
    /// Deepest nesting of lists and mappings accepted: libinput record
    /// files nest about 6 levels; libyaml's work grows with the square of
    /// the depth, so 100 000 levels took a minute.
    static let maximumDepth = 64
    /// Most input libyaml may read between two events: one scalar (with the
    /// blanks and comments before it) can be no longer. libyaml holds a
    /// scalar whole, in a buffer it doubles as it grows, so a 150 MB scalar
    /// took 454 MB. No libinput record scalar comes near: names, kernel and
    /// DMI strings and labels are at most a few hundred bytes.
    static let maximumBytesBetweenEvents = 1 << 20
    /// `bytesRead` when the last event was returned.
    private var bytesAtLastEvent = 0
    private var depth = 0
    /// The open lists and mappings, innermost last: for the duplicate-key check.
    private var open: [OpenCollection] = []
    let file: String
    private let source: ByteSource
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private var peeked: YAMLEvent?
    private var ended = false
    /// Bytes handed to libyaml so far.
    private var bytesRead = 0
    /// Offset just past the last non-blank byte handed to libyaml.
    private var contentEnd = 0
    /// A read error, which libyaml sees only as the end of its input.
    private var readError: (any Error)?

    /// Reads `source` as libyaml asks for it, block by block.
    init(source: ByteSource) {
        self.file = source.file
        self.source = source
        parser = .allocate(capacity: 1)
        yaml_parser_initialize(parser)
        yaml_parser_set_input(parser, { data, buffer, size, sizeRead in
            let reader = Unmanaged<YAMLEventReader>.fromOpaque(data!).takeUnretainedValue()
            return reader.supply(buffer!, capacity: size, count: sizeRead!)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
    }

    /// libyaml's read handler: 1 with `count` bytes (0 at the end), 0 on error.
    private func supply(_ buffer: UnsafeMutablePointer<UInt8>, capacity: Int, count: UnsafeMutablePointer<Int>) -> Int32 {
        if bytesRead - bytesAtLastEvent > Self.maximumBytesBetweenEvents {
            // Fails libyaml's read, which then reports a reader error: `syntaxError` throws this instead.
            readError = ForceTraceError(file: file, location: .line(Int(parser.pointee.mark.line) + 1),
                                   "a YAML value (or the comments and blanks before one) runs over \(Self.maximumBytesBetweenEvents >> 20) MiB; no libinput record value is longer than a few hundred bytes, so this is not a libinput record file, or it is damaged")
            count.pointee = 0
            return 0
        }
        do {
            let got = try source.read(into: buffer, capacity: capacity)
            for index in stride(from: got - 1, through: 0, by: -1) {
                let byte = buffer[index]
                if byte != 0x20 && byte != 0x0a && byte != 0x0d && byte != 0x09 {
                    contentEnd = bytesRead + index + 1
                    break
                }
            }
            bytesRead += got
            // Learn now whether this was the last block, for `atEndOfInput`.
            if source.available == 0 { try source.fill(1) }
            count.pointee = got
            return 1
        } catch {
            readError = error
            count.pointee = 0
            return 0
        }
    }

    /// Whether every byte of the input has been handed to libyaml.
    private var inputEnded: Bool { source.isExhausted }

    /// The next event without consuming it.
    func peek() throws -> YAMLEvent {
        if let peeked { return peeked }
        let event = try pull()
        peeked = event
        return event
    }

    /// Consumes and returns the next event.
    func next() throws -> YAMLEvent {
        if let event = peeked {
            peeked = nil
            return event
        }
        return try pull()
    }

    private func pull() throws -> YAMLEvent {
        if ended { throw ForceTraceError(file: file, "unexpected end of the YAML stream") }
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw syntaxError() }
        defer { yaml_event_delete(&event) }
        bytesAtLastEvent = bytesRead
        let line = Int(event.start_mark.line) + 1
        let column = Int(event.start_mark.column) + 1
        let kind: YAMLEvent.Kind
        switch event.type {
        case YAML_STREAM_START_EVENT: kind = .streamStart
        case YAML_STREAM_END_EVENT: kind = .streamEnd; ended = true
        case YAML_DOCUMENT_START_EVENT: kind = .documentStart
        case YAML_DOCUMENT_END_EVENT: kind = .documentEnd
        case YAML_ALIAS_EVENT: kind = .alias
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = scalar.value.map {
                String(decoding: UnsafeBufferPointer(start: $0, count: Int(scalar.length)), as: UTF8.self)
            } ?? ""
            kind = .scalar(text)
        case YAML_SEQUENCE_START_EVENT: kind = .sequenceStart
        case YAML_SEQUENCE_END_EVENT: kind = .sequenceEnd
        case YAML_MAPPING_START_EVENT: kind = .mappingStart
        case YAML_MAPPING_END_EVENT: kind = .mappingEnd
        default: kind = .streamEnd; ended = true
        }
        if kind == .sequenceStart || kind == .mappingStart {
            depth += 1
            if depth > Self.maximumDepth {
                throw ForceTraceError(file: file, location: .line(line), "lists and mappings are nested deeper than \(Self.maximumDepth) levels; a libinput record nests about 6")
            }
        } else if kind == .sequenceEnd || kind == .mappingEnd {
            depth -= 1
        }
        try checkKey(kind, line: line)
        if kind == .alias {
            // libinput never writes anchors; refusing aliases also rules out
            // exponential expansion from hostile input.
            throw ForceTraceError(file: file, location: .line(line), "YAML aliases (*name) are not part of the libinput record format")
        }
        return YAMLEvent(kind: kind, line: line, column: column, atEndOfInput: inputEnded && Int(event.end_mark.index) >= contentEnd)
    }

    /// A list, or a mapping with the keys it has had so far. Most mappings
    /// (a libinput frame's `- evdev:`) have one key: it is kept without a
    /// dictionary, which is made only from the second key on.
    private struct OpenCollection {
        let isMapping: Bool
        var expectsKey = true
        var firstKey: (text: String, line: Int)?
        var otherKeys: [String: Int] = [:]
    }

    /// Refuses a key its mapping already has: YAML forbids it, and libyaml
    /// does not check it, so the last value would silently win.
    private func checkKey(_ kind: YAMLEvent.Kind, line: Int) throws {
        switch kind {
        case .sequenceEnd, .mappingEnd:
            open.removeLast()
            return
        case .scalar, .alias, .sequenceStart, .mappingStart:
            break
        default:
            return
        }
        // A node: in a mapping, keys and values alternate.
        if let top = open.indices.last, open[top].isMapping {
            if open[top].expectsKey, case .scalar(let key) = kind {
                if let first = open[top].firstKey {
                    let earlier = first.text == key ? first.line : open[top].otherKeys.updateValue(line, forKey: key)
                    if let earlier {
                        throw ForceTraceError(file: file, location: .line(line),
                                         "duplicate key '\(key.count > 40 ? String(key.prefix(40)) + "…" : key)' in a mapping that already has it at line \(earlier); YAML forbids duplicate keys, so it is not clear which value is meant",
                                         hint: "remove one of the two")
                    }
                } else {
                    open[top].firstKey = (key, line)
                }
            }
            open[top].expectsKey.toggle()
        }
        if kind == .sequenceStart || kind == .mappingStart { open.append(OpenCollection(isMapping: kind == .mappingStart)) }
    }

    /// libyaml's own description of a syntax error, at its position.
    private func syntaxError() -> any Error {
        if let readError { return readError }
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "unknown error"
        let context = state.context.map { String(cString: $0) }
        let mark = state.problem_mark
        var message = "YAML syntax error: \(problem)"
        if let context { message += " (\(context))" }
        if state.error == YAML_READER_ERROR {
            message = "not YAML text: \(problem) at byte \(state.problem_offset)"
        }
        // A problem at the very end of the input means the file was cut off;
        // so does one inside a character: libyaml raises its "incomplete"
        // reader errors only at the end, at the character's first byte (1 to
        // 3 bytes before the end, so never at `bytesRead` itself).
        let cutCharacter = state.error == YAML_READER_ERROR && problem.hasPrefix("incomplete ")
        if inputEnded && (Int(mark.index) >= bytesRead || cutCharacter) {
            message += "; the file ends in the middle of the YAML structure (truncated?)"
        }
        return ForceTraceError(file: file, location: .line(Int(mark.line) + 1), message + " at column \(Int(mark.column) + 1)")
    }

    /// Consumes one whole value (scalar, list or mapping), however deep,
    /// without recursion.
    func skipValue() throws {
        var depth = 0
        repeat {
            let event = try next()
            switch event.kind {
            case .sequenceStart, .mappingStart: depth += 1
            case .sequenceEnd, .mappingEnd: depth -= 1
            case .streamEnd, .documentEnd, .documentStart, .streamStart:
                throw ForceTraceError(file: file, location: .line(event.line), "expected a value, found \(event.shown)")
            default: break
            }
        } while depth > 0
    }
}
