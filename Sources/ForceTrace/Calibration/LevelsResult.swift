import Foundation

/// One levels trial as the analysis needs it: what was asked and the raw
/// pressure held.
public struct LevelRecord: Equatable, Sendable {
    public var target: LevelTarget
    public var held: Int32
    public init(target: LevelTarget, held: Int32) { self.target = target; self.held = held }
    public init(_ trial: LevelTrial) { self.init(target: trial.target, held: trial.held) }
}

/// What a levels session says (docs/ANALYSIS.md, "Levels"): for each level
/// count, where each level's trials landed; how many levels the person
/// controls; and stage thresholds for that many.
public struct LevelsResult: Sendable {
    public var file: String
    public var recording: String
    public var device: DeviceDescription
    public var axis: AxisInfo
    public var range: LevelRange
    public var seed: UInt64
    public var sets: [LevelSet]
    /// The largest tested count that is reliable along with every smaller
    /// tested count; 1 (a touch, no pressure stages) when none is.
    public var capacity: Int
    /// Between each two neighbouring levels of the `capacity` set; empty when capacity < 2.
    public var thresholds: [StageThreshold]

    /// One level count: its bands and a confusion table, one row per level
    /// asked for, one column per place (below, levels, above).
    public struct LevelSet: Sendable {
        public var bands: LevelBands
        /// `rows[level - 1][column]`, columns as `LevelPlace.column`.
        public var rows: [[Int]]
        public var count: Int { bands.count }
        public func trials(_ level: Int) -> Int { rows[level - 1].reduce(0, +) }
        public func inside(_ level: Int) -> Int { rows[level - 1][level] }
        /// At least `LevelsPlan.reliableShare` of the level's trials in its
        /// band, in integers (10 × inside >= 9 × trials). A level without trials is not.
        public func isReliable(_ level: Int) -> Bool {
            let total = trials(level), share = LevelsPlan.reliableShare
            return total > 0 && share.of * inside(level) >= share.inside * total
        }
        public var isReliable: Bool { (1...count).allSatisfy(isReliable) }
    }

    /// The threshold between level `lower` and `lower + 1` of the capacity set.
    public struct StageThreshold: Sendable {
        public var lower: Int
        public var separation: Separation
        public var raw: Int32 { separation.threshold }
    }

    public init(records: [LevelRecord], counts: [Int], range: LevelRange, seed: UInt64, device: DeviceDescription,
                axis: AxisInfo, file: String, recording: String) {
        self.file = file; self.recording = recording; self.device = device; self.axis = axis
        self.range = range; self.seed = seed
        let tested = Array(Set(counts + records.map(\.target.count))).sorted()
        sets = tested.map { count in
            let bands = LevelBands(count: count, range: range, axis: axis)
            var rows = Array(repeating: Array(repeating: 0, count: count + 2), count: count)
            for record in records where record.target.count == count && (1...count).contains(record.target.level) {
                rows[record.target.level - 1][bands.place(record.held).column(count: count)] += 1
            }
            return LevelSet(bands: bands, rows: rows)
        }
        capacity = 1
        for set in sets {
            guard set.isReliable else { break }
            capacity = set.count
        }
        let capacitySet = capacity
        thresholds = capacity < 2 ? [] : (1..<capacity).compactMap { lower in
            func held(_ level: Int) -> [Int32] {
                records.filter { $0.target == LevelTarget(count: capacitySet, level: level) }.map(\.held)
            }
            return Self.stage(lower: held(lower), upper: held(lower + 1)).map { StageThreshold(lower: lower, separation: $0) }
        }
    }

    /// `Separation.best`, but where the two levels overlap, the middle of the
    /// run of thresholds that share the best accuracy rather than its first
    /// candidate, which can sit on the lower level's usual hold (one miss of
    /// level 2 held at level 3's pressure left 2|3 at level 2's own value).
    static func stage(lower: [Int32], upper: [Int32]) -> Separation? {
        guard var separation = Separation.best(lower: lower, upper: upper), separation.overlaps else {
            return Separation.best(lower: lower, upper: upper)
        }
        func accuracy(_ t: Int32) -> Double {
            (Double(lower.filter { $0 <= t }.count) / Double(lower.count) + Double(upper.filter { $0 > t }.count) / Double(upper.count)) / 2
        }
        let all = lower + upper
        let floor = all.min()! &- 1, ceiling = all.max()!
        var low = separation.threshold, high = separation.threshold
        while low > floor, abs(accuracy(low - 1) - separation.balancedAccuracy) <= 1e-12 { low -= 1 }
        while high < ceiling, abs(accuracy(high + 1) - separation.balancedAccuracy) <= 1e-12 { high += 1 }
        separation.threshold = low + (high - low) / 2
        return separation
    }

