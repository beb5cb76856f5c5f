/// The span of normalized pressure that a level set divides into bands
/// (docs/ANALYSIS.md, "Levels").
public struct LevelRange: Equatable, Sendable, CustomStringConvertible {
    public var low: Double
    public var high: Double

    /// The whole axis.
    public static let full = LevelRange(low: 0, high: 1)

    public init(low: Double, high: Double) {
        self.low = low; self.high = high
    }

    /// "LOW:HIGH" with 0 <= LOW < HIGH <= 1, as `--range` takes it.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]),
              low >= 0, high <= 1, low < high else { return nil }
        self.init(low: low, high: high)
    }

    public var description: String { "\(low):\(high)" }
}

/// Where a held pressure falls among a level set's bands: below the range,
/// in level 1...count, or above the range.
public enum LevelPlace: Equatable, Hashable, Sendable {
    case below
    case level(Int)
    case above

    /// Column of the confusion table: 0 below, 1...count the levels, count + 1 above.
    public func column(count: Int) -> Int {
        switch self {
        case .below: 0
        case .level(let level): level
        case .above: count + 1
        }
    }
}

/// A set of `count` equal bands over a range of normalized pressure, on one
/// axis, with its edges in raw units so that a raw value is inside or
/// outside without rounding doubt.
public struct LevelBands: Equatable, Sendable {
    public let count: Int
    public let range: LevelRange
    public let axis: AxisInfo
    /// `count + 1` raw edges: level k (1-based) is `edges[k-1] ..< edges[k]`.
    /// Each edge is the least raw value whose normalized pressure reaches the
    /// band's normalized edge; a range ending at 1 puts the axis maximum
    /// inside the top level (its last edge is maximum + 1).
    public let edges: [Int32]

    public init(count: Int, range: LevelRange, axis: AxisInfo) {
        self.count = count
        self.range = range
        self.axis = axis
        edges = (0...count).map { index in
            if index == count && range.high >= 1 { return axis.maximum &+ 1 }
            return Self.rawEdge(range.low + Double(index) * (range.high - range.low) / Double(count), axis: axis)
        }
    }

    /// How far below an edge a normalized pressure still reaches it: the
    /// edge's own arithmetic (0.2 + 2 × 0.6 / 3 is 0.6000000000000001) must
    /// not push 153/255 = 0.6 out. Far below one raw step of any int32 axis.
    public static let edgeTolerance = 1e-12

    /// The least raw value whose normalized pressure (a division, as
    /// `AxisInfo.normalized` computes it) is at least `normalized` (less `edgeTolerance`).
    static func rawEdge(_ edge: Double, axis: AxisInfo) -> Int32 {
        let normalized = edge - edgeTolerance
        let span = Double(axis.maximum) - Double(axis.minimum)
        var value = Int32(max(Double(Int32.min), min(Double(Int32.max), (Double(axis.minimum) + normalized * span).rounded(.up))))
        while value > axis.minimum, let below = axis.normalized(value - 1), below >= normalized { value -= 1 }
        while value <= axis.maximum, let at = axis.normalized(value), at < normalized { value += 1 }
        return value
    }

    public func place(_ raw: Int32) -> LevelPlace {
        if raw < edges[0] { return .below }
        for level in 1...count where raw < edges[level] { return .level(level) }
        return .above
    }

    /// The band's middle, normalized: what the person aims at.
    public func centre(_ level: Int) -> Double {
        range.low + (Double(level) - 0.5) * (range.high - range.low) / Double(count)
    }
}

/// One trial as asked: level `level` of a set of `count`.
public struct LevelTarget: Equatable, Hashable, Sendable {
    public var count: Int
    public var level: Int
    public init(count: Int, level: Int) { self.count = count; self.level = level }
}

/// A levels session's plan: which level counts, how many trials of each
/// level, over which range, and the seed of the order.
public struct LevelsPlan: Equatable, Sendable {
    public var counts: [Int]
    public var trialsPerLevel: Int
    public var range: LevelRange
    public var seed: UInt64

