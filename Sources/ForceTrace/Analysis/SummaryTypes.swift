import Foundation

/// Event-rate inflation, motion / (motion − stationary), decided once here so
/// that every renderer shows the same state (docs/ANALYSIS.md, "Inflation").
public enum Inflation: Equatable, Sendable {
    case ratio(Double)
    /// Every motion event stationary: motion / 0.
    case unbounded
    /// No motion events: 0 / 0.
    case undefined

    public init(motion: Int64, stationary: Int64) {
        let moving = motion - stationary
        if motion <= 0 {
            self = .undefined
        } else if moving <= 0 {
            self = .unbounded
        } else {
            self = .ratio(Double(motion) / Double(moving))
        }
    }

    /// The finite ratio, nil when unbounded or undefined.
    public var ratio: Double? {
        if case .ratio(let value) = self { value } else { nil }
    }
}

/// A flat array as `--save` stores one part of the mergeable state.
public enum StoredArray: Equatable, Sendable {
    case integers([Int64])
    case doubles([Double])
}

/// One part of the aggregate: adds up exactly (`+`), and stores as one flat
/// array so that a saved summary reads back into exactly the same value.
public protocol SummaryState: Equatable, Sendable {
    static func + (lhs: Self, rhs: Self) -> Self
    /// `lhs + rhs`, or nil when an integer of it overflows: the merge of
    /// states read from files, where `+` would trap or saturate.
    static func checkedSum(_ lhs: Self, _ rhs: Self) -> Self?
    /// Whether the totals derived from it (a row, a cumulative count) fit
    /// in Int64: checked on states read from files and on their sums.
    var totalsFit: Bool { get }
    var stored: StoredArray { get }
    init?(stored: StoredArray)
}

extension SummaryState {
    public var totalsFit: Bool { true }
}

extension Int64: SummaryState {
    public static func checkedSum(_ lhs: Self, _ rhs: Self) -> Self? {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        return overflow ? nil : sum
    }
    public var stored: StoredArray { .integers([self]) }
    public init?(stored: StoredArray) {
        guard case .integers(let values) = stored, values.count == 1 else { return nil }
        self = values[0]
    }
}

extension SIMD8: SummaryState where Scalar == Int64 {
    public static func + (lhs: Self, rhs: Self) -> Self { lhs &+ rhs }
    public static func checkedSum(_ lhs: Self, _ rhs: Self) -> Self? {
        var sum = Self()
        for lane in 0..<8 {
            let (value, overflow) = lhs[lane].addingReportingOverflow(rhs[lane])
            if overflow { return nil }
            sum[lane] = value
        }
        return sum
    }
    /// Per lane, motion minus stationary must not overflow: none below 0.
    public var totalsFit: Bool { (0..<8).allSatisfy { self[$0] >= 0 } }
    public var stored: StoredArray { .integers((0..<8).map { self[$0] }) }
    public init?(stored: StoredArray) {
        guard case .integers(let values) = stored, values.count == 8 else { return nil }
        self.init(values)
    }
}

/// A multiset of values for exact quantiles; merged by concatenation.
public struct ValueList: SummaryState {
    public var values: [Double] = []
    /// The quantiles of the values they were computed for: the text, JSON,
    /// HTML and `--save` renderers each ask, for a recording and the total.
    private let memo = QuantileMemo()
    public init(_ values: [Double] = []) { self.values = values }
    public mutating func append(_ value: Double) { values.append(value) }
    /// A sum with an empty side is the other side, quantiles and all (the total of one recording).
    public static func + (lhs: Self, rhs: Self) -> Self {
        if lhs.values.isEmpty { return rhs }
        if rhs.values.isEmpty { return lhs }
        return ValueList(lhs.values + rhs.values)
    }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.values == rhs.values }
    public static func checkedSum(_ lhs: Self, _ rhs: Self) -> Self? { lhs + rhs }
    public var stored: StoredArray { .doubles(values) }
    public init?(stored: StoredArray) {
        guard case .doubles(let values) = stored else { return nil }
        self.values = values
    }
    /// p5, p25, p50, p75, p95; nil without values.
    public var quantiles: [Double]? { memo.quantiles(of: values) }
}

