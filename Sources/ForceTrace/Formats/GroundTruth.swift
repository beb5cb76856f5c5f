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

    /// Parses the text after `# forcetrace-label:`. Returns an error message
    /// for the caller to place at its line.
    public mutating func parseEvemuComment(_ text: Substring) -> String? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard let what = words.first else { return "expected 'thresholds ...' or 'press ...' after 'forcetrace-label:'" }
        var fields: [Substring: Substring] = [:]
        for word in words.dropFirst() {
            guard let equals = word.firstIndex(of: "=") else { return "expected KEY=VALUE, found '\(word)'" }
            fields[word[..<equals]] = word[word.index(after: equals)...]
        }
        switch what {
        case "thresholds":
            guard let peek = fields["peek"].flatMap({ Double($0) }), let pop = fields["pop"].flatMap({ Double($0) }) else {
                return "expected 'thresholds peek=X pop=Y' with numbers"
            }
            self.peek = peek; self.pop = pop
        case "press":
            guard let slot = fields["slot"].flatMap({ Int16($0) }), let tracking = fields["tracking_id"].flatMap({ Int32($0) }),
                  let time = fields["t"].flatMap({ Timestamp.parseDecimal($0.utf8) }), let label = fields["class"] else {
                return "expected 'press slot=N tracking_id=N t=SECONDS.MICROSECONDS class=NAME [kind=NAME] [peak=X]'"
            }
            guard let pressClass = PressClass(label: String(label)) else {
                return "unknown class '\(label)'; expected tap, peek-press or pop-press (or peek, pop, deep)"
            }
            var kind: String?
            if let written = fields["kind"] {
                guard let decoded = TextEscaping.unescaped(written) else {
                    return "malformed escape in 'kind=\(written)'; expected \\\\, \\n, \\r, \\t, \\xHH or \\uHHHH after each backslash"
                }
                kind = decoded
            }
            labels.append(ContactLabel(slot: slot, trackingID: tracking, tNs: time.ns, label: pressClass,
                                       kind: kind, intendedPeak: fields["peak"].flatMap { Double($0) }))
        default:
            return "unknown label record '\(what)'; expected 'thresholds' or 'press'"
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
