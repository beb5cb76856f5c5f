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
    let file: String
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>
    private var peeked: YAMLEvent?
    private var ended = false
    /// Offset just past the last non-blank byte.
    private let contentEnd: Int

    init(bytes: [UInt8], file: String) {
        self.file = file
        parser = .allocate(capacity: 1)
        // libyaml reads from this buffer for the parser's whole life.
        input = .allocate(capacity: max(1, bytes.count))
        _ = input.initialize(from: bytes)
        contentEnd = (bytes.lastIndex { $0 != 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09 } ?? -1) + 1
        yaml_parser_initialize(parser)
        yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        input.deallocate()
    }

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
        if ended { throw InputError(file: file, "unexpected end of the YAML stream") }
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw syntaxError() }
        defer { yaml_event_delete(&event) }
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
        if kind == .alias {
            // libinput never writes anchors; refusing aliases also rules out
            // exponential expansion from hostile input.
            throw InputError(file: file, location: .line(line), "YAML aliases (*name) are not part of the libinput record format")
        }
        return YAMLEvent(kind: kind, line: line, column: column, atEndOfInput: Int(event.end_mark.index) >= contentEnd)
    }

    /// libyaml's own description of a syntax error, at its position.
    private func syntaxError() -> InputError {
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "unknown error"
        let context = state.context.map { String(cString: $0) }
        let mark = state.problem_mark
        var message = "YAML syntax error: \(problem)"
        if let context { message += " (\(context))" }
        if state.error == YAML_READER_ERROR {
            message = "not YAML text: \(problem) at byte \(state.problem_offset)"
        }
        // A problem at the very end of the input means the file was cut off.
        if Int(mark.index) >= input.count || Int(state.problem_offset) >= input.count && state.error == YAML_READER_ERROR {
            message += "; the file ends in the middle of the YAML structure (truncated?)"
        }
        return InputError(file: file, location: .line(Int(mark.line) + 1), message + " at column \(Int(mark.column) + 1)")
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
                throw InputError(file: file, location: .line(event.line), "expected a value, found \(event.shown)")
            default: break
            }
        } while depth > 0
    }
}
