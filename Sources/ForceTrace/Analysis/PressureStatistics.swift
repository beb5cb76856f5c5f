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
        // The first guess, floor(value × steps) within 0...steps; truncation is the floor at and above 0.
        let scaled = value * Double(steps)
        var bin = scaled < 0 ? 0 : scaled >= Double(steps) ? steps : Int(scaled)
        // The edges looked up, not divided again.
        while bin < steps && edges[bin + 1] <= value { bin += 1 }
        while bin > 0 && edges[bin] > value { bin -= 1 }
        return bin
    }

    private static let edges = (0...steps).map(threshold)

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

/// Aggregate statistics over any set of contacts. Every field is a
/// `SummaryState` (a sum, a fixed-bin histogram or a multiset), so two
/// aggregates merge into exactly the aggregate of the combined data (`+`).
/// A new field goes into `fields` too; `SummaryFieldTests` fails until it
/// does and until every renderer shows it.
public struct PressureStatistics: Equatable, Sendable {
    public var recordings: Int64 = 0
    public var durationNs: Int64 = 0
    public var contacts: Int64 = 0
    public var contactsWithPressure: Int64 = 0
    public var stillDown: Int64 = 0
    public var samples: Int64 = 0
    /// Rows of the events table.
    public var events: Int64 = 0
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
    public var classCounts = ClassCounts()
    public var reachedPeek: Int64 = 0
    public var reachedPop: Int64 = 0
    public var peekRecrossings: Int64 = 0
    public var popRecrossings: Int64 = 0
    /// Peaks of the thresholded signal on the threshold grid.
    public var peakBins = ThresholdBins()
    /// The same, per ground-truth class, for labelled contacts.
    public var labelledPeakBins = LabelledPeakBins()
    /// Label against the class found at the configured thresholds.
    public var confusion = ConfusionMatrix()
    public var timeToPeakHistogram = TimeHistogram()
    public var peekHistogram = TimeHistogram()
    public var popHistogram = TimeHistogram()
    public var peekToPopHistogram = TimeHistogram()
    /// Values for exact quantiles; merged by concatenation.
    public var peakValues = ValueList()
    /// Peaks in grams, from the recordings whose pressure axis gives them.
    public var peakGfValues = ValueList()
    public var timeToPeakValues = ValueList()
    public var peekValues = ValueList()
    public var popValues = ValueList()
    public var peekToPopValues = ValueList()
    /// Duration-normalized and touch-down-aligned curves per class (empty unless asked for).
    public var curveBands = CurveBands()
    public var alignedBands = CurveBands()
    /// Data quality: frames with two or more contacts down, and those of them
    /// in which every contact down holds the same pressure.
    public var multiContactFrames: Int64 = 0
    public var sharedPressureFrames: Int64 = 0
    /// Sample rows with x, y or pressure outside the axis's absinfo range.
    public var outOfRangeSamples: Int64 = 0
    public var droppedMarkers: Int64 = 0
    public var resyncMarkers: Int64 = 0
    /// Recordings salvaged up to their last complete frame (`import_status = "partial"`).
    public var partialRecordings: Int64 = 0

    public init() {}

