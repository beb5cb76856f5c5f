import Foundation

/// How far a scale's readings trail the device's pressure, from the data
/// (docs/ANALYSIS.md, "Force"). The landmark is the end of each press's
/// rise: the hand stops pressing harder, and from that instant neither the
/// force nor the pressure rises any more, whatever the pen's curve, its
/// activation force or its hysteresis (which only shows on the way down).
/// In the pressure it is where a parabola through the events of the rise's
/// last tenth meets the hold's level (the median, weighted by duration, of
/// the values within 0.5 % of the range of the highest); in the scale's readings it is where
/// a parabola fitted to the readings of the rise (30 % to 90 % of the hold)
/// meets the hold's level (the median of the readings within 3 % of the
/// highest). Each such
/// press gives one lag; the estimate is their median, its uncertainty their
/// standard error (at least 1 ms). A press that saturates the pen (reaches
/// the axis maximum) hides its end of rise and is skipped: the protocol
/// asks for presses that stop short of the pen's maximum.
public struct ScaleLag: Sendable, Equatable {
    public var lagNs: Int64
    public var uncertaintyNs: Int64
    /// The per-press lags it is made from.
    public var pressLagsNs: [Int64]
    public var presses: Int { pressLagsNs.count }

    static let leadInNs: Int64 = 1_000_000_000
    /// How long after the pressure's end of rise the force's hold is looked for.
    static let holdSearchNs: Int64 = 2_000_000_000

    /// nil when fewer than 2 presses stop below the axis maximum with
    /// readings enough to place their end of rise.
    public static func estimate(pressure: PressureSteps, readings: [ScaleReading], axis: AxisInfo) -> ScaleLag? {
        let force = ForceSeries(readings)
        let tolerance = max(Int32(1), Int32((Double(axis.maximum) - Double(axis.minimum)) * 0.005))
        var lags: [Int64] = []
        for press in pressure.presses(above: axis.minimum) {
            let top = pressure.values[press.peak]
            guard top < axis.maximum,
                  let riseEnd = press.steps.first(where: { pressure.values[$0] >= top - tolerance }) else { continue }
            let start = pressure.times[press.steps.lowerBound] - leadInNs
            // The pressure's end of rise likewise: a parabola through its rise's last tenth meets its hold's level.
            let held = press.steps.filter { pressure.values[$0] >= top - tolerance }
            // Weighted by how long each value lasted: the events are changes, and a still hold is one event.
            let pressureHold = weightedMedian(held.map { (Double(pressure.values[$0]), Double(pressure.times[$0 + 1] - pressure.times[$0])) })
            let base = Double(pressure.values[press.steps.lowerBound])
            let pressureRise = press.steps.filter {
                $0 < riseEnd && Double(pressure.values[$0]) >= base + 0.9 * (pressureHold - base)
            }
            var endOfRise = pressure.times[riseEnd]
            if let crossing = crossing(pressureRise.map { pressure.times[$0] }, pressureRise.map { Double(pressure.values[$0]) }, level: pressureHold) {
                endOfRise = min(endOfRise + holdSearchNs, max(pressure.times[pressureRise[0]], crossing))
            }
            let window = force.times.indices.filter { force.times[$0] >= start && force.times[$0] <= endOfRise + holdSearchNs }
            guard let highest = window.map({ force.grams[$0] }).max(), highest > 0 else { continue }
            let holdIndices = window.filter { force.grams[$0] >= 0.97 * highest }
            guard let firstHold = holdIndices.first else { continue }
            let holdLevel = median(holdIndices.map { force.grams[$0] })
            let rise = window.filter { $0 < firstHold && force.grams[$0] >= 0.3 * holdLevel && force.grams[$0] <= 0.9 * holdLevel }
            guard let corner = crossing(rise.map { force.times[$0] }, rise.map { force.grams[$0] }, level: holdLevel) else { continue }
            lags.append(corner - endOfRise)
        }
        guard lags.count >= 2 else { return nil }
        let values = lags.map(Double.init)
        let mean = values.reduce(0, +) / Double(values.count)
        let sd = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)).squareRoot()
        let se = max(1e6, sd / Double(values.count).squareRoot())
        return ScaleLag(lagNs: Int64(median(values).rounded()), uncertaintyNs: Int64(se.rounded()), pressLagsNs: lags)
    }

    /// The value below which half the weight lies.
    static func weightedMedian(_ pairs: [(value: Double, weight: Double)]) -> Double {
        let sorted = pairs.sorted { $0.value < $1.value }
        let half = sorted.reduce(0) { $0 + $1.weight } / 2
        var sum = 0.0
        for pair in sorted {
            sum += pair.weight
            if sum >= half { return pair.value }
        }
        return sorted.last?.value ?? 0
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// When a rise through (`times`, `values`) reaches `level`: a least-squares
    /// parabola (a line with fewer than 4 points), the crossing nearest the
    /// last point going up; nil when it does not rise.
    static func crossing(_ times: [Int64], _ values: [Double], level: Double) -> Int64? {
        guard times.count >= 2, let last = times.last else { return nil }
        // Seconds from the last point: small numbers for the normal equations.
        let x = times.map { Double($0 - last) / 1e9 }
        let degree = times.count >= 4 ? 2 : 1
        guard let c = polynomialFit(x, values, degree: degree) else { return nil }
        let a = c[0] - level, b = c[1], q = degree == 2 ? c[2] : 0
        var roots: [Double] = []
        if abs(q) < 1e-12 {
            if b > 0 { roots = [-a / b] }
        } else {
            let discriminant = b * b - 4 * q * a
            if discriminant >= 0 {
                let root = discriminant.squareRoot()
                // Rising there: slope b + 2 q x > 0.
                roots = [(-b + root) / (2 * q), (-b - root) / (2 * q)].filter { b + 2 * q * $0 > 0 }
            }
        }
        guard let nearest = roots.min(by: { abs($0) < abs($1) }), abs(nearest) < Double(holdSearchNs) / 1e9 else { return nil }
        return last + Int64((nearest * 1e9).rounded())
    }

    /// Least-squares polynomial coefficients, lowest power first (normal equations, Gaussian elimination).
    static func polynomialFit(_ x: [Double], _ y: [Double], degree: Int) -> [Double]? {
        let size = degree + 1
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: size + 1), count: size)
        for index in x.indices {
            var powers = [Double](repeating: 1, count: 2 * size)
            for power in 1..<(2 * size) { powers[power] = powers[power - 1] * x[index] }
            for row in 0..<size {
                for column in 0..<size { matrix[row][column] += powers[row + column] }
                matrix[row][size] += powers[row] * y[index]
            }
        }
        for pivot in 0..<size {
            guard let best = (pivot..<size).max(by: { abs(matrix[$0][pivot]) < abs(matrix[$1][pivot]) }), abs(matrix[best][pivot]) > 1e-15 else { return nil }
            matrix.swapAt(pivot, best)
            for row in 0..<size where row != pivot {
                let factor = matrix[row][pivot] / matrix[pivot][pivot]
                for column in pivot...size { matrix[row][column] -= factor * matrix[pivot][column] }
            }
        }
        return (0..<size).map { matrix[$0][size] / matrix[$0][$0] }
    }
}