/// The last quantiles a `ValueList` computed, and of which values. A copy of
/// the list shares it; a list whose values changed computes them again.
private final class QuantileMemo: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Double]?
    private var quantiles: [Double]?

    func quantiles(of values: [Double]) -> [Double]? {
        lock.lock()
        defer { lock.unlock() }
        // Equal arrays that share storage compare without reading their elements.
        if let known = self.values, known == values { return quantiles }
        quantiles = Quantiles.of(values)
        self.values = values
        return quantiles
    }
}

/// Contacts per press class.
public struct ClassCounts: SummaryState {
    private var counts: [Int64] = [0, 0, 0]
    public init() {}
    public subscript(_ pressClass: PressClass) -> Int64 {
        get { counts[pressClass.index] }
        set { counts[pressClass.index] = newValue }
    }
    public var total: Int64 { counts.reduce(0, +) }
    public static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        for pressClass in PressClass.allCases { sum[pressClass] += rhs[pressClass] }
        return sum
    }
    public static func checkedSum(_ lhs: Self, _ rhs: Self) -> Self? {
        guard let counts = lhs.counts.addingChecked(rhs.counts) else { return nil }
        var sum = Self()
        sum.counts = counts
        return sum
    }
    public var totalsFit: Bool { counts.areCountsWithATotal }
    public var stored: StoredArray { .integers(counts) }
    public init?(stored: StoredArray) {
        guard case .integers(let values) = stored, values.count == 3 else { return nil }
        counts = values
    }
}

/// Contacts by ground-truth label (rows) and the class found (columns).
public struct ConfusionMatrix: SummaryState {
    private var counts = [Int64](repeating: 0, count: 9)
    public init() {}
    public subscript(label label: PressClass, found found: PressClass) -> Int64 {
        get { counts[label.index * 3 + found.index] }
        set { counts[label.index * 3 + found.index] = newValue }
    }
    public var total: Int64 { counts.reduce(0, +) }
    /// Mean recall over the labelled classes; nil without labelled contacts.
    public var balancedAccuracy: Double? {
        var recalls: [Double] = []
        for label in PressClass.allCases {
            let row = PressClass.allCases.reduce(Int64(0)) { $0 + self[label: label, found: $1] }
            if row > 0 { recalls.append(Double(self[label: label, found: label]) / Double(row)) }
        }
        return recalls.isEmpty ? nil : recalls.reduce(0, +) / Double(recalls.count)
    }
    public static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        for index in 0..<9 { sum.counts[index] += rhs.counts[index] }
        return sum
    }
    public static func checkedSum(_ lhs: Self, _ rhs: Self) -> Self? {
        guard let counts = lhs.counts.addingChecked(rhs.counts) else { return nil }
        var sum = Self()
        sum.counts = counts
        return sum
    }
    public var totalsFit: Bool { counts.areCountsWithATotal }
    public var stored: StoredArray { .integers(counts) }
    public init?(stored: StoredArray) {
        guard case .integers(let values) = stored, values.count == 9 else { return nil }
        counts = values
    }
}

/// Signal peaks on the threshold grid, one histogram per ground-truth class.
public struct LabelledPeakBins: SummaryState {
    public var bins = [ThresholdBins](repeating: ThresholdBins(), count: 3)
    public init() {}
    public subscript(_ label: PressClass) -> ThresholdBins {
        get { bins[label.index] }
        set { bins[label.index] = newValue }
        // In place: a get-and-set would copy the bins' array per contact.
        _modify { yield &bins[label.index] }
    }
    public var total: Int64 { bins.reduce(0) { $0 + $1.counts.reduce(0, +) } }
    public static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        for index in 0..<3 { sum.bins[index] = sum.bins[index] + rhs.bins[index] }
        return sum
    }
    public static func checkedSum(_ lhs: Self, _ rhs: Self) -> Self? {
        var sum = lhs
        for index in 0..<3 {
            guard let bins = ThresholdBins.checkedSum(lhs.bins[index], rhs.bins[index]) else { return nil }
            sum.bins[index] = bins
        }
        return sum
    }
    public var totalsFit: Bool { bins.lazy.flatMap(\.counts).areCountsWithATotal }
    public var stored: StoredArray { .integers(bins.flatMap(\.counts)) }
    public init?(stored: StoredArray) {
        let width = ThresholdBins.steps + 1
        guard case .integers(let values) = stored, values.count == 3 * width else { return nil }
        for index in 0..<3 { bins[index].counts = Array(values[(index * width)..<((index + 1) * width)]) }
    }
}

