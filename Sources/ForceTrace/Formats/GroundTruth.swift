import Foundation

/// What a press was meant to be, as the simulator scripted it or a person
/// labelled it. Stored in evemu files as `# forcetrace-label:` comments and in
/// trace files as the `labels` table (docs/FORMAT.md).
public struct ContactLabel: Equatable, Sendable {
    public var slot: Int16
    public var trackingID: Int32
    /// Touch-down time on the recording's clock (absolute, like event times).
    public var tNs: Int64
    /// The intended class, canonical however the input spelled it.
    public var label: PressClass
    /// The scripted kind of press ("tap", "deep", "moving", ...), if known.
    public var kind: String?
    /// The scripted peak, normalized 0...1, if known.
    public var intendedPeak: Double?

    public init(slot: Int16, trackingID: Int32, tNs: Int64, label: PressClass, kind: String? = nil, intendedPeak: Double? = nil) {
        self.slot = slot; self.trackingID = trackingID; self.tNs = tNs
        self.label = label; self.kind = kind; self.intendedPeak = intendedPeak
    }
}

/// Labels for a recording's contacts, and the thresholds the script meant.
public struct GroundTruth: Equatable, Sendable {
    /// Normalized peek and pop thresholds the presses were scripted around.
    public var peek: Double?
    public var pop: Double?
    public var labels: [ContactLabel] = []
    /// A guided session's trials, when the input carries them (a browser
    /// capture): written as `calibrate` writes its labels, instead of `labels`.
    public var session: SessionTrials?

    public init(peek: Double? = nil, pop: Double? = nil, labels: [ContactLabel] = [], session: SessionTrials? = nil) {
        self.peek = peek; self.pop = pop; self.labels = labels; self.session = session
    }

    public var isEmpty: Bool { peek == nil && pop == nil && labels.isEmpty && session == nil }

    /// The comment prefix in evemu files.
    public static let evemuPrefix = "# forcetrace-label:"

    /// `# forcetrace-label:` lines for an evemu file.
    public func evemuComments() -> [String] {
        var lines: [String] = []
        if let peek, let pop { lines.append("\(Self.evemuPrefix) thresholds peek=\(peek) pop=\(pop)") }
        for label in labels {
            var line = "\(Self.evemuPrefix) press slot=\(label.slot) tracking_id=\(label.trackingID) "
            line += "t=\(Timestamp(ns: label.tNs).decimal) class=\(label.label.rawValue)"
            if let kind = label.kind { line += " kind=\(Self.escapedWord(kind))" }
            if let peak = label.intendedPeak { line += " peak=\(String(format: "%.4f", peak))" }
            lines.append(line)
        }
        return lines
    }

    /// A free-text value as one word of a label line: `TextEscaping`, with the
    /// space that separates words as `\x20`. Label lines are forcetrace's own,
    /// so their values are always read with escapes decoded.
    static func escapedWord(_ text: String) -> String {
        TextEscaping.escaped(text, also: [" "])
    }

    /// The words of a label line, split at spaces. An ASCII line is split by
    /// its bytes, which gives the same words as splitting its characters
    /// (a space followed by a combining mark is one character, so any other
    /// line is split by characters).
    static func words(_ text: Substring) -> [Substring] {
        var contiguous = text
        let bounds = contiguous.withUTF8 { bytes in wordBounds(bytes, text) }
        let utf8 = text.utf8
        return bounds.map { bound in
            let lower = utf8.index(utf8.startIndex, offsetBy: bound.lowerBound)
            return text[lower..<utf8.index(lower, offsetBy: bound.count)]
        }
    }

    /// The words of `text` (whose UTF-8 is `bytes`) as byte ranges: over the
    /// bytes when they are ASCII, since stepping a string's indices cost
    /// about 100 instructions a byte; else by characters.
    private static func wordBounds(_ bytes: UnsafeBufferPointer<UInt8>, _ text: Substring) -> [Range<Int>] {
        var bounds: [Range<Int>] = []
        var start = -1
        for (offset, byte) in bytes.enumerated() {
            if byte >= 0x80 {
                let utf8 = text.utf8
                return text.split(separator: " ", omittingEmptySubsequences: true).map { word in
                    utf8.distance(from: utf8.startIndex, to: word.startIndex)..<utf8.distance(from: utf8.startIndex, to: word.endIndex)
                }
            }
            if byte == UInt8(ascii: " ") {
                if start >= 0 { bounds.append(start..<offset); start = -1 }
            } else if start < 0 {
                start = offset
            }
        }
        if start >= 0 { bounds.append(start..<bytes.count) }
        return bounds
    }

