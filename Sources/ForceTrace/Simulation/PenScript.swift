/// A simulated pen user (`simulate --protocol pen --pen-curve ... --pen-range ...`):
/// their usable raw range and the curve through which they aim. For each
/// stroke class they aim at the raw pressure the curve maps to its target,
/// `range.lower + span × curve.input(for: target)`; a fitted curve that
/// recovers `curve` is the test of the fit (docs/ANALYSIS.md, "Pen curve").
public struct PenScript: Equatable, Sendable {
    public var curve: PressureCurve
    /// Raw: the lowest light-stroke peak and the highest full-press peak.
    public var range: ClosedRange<Int32>
    public var targets: PenTargets
    public static let hover: ClosedRange<Int32> = 0...40

    public init(curve: PressureCurve, range: ClosedRange<Int32>, targets: PenTargets = .default) {
        self.curve = curve; self.range = range; self.targets = targets
    }

    /// A firm hand: a curve under the diagonal, on the simulated pen's 0..4095 axis.
    public static let `default` = PenScript(curve: PressureCurve(40, 10, 80, 60), range: 300...3700)

    var span: Double { Double(range.upperBound) - Double(range.lowerBound) }

    /// The raw peak the person aims at for a stroke class.
    public func aim(_ trialClass: TrialClass) -> Double? {
        let target: Double
        switch trialClass {
        case .strokeLight: target = targets.light
        case .strokeNormal: target = targets.normal
        case .strokeFirm: target = targets.firm
        default: return nil
        }
        return Double(range.lowerBound) + span * curve.input(for: target / 100)
    }

    /// Spread of normal and firm strokes around their aim, and how far full presses fall short of the top.
    static let strokeSpread = 0.03, fullPressSpread = 0.06

    /// `trials` kept peaks per class, in a seeded order. Strokes are spread
    /// evenly and symmetrically around their aim (the median is the aim); the
    /// lowest light stroke is the range's low end and the highest full press
    /// its high end (with 3 or more trials the median stays the aim).
    public func peaks(trials: Int, seed: UInt64) -> [TrialClass: [Int32]] {
        let n = max(1, trials)
        let offsets = (0..<n).map { n == 1 ? 0.0 : -1 + 2 * Double($0) / Double(n - 1) }
        var random = SeededRandom(seed: seed ^ 0x5045_4E53)
        var peaks: [TrialClass: [Int32]] = [:]
        for trialClass in [TrialClass.strokeLight, .strokeNormal, .strokeFirm] {
            let aim = self.aim(trialClass)!
            let spread = trialClass == .strokeLight ? min(aim - Double(range.lowerBound), Self.strokeSpread * span) : Self.strokeSpread * span
            var values = offsets.map { Int32((aim + spread * $0).rounded()) }
            if trialClass == .strokeLight { values[0] = range.lowerBound }
            peaks[trialClass] = values.shuffled(using: &random)
        }
        peaks[.fullPress] = offsets.map { Int32((Double(range.upperBound) - Self.fullPressSpread * span * ($0 + 1) / 2).rounded()) }
            .shuffled(using: &random)
        return peaks
    }

    /// Each class's peak range (hovers: `hover`), for the file's comments.
    public func peakRanges(trials: Int, seed: UInt64 = 1) -> [TrialClass: ClosedRange<Int32>] {
        var ranges = peaks(trials: trials, seed: seed).mapValues { $0.min()!...$0.max()! }
        ranges[.hover] = Self.hover
        return ranges
    }
}
