import Foundation

/// A pressure curve in the form xf86-input-wacom (`xsetwacom set DEVICE
/// PressureCurve x1 y1 x2 y2`, wacom(4)) and GNOME (`pressure-curve`, `ai`)
/// take: a cubic Bézier from (0,0) through the control points (x1,y1) and
/// (x2,y2) to (100,100), each coordinate an integer in 0–100. x is the pen's
/// input pressure, y what applications get. "0 0 100 100" is linear; a curve
/// under the diagonal ("5 0 100 95") is firmer, above it ("0 5 95 100") softer.
public struct PressureCurve: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x1: Int, y1: Int, x2: Int, y2: Int

    public init(_ x1: Int, _ y1: Int, _ x2: Int, _ y2: Int) {
        self.x1 = x1; self.y1 = y1; self.x2 = x2; self.y2 = y2
    }

    public static let linear = PressureCurve(0, 0, 100, 100)
    public static let coordinates = 0...100

    public var points: [Int] { [x1, y1, x2, y2] }
    public var description: String { points.map(String.init).joined(separator: " ") }

    /// Every coordinate in 0–100 and x1 ≤ x2, y1 ≤ y2: then x(t) and y(t) both
    /// rise (their Bernstein coefficients are all ≥ 0), so the curve is a
    /// rising function of the input. forcetrace only suggests such curves.
    public var isRising: Bool {
        points.allSatisfy(Self.coordinates.contains) && x1 <= x2 && y1 <= y2
    }

    /// The Bézier's coordinate at parameter t for control values a, b (0–1).
    static func bezier(_ t: Double, _ a: Double, _ b: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * t * a + 3 * u * t * t * b + t * t * t
    }

    /// The output (0–1) for an input (0–1, clamped). x(t) = input is solved by
    /// bisection, which needs x(t) rising: `isRising`.
    public func output(at input: Double) -> Double {
        // The curve's ends are (0,0) and (1,1) exactly, whatever the bisection would leave.
        if input <= 0 { return 0 }
        if input >= 1 { return 1 }
        let x = input
        let a = Double(x1) / 100, b = Double(x2) / 100
        var low = 0.0, high = 1.0
        for _ in 0..<48 {
            let mid = (low + high) / 2
            if Self.bezier(mid, a, b) < x { low = mid } else { high = mid }
        }
        return Self.bezier((low + high) / 2, Double(y1) / 100, Double(y2) / 100)
    }

    /// The input (0–1) whose output is `output`: the curve read backwards.
    public func input(for output: Double) -> Double {
        PressureCurve(y1, x1, y2, x2).output(at: output)
    }

    /// KWin's form of the same curve: "x1,y1;x2,y2;" with values in 0–1.
    public var kwinString: String {
        func value(_ v: Int) -> String { v == 100 ? "1" : v == 0 ? "0" : String(format: "%.2f", Double(v) / 100) }
        return "\(value(x1)),\(value(y1));\(value(x2)),\(value(y2));"
    }

    /// Reads "x1 y1 x2 y2" or "x1,y1,x2,y2" (integers 0–100), as `--curve` takes it.
    public init?(parsing text: String) {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == " " }).map { Int($0) }
        guard parts.count == 4, let x1 = parts[0], let y1 = parts[1], let x2 = parts[2], let y2 = parts[3] else { return nil }
        self.init(x1, y1, x2, y2)
        guard isRising else { return nil }
    }
}

/// What the fitted curve should make of the person's light, normal and firm
/// strokes, in percent of the output: `--targets 25,50,85` by default.
public struct PenTargets: Equatable, Sendable {
    public var light: Double, normal: Double, firm: Double

    public init(light: Double, normal: Double, firm: Double) {
        self.light = light; self.normal = normal; self.firm = firm
    }

    public static let `default` = PenTargets(light: 25, normal: 50, firm: 85)

    public var values: [Double] { [light, normal, firm] }
    public var text: String { values.map { String(format: "%g", $0) }.joined(separator: ",") }

    /// Why a list is refused, for the usage error.
    public static let rule = "three percentages, rising, each from 0 to 100 (e.g. 25,50,85)"

    /// "25,50,85": three numbers, 0 ≤ light < normal < firm ≤ 100.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, let light = parts[0], let normal = parts[1], let firm = parts[2],
              light.isFinite, firm.isFinite, 0 <= light, light < normal, normal < firm, firm <= 100 else { return nil }
        self.init(light: light, normal: normal, firm: firm)
    }
}

/// One point the fit aims at: an input (0–1 of the domain), the output it
/// should get (0–1) and the output the fitted curve gives it.
public struct CurvePoint: Equatable, Sendable {
    public enum Role: String, Sendable, CaseIterable {
        case rangeLow = "range-low"
        case light, normal, firm
        case rangeHigh = "range-high"
    }
    public var role: Role
    public var input: Double
    public var target: Double
    public var output: Double
    /// |output − target| in percentage points.
    public var errorPoints: Double { abs(output - target) * 100 }
}

/// A curve fitted to points, with the error at each.
public struct CurveFit: Equatable, Sendable {
    public var curve: PressureCurve
    public var points: [CurvePoint]
    public var maxErrorPoints: Double { points.map(\.errorPoints).max() ?? 0 }

    /// The squared errors at the aims, plus the nearness to the straight
    /// line far below one point of error squared, and then to the ends.
    static func cost(_ curve: PressureCurve, _ aims: [(role: CurvePoint.Role, input: Double, target: Double)]) -> Double {
        var sum = 0.0
        for aim in aims {
            let error = curve.output(at: aim.input) - aim.target
            sum += error * error
        }
        let bend = Double((curve.x1 - curve.y1) * (curve.x1 - curve.y1) + (curve.x2 - curve.y2) * (curve.x2 - curve.y2))
        // A straight line is "0 0 100 100".
        let ends = Double(curve.x1 * curve.x1 + curve.y1 * curve.y1 + (100 - curve.x2) * (100 - curve.x2) + (100 - curve.y2) * (100 - curve.y2))
        return sum + bend * 1e-10 + ends * 1e-13
    }

    /// The rising curve with integer control points whose outputs come
    /// closest to the targets (least squares); among curves that fit
    /// equally, the one nearest the straight line, so the choice is stable.
    /// A coarse grid (every 10) and then a local search with steps 5, 2, 1.
    public static func fit(_ aims: [(role: CurvePoint.Role, input: Double, target: Double)]) -> CurveFit {
        var best = PressureCurve.linear
        var bestCost = cost(best, aims)
        let grid = stride(from: 0, through: 100, by: 10)
        for x1 in grid { for x2 in grid where x2 >= x1 { for y1 in grid { for y2 in grid where y2 >= y1 {
            let curve = PressureCurve(x1, y1, x2, y2)
            let value = cost(curve, aims)
            if value < bestCost { best = curve; bestCost = value }
        } } } }
        for step in [5, 2, 1] {
            var improved = true
            while improved {
                improved = false
                for d1 in -1...1 { for d2 in -1...1 { for d3 in -1...1 { for d4 in -1...1 {
                    let curve = PressureCurve(best.x1 + d1 * step, best.y1 + d2 * step, best.x2 + d3 * step, best.y2 + d4 * step)
                    guard curve.isRising else { continue }
                    let value = cost(curve, aims)
                    // A gain under 1e-15 is a tie: rounding does not choose.
                    if value < bestCost - 1e-15 { best = curve; bestCost = value; improved = true }
                } } } }
            }
        }
        return CurveFit(curve: best, points: aims.map {
            CurvePoint(role: $0.role, input: $0.input, target: $0.target, output: best.output(at: $0.input))
        })
    }
}
