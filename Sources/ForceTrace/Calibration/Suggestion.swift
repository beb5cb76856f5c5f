import Foundation

/// One labelled trial as a suggestion needs it: its class, its raw peak and
/// its pressure over time (times relative to the trial's start).
public struct LabelledTrial: Equatable, Sendable {
    public var trialClass: TrialClass
    public var peak: Int32
    public var startNs: Int64
    public var curve: [PressurePoint]

    public init(trialClass: TrialClass, peak: Int32, startNs: Int64, curve: [PressurePoint] = []) {
        self.trialClass = trialClass; self.peak = peak; self.startNs = startNs; self.curve = curve
    }

    public init(_ trial: CalibrationTrial) {
        self.init(trialClass: trial.trialClass, peak: trial.observation.peak, startNs: trial.observation.startNs, curve: trial.observation.curve)
    }
}

/// A threshold between two classes of peaks, with how well it separates them.
public struct Separation: Equatable, Sendable {
    /// A peak above `threshold` counts as the upper class (libinput's palm
    /// and thumb tests are `pressure > threshold`).
    public var threshold: Int32
    /// Mean of the two classes' recalls at `threshold`.
    public var balancedAccuracy: Double
    /// Largest peak of the lower class, smallest of the upper.
    public var lowerMax: Int32
    public var upperMin: Int32
    public var overlaps: Bool { lowerMax >= upperMin }

    /// The threshold with the best balanced accuracy; among ties the middle
    /// one, so it sits in the gap rather than on an edge.
    public static func best(lower: [Int32], upper: [Int32]) -> Separation? {
        guard let lowerMax = lower.max(), let upperMin = upper.min() else { return nil }
        let candidates = Set((lower + upper).flatMap { [$0 - 1, $0] }).sorted()
        var best = -1.0
        var tied: [Int32] = []
        for threshold in candidates {
            let lowerRecall = Double(lower.filter { $0 <= threshold }.count) / Double(lower.count)
            let upperRecall = Double(upper.filter { $0 > threshold }.count) / Double(upper.count)
            let accuracy = (lowerRecall + upperRecall) / 2
            if accuracy > best + 1e-12 { best = accuracy; tied = [threshold] } else if abs(accuracy - best) <= 1e-12 { tied.append(threshold) }
        }
        var threshold = tied[(tied.count - 1) / 2]
        // Without overlap every value in lowerMax..<upperMin separates: take the middle.
        if lowerMax < upperMin { threshold = lowerMax + (upperMin - 1 - lowerMax) / 2 }
        return Separation(threshold: threshold, balancedAccuracy: best, lowerMax: lowerMax, upperMin: upperMin)
    }
}

/// A libinput quirk attribute, or why it is left out.
public enum QuirkValue: Equatable, Sendable {
    case value(Int32, note: String)
    case omitted(reason: String)

    public var value: Int32? { if case .value(let value, _) = self { value } else { nil } }
}

/// What `calibrate` and `suggest` suggest for one recording's labelled trials
/// (docs/ANALYSIS.md, "Calibration").
public struct CalibrationSuggestion: Sendable {
    public var file: String
    public var recording: String
    public var device: DeviceDescription
    public var axis: AxisInfo
    public var counts: [TrialClass: Int]
    /// What the protocol suggests; its case is the protocol, so the two cannot disagree.
    public var payload: Payload
    public var notes: [String] = []

    public enum Payload: Sendable {
        /// nil when the trials give no peek/pop thresholds (too few classes).
        case app(App?)
        case touchpad(Touchpad)
        case pen(Pen)
        /// nil when the recording has no force table.
        case force(ForceAnalysis?)
    }

    public var calibrationProtocol: CalibrationProtocol {
        switch payload {
        case .app: .app
        case .touchpad: .touchpad
        case .pen: .pen
        case .force: .force
        }
    }

    public var app: App? { if case .app(let app) = payload { app } else { nil } }
    public var touchpad: Touchpad? { if case .touchpad(let touchpad) = payload { touchpad } else { nil } }
    public var pen: Pen? { if case .pen(let pen) = payload { pen } else { nil } }
    public var force: ForceAnalysis? { if case .force(let force) = payload { force } else { nil } }

