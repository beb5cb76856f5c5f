import XCTest
@testable import ForceTrace

/// The touch-down-aligned curves: each contact's room on the grid, the
/// points written into it, and the matrix they stand for.
final class AlignedCurvesTests: XCTestCase {
    /// A contact's room is the grid points `t_down + j · step` before its
    /// end, counted one by one: at an end on a grid point, just after one,
    /// just before one, past the grid, for an empty or reversed span, and a
    /// step that does not divide the span.
    func testAContactsRoomIsTheGridPointsBeforeItsEnd() {
        func counted(_ tDown: Int64, _ end: Int64, _ step: Int64, _ width: Int) -> Int {
            (0..<width).filter { tDown + Int64($0) * step < end }.count
        }
        var checked = 0
        for step: Int64 in [1, 3, 10_000_000] {
            for width in [0, 1, 2, 200] {
                let tDown: Int64 = 1_000_000_007
                for points: Int64 in [0, 1, 2, 199, 200, 201, 500] {
                    for nudge: Int64 in [-1, 0, 1] {
                        let end = tDown + points * step + nudge
                        XCTAssertEqual(AlignedCurves.capacity(tDown: tDown, end: end, step: step, width: width), counted(tDown, end, step, width),
                                       "end \(points) steps \(nudge >= 0 ? "+" : "")\(nudge), step \(step), width \(width)")
                        checked += 1
                    }
                }
            }
        }
        XCTAssertEqual(AlignedCurves.capacity(tDown: 5, end: 5, step: 10, width: 200), 0, "no span")
        XCTAssertEqual(AlignedCurves.capacity(tDown: 5, end: -5, step: 10, width: 200), 0, "a reversed span")
        XCTAssertEqual(AlignedCurves.capacity(tDown: .min / 2 - 10, end: .max / 2 + 10, step: 10, width: 200), 200, "a span past Int64")
        XCTAssertGreaterThan(checked, 200)
    }

    /// A contact whose samples run past its end (a damaged contacts table):
    /// no aligned point is written at or after the end, so its row keeps to
    /// its room and the next contact's row is untouched.
    func testNoPointIsWrittenAtOrAfterAContactsEnd() {
        var options = AnalysisOptions()
        options.alignedStepNs = 10
        let setup = OpenContact.Setup(options, lanes: ToleranceLanes(options.tolerance, xAxis: nil, yAxis: nil), hasPressure: true,
                                      grams: nil, bandsFromMatrices: false)
        let contact = ContactStatistics(Contact(id: 0, slot: 0, trackingID: 1, tool: 0, tDownNs: 100, tUpNs: 135, firstSample: 0,
                                                lastSample: 9, sampleCount: 10), endNs: 135)
        var open = OpenContact()
        open.begin(contact, curveBase: 0, alignedBase: 0, setup: setup)
        XCTAssertEqual(open.alignedLimit, 4, "100, 110, 120 and 130 lie before 135")
        var curve = [Float](repeating: .nan, count: options.curvePoints), aligned = [Float](repeating: .nan, count: options.alignedPoints)
        let times = Array(stride(from: Int64(100), through: 190, by: 10)), zeros = [Int32](repeating: 0, count: 10)
        let pressures = [Int32](repeating: 5, count: 10), normalized = [Double](repeating: 0.5, count: 10)
        let flags = [SampleFlags.down.rawValue] + [UInt8](repeating: 0, count: 9), slots = [Int16](repeating: 0, count: 10)
        curve.withUnsafeMutableBufferPointer { curve in
            aligned.withUnsafeMutableBufferPointer { aligned in
                times.withUnsafeBufferPointer { times in zeros.withUnsafeBufferPointer { zeros in pressures.withUnsafeBufferPointer { pressures in
                    flags.withUnsafeBufferPointer { flags in slots.withUnsafeBufferPointer { slots in normalized.withUnsafeBufferPointer { normalized in
                        let rows = SampleRows(rows: 0..<10, tNs: times, contact: zeros, slot: slots, x: zeros, y: zeros, pressure: pressures,
                                              flags: flags)
                        open.addDown(time: 100, x: 0, y: 0, pressure: 5, normalized: 0.5, setup: setup, curve: curve, aligned: aligned)
                        open.addRun(rows, 1..<10, normalized: normalized, setup: setup, curve: curve, aligned: aligned)
                    } } }
                } } }
                _ = open.finish(setup: setup, resolution: (0, 0), curve: curve, aligned: aligned)
            }
        }
        XCTAssertEqual(aligned.prefix(4), [0.5, 0.5, 0.5, 0.5])
        XCTAssertTrue(aligned.dropFirst(4).allSatisfy(\.isNaN), "nothing from 140 on")
        XCTAssertEqual(open.nextAligned, 4)
    }

    /// The rows of a matrix, cut at their NaN tails, give the matrix back.
    func testAMatrixCutToItsRowsReadsBack() {
        let nan = Float.nan
        let matrix: [Float] = [0.1, 0.2, nan, nan,
                               nan, nan, nan, nan,
                               0.3, nan, 0.4, nan,
                               0.5, 0.6, 0.7, 0.8]
        let curves = AlignedCurves(matrix: matrix, rows: 4, width: 4)
        XCTAssertEqual(curves.starts, [0, 2, 2, 5, 9])
        XCTAssertEqual(curves.matrix.map(\.bitPattern), matrix.map(\.bitPattern))
        XCTAssertEqual(Array(curves.row(3)), [0.5, 0.6, 0.7, 0.8])
        XCTAssertEqual(AlignedCurves.empty.rows, 0)
    }
}
