/// Counts of normalized peaks on the threshold grid 0.00, 0.01, ... 1.00:
/// bin j holds peaks with j/100 ≤ peak < (j+1)/100; bin 100 holds peak ≥ 1.
/// Comparisons use the same doubles as the thresholds, so "reaches j/100"
/// is exactly "bin ≥ j".
public struct ThresholdBins: Equatable, Sendable {
    public static let steps = 100
    public var counts = [Int64](repeating: 0, count: steps + 1)

    public static func threshold(_ index: Int) -> Double { Double(index) / Double(steps) }

    /// The bin of `value`: the largest j with j/100 ≤ value (0 below 0).
    public static func bin(_ value: Double) -> Int {
        guard value.isFinite else { return value > 0 ? steps : 0 }
        var bin = Int(max(0, min(Double(steps), (value * Double(steps)).rounded(.down))))
        while bin < steps && threshold(bin + 1) <= value { bin += 1 }
        while bin > 0 && threshold(bin) > value { bin -= 1 }
        return bin
    }

    public mutating func add(_ value: Double) { counts[Self.bin(value)] += 1 }

    /// How many values reach each threshold j/100, j = 0...100.
    public var reached: [Int64] {
        var result = [Int64](repeating: 0, count: counts.count)
        var running: Int64 = 0
        for index in counts.indices.reversed() {
            running += counts[index]
            result[index] = running
        }
        return result
    }

    public static func + (lhs: ThresholdBins, rhs: ThresholdBins) -> ThresholdBins {
        var sum = lhs
        for index in sum.counts.indices { sum.counts[index] += rhs.counts[index] }
        return sum
    }
}

/// A histogram of durations with fixed bins, so histograms from several
/// files add up exactly. The last bin collects everything at or past `binNs × bins`.
public struct TimeHistogram: Equatable, Sendable {
    public static let binNs: Int64 = 10_000_000
    public static let bins = 300
    public var counts = [Int64](repeating: 0, count: bins + 1)

    public mutating func add(_ ns: Int64) {
        counts[Int(min(Int64(Self.bins), max(0, ns / Self.binNs)))] += 1
    }

    public static func + (lhs: TimeHistogram, rhs: TimeHistogram) -> TimeHistogram {
        var sum = lhs
        for index in sum.counts.indices { sum.counts[index] += rhs.counts[index] }
        return sum
    }
}

/// Aggregate statistics over any set of contacts. Every field is a sum, a
/// fixed-bin histogram or a multiset of values, so two aggregates merge
/// into exactly the aggregate of the combined data (`+`).
public struct PressureStatistics: Equatable, Sendable {
    public var recordings = 0
    public var durationNs: Int64 = 0
    public var contacts: Int64 = 0
    public var contactsWithPressure: Int64 = 0
    public var stillDown: Int64 = 0
    public var samples: Int64 = 0
    public var motionEvents: Int64 = 0
    /// Motion events of the recordings where each lane's tolerance applies
    /// (a mm tolerance needs the axis resolution): the lane's denominator.
    public var laneMotionEvents = SIMD8<Int64>(repeating: 0)
    /// Per tolerance lane (see `ToleranceLanes`).
    public var stationary = SIMD8<Int64>(repeating: 0)
    public var stationaryRise = SIMD8<Int64>(repeating: 0)
    /// Pop-presses whose whole displacement stays within each lane's tolerance.
    public var stationaryDeepPresses = SIMD8<Int64>(repeating: 0)
    /// Sum of contact durations: the time the stationary rate is over.
    public var contactTimeNs: Int64 = 0
    /// tap, peek-press, pop-press.
    public var classCounts: [Int64] = [0, 0, 0]
    public var reachedPeek: Int64 = 0
    public var reachedPop: Int64 = 0
    public var peekRecrossings: Int64 = 0
    public var popRecrossings: Int64 = 0
    /// Peaks of the thresholded signal on the threshold grid.
    public var peakBins = ThresholdBins()
    /// The same, per ground-truth class, for labelled contacts.
    public var labelledPeakBins = [ThresholdBins](repeating: ThresholdBins(), count: 3)
    /// Rows: label tap, peek-press, pop-press; columns: the class found at the configured thresholds.
    public var confusion = [Int64](repeating: 0, count: 9)
    public var timeToPeakHistogram = TimeHistogram()
    public var peekHistogram = TimeHistogram()
    public var popHistogram = TimeHistogram()
    public var peekToPopHistogram = TimeHistogram()
    /// Values for exact quantiles; merged by concatenation.
    public var peakValues: [Double] = []
    public var timeToPeakValues: [Double] = []
    public var peekValues: [Double] = []
    public var popValues: [Double] = []
    public var peekToPopValues: [Double] = []

    public init() {}

    public var labelled: Int64 { labelledPeakBins.reduce(0) { $0 + $1.counts.reduce(0, +) } }
    public var stationaryAfterPeak: SIMD8<Int64> { stationary &- stationaryRise }