    /// Every field, in declaration order.
    public static var fields: [SummaryField] {
        let sweep = AnalysisOptions.sweepTolerancesMM
        let lanes = "per tolerance lane: 0 the configured tolerance, 1-\(sweep.count) the sweep's "
            + sweep.map { "\($0)" }.joined(separator: ", ") + " mm, the rest unused"
        let classes = "tap, peek-press, pop-press"
        let tenMs = "count per 10 ms bin from 0, the last bin 3 s and longer"
        return [
            SummaryField("recordings", \.recordings, "recordings"),
            SummaryField("duration_ns", \.durationNs, units: "nanoseconds", "sum of the recordings' durations"),
            SummaryField("contacts", \.contacts, "contacts"),
            SummaryField("contacts_with_pressure", \.contactsWithPressure, "contacts with a pressure axis"),
            SummaryField("still_down", \.stillDown, "contacts still down at the end of their recording"),
            SummaryField("samples", \.samples, "sample rows"),
            SummaryField("events", \.events, "rows of the events table"),
            SummaryField("motion_events", \.motionEvents, "motion events: sample rows after each contact's down row"),
            SummaryField("lane_motion_events", \.laneMotionEvents, "motion events where the lane's tolerance applies, \(lanes)"),
            SummaryField("stationary", \.stationary, "stationary pressure events, \(lanes)"),
            SummaryField("stationary_rise", \.stationaryRise, "stationary pressure events up to the peak, \(lanes)"),
            SummaryField("stationary_deep_presses", \.stationaryDeepPresses, "pop-presses within the tolerance, \(lanes)"),
            SummaryField("contact_time_ns", \.contactTimeNs, units: "nanoseconds", "sum of the contacts' durations"),
            SummaryField("class_counts", \.classCounts, "contacts per press class: \(classes)"),
            SummaryField("reached_peek", \.reachedPeek, "contacts that reached peek"),
            SummaryField("reached_pop", \.reachedPop, "contacts that reached pop"),
            SummaryField("peek_recrossings", \.peekRecrossings, "peek re-crossings"),
            SummaryField("pop_recrossings", \.popRecrossings, "pop re-crossings"),
            SummaryField("peak_bins", \.peakBins, "contacts per signal-peak bin j/100, j = 0...100"),
            SummaryField("labelled_peak_bins", \.labelledPeakBins, "peak_bins per label class (\(classes)), 3 x 101"),
            SummaryField("confusion", \.confusion, "labelled contacts, label x class found (\(classes)), row-major 3 x 3"),
            SummaryField("time_to_peak_histogram", \.timeToPeakHistogram, "time to peak, \(tenMs)"),
            SummaryField("peek_histogram", \.peekHistogram, "time to peek, \(tenMs)"),
            SummaryField("pop_histogram", \.popHistogram, "time to pop, \(tenMs)"),
            SummaryField("peek_to_pop_histogram", \.peekToPopHistogram, "time from peek to pop, \(tenMs)"),
            SummaryField("peak_values", \.peakValues, "every peak normalized pressure, for exact quantiles"),
            SummaryField("peak_gf_values", \.peakGfValues, units: "gf",
                         "every peak in grams, where the pressure axis has a resolution, for exact quantiles", absentInOlderParts: true),
            SummaryField("time_to_peak_values", \.timeToPeakValues, units: "seconds", "every time to peak, for exact quantiles"),
            SummaryField("peek_values", \.peekValues, units: "seconds", "every time to peek, for exact quantiles"),
            SummaryField("pop_values", \.popValues, units: "seconds", "every time to pop, for exact quantiles"),
            SummaryField("peek_to_pop_values", \.peekToPopValues, units: "seconds", "every time from peek to pop, for exact quantiles"),
            SummaryField("curve_bands", \.curveBands,
                         "duration-normalized curve bands: points, counts, fixed-point sums, 0.01 histograms (docs/ANALYSIS.md)"),
            SummaryField("aligned_bands", \.alignedBands,
                         "touch-down-aligned curve bands: points, counts, fixed-point sums, 0.01 histograms (docs/ANALYSIS.md)"),
            SummaryField("multi_contact_frames", \.multiContactFrames, "frames with two or more contacts down"),
            SummaryField("shared_pressure_frames", \.sharedPressureFrames, "multi-contact frames in which every contact holds one pressure"),
            SummaryField("out_of_range_samples", \.outOfRangeSamples, "sample rows outside the axis range"),
            SummaryField("dropped_markers", \.droppedMarkers, "SYN_DROPPED markers"),
            SummaryField("resync_markers", \.resyncMarkers, "resync markers"),
            SummaryField("partial_recordings", \.partialRecordings, "recordings salvaged up to their last complete frame"),
        ]
    }

    public static func + (lhs: PressureStatistics, rhs: PressureStatistics) -> PressureStatistics {
        var sum = lhs
        for field in fields { field.merge(&sum, rhs) }
        return sum
    }

    /// The field of a sum that overflows (`adding`).
    public struct Overflow: Error {
        public let field: String
    }

