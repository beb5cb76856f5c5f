import Foundation

/// UIKit's force scale: `UITouch.maximumPossibleForce` is 6.667 on the
/// iPhone 6s (docs/ANALYSIS.md names the sources).
public enum UIKitForce {
    public static let maximumPossibleForce = 6.667
    /// UIKit's linear classifier at medium sensitivity: peek at 4.0, pop at 5.333 force units.
    public static let peekForce = 4.0
    public static let popForce = 5.333

    /// Normalized pressure (0...1) in UIKit force units.
    @inline(__always)
    public static func force(normalized: Double) -> Double { normalized * maximumPossibleForce }
}

/// How firm a press the thresholds expect, as iOS's 3D Touch sensitivity setting.
public enum Sensitivity: String, CaseIterable, Sendable {
    case light, medium, firm

    /// Factor applied to the default thresholds.
    public var scale: Double {
        switch self {
        case .light: 0.8
        case .medium: 1.0
        case .firm: 1.2
        }
    }
}

/// Peek and pop thresholds on normalized pressure, with hysteresis.
public struct Thresholds: Equatable, Sendable {
    /// 0.60 = 4.0 / 6.667, UIKit's peek at medium sensitivity.
    public static let defaultPeek = 0.60
    /// 0.80 = 5.333 / 6.667, UIKit's pop at medium sensitivity.
    public static let defaultPop = 0.80
    public static let defaultHysteresis = 0.05

    public var peek: Double
    public var pop: Double
    /// A threshold re-arms only after the value drops below `threshold - hysteresis`.
    public var hysteresis: Double
    public var sensitivity: Sensitivity

    /// Defaults scaled by `sensitivity`; explicit `peek` and `pop` are taken as given.
    public init(sensitivity: Sensitivity = .medium, peek: Double? = nil, pop: Double? = nil,
                hysteresis: Double = Thresholds.defaultHysteresis) {
        self.sensitivity = sensitivity
        self.peek = peek ?? Self.defaultPeek * sensitivity.scale
        self.pop = pop ?? Self.defaultPop * sensitivity.scale
        self.hysteresis = hysteresis
    }
}

/// What the crossing detector looks at.
public enum Smoothing: Equatable, Sendable, CustomStringConvertible {
    /// The raw normalized values.
    case none
    /// Per-sample exponential moving average `s = a·v + (1−a)·s_prev`, an
    /// emulation of the smoothing UIKit applies before classifying.
    case ema(alpha: Double)

    public var description: String {
        switch self {
        case .none: "none"
        case .ema(let alpha): "ema:\(alpha)"
        }
    }
}

/// How far x and y may move in one event and still count as unchanged.
public enum Tolerance: Equatable, Sendable, CustomStringConvertible {
    case deviceUnits(Double)
    /// Converted per axis with the axis resolution (units/mm); needs a known resolution.
    case millimetres(Double)

    public var description: String {
        switch self {
        case .deviceUnits(let value): "\(formatNumber(value)) units"
        case .millimetres(let value): "\(formatNumber(value)) mm"
        }
    }
}

func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}

/// Everything that shapes an analysis.
public struct AnalysisOptions: Equatable, Sendable {
    public var thresholds = Thresholds()
    public var smoothing = Smoothing.none
    public var tolerance = Tolerance.deviceUnits(0)
    /// Points per contact on the duration-normalized curve grid.
    public var curvePoints = 64
    /// Step and length of the grid aligned at touch-down.
    public var alignedStepNs: Int64 = 10_000_000
    public var alignedPoints = 200
    /// Tolerances of the inflation sweep, in mm.
    public static let sweepTolerancesMM: [Double] = [0, 0.1, 0.25, 0.5, 1]
    /// Whether to compute the curve bands, the paths and (with
    /// `curveMatrices`) the curve matrices (`curves`, `alignedCurves`): only
    /// outputs that store or draw curves (--save, --html) need them; empty when false.
    public var curves = true
    /// Whether to keep the per-contact curve matrices as well (with `curves`):
    /// only `--save` stores them. The bands, which the HTML page and the JSON
    /// show, are summed on the lanes with or without them.
    public var curveMatrices = true
    /// Rows read per chunk of the samples table.
    public var chunkRows = 65_536
    /// Threads that measure contacts (at most 255); nil picks by size
    /// (`automaticLanes`). Results are the same with any number.
    public var lanes: Int?

    /// Two lanes on two or more cores once the samples fill two chunks; one below.
    public static func automaticLanes(rows: Int) -> Int {
        rows >= 2 * 65_536 && ProcessInfo.processInfo.activeProcessorCount >= 2 ? 2 : 1
    }

    public init() {}
}
