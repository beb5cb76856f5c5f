/// A press by how deep it went: tap < peek ≤ peek-press < pop ≤ pop-press.
/// Also the type of ground-truth labels, so it lives with the events, below
/// the formats that parse labels and the analysis that scores them.
public enum PressClass: String, CaseIterable, Sendable, Comparable {
    case tap
    case peekPress = "peek-press"
    case popPress = "pop-press"

    public var index: Int {
        switch self {
        case .tap: 0
        case .peekPress: 1
        case .popPress: 2
        }
    }

    /// The class of a press whose peak is `peak`.
    public static func of(peak: Double, peek: Double, pop: Double) -> PressClass {
        peak >= pop ? .popPress : (peak >= peek ? .peekPress : .tap)
    }

    /// Canonicalises a label as a person or script writes it: the class
    /// names and the simulator's kinds ("peek", "pop", "deep"), in any case.
    /// The `rawValue` is what files store.
    public init?(label: String) {
        guard let known = Self.labels[label.lowercased()] else { return nil }
        self = known
    }

    /// Every lowercase label `init(label:)` takes, and its class.
    public static let labels: [String: PressClass] = [
        "tap": .tap, "peek": .peekPress, "peek-press": .peekPress, "pop": .popPress, "pop-press": .popPress, "deep": .popPress,
    ]

    public static func < (lhs: PressClass, rhs: PressClass) -> Bool { lhs.index < rhs.index }
}