    /// Parses the text after `# forcetrace-label:`. Returns an error message
    /// for the caller to place at its line.
    public mutating func parseEvemuComment(_ text: Substring) -> String? {
        var contiguous = text
        return contiguous.withUTF8 { bytes in parseEvemuComment(bytes, Self.wordBounds(bytes, text)) }
    }

    /// The label line whose UTF-8 is `bytes`, split into `words`, read by its
    /// bytes: a label line's fields are short ASCII, and strings are made
    /// only of the values kept.
    private mutating func parseEvemuComment(_ bytes: UnsafeBufferPointer<UInt8>, _ words: [Range<Int>]) -> String? {
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        guard let what = words.first else { return "expected 'thresholds ...' or 'press ...' after 'forcetrace-label:'" }
        // A handful of fields: a list searched from its end (the last of a repeated key wins), not a hashed map.
        var pairs: [(key: Range<Int>, value: Range<Int>)] = []
        pairs.reserveCapacity(words.count - 1)
        for word in words.dropFirst() {
            guard let equals = bytes[word].firstIndex(of: UInt8(ascii: "=")) else { return "expected KEY=VALUE, found '\(text(word))'" }
            pairs.append((word.lowerBound..<equals, equals + 1..<word.upperBound))
        }
        func matches(_ range: Range<Int>, _ name: StaticString) -> Bool {
            range.count == name.utf8CodeUnitCount && memcmp(bytes.baseAddress! + range.lowerBound, name.utf8Start, range.count) == 0
        }
        // The last value of `key` (a repeated key's last wins), as bytes or as a string.
        func bounds(_ key: StaticString) -> Range<Int>? { pairs.last { matches($0.key, key) }?.value }
        func field(_ key: StaticString) -> String? { bounds(key).map(text) }
        if matches(what, "thresholds") {
            guard let peek = field("peek").flatMap({ Double($0) }), let pop = field("pop").flatMap({ Double($0) }) else {
                return "expected 'thresholds peek=X pop=Y' with numbers"
            }
            self.peek = peek; self.pop = pop
        } else if matches(what, "press") {
            guard let slot = field("slot").flatMap({ Int16($0) }), let tracking = field("tracking_id").flatMap({ Int32($0) }),
                  let time = bounds("t").flatMap({ Timestamp.parseDecimal(bytes[$0]) }),
                  let label = field("class") else {
                return "expected 'press slot=N tracking_id=N t=SECONDS.MICROSECONDS class=NAME [kind=NAME] [peak=X]'"
            }
            guard let pressClass = PressClass(label: label) else {
                return "unknown class '\(label)'; expected tap, peek-press or pop-press (or peek, pop, deep)"
            }
            var kind: String?
            if let written = field("kind") {
                guard let decoded = TextEscaping.unescaped(written) else {
                    return "malformed escape in 'kind=\(written)'; expected \\\\, \\n, \\r, \\t, \\xHH or \\uHHHH after each backslash"
                }
                kind = decoded
            }
            labels.append(ContactLabel(slot: slot, trackingID: tracking, tNs: time.ns, label: pressClass,
                                       kind: kind, intendedPeak: field("peak").flatMap { Double($0) }))
        } else {
            return "unknown label record '\(text(what))'; expected 'thresholds' or 'press'"
        }
        return nil
    }
}

/// A calibration session's kept trials, as an input other than `calibrate`
/// recorded them: each trial's class, its contact and its span.
public struct SessionTrials: Equatable, Sendable {
    public struct Trial: Equatable, Sendable {
        public var trialClass: TrialClass
        /// The contact's slot and tracking id; -1 for a hover.
        public var slot: Int16
        public var trackingID: Int32
        /// Absolute times on the recording's clock.
        public var startNs: Int64
        public var endNs: Int64
        /// The largest raw pressure of the span.
        public var peak: Int32

        public init(trialClass: TrialClass, slot: Int16, trackingID: Int32, startNs: Int64, endNs: Int64, peak: Int32) {
            self.trialClass = trialClass; self.slot = slot; self.trackingID = trackingID
            self.startNs = startNs; self.endNs = endNs; self.peak = peak
        }
    }

    public var calibrationProtocol: CalibrationProtocol
    public var trials: [Trial]

    public init(calibrationProtocol: CalibrationProtocol, trials: [Trial]) {
        self.calibrationProtocol = calibrationProtocol
        self.trials = trials
    }
}