    /// Peek/pop from report's labelled suggestion, and what a deep press saves.
    public struct App: Sendable {
        public var thresholds: ThresholdSuggestion
        /// Raw pressure of the normalized thresholds.
        public var peekRaw: Int32, popRaw: Int32
        public var popPresses: Int
        /// Pop-presses whose pressure reached `pop` at all, and before each long-press timeout.
        public var reachedPop: Int
        public var beforeTimeout: [(timeoutMs: Int, count: Int, medianSavedMs: Double?)]
        public var medianTimeToPopMs: Double?
    }

    /// libinput's AttrPressureRange=N:M, AttrThumbPressureThreshold=P, AttrPalmPressureThreshold=O.
    public struct Touchpad: Sendable {
        public var lowestLight: Int32?
        public var begin: QuirkValue      // N
        public var end: QuirkValue        // M
        public var thumb: QuirkValue      // P
        public var palm: QuirkValue       // O
        public var thumbSeparation: Separation?
        public var palmSeparation: Separation?
        /// The steady holds' verdict on the N–M gap, when the session had holds.
        public var holds: HoldNoise?
    }

    /// What the steady holds say about hysteresis: a touch lost mid-hold is a
    /// pressure end (< M) followed by a begin (>= N) while the finger stays.
    public struct HoldNoise: Sendable {
        public var holds: Int
        /// Holds that never reach N (libinput would never take them).
        public var neverBegin: Int
        /// The lowest pressure of any hold between its first and last frame at or above N.
        public var lowestHeld: Int32?
        /// M with libinput's default gap (N − 2 % of the range), and the chatter it gives on the holds.
        public var defaultEnd: Int32
        public var defaultChatter: Int
        public var holdsWithDefaultChatter: Int
    }

    /// Begins after a pressure end in one curve, with libinput's touchpad rules (begin >= n, end < m).
    static func chatter(_ curve: [PressurePoint], n: Int32, m: Int32) -> Int {
        var down = false, ended = false, count = 0
        for point in curve {
            if !down && point.pressure >= n { down = true; if ended { count += 1 } }
            else if down && point.pressure < m { down = false; ended = true }
        }
        return count
    }

    /// The tip threshold, and the person's range and curve.
    public struct Pen: Sendable {
        public var hoverMax: Int32?
        public var lowestLight: Int32?
        public var tip: QuirkValue
        public var release: QuirkValue
        public var profile: PenProfile? = nil
    }

    /// Long-press timeouts a deep press can beat: AOSP's 400 ms (500 ms
    /// before) and iOS's `minimumPressDuration` 0.5 s.
    public static let longPressTimeoutsMs = [400, 500]
    /// libinput's touchpad defaults: a touch begins at min + 12 % of the
    /// range and ends below min + 10 % (`tp_init_pressure`).
    public static let libinputBeginFraction = 0.12, libinputEndFraction = 0.10
    public static let libinputPalmDefault: Int32 = 130
    /// libinput's tablet defaults: the tip goes down at 5 % and up at 1 %.
    public static let libinputTipDownFraction = 0.05, libinputTipUpFraction = 0.01
    /// N sits this fraction of the lowest light peak (above the axis
    /// minimum) below it, at least 1 unit.
    public static let beginMargin = 0.10

    public init(protocol calibrationProtocol: CalibrationProtocol, trials: [LabelledTrial], device: DeviceDescription,
                axis: AxisInfo, file: String, recording: String, targets: PenTargets = .default, force: ForceAnalysis? = nil) {
        self.file = file
        self.recording = recording
        self.device = device
        self.axis = axis
        counts = Dictionary(grouping: trials, by: \.trialClass).mapValues(\.count)
        switch calibrationProtocol {
        case .app: payload = .app(Self.app(trials, axis: axis))
        case .touchpad: payload = .touchpad(Self.touchpad(trials, axis: axis))
        case .pen:
            var pen = Self.pen(trials, axis: axis)
            pen.profile = PenProfile(trials: trials, axis: axis, targets: targets)
            payload = .pen(pen)
        case .force:
            payload = .force(force)
            if force == nil { notes.append("the recording has no force table: record the session with --scale") }
        }
        if calibrationProtocol == .touchpad
            && (device.properties.contains(0x07) || (device.contactPressureAxis?.resolution ?? 0) != 0) {
            notes.append("libinput ignores pressure on this touchpad (INPUT_PROP_PRESSUREPAD, or a pressure axis with a resolution): the pressure attributes have no effect")
        }
    }