    /// `self + other` for states read from files (`report --merge`): the
    /// first field whose sum, or a total derived from it, overflows Int64
    /// is an error, where `+` would trap or saturate.
    public func adding(_ other: PressureStatistics) throws(Overflow) -> PressureStatistics {
        var sum = self
        for field in Self.fields where !field.checkedMerge(&sum, other) { throw Overflow(field: field.name) }
        return sum
    }

    /// The first field whose derived totals overflow Int64 (a count below 0,
    /// or counts that add up beyond it), for a state read from a file.
    public var fieldWhoseTotalsOverflow: String? { Self.fields.first { !$0.totalsFit(self) }?.name }

    // MARK: - Derived figures, computed here once for every renderer

    public var labelled: Int64 { labelledPeakBins.total }
    public var stationaryAfterPeak: SIMD8<Int64> { stationary &- stationaryRise }

    public func inflation(lane: Int = 0) -> Inflation { Inflation(motion: laneMotionEvents[lane], stationary: stationary[lane]) }

    /// Stationary pressure events per second of contact.
    public func stationaryRateHz(lane: Int = 0) -> Double? {
        contactTimeNs > 0 ? Double(stationary[lane]) / (Double(contactTimeNs) / 1e9) : nil
    }

    public var pressureOnlyFraction: Double? { motionEvents > 0 ? Double(stationary[0]) / Double(motionEvents) : nil }
    public var reachedPeekFraction: Double? { fraction(reachedPeek, of: contactsWithPressure) }
    public var reachedPopFraction: Double? { fraction(reachedPop, of: contactsWithPressure) }

    func fraction(_ part: Int64, of whole: Int64) -> Double? { whole > 0 ? Double(part) / Double(whole) : nil }

    /// One tolerance of the inflation sweep.
    public struct SweepLane: Equatable, Sendable {
        public var toleranceMM: Double
        public var motionEvents: Int64
        /// nil when the tolerance applies to no recording (mm without a resolution).
        public var stationary: Int64?
        public var inflation: Inflation?
        public var stationaryDeepPresses: Int64
    }

    public var inflationSweep: [SweepLane] {
        AnalysisOptions.sweepTolerancesMM.enumerated().map { offset, mm in
            let lane = 1 + offset
            let applies = laneMotionEvents[lane] > 0 || motionEvents == 0
            return SweepLane(toleranceMM: mm, motionEvents: laneMotionEvents[lane], stationary: applies ? stationary[lane] : nil,
                             inflation: applies ? inflation(lane: lane) : nil, stationaryDeepPresses: stationaryDeepPresses[lane])
        }
    }

    /// Time histograms by name, as JSON and --save name them.
    public var timeHistograms: [(name: String, histogram: TimeHistogram)] {
        [("time_to_peak", timeToPeakHistogram), ("t_peek", peekHistogram), ("t_pop", popHistogram), ("peek_to_pop", peekToPopHistogram)]
    }

    /// Value lists by their quantile name.
    public var quantileLists: [(name: String, values: ValueList)] {
        [("peak_norm", peakValues), ("time_to_peak_s", timeToPeakValues), ("t_peek_s", peekValues),
         ("t_pop_s", popValues), ("peek_to_pop_s", peekToPopValues), ("peak_gf", peakGfValues)]
    }

    /// The lists the text and HTML tables show: peaks in grams only where some recording has them.
    public var shownQuantileLists: [(name: String, values: ValueList)] {
        quantileLists.filter { $0.name != "peak_gf" || !$0.values.values.isEmpty }
    }

    public var suggestionFromLabels: ThresholdSuggestion? { labelled > 0 ? ThresholdSuggestion.fromLabels(labelledPeakBins) : nil }
    public var suggestionWithoutLabels: ThresholdSuggestion? { ThresholdSuggestion.naturalBreaks(peakBins) }

    /// A protocol-B device that reports one pressure for all its contacts:
    /// equal pressures in every frame with two or more contacts down.
    public var sharesPressure: Bool { multiContactFrames > 0 && sharedPressureFrames == multiContactFrames }

