import Foundation

/// What the pen protocol learns about one person with one pen
/// (docs/ANALYSIS.md, "Pen curve"): their usable raw range, where a stroke
/// starts, the hover noise, their peaks per intended class, and the curves
/// that map their light, normal and firm medians onto the targets.
public struct PenProfile: Sendable {
    /// One intended class's stroke peaks, raw.
    public struct ClassPeaks: Equatable, Sendable {
        public var trialClass: TrialClass
        public var count: Int
        public var minimum: Int32, median: Double, maximum: Int32
    }

    /// The classes of the person's curve, lightest first.
    public static let curveClasses: [TrialClass] = [.strokeLight, .strokeNormal, .strokeFirm, .fullPress]

    public var targets: PenTargets
    public var classes: [ClassPeaks]
    /// The largest pressure seen while hovering.
    public var hoverNoise: Int32?
    /// Median pressure of the strokes' first touching frame: where this pen starts leaving ink.
    public var activation: Double?
    /// From the lowest light-stroke peak to the highest full-press peak (the
    /// highest firm-stroke peak when no full press was recorded).
    public var usableRange: ClosedRange<Int32>?
    /// The curve over the usable range (input 0 at its low end, 1 at its
    /// high end): for settings with a pressure range (KWin, libinput).
    public var rangeFit: CurveFit?
    /// The curve over the whole axis, aiming the range's ends at 0 and 100 %
    /// too: for settings without a range (xsetwacom, GNOME before 47).
    public var axisFit: CurveFit?
    public var notes: [String] = []

    public func peaks(_ trialClass: TrialClass) -> ClassPeaks? { classes.first { $0.trialClass == trialClass } }

    /// The light, normal and firm medians (raw) with their targets (percent).
    var medians: [(CurvePoint.Role, Double, Double)] {
        [(.light, TrialClass.strokeLight, targets.light), (.normal, .strokeNormal, targets.normal), (.firm, .strokeFirm, targets.firm)]
            .compactMap { role, trialClass, target in peaks(trialClass).map { (role, $0.median, target) } }
    }

    /// The curve over a raw range: input 0 at its low end, 1 at its high end.
    /// `rangeFit` over the usable range; a setting that can only hold a
    /// rounded range (GNOME's whole percents) fits over that one.
    public func fit(over range: ClosedRange<Double>) -> CurveFit? {
        let span = range.upperBound - range.lowerBound
        guard usableRange != nil, span > 0 else { return nil }
        return CurveFit.fit(medians.map { ($0.0, ($0.1 - range.lowerBound) / span, $0.2 / 100) })
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    public init(trials: [LabelledTrial], axis: AxisInfo, targets: PenTargets = .default) {
        self.targets = targets
        classes = Self.curveClasses.compactMap { trialClass in
            let peaks = trials.filter { $0.trialClass == trialClass }.map(\.peak)
            guard let low = peaks.min(), let high = peaks.max(), let median = Self.median(peaks.map(Double.init)) else { return nil }
            return ClassPeaks(trialClass: trialClass, count: peaks.count, minimum: low, median: median, maximum: high)
        }
        hoverNoise = trials.filter { $0.trialClass == .hover }.map(\.peak).max()
        activation = Self.median(trials.filter { Self.curveClasses.contains($0.trialClass) }.compactMap { $0.curve.first.map { Double($0.pressure) } })
        let top = peaks(.fullPress) ?? peaks(.strokeFirm)
        if peaks(.fullPress) == nil, top != nil { notes.append("no full presses were recorded: the usable range ends at the firmest stroke") }
        guard let light = peaks(.strokeLight), let normal = peaks(.strokeNormal), let firm = peaks(.strokeFirm), let top else {
            notes.append("the curve needs light, normal and firm strokes")
            return
        }
        guard top.maximum > light.minimum else {
            notes.append("the highest peak (\(top.maximum)) is not above the lowest light stroke (\(light.minimum)): no usable range")
            return
        }
        let range = light.minimum...top.maximum
        usableRange = range
        if !(light.median < normal.median && normal.median < firm.median) {
            notes.append(String(format: "the medians do not rise from light (%g) to normal (%g) to firm (%g): no rising curve meets every target",
                                light.median, normal.median, firm.median))
        }
        let medians = self.medians
        rangeFit = fit(over: Double(range.lowerBound)...Double(range.upperBound))
        let axisSpan = Double(axis.maximum) - Double(axis.minimum)
        guard axisSpan > 0 else { return }
        func onAxis(_ raw: Double) -> Double { (raw - Double(axis.minimum)) / axisSpan }
        axisFit = CurveFit.fit([(.rangeLow, onAxis(Double(range.lowerBound)), 0)]
                               + medians.map { ($0.0, onAxis($0.1), $0.2 / 100) }
                               + [(.rangeHigh, onAxis(Double(range.upperBound)), 1)])
    }
}

extension PenProfile {
    /// The profile of a pen calibration's labels (default targets); nil for
    /// other recordings or without a per-contact pressure axis.
    public init?(recording: TraceRecording) throws {
        guard try recording.calibrationProtocol() == .pen, let axis = recording.device.contactPressureAxis else { return nil }
        self.init(trials: try recording.labelledTrials(for: .pen), axis: axis)
    }
}