extension ThresholdBins: SummaryState {
    public static func checkedSum(_ lhs: Self, _ rhs: Self) -> Self? {
        guard let counts = lhs.counts.addingChecked(rhs.counts) else { return nil }
        var sum = Self()
        sum.counts = counts
        return sum
    }
    public var totalsFit: Bool { counts.areCountsWithATotal }
    public var stored: StoredArray { .integers(counts) }
    public init?(stored: StoredArray) {
        guard case .integers(let values) = stored, values.count == Self.steps + 1 else { return nil }
        self.init()
        counts = values
    }
}

extension TimeHistogram: SummaryState {
    public static func checkedSum(_ lhs: Self, _ rhs: Self) -> Self? {
        guard let counts = lhs.counts.addingChecked(rhs.counts) else { return nil }
        var sum = Self()
        sum.counts = counts
        return sum
    }
    public var totalsFit: Bool { counts.areCountsWithATotal }
    public var stored: StoredArray { .integers(counts) }
    public init?(stored: StoredArray) {
        guard case .integers(let values) = stored, values.count == Self.bins + 1 else { return nil }
        self.init()
        counts = values
    }
}

/// Pressure curves per press class on a fixed grid of points: at each point
/// the count, a fixed-point sum (for the mean) and a histogram on the 0.01
/// grid (for the interquartile band). All integers, so bands of several
/// recordings add up exactly. Empty (0 points) when no output needs curves.
public struct CurveBands: SummaryState {
    /// Fixed-point scale of `sums`: the mean is exact to 1e-9. A sum
    /// saturates at ±2^63: pressure far outside its axis's range (kept as
    /// recorded) can reach it within a few contacts.
    public static let scale = 1e9
    static let width = ThresholdBins.steps + 1
    public private(set) var points = 0
    /// [class][point], [class][point], [class][point][bin], flattened.
    var counts: [Int64] = []
    var sums: [Int64] = []
    var histogram: [Int64] = []

    public init(points: Int = 0) {
        self.points = points
        counts = [Int64](repeating: 0, count: 3 * points)
        sums = counts
        histogram = [Int64](repeating: 0, count: 3 * points * Self.width)
    }

    /// Adds one contact's curve; NaN points (after its end) are left out.
    /// The lanes sum theirs in `LaneBands`; this plain loop serves the
    /// rest (a recording that begins a contact twice) and is the tests' reference.
    public mutating func add<C: Collection>(_ curve: C, as pressClass: PressClass) where C.Element == Float {
        var point = 0
        for value in curve where point < points {
            defer { point += 1 }
            guard !value.isNaN else { continue }
            let cell = pressClass.index * points + point
            counts[cell] += 1
            sums[cell] = sums[cell].saturatingAdding(Self.fixedPoint(value))
            histogram[cell * Self.width + ThresholdBins.bin(Double(value))] += 1
        }
    }

    public func count(_ pressClass: PressClass, point: Int) -> Int64 { counts[pressClass.index * points + point] }

    /// `value × scale` rounded to the nearest integer, halves away from zero,
    /// as `rounded()` does, without its call into libm: the truncation's
    /// remainder is exact below 2^52, and above it every double is whole.
    @inline(__always)
    static func fixedPoint(_ value: Float) -> Int64 {
        let scaled = Double(value) * scale
        let whole = Int64(scaled), remainder = scaled - Double(whole)
        return whole + (remainder >= 0.5 ? 1 : 0) - (remainder <= -0.5 ? 1 : 0)
    }

    /// Classes with at least one curve.
    public var classesPresent: [PressClass] {
        PressClass.allCases.filter { pressClass in (0..<points).contains { count(pressClass, point: $0) > 0 } }
    }