    public mutating func add(_ contact: ContactStatistics, thresholds: Thresholds) {
        contacts += 1
        samples += contact.samples
        if contact.stillDown { stillDown += 1 }
        motionEvents += contact.motionEvents
        stationary &+= contact.stationary
        stationaryRise &+= contact.stationaryRise
        contactTimeNs = contactTimeNs.saturatingAdding(contact.durationNs)
        guard let signalPeak = contact.signalPeak, let pressClass = contact.pressClass else { return }
        contactsWithPressure += 1
        classCounts[pressClass] += 1
        if pressClass == .popPress { stationaryDeepPresses &+= contact.withinTolerance }
        if contact.tPeekNs != nil { reachedPeek += 1 }
        if contact.tPopNs != nil { reachedPop += 1 }
        peekRecrossings += Int64(contact.peekRecrossings)
        popRecrossings += Int64(contact.popRecrossings)
        peakBins.add(signalPeak)
        if let label = contact.label {
            labelledPeakBins[label].add(signalPeak)
            confusion[label: label, found: pressClass] += 1
        }
        if let peak = contact.peakNorm { peakValues.append(peak) }
        if let grams = contact.peakGrams { peakGfValues.append(grams) }
        if let time = contact.timeToPeakNs { timeToPeakHistogram.add(time); timeToPeakValues.append(Double(time) / 1e9) }
        if let time = contact.tPeekNs { peekHistogram.add(time); peekValues.append(Double(time) / 1e9) }
        if let time = contact.tPopNs { popHistogram.add(time); popValues.append(Double(time) / 1e9) }
        if let time = contact.peekToPopNs { peekToPopHistogram.add(time); peekToPopValues.append(Double(time) / 1e9) }
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
        var sorted = values
        let spans = levels.map { level -> (lower: Int, upper: Int, fraction: Double) in
            let position = Double(sorted.count - 1) * level
            let lower = Int(position.rounded(.down))
            return (lower, min(lower + 1, sorted.count - 1), position - Double(lower))
        }
        // Without NaN the order is total up to the sign of zero, so the ranks
        // a sort would put in place are found by selection alone (the
        // summaries do this for every contact of every recording, several
        // times). Which zero lands at a rank cannot show: the interpolation
        // adds a +0 term to it, and −0 + +0 is +0.
        if values.allSatisfy({ !$0.isNaN }) {
            select(&sorted, ranks: Set(spans.flatMap { [$0.lower, $0.upper] }).sorted())
        } else {
            sorted.sort()
        }
        return spans.map { sorted[$0.lower] + $0.fraction * (sorted[$0.upper] - sorted[$0.lower]) }
    }

    /// Puts the values of `ranks` (ascending) where a sort would: a
    /// three-way quickselect that only descends into parts holding a rank.
    static func select(_ values: inout [Double], ranks: [Int]) {
        values.withUnsafeMutableBufferPointer { buffer in
            var depthLimit = 2 * (Int.bitWidth - buffer.count.leadingZeroBitCount) + 8
            func descend(_ low: Int, _ high: Int, _ wanted: ArraySlice<Int>) {
                guard !wanted.isEmpty, high - low > 1 else { return }
                depthLimit -= 1
                if high - low <= 24 || depthLimit <= 0 {
                    buffer[low..<high].sort()
                    return
                }
                let a = buffer[low], b = buffer[low + (high - low) / 2], c = buffer[high - 1]
                let pivot = max(min(a, b), min(max(a, b), c))
                // [low, below) < pivot, [below, index) == pivot, [above, high) > pivot.
                var below = low, index = low, above = high
                while index < above {
                    let value = buffer[index]
                    if value < pivot {
                        buffer.swapAt(below, index); below += 1; index += 1
                    } else if value > pivot {
                        above -= 1; buffer.swapAt(index, above)
                    } else {
                        index += 1
                    }
                }
                // Ranks in [below, above) hold the pivot already.
                let split = wanted.partitioningIndex { $0 >= below }
                descend(low, below, wanted[..<split])
                descend(above, high, wanted[wanted[split...].partitioningIndex { $0 >= above }...])
            }
            descend(0, buffer.count, ranks[...])
        }
    }
}

extension Collection {
    /// The first index whose element satisfies `predicate`, which must hold for a suffix (binary search).
    func partitioningIndex(where predicate: (Element) -> Bool) -> Index {
        var low = startIndex, count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if predicate(self[middle]) { count = half } else { low = index(after: middle); count -= half + 1 }
        }
        return low
    }
}
