import Foundation

/// The initial activation force: the force at which the pen reports
/// pressure half of the time, from a logistic fit of "pressure above the
/// axis minimum" against the force of each reading on the presses,
/// P(active | F) = 1 / (1 + exp(-(a + b F))), IAF = -a / b, fitted by
/// Newton's method (maximum likelihood); its 95 % interval from the fit's
/// covariance by the delta method, IAF ± 1.96 SE. When the readings are
/// separated (every inactive one lighter than every active one) the
/// likelihood has no maximum: the IAF is then the middle of the gap and the
/// interval the gap itself.
public struct ActivationFit: Sendable, Equatable {
    public var grams: Double
    public var low: Double
    public var high: Double
    /// The logistic slope b (per gram); nil when separated.
    public var slope: Double?
    public var readings: Int
    public var separated: Bool { slope == nil }

    /// nil without readings on both sides.
    public static func fit(forces: [Double], active: [Bool]) -> ActivationFit? {
        let inactive = zip(forces, active).filter { !$0.1 }.map(\.0), on = zip(forces, active).filter(\.1).map(\.0)
        guard let maxOff = inactive.max(), let minOn = on.min() else { return nil }
        if maxOff < minOn {
            return ActivationFit(grams: (maxOff + minOn) / 2, low: maxOff, high: minOn, slope: nil, readings: forces.count)
        }
        // Centre and scale the forces for a well-conditioned Newton step.
        let mean = forces.reduce(0, +) / Double(forces.count)
        let spread = max(1e-9, (forces.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(forces.count)).squareRoot())
        let x = forces.map { ($0 - mean) / spread }
        var a = 0.0, b = 1.0
        var information = (aa: 0.0, ab: 0.0, bb: 0.0)
        for _ in 0..<100 {
            var ga = 0.0, gb = 0.0
            information = (0, 0, 0)
            for index in x.indices {
                let p = 1 / (1 + exp(-(a + b * x[index])))
                let y = active[index] ? 1.0 : 0.0
                ga += y - p; gb += (y - p) * x[index]
                let w = p * (1 - p)
                information.aa += w; information.ab += w * x[index]; information.bb += w * x[index] * x[index]
            }
            let det = information.aa * information.bb - information.ab * information.ab
            guard det > 1e-12 else { return nil }
            let da = (information.bb * ga - information.ab * gb) / det
            let db = (information.aa * gb - information.ab * ga) / det
            a += da; b += db
            if abs(da) < 1e-10 && abs(db) < 1e-10 { break }
        }
        guard b > 0 else { return nil }
        let det = information.aa * information.bb - information.ab * information.ab
        let varA = information.bb / det, varB = information.aa / det, cov = -information.ab / det
        let center = -a / b
        // Delta method for -a/b, then back to grams.
        let variance = (varA + center * center * varB + 2 * center * cov) / (b * b)
        let se = variance.squareRoot() * spread
        let iaf = mean + center * spread
        return ActivationFit(grams: iaf, low: iaf - 1.96 * se, high: iaf + 1.96 * se, slope: b / spread, readings: forces.count)
    }
}