    public func mean(_ pressClass: PressClass, point: Int) -> Double? {
        let cell = pressClass.index * points + point
        return counts[cell] > 0 ? Double(sums[cell]) / Self.scale / Double(counts[cell]) : nil
    }

    /// Quantile `level` at one point, interpolated within its 0.01 bin.
    public func quantile(_ pressClass: PressClass, point: Int, level: Double) -> Double? {
        let cell = pressClass.index * points + point
        let total = counts[cell]
        guard total > 0 else { return nil }
        let target = level * Double(total)
        var running = 0.0
        for bin in 0..<Self.width {
            let here = Double(histogram[cell * Self.width + bin])
            if here > 0 && running + here >= target {
                let fraction = (target - running) / here
                return min(1, (Double(bin) + fraction) / Double(ThresholdBins.steps))
            }
            running += here
        }
        return 1
    }

    public static func + (lhs: Self, rhs: Self) -> Self {
        if lhs.points == 0 { return rhs }
        if rhs.points == 0 { return lhs }
        precondition(lhs.points == rhs.points, "curve bands of different grids")
        var sum = lhs
        for index in sum.counts.indices { sum.counts[index] += rhs.counts[index]; sum.sums[index] = sum.sums[index].saturatingAdding(rhs.sums[index]) }
        for index in sum.histogram.indices { sum.histogram[index] += rhs.histogram[index] }
        return sum
    }

    /// nil also for bands of different grids (a damaged part).
    public static func checkedSum(_ lhs: Self, _ rhs: Self) -> Self? {
        if lhs.points == 0 { return rhs }
        if rhs.points == 0 { return lhs }
        guard lhs.points == rhs.points, let counts = lhs.counts.addingChecked(rhs.counts), let sums = lhs.sums.addingChecked(rhs.sums),
              let histogram = lhs.histogram.addingChecked(rhs.histogram) else { return nil }
        var sum = lhs
        (sum.counts, sum.sums, sum.histogram) = (counts, sums, histogram)
        return sum
    }
    public var totalsFit: Bool { counts.areCountsWithATotal && histogram.areCountsWithATotal }

    public var stored: StoredArray { .integers([Int64(points)] + counts + sums + histogram) }
    public init?(stored: StoredArray) {
        guard case .integers(let values) = stored, let first = values.first, first >= 0 else { return nil }
        let points = Int(first)
        guard values.count == 1 + 3 * points * (2 + Self.width) else { return nil }
        self.init(points: points)
        let cells = 3 * points
        counts = Array(values[1..<(1 + cells)])
        sums = Array(values[(1 + cells)..<(1 + 2 * cells)])
        histogram = Array(values[(1 + 2 * cells)...])
    }
}

/// A lane's running `CurveBands`, laid out for adding one contact at a
/// time: its histogram is [class][bin][point] in 32 bits, so a curve that
/// holds a bin over neighbouring points touches neighbouring counts (in
/// `CurveBands`' [class][point][bin] every point was another cache line,
/// and the misses were most of `report --html`'s time). `bands` gives the
/// same integers as adding the curves to a `CurveBands`.
///
/// The histogram counts in 16 bits, half the cache lines of 32: a contact
/// adds at most one to a cell, so the counts move to `flushed` once every
/// `flushEvery` contacts, before any can wrap.
struct LaneBands {
    static let flushEvery = Int(UInt16.max)
    let points: Int
    private var sums: [Int64]
    /// [class][bin][point]; a point's count is the sum of its bins.
    private var histogram: [UInt16]
    private var flushed: [Int64]
    private var sinceFlush = 0

    init(points: Int) {
        self.points = points
        sums = [Int64](repeating: 0, count: 3 * points)
        histogram = [UInt16](repeating: 0, count: 3 * points * CurveBands.width)
        flushed = [Int64](repeating: 0, count: 3 * points * CurveBands.width)
    }

    private mutating func flush() {
        for index in histogram.indices { flushed[index] += Int64(histogram[index]) }
        histogram = [UInt16](repeating: 0, count: histogram.count)
        sinceFlush = 0
    }