    /// Normalized pressure and UIKit force units (UITouch.force, 1.0 = an
    /// average touch; `UIKitForce`) of a raw value.
    public func normalized(_ raw: Int32) -> Double { axis.normalized(raw) ?? 0 }
    public func force(_ raw: Int32) -> Double { UIKitForce.force(normalized: normalized(raw)) }

    private static func placeName(_ column: Int, count: Int) -> String {
        column == 0 ? "below" : column == count + 1 ? "above" : "\(column)"
    }

    // MARK: - Text

    public var text: TerminalText {
        var text: TerminalText = "\(file): /recordings/\(recording): levels, \"\(device.name)\", \(axis.name) \(axis.minimum)..\(axis.maximum), "
        text += "range \(String(format: "%.2f..%.2f", range.low, range.high)), seed \(seed)\n"
        for set in sets {
            text += "  \(set.count) levels: \(set.isReliable ? "reliable" : "not reliable"); raw edges \(set.bands.edges.map(String.init).joined(separator: " "))\n"
            let header = (0...(set.count + 1)).map { Self.placeName($0, count: set.count).padding(toLength: 6, withPad: " ", startingAt: 0) }
            text += "    asked \\ held   \(header.joined(separator: " "))  inside (* under 90 %)\n"
            for level in 1...set.count {
                let cells = set.rows[level - 1].map { String($0).padding(toLength: 6, withPad: " ", startingAt: 0) }
                let share = set.trials(level) > 0 ? 100 * Double(set.inside(level)) / Double(set.trials(level)) : 0
                text += "    \(String(level).padding(toLength: 14, withPad: " ", startingAt: 0)) \(cells.joined(separator: " "))  "
                text += "\(String(format: "%d/%d (%.0f %%)", set.inside(level), set.trials(level), share))\(set.isReliable(level) ? "" : " *")\n"
            }
        }
        text += "  levels controlled reliably (>= 90 % of trials in the band): \(capacity)\n"
        if thresholds.isEmpty {
            text += "  stage thresholds: none (fewer than 2 levels controlled)\n"
        } else {
            text += "  stage thresholds for \(capacity) levels (pressure above a threshold is the upper stage):\n"
            for stage in thresholds {
                text += "    \(stage.lower)|\(stage.lower + 1): raw \(stage.raw), \(String(format: "normalized %.3f, UIKit force %.3f", normalized(stage.raw), force(stage.raw)))"
                text += "\(String(format: ", balanced accuracy %.3f", stage.separation.balancedAccuracy))\n"
            }
        }
        return text
    }

    // MARK: - JSON

    /// `--json`: keys in byte order, as `JSONWriter` requires.
    public var json: String {
        var out = JSONWriter()
        out.beginObject()
        out.key("axis")
        out.beginObject()
        out.key("max"); out.int(axis.maximum)
        out.key("min"); out.int(axis.minimum)
        out.key("name"); out.string(axis.name)
        out.endObject()
        out.key("capacity"); out.int(capacity)
        out.key("device"); out.string(device.name)
        out.key("file"); out.string(InputPath.displayName(file))
        out.key("range"); out.beginArray(flat: true); out.double(range.low); out.double(range.high); out.endArray()
        out.key("recording"); out.string(recording)
        out.key("seed"); out.string(String(seed))
        out.key("sets")
        out.beginArray(flat: false)
        for set in sets {
            out.beginObject()
            out.key("count"); out.int(set.count)
            out.key("edges_raw"); out.integers(set.bands.edges)
            out.key("levels")
            out.beginArray(flat: false)
            for level in 1...set.count {
                out.beginObject()
                out.key("above"); out.int(set.rows[level - 1][set.count + 1])
                out.key("below"); out.int(set.rows[level - 1][0])
                out.key("held_in"); out.integers(set.rows[level - 1][1...set.count])
                out.key("inside"); out.int(set.inside(level))
                out.key("level"); out.int(level)
                out.key("reliable"); out.bool(set.isReliable(level))
                out.key("trials"); out.int(set.trials(level))
                out.endObject()
            }
            out.endArray()
            out.key("reliable"); out.bool(set.isReliable)
            out.endObject()
        }
        out.endArray()
        out.key("thresholds")
        out.beginArray(flat: false)
        for stage in thresholds {
            out.beginObject()
            out.key("balanced_accuracy"); out.double(stage.separation.balancedAccuracy)
            out.key("force"); out.double(force(stage.raw))
            out.key("lower"); out.int(stage.lower)
            out.key("normalized"); out.double(normalized(stage.raw))
            out.key("raw"); out.int(stage.raw)
            out.endObject()
        }
        out.endArray()
        out.endObject()
        return String(decoding: out.finish(), as: UTF8.self)
    }
}
