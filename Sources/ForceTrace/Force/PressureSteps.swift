import Foundation

/// The device's pressure as a step function of time: each change of the
/// pressure axis and when it happened (times relative to t0, like the
/// tables). What the force analysis lines the scale up against.
public struct PressureSteps: Sendable {
    public var times: [Int64]
    public var values: [Int32]

    public init(times: [Int64], values: [Int32]) {
        self.times = times
        self.values = values
    }

    /// The pressure axis' events (`axis.code`, EV_ABS) of `recording`, in order.
    public init(_ recording: TraceRecording, axis: AxisInfo) throws {
        var times: [Int64] = [], values: [Int32] = []
        try recording.forEachEventBlock { block in
            for event in block where event.type == EventType.abs && event.code == axis.code {
                times.append(event.timeNs)
                values.append(event.value)
            }
        }
        self.init(times: times, values: values)
    }

    /// The pressure in force at `time` (the last change at or before it), `initial` before the first.
    public func value(at time: Int64, initial: Int32 = 0) -> Int32 {
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] <= time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initial : values[low - 1]
    }

    /// The presses: from the change that took the pressure above `floor` to
    /// the one that took it back, with the time of the peak between.
    public func presses(above floor: Int32) -> [Press] {
        var presses: [Press] = []
        var start: Int?
        for index in values.indices {
            if values[index] > floor, start == nil { start = index }
            if values[index] <= floor, let begin = start {
                presses.append(Press(steps: begin..<index, peak: (begin..<index).max { values[$0] < values[$1] }!))
                start = nil
            }
        }
        return presses
    }

    /// One press: the step indices it spans (its last step is the one that
    /// ended it, excluded), and the index of its highest step.
    public struct Press: Sendable, Equatable {
        public var steps: Range<Int>
        public var peak: Int
    }
}

/// The scale's force as a function of time: linear between consecutive
/// readings with a weight, none across a gap (a dropped or unreadable
/// reading longer than `maximumGapNs`) or outside the readings.
public struct ForceSeries: Sendable {
    public static let maximumGapNs: Int64 = 500_000_000
    public let times: [Int64]
    public let grams: [Double]

    /// The readings that have a weight (NaN dropped), lag taken off their times.
    public init(_ readings: [ScaleReading], lagNs: Int64 = 0) {
        let kept = readings.filter { !$0.grams.isNaN }
        times = kept.map { $0.timeNs - lagNs }
        grams = kept.map(\.grams)
    }

    public init(times: [Int64], grams: [Double]) {
        self.times = times
        self.grams = grams
    }

    public func grams(at time: Int64) -> Double? {
        guard let last = times.last, let first = times.first, time >= first, time <= last else { return nil }
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] <= time { low = middle + 1 } else { high = middle }
        }
        let after = min(low, times.count - 1), before = max(0, low - 1)
        if times[before] == time || after == before { return grams[before] }
        let span = times[after] - times[before]
        guard span > 0, span <= Self.maximumGapNs else { return nil }
        let fraction = Double(time - times[before]) / Double(span)
        return grams[before] + fraction * (grams[after] - grams[before])
    }
}
