/// Thresholds suggested from the data, on the 0.01 grid.
public struct ThresholdSuggestion: Equatable, Sendable {
    public enum Method: String, Sendable {
        /// From labelled contacts: the pair that maximizes balanced accuracy.
        case balancedAccuracy = "balanced-accuracy"
        /// From unlabelled peaks: natural breaks (Jenks) into three classes.
        case naturalBreaks = "natural-breaks"
    }

    public var method: Method
    /// What a natural-breaks suggestion is, as `report --json` and `--save` say it
    /// (the JSON renderer has its own copy of the text; the Python tests compare them).
    public static let naturalBreaksNote = "a suggestion from the shape of the peak distribution (three groups assumed), not ground truth"
    public var peek: Double
    public var pop: Double
    /// With labels: mean recall over the labelled classes.
    public var balancedAccuracy: Double?
    /// With labels: rows true tap, peek-press, pop-press; columns predicted.
    public var confusion: ConfusionMatrix?
    /// Pairs that reach the same best score; the suggestion is their middle.
    public var tiedPairs: Int

    /// Balanced accuracy and confusion matrix of `peek`/`pop` on labelled peak bins.
    public static func score(_ bins: [ThresholdBins], peek: Int, pop: Int) -> (accuracy: Double, confusion: ConfusionMatrix) {
        var confusion = ConfusionMatrix()
        for label in PressClass.allCases {
            let counts = bins[label.index].counts
            confusion[label: label, found: .tap] = counts[0..<peek].reduce(0, +)
            confusion[label: label, found: .peekPress] = counts[peek..<pop].reduce(0, +)
            confusion[label: label, found: .popPress] = counts[pop...].reduce(0, +)
        }
        return (confusion.balancedAccuracy ?? 0, confusion)
    }

    public static func fromLabels(_ bins: LabelledPeakBins) -> ThresholdSuggestion? { fromLabels(bins.bins) }

    /// The (peek, pop) pair with the best balanced accuracy over the grid
    /// 0.01 ≤ peek < pop ≤ 1.00. Among ties: the middle peek of the tied
    /// pairs, then the middle pop among those, so the thresholds sit inside
    /// the gaps between classes rather than on an edge.
    public static func fromLabels(_ bins: [ThresholdBins]) -> ThresholdSuggestion? {
        guard bins.count == 3, bins.contains(where: { $0.counts.contains { $0 > 0 } }) else { return nil }
        let steps = ThresholdBins.steps
        // Cumulative counts below each bin edge, per label: O(1) per pair.
        let below = bins.map { bin -> [Int64] in
            var running: Int64 = 0
            return [0] + bin.counts.map { running += $0; return running }
        }
        let totals = below.map { $0.last! }
        var best = -1.0
        var tied: [(Int, Int)] = []
        for peek in 1..<steps {
            for pop in (peek + 1)...steps {
                var sum = 0.0, classes = 0.0
                for label in 0..<3 where totals[label] > 0 {
                    let hit: Int64
                    switch label {
                    case 0: hit = below[0][peek]
                    case 1: hit = below[1][pop] - below[1][peek]
                    default: hit = totals[2] - below[2][pop]
                    }
                    sum += Double(hit) / Double(totals[label])
                    classes += 1
                }
                let accuracy = sum / classes
                if accuracy > best + 1e-12 { best = accuracy; tied = [(peek, pop)] } else if abs(accuracy - best) <= 1e-12 { tied.append((peek, pop)) }
            }
        }
        let peeks = tied.map(\.0).sorted()
        let peek = peeks[(peeks.count - 1) / 2]
        let pops = tied.filter { $0.0 == peek }.map(\.1).sorted()
        let pop = pops[(pops.count - 1) / 2]
        let scored = score(bins, peek: peek, pop: pop)
        return ThresholdSuggestion(method: .balancedAccuracy, peek: ThresholdBins.threshold(peek), pop: ThresholdBins.threshold(pop),
                                   balancedAccuracy: scored.accuracy, confusion: scored.confusion, tiedPairs: tied.count)
    }

    /// Natural breaks: splits the peak histogram into three runs of bins with
    /// the least within-class sum of squares (Fisher's exact optimization,
    /// as Jenks's natural breaks), bin j standing for the value (j + 0.5)/100.
    /// Each threshold sits in the middle of the empty gap below its run. A
    /// suggestion only: it assumes the presses come in three groups.
    public static func naturalBreaks(_ bins: ThresholdBins) -> ThresholdSuggestion? {
        let counts = bins.counts.map(Double.init)
        let occupied = counts.indices.filter { counts[$0] > 0 }
        guard occupied.count >= 3 else { return nil }
        let n = counts.count
        // Prefix sums of weight, weight·v and weight·v² for O(1) class costs.
        var w = [Double](repeating: 0, count: n + 1), s = w, q = w
        for index in 0..<n {
            let value = (Double(index) + 0.5) / Double(ThresholdBins.steps)
            w[index + 1] = w[index] + counts[index]
            s[index + 1] = s[index] + counts[index] * value
            q[index + 1] = q[index] + counts[index] * value * value
        }
        func cost(_ from: Int, _ to: Int) -> Double {   // bins from..<to
            let weight = w[to] - w[from]
            guard weight > 0 else { return 0 }
            let sum = s[to] - s[from]
            return (q[to] - q[from]) - sum * sum / weight
        }
        // Classes must each hold data: breaks lie between occupied bins.
        var best = Double.infinity
        var breaks = (0, 0)
        for (i, first) in occupied.enumerated().dropFirst() {
            for second in occupied[(i + 1)...] {
                let total = cost(0, first) + cost(first, second) + cost(second, n)
                if total < best - 1e-15 { best = total; breaks = (first, second) }
            }
        }
        // Put each threshold in the middle of the empty gap below its class.
        func middle(_ first: Int) -> Int {
            let previous = occupied.last { $0 < first } ?? (first - 1)
            return (previous + 1 + first) / 2
        }
        return ThresholdSuggestion(method: .naturalBreaks, peek: ThresholdBins.threshold(middle(breaks.0)),
                                   pop: ThresholdBins.threshold(middle(breaks.1)), balancedAccuracy: nil, confusion: nil, tiedPairs: 1)
    }
}