    private static func peaks(_ trials: [LabelledTrial], _ classes: TrialClass...) -> [Int32] {
        trials.filter { classes.contains($0.trialClass) }.map(\.peak)
    }

    private static func rangeOf(_ axis: AxisInfo) -> Double { Double(axis.maximum) - Double(axis.minimum) }

    static func app(_ trials: [LabelledTrial], axis: AxisInfo) -> App? {
        var bins = [ThresholdBins](repeating: ThresholdBins(), count: 3)
        for trial in trials {
            guard let pressClass = trial.trialClass.pressClass, let value = axis.normalized(trial.peak) else { continue }
            bins[pressClass.index].add(value)
        }
        guard let thresholds = ThresholdSuggestion.fromLabels(bins) else { return nil }
        // The least raw pressure whose normalized value (a division, as report computes it) reaches the
        // threshold: the product rounded up can be one too high (0.55 × 100 is 55.000000000000007).
        func raw(_ normalized: Double) -> Int32 {
            var value = Int32((Double(axis.minimum) + normalized * rangeOf(axis)).rounded(.up))
            while value > axis.minimum, let below = axis.normalized(value - 1), below >= normalized { value -= 1 }
            while value < axis.maximum, let at = axis.normalized(value), at < normalized { value += 1 }
            return value
        }
        let popRaw = raw(thresholds.pop)
        let pops = trials.filter { $0.trialClass == .popPress }
        let times = pops.compactMap { trial in trial.curve.first { $0.pressure >= popRaw }.map { Double($0.tNs - trial.startNs) / 1e6 } }
        func median(_ values: [Double]) -> Double? {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        let before = longPressTimeoutsMs.map { timeout -> (Int, Int, Double?) in
            let early = times.filter { $0 < Double(timeout) }
            return (timeout, early.count, median(early.map { Double(timeout) - $0 }))
        }
        return App(thresholds: thresholds, peekRaw: raw(thresholds.peek), popRaw: popRaw, popPresses: pops.count,
                   reachedPop: times.count, beforeTimeout: before, medianTimeToPopMs: median(times))
    }

    static func touchpad(_ trials: [LabelledTrial], axis: AxisInfo) -> Touchpad {
        let light = peaks(trials, .light)
        let fingers = peaks(trials, .light, .normal)
        let thumbs = peaks(trials, .thumb)
        let palms = peaks(trials, .palm)
        var holdNoise: HoldNoise?
        let hysteresis = max(1, Int32((rangeOf(axis) * (libinputBeginFraction - libinputEndFraction)).rounded()))
        var begin = QuirkValue.omitted(reason: "no light touches were recorded")
        var end = begin
        if let lowest = light.min() {
            let margin = max(1, Int32((Double(lowest - axis.minimum) * beginMargin).rounded()))
            let n = lowest - margin
            if n <= axis.minimum {
                begin = .omitted(reason: "the lightest touch peaks at \(lowest), too close to the axis minimum \(axis.minimum) to leave a margin")
                end = begin
            } else {
                begin = .value(n, note: "\(margin) below the lightest of \(light.count) light touches (\(lowest))")
                let m = max(axis.minimum, n - hysteresis)
                end = .value(m, note: "N minus libinput's default hysteresis, 12 % − 10 % of the range = \(hysteresis)")
                let holdCurves = trials.filter { $0.trialClass == .holdLight || $0.trialClass == .holdNormal }.map(\.curve)
                if !holdCurves.isEmpty {
                    // The lowest pressure a hold shows once begun and before it lets go for good: M at or below it ends none.
                    let held = holdCurves.compactMap { curve -> Int32? in
                        guard let first = curve.firstIndex(where: { $0.pressure >= n }),
                              let last = curve.lastIndex(where: { $0.pressure >= n }) else { return nil }
                        return curve[first...last].map(\.pressure).min()
                    }
                    let perHold = holdCurves.map { chatter($0, n: n, m: m) }
                    holdNoise = HoldNoise(holds: holdCurves.count, neverBegin: holdCurves.count - held.count, lowestHeld: held.min(),
                                          defaultEnd: m, defaultChatter: perHold.reduce(0, +), holdsWithDefaultChatter: perHold.filter { $0 > 0 }.count)
                    if let lowest = held.min(), lowest < m {
                        if lowest <= axis.minimum {
                            end = .value(m, note: "N minus libinput's default hysteresis; the steady holds dip to the axis minimum, so no gap avoids their chatter")
                        } else {
                            end = .value(lowest, note: "the lowest pressure of \(held.count) steady holds once begun (\(lowest)): a wider gap than libinput's default (\(m)), so the holds cause no chatter")
                        }
                    }
                }
            }
        }
        var thumb = QuirkValue.omitted(reason: "no thumb trials")
        let thumbSeparation = Separation.best(lower: fingers, upper: thumbs)
        if let separation = thumbSeparation {
            thumb = attribute(separation, lowerName: "light and normal touches", upperName: "thumbs")
        }
        var palm = QuirkValue.omitted(reason: "no palm trials")
        let palmSeparation = Separation.best(lower: fingers + thumbs, upper: palms)
        if let separation = palmSeparation {
            palm = attribute(separation, lowerName: thumbs.isEmpty ? "touches" : "touches and thumbs", upperName: "palms")
        }
        return Touchpad(lowestLight: light.min(), begin: begin, end: end, thumb: thumb, palm: palm,
                        thumbSeparation: thumbSeparation, palmSeparation: palmSeparation, holds: holdNoise)
    }

    /// libinput's order O > P > N > M holds by construction, so it is not checked:
    /// without overlap a threshold is at least its lower class's largest peak;
    /// P's lower class holds the light touches, all above N; O's holds the thumbs,
    /// all above P (P < the smallest thumb); M < N.
    private static func attribute(_ separation: Separation, lowerName: String, upperName: String) -> QuirkValue {
        if separation.overlaps {
            return .omitted(reason: String(format: "%@ (up to %d) and %@ (from %d) overlap: the best threshold, %d, separates them with balanced accuracy %.2f only",
                                           lowerName, separation.lowerMax, upperName, separation.upperMin, separation.threshold, separation.balancedAccuracy))
        }
        return .value(separation.threshold, note: "between \(lowerName) (up to \(separation.lowerMax)) and \(upperName) (from \(separation.upperMin))")
    }

    static func pen(_ trials: [LabelledTrial], axis: AxisInfo) -> Pen {
        let hover = peaks(trials, .hover).max()
        let light = peaks(trials, .strokeLight).min()
        let noise = hover ?? axis.minimum
        guard let lowest = light else {
            let none = QuirkValue.omitted(reason: "no light strokes were recorded")
            return Pen(hoverMax: hover, lowestLight: nil, tip: none, release: none)
        }
        // The largest value below every light stroke's peak.
        let tip = lowest - 1
        guard tip > noise else {
            let reason = QuirkValue.omitted(reason: "the lightest stroke peaks at \(lowest), no higher than the hover noise (\(noise)) plus one: no tip threshold separates them")
            return Pen(hoverMax: hover, lowestLight: lowest, tip: reason, release: reason)
        }
        let hysteresis = max(1, Int32((rangeOf(axis) * (libinputTipDownFraction - libinputTipUpFraction)).rounded()))
        let release = min(tip - 1, max(tip - hysteresis, noise + 1))
        return Pen(hoverMax: hover, lowestLight: lowest,
                   tip: .value(tip, note: "just below the lightest of the light strokes (\(lowest)), above hover noise (\(noise))"),
                   release: .value(release, note: "the tip minus libinput's default tablet hysteresis (5 % − 1 % of the range), kept above hover noise"))
    }
}