    public static let defaultCounts = Array(2...7)
    public static let defaultTrials = 10
    /// A trial's held pressure is the highest it kept this long (`HeldPressure`);
    /// a trial shorter than it is asked again.
    public static let holdNs: Int64 = 300_000_000
    /// A level is controlled when at least 9 in 10 of its trials land in its
    /// band: a ratio of integers, so 9 of 10 is on the rule, not below it.
    public static let reliableShare = (inside: 9, of: 10)

    public init(counts: [Int] = defaultCounts, trialsPerLevel: Int = defaultTrials, range: LevelRange = .full, seed: UInt64) {
        self.counts = counts; self.trialsPerLevel = trialsPerLevel; self.range = range; self.seed = seed
    }

    /// Block by block in ascending count (the bands change only between
    /// blocks); within a block every level `trialsPerLevel` times, in an order
    /// shuffled by `seed`.
    public var schedule: [LevelTarget] {
        var random = SeededRandom(seed: seed)
        return counts.sorted().flatMap { count -> [LevelTarget] in
            var block = (1...count).flatMap { level in Array(repeating: LevelTarget(count: count, level: level), count: trialsPerLevel) }
            // Fisher–Yates with our own generator, so the order is the same on every platform.
            if block.count > 1 {
                for index in stride(from: block.count - 1, to: 0, by: -1) {
                    let other = Int(random.next() % UInt64(index + 1))
                    block.swapAt(index, other)
                }
            }
            return block
        }
    }

    /// "2-7" or "2,4,6" (each 2...12), as `--levels` takes it.
    public static func parseCounts(_ text: String) -> [Int]? {
        var counts: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count), let first = Int(ends[0]), let last = Int(ends[ends.count - 1]),
                  first <= last, first >= 2, last <= 12 else { return nil }
            counts += Array(first...last)
        }
        let unique = Array(Set(counts)).sorted()
        return unique.isEmpty ? nil : unique
    }
}

/// The pressure a trial held: the highest pressure the person kept for a
/// hold (`LevelsPlan.holdNs`), i.e. the largest time-weighted median of any
/// stretch that long within the contact. A spike or an overshoot shorter than
/// half the hold does not count, and neither does a rest at a lower pressure
/// before the press or after the release (the kernel scenario met a 350 ms
/// rest before a lift; the steadiest stretch, tried first, took it). The
/// curve is a step function: the kernel sends a value only when it changes,
/// so a value holds until the next point or the trial's end. Nil when the
/// trial is shorter than the hold.
public enum HeldPressure {
    public static func held(_ curve: [PressurePoint], endNs: Int64, holdNs: Int64 = LevelsPlan.holdNs) -> Int32? {
        guard let first = curve.first, endNs - first.tNs >= holdNs else { return nil }
        // A stretch's content changes only where one of its ends meets a point:
        // starting at each point, and ending at each point or at the lift, covers every case.
        var starts = Set(curve.map(\.tNs) + curve.map { $0.tNs - holdNs })
        starts.insert(endNs - holdNs)
        var best: Int32?
        var at = 0  // the last point at or before `from`; the starts ascend
        for from in starts.sorted() where from >= first.tNs && from + holdNs <= endNs {
            let to = from + holdNs
            while at + 1 < curve.count && curve[at + 1].tNs <= from { at += 1 }
            // A stretch whose highest value does not beat the best cannot: skip it.
            if let best {
                var highest = curve[at].pressure, index = at + 1
                while index < curve.count && curve[index].tNs < to { highest = max(highest, curve[index].pressure); index += 1 }
                if highest <= best { continue }
            }
            // The values over [from, to) and how long each holds.
            var pieces: [(value: Int32, ns: Int64)] = []
            var index = at
            while index < curve.count && curve[index].tNs < to {
                let begin = max(curve[index].tNs, from)
                let next = index + 1 < curve.count ? min(curve[index + 1].tNs, to) : to
                pieces.append((curve[index].pressure, next - begin))
                index += 1
            }
            // The lowest value by which half the stretch is covered.
            var covered: Int64 = 0
            var median = pieces[0].value
            for piece in pieces.sorted(by: { $0.value < $1.value }) {
                covered += piece.ns
                if 2 * covered >= holdNs { median = piece.value; break }
            }
            best = max(best ?? median, median)
        }
        return best
    }
}