    /// Adds one contact's curve; NaN points (after its end) are left out.
    mutating func add(_ curve: UnsafeBufferPointer<Float>, as pressClass: PressClass) {
        if sinceFlush == Self.flushEvery { flush() }
        sinceFlush += 1
        let points = self.points, first = pressClass.index * points, count = min(points, curve.count)
        let histogramFirst = pressClass.index * CurveBands.width * points
        ThresholdBins.FloatTable.shared.withTables { edgeBits, bucketBins in
            sums.withUnsafeMutableBufferPointer { allSums in
                histogram.withUnsafeMutableBufferPointer { allBins in
                    // This class's rows: the sums by point, the bins' counts by bin, then point.
                    let sums = allSums.baseAddress! + first, bins = allBins.baseAddress! + histogramFirst
                    var held = Float.nan.bitPattern, fixed: Int64 = 0, binStart = bins
                    for point in 0..<count {
                        let value = curve[point]
                        guard !value.isNaN else { continue }
                        if value.bitPattern != held {
                            held = value.bitPattern
                            fixed = CurveBands.fixedPoint(value)
                            binStart = bins + ThresholdBins.FloatTable.bin(value, edgeBits: edgeBits, bucketBins: bucketBins) &* points
                        }
                        sums[point] = sums[point].saturatingAdding(fixed)
                        binStart[point] &+= 1
                    }
                }
            }
        }
    }

    /// The bands, in `CurveBands`' layout.
    var bands: CurveBands {
        var bands = CurveBands(points: points)
        bands.sums = sums
        let width = CurveBands.width
        for pressClass in 0..<3 {
            for bin in 0..<width {
                for point in 0..<points {
                    let cell = (pressClass * width + bin) * points + point
                    let count = flushed[cell] + Int64(histogram[cell])
                    bands.histogram[(pressClass * points + point) * width + bin] = count
                    bands.counts[pressClass * points + point] += count
                }
            }
        }
        return bands
    }
}

/// One field of `PressureStatistics`, for code that must visit every field:
/// the merge, the `--save` state and the tests that check every renderer.
public struct SummaryField: @unchecked Sendable {
    /// snake_case of the property name; the dataset name in `--save`'s `state` group.
    public let name: String
    /// The `units` and `long_name` attributes of that dataset (udunits spelling, "1" for counts).
    public let units: String
    public let longName: String
    public let merge: (inout PressureStatistics, PressureStatistics) -> Void
    /// `merge` for states read from files: false when the sum overflows or
    /// its totals would (`SummaryState.checkedSum`, `totalsFit`).
    public let checkedMerge: (inout PressureStatistics, PressureStatistics) -> Bool
    public let totalsFit: (PressureStatistics) -> Bool
    public let stored: (PressureStatistics) -> StoredArray
    /// False when the array does not fit the field.
    public let restore: (inout PressureStatistics, StoredArray) -> Bool
    /// A field added after the first `--save` files: a part without it reads as empty there.
    public let absentInOlderParts: Bool

    init<T: SummaryState>(_ name: String, _ path: WritableKeyPath<PressureStatistics, T>, units: String = "1", _ longName: String,
                          absentInOlderParts: Bool = false) {
        self.name = name
        self.absentInOlderParts = absentInOlderParts
        self.units = units
        self.longName = longName
        merge = { sum, other in
            // Totals of times read from files (durations across a clock jump) saturate instead of trapping.
            if let a = sum[keyPath: path] as? Int64, let b = other[keyPath: path] as? Int64, let total = a.saturatingAdding(b) as? T {
                sum[keyPath: path] = total
            } else {
                sum[keyPath: path] = sum[keyPath: path] + other[keyPath: path]
            }
        }
        checkedMerge = { sum, other in
            guard let total = T.checkedSum(sum[keyPath: path], other[keyPath: path]), total.totalsFit else { return false }
            sum[keyPath: path] = total
            return true
        }
        totalsFit = { $0[keyPath: path].totalsFit }
        stored = { $0[keyPath: path].stored }
        restore = { statistics, array in
            guard let value = T(stored: array) else { return false }
            statistics[keyPath: path] = value
            return true
        }
    }
}