    public func inflation(lane: Int = 0) -> Double? { Inflation.ratio(motion: laneMotionEvents[lane], stationary: stationary[lane]) }

    /// Stationary pressure events per second of contact.
    public func stationaryRateHz(lane: Int = 0) -> Double? {
        contactTimeNs > 0 ? Double(stationary[lane]) / (Double(contactTimeNs) / 1e9) : nil
    }

    public mutating func add(_ contact: ContactStatistics, thresholds: Thresholds) {
        contacts += 1
        samples += contact.samples
        if contact.stillDown { stillDown += 1 }
        motionEvents += contact.motionEvents
        stationary &+= contact.stationary
        stationaryRise &+= contact.stationaryRise
        contactTimeNs += contact.durationNs
        guard let signalPeak = contact.signalPeak, let pressClass = contact.pressClass else { return }
        contactsWithPressure += 1
        classCounts[pressClass.index] += 1
        if pressClass == .popPress { stationaryDeepPresses &+= contact.withinTolerance }
        if contact.tPeekNs != nil { reachedPeek += 1 }
        if contact.tPopNs != nil { reachedPop += 1 }
        peekRecrossings += Int64(contact.peekRecrossings)
        popRecrossings += Int64(contact.popRecrossings)
        peakBins.add(signalPeak)
        if let label = contact.label {
            labelledPeakBins[label.index].add(signalPeak)
            confusion[label.index * 3 + pressClass.index] += 1
        }
        if let peak = contact.peakNorm { peakValues.append(peak) }
        if let time = contact.timeToPeakNs { timeToPeakHistogram.add(time); timeToPeakValues.append(Double(time) / 1e9) }
        if let time = contact.tPeekNs { peekHistogram.add(time); peekValues.append(Double(time) / 1e9) }
        if let time = contact.tPopNs { popHistogram.add(time); popValues.append(Double(time) / 1e9) }
        if let time = contact.peekToPopNs { peekToPopHistogram.add(time); peekToPopValues.append(Double(time) / 1e9) }
    }

    public static func + (lhs: PressureStatistics, rhs: PressureStatistics) -> PressureStatistics {
        var sum = lhs
        sum.recordings += rhs.recordings
        sum.durationNs += rhs.durationNs
        sum.contacts += rhs.contacts
        sum.contactsWithPressure += rhs.contactsWithPressure
        sum.stillDown += rhs.stillDown
        sum.samples += rhs.samples
        sum.motionEvents += rhs.motionEvents
        sum.laneMotionEvents &+= rhs.laneMotionEvents
        sum.stationary &+= rhs.stationary
        sum.stationaryRise &+= rhs.stationaryRise
        sum.stationaryDeepPresses &+= rhs.stationaryDeepPresses
        sum.contactTimeNs += rhs.contactTimeNs
        for index in 0..<3 { sum.classCounts[index] += rhs.classCounts[index] }
        sum.reachedPeek += rhs.reachedPeek
        sum.reachedPop += rhs.reachedPop
        sum.peekRecrossings += rhs.peekRecrossings
        sum.popRecrossings += rhs.popRecrossings
        sum.peakBins = sum.peakBins + rhs.peakBins
        for index in 0..<3 { sum.labelledPeakBins[index] = sum.labelledPeakBins[index] + rhs.labelledPeakBins[index] }
        for index in 0..<9 { sum.confusion[index] += rhs.confusion[index] }
        sum.timeToPeakHistogram = sum.timeToPeakHistogram + rhs.timeToPeakHistogram
        sum.peekHistogram = sum.peekHistogram + rhs.peekHistogram
        sum.popHistogram = sum.popHistogram + rhs.popHistogram
        sum.peekToPopHistogram = sum.peekToPopHistogram + rhs.peekToPopHistogram
        sum.peakValues += rhs.peakValues
        sum.timeToPeakValues += rhs.timeToPeakValues
        sum.peekValues += rhs.peekValues
        sum.popValues += rhs.popValues
        sum.peekToPopValues += rhs.peekToPopValues
        return sum
    }

    /// Fraction of contacts with pressure whose signal reaches j/100, j = 0...100.
    public var sweep: [Double] {
        let total = Double(contactsWithPressure)
        return peakBins.reached.map { total > 0 ? Double($0) / total : 0 }
    }
}

/// Quantiles with linear interpolation between order statistics (numpy's
/// default "linear" method; Hyndman & Fan type 7).
public enum Quantiles {
    public static let levels: [Double] = [0.05, 0.25, 0.5, 0.75, 0.95]

    /// Quantiles of `values` at `levels`; nil for no values.
    public static func of(_ values: [Double], levels: [Double] = Quantiles.levels) -> [Double]? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return levels.map { level in
            let position = Double(sorted.count - 1) * level
            let lower = Int(position.rounded(.down))
            let upper = min(lower + 1, sorted.count - 1)
            let fraction = position - Double(lower)
            return sorted[lower] + fraction * (sorted[upper] - sorted[lower])
        }
    }
}
