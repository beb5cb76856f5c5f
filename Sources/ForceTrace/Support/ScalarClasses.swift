/// The characters every escaper of text from outside treats alike
/// (TerminalText, TextEscaping, QuirksSection): one definition, so that they
/// cannot drift apart.
extension Unicode.Scalar {
    /// C0 controls, DEL and C1 controls: a terminal acts on them, and a line
    /// break among them ends a line of a text format.
    @inline(__always)
    var isControlCode: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value)
    }

    /// The bidirectional embeddings, overrides and isolates (U+202A–U+202E,
    /// U+2066–U+2069), the invisible direction marks (U+200E, U+200F,
    /// U+061C) and the line and paragraph separators (U+2028, U+2029): they
    /// reorder or break what a person reads.
    @inline(__always)
    var reordersOrBreaksText: Bool {
        switch value {
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
