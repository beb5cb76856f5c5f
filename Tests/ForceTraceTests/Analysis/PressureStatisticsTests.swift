import Foundation
import XCTest
@testable import ForceTrace

/// The report aggregates: fractions, rates, stored counters, quantiles and curve classes.
final class PressureStatisticsTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// A band point no curve reached has no quantile (null in the JSON), and
    /// the checked sum of two bands (report --merge) adds both.
    func testABandPointWithoutCurvesHasNoQuantileAndSumsAddBoth() {
        var first = CurveBands(points: 2), second = CurveBands(points: 2)
        first.add([Float(0.5), .nan], as: .tap)
        second.add([Float(0.3), Float(0.7)], as: .tap)
        XCTAssertNotNil(first.quantile(.tap, point: 0, level: 0.25))
        XCTAssertNil(first.quantile(.tap, point: 1, level: 0.25), "after the curve's end")
        XCTAssertNil(first.quantile(.popPress, point: 0, level: 0.75), "a class without curves")
        let sum = CurveBands.checkedSum(first, second)
        XCTAssertEqual(sum.map { [$0.count(.tap, point: 0), $0.count(.tap, point: 1)] }, [2, 1])
        XCTAssertEqual(sum?.mean(.tap, point: 0) ?? .nan, (0.5 + Double(Float(0.3))) / 2, accuracy: 1e-9)
    }

    /// One press: 30 → 70 → 90 of 0...100, so normalized 0.3, 0.7, 0.9; it
    /// crosses peek (0.60) and pop (0.80).
    private func onePress() throws -> RecordingAnalysis {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.p, 70)])
        builder.frame(20, [(F.p, 90)])
        builder.frame(30, [(F.id, -1)])
        return try F.analyze(builder.recording)
    }

    /// A fraction over exactly one contact is that contact's 0 or 1, not
    /// "no data": the denominator's boundary is 0, not 1.
    func testFractionsOverASingleContact() throws {
        let statistics = try onePress().statistics
        XCTAssertEqual(statistics.contactsWithPressure, 1)
        XCTAssertEqual(statistics.reachedPeek, 1)
        XCTAssertEqual(statistics.reachedPeekFraction, 1.0)
        XCTAssertEqual(statistics.reachedPopFraction, 1.0)
        XCTAssertNil(statistics.fraction(0, of: 0))
        XCTAssertEqual(statistics.fraction(0, of: 1), 0.0)
    }

    /// Stationary events per second need a contact time above 0: at 1 ns the
    /// rate is defined (4 events / 1e-9 s), at 0 it is nil.
    func testStationaryRateFromOneNanosecond() throws {
        var statistics = PressureStatistics()
        statistics.stationary[0] = 4
        XCTAssertNil(statistics.stationaryRateHz())
        statistics.contactTimeNs = 1
        XCTAssertEqual(try XCTUnwrap(statistics.stationaryRateHz()), 4e9, accuracy: 1)
    }

    /// An eight-lane counter reads back from exactly eight stored integers;
    /// seven or nine is a damaged file (nil), not a silently cut value.
    func testEightLaneCountersNeedEightStoredValues() {
        let lanes = SIMD8<Int64>(1, 2, 3, 4, 5, 6, 7, 8)
        XCTAssertEqual(SIMD8<Int64>(stored: lanes.stored), lanes)
        XCTAssertNil(SIMD8<Int64>(stored: .integers([1, 2, 3, 4, 5, 6, 7])))
        XCTAssertNil(SIMD8<Int64>(stored: .integers([1, 2, 3, 4, 5, 6, 7, 8, 9])))
        XCTAssertNil(SIMD8<Int64>(stored: .doubles([1, 2, 3, 4, 5, 6, 7, 8])))
    }

    /// Quantiles of values holding −0 and +0 come out as a full sort's
    /// would, bit for bit: selection may put a −0 where a sort puts a +0,
    /// but the interpolation's sum turns either into +0.
    func testQuantilesKeepTheSignOfZeroAsASortDoes() {
        func reference(_ values: [Double]) -> [Double] {
            let sorted = values.sorted()
            return Quantiles.levels.map { level in
                let position = Double(sorted.count - 1) * level
                let lower = Int(position.rounded(.down)), upper = min(lower + 1, sorted.count - 1)
                return sorted[lower] + (position - Double(lower)) * (sorted[upper] - sorted[lower])
            }
        }
        var generator = SystemRandomNumberGenerator()
        for count in [2, 5, 30, 41, 100] {
            for _ in 0..<50 {
                let pool = count % 2 == 0 ? [0.0, -0.0] : [0.0, -0.0, 1.0, 0.5]
                let values = (0..<count).map { _ in pool[Int.random(in: 0..<pool.count, using: &generator)] }
                let found = Quantiles.of(values) ?? []
                XCTAssertEqual(found.map(\.bitPattern), reference(values).map(\.bitPattern), "\(values)")
            }
        }
    }

    /// The classes a curve figure shows are those with a curve: one light
    /// press (30 → 40 of 100, below peek) makes taps only.
    func testClassesPresentAreThoseWithACurve() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.p, 40)])
        builder.frame(20, [(F.id, -1)])
        let statistics = try F.analyze(builder.recording).statistics
        XCTAssertEqual(statistics.curveBands.classesPresent, [.tap])
        XCTAssertEqual(statistics.alignedBands.classesPresent, [.tap])
        XCTAssertEqual(CurveBands(points: 4).classesPresent, [])
    }

    /// A list's quantiles are those of its values now: computed once and
    /// kept, they follow an append, a copy that changes, and a sum.
    func testAValueListsQuantilesFollowItsValues() {
        var list = ValueList([4, 1, 3, 2])
        XCTAssertEqual(list.quantiles, Quantiles.of([4, 1, 3, 2]))
        var copy = list
        copy.append(100)
        XCTAssertEqual(copy.quantiles, Quantiles.of([4, 1, 3, 2, 100]), "the copy's own values")
        XCTAssertEqual(list.quantiles, Quantiles.of([4, 1, 3, 2]), "the original's, after the copy computed its own")
        list.values[0] = -7
        XCTAssertEqual(list.quantiles, Quantiles.of([-7, 1, 3, 2]), "after a value changed in place")
        XCTAssertEqual((ValueList() + list).quantiles, Quantiles.of([-7, 1, 3, 2]))
        XCTAssertEqual((list + ValueList([50])).quantiles, Quantiles.of([-7, 1, 3, 2, 50]))
        XCTAssertNil(ValueList().quantiles)
        XCTAssertEqual(ValueList([1, 2]), ValueList([1, 2]), "lists of equal values are equal, whatever they computed")
    }

    /// A band's fixed-point value is `rounded()`'s, halves away from zero,
    /// at the halves themselves, beside them, for negative values and where
    /// every double is whole.
    func testABandsFixedPointRoundsAsRoundedDoes() {
        var values: [Float] = [0, -0.0, 1, -1, 0.5, -0.5, 1.5, 3, -0.2, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
                               .leastNormalMagnitude, 1e-9, 5e-10, 4194304, -4194304, 9.2e9, -9.2e9]
        // value × 1e9 lands on a half exactly for odd multiples of 2^-10 (× 976562.5).
        for odd in stride(from: 1, through: 2_047, by: 2) {
            let half = Float(odd) / 1024
            values += [half, -half, half.nextUp, half.nextDown]
        }
        var generator = SystemRandomNumberGenerator()
        values += (0..<10_000).map { _ in Float.random(in: -2...2, using: &generator) }
        var halves = 0
        for value in values {
            let scaled = Double(value) * CurveBands.scale
            if scaled != scaled.rounded(.towardZero) && abs(scaled - scaled.rounded(.towardZero)) == 0.5 { halves += 1 }
            XCTAssertEqual(CurveBands.fixedPoint(value), Int64(scaled.rounded()), "\(value)")
        }
        XCTAssertGreaterThan(halves, 10, "values on a half")
    }

    /// Pressure far outside its axis's range, as a hostile or broken file
    /// may hold (the kernel does not clamp, and neither does import): the
    /// bands' fixed-point sums saturate instead of trapping, on the lanes
    /// and in the point-by-point bands alike.
    func testBandSumsOfPressureFarOutsideItsRangeSaturate() throws {
        var builder = RecordingBuilder()
        builder.device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 1))
        for press in 0..<8 {
            let start = Int64(press) * 100
            builder.frame(start, [(F.slot, 0), (F.id, Int32(press + 1)), (F.x, 100), (F.y, 100), (F.p, Int32.max)])
            builder.frame(start + 10, [(F.p, Int32.max - 1)])
            builder.frame(start + 40, [(F.id, -1)])
        }
        var options = AnalysisOptions()
        options.curves = true
        let analysis = try F.analyze(builder.recording, options: options)
        let bands = analysis.statistics.alignedBands
        XCTAssertEqual(bands.count(.popPress, point: 0), 8)
        XCTAssertEqual(bands.sums[PressClass.popPress.index * bands.points], Int64.max, "8 × 2.1e18 saturates")
        var reference = CurveBands(points: 2)
        for _ in 0..<8 { reference.add([Float(Int32.max), Float(Int32.max)], as: .popPress) }
        XCTAssertEqual(reference.sums[PressClass.popPress.index * 2], Int64.max)
        XCTAssertEqual((reference + reference).sums[PressClass.popPress.index * 2 + 1], Int64.max)
    }
}
