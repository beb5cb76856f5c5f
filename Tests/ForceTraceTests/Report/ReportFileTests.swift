import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// `report --save` (ReportFile.write): how the file stores what the analysis found.
final class ReportFileTests: XCTestCase {
    typealias F = AnalysisFixtures
    private typealias Name = SavedReportLayout.Name

    /// One contact after another in slot 0, each `durationMs` long, pressure
    /// rising 1 per 10 ms from 10; 1 s apart.
    private func contacts(_ durationsMs: [Int64], pressure: Bool = true) -> Recording {
        var builder = RecordingBuilder(pressure: pressure)
        for (index, duration) in durationsMs.enumerated() {
            let start = Int64(index) * 3000
            let down: [(UInt16, Int32)] = [(F.slot, 0), (F.id, Int32(index + 1)), (F.x, 100), (F.y, 100)]
            let press: [(UInt16, Int32)] = pressure ? [(F.p, Int32(10))] : []
            builder.frame(start, down + press)
            var t: Int64 = 10
            while t < duration {
                let change: (UInt16, Int32) = pressure ? (F.p, Int32(min(100, 10 + t / 10))) : (F.x, Int32(100 + t % 7))
                builder.frame(start + t, [change])
                t += 10
            }
            builder.frame(start + duration, [(F.id, -1)])
        }
        return builder.recording
    }

    /// The aligned curves are a CF contiguous ragged array: each contact's
    /// points on the 10 ms grid before its end (j · 10 ms < duration, at most
    /// 200), the contacts one after another, and each contact's count, whose
    /// `sample_dimension` names the values' dimension. A grid point at the
    /// end itself is not the contact's (100 ms: 10 points, 101 ms: 11); a
    /// contact longer than the grid keeps all 200; one without pressure, none.
    func testTheAlignedCurvesAreEachContactsPointsUpToItsEnd() throws {
        let durations: [Int64] = [100, 101, 99, 10, 2500, 1990, 2000]
        let pressed = try F.analyze(contacts(durations))
        let unpressed = try F.analyze(contacts([100, 2500], pressure: false))
        let options = pressed.options
        XCTAssertEqual(pressed.contacts.map(\.durationNs), durations.map { $0 * 1_000_000 })
        let report = PressureReport(options: options, files: [FileAnalysis(file: pressed.file, recordings: [pressed]),
                                                             FileAnalysis(file: unpressed.file, recordings: [unpressed])])
        let path = F.temporaryPath("ragged-\(UUID().uuidString).h5")
        try ReportFile.write(report, to: path, replace: true)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let file = try File.open(path)
        defer { try? file.close() }
        let recordings = try file.root.openGroup(Name.recordings)
        XCTAssertEqual(try file.root.attribute("format_version")?.intValue, 2)
        // Both recordings are named "test": the second's group is "test-2".
        for (analysis, groupName, expected) in [(pressed, "test", [10, 11, 10, 1, 200, 199, 200]), (unpressed, "test-2", [0, 0])] {
            let group = try recordings.openGroup(groupName)
            XCTAssertFalse(group.contains(Name.alignedCurves), "no dense matrix")
            XCTAssertEqual(try group.attribute("sample_dimension", ofMember: Name.alignedCurveCounts)?.stringValue, "aligned_sample")
            let counts = try group.readArray(Name.alignedCurveCounts, of: Int32.self)
            XCTAssertEqual(counts.map(Int.init), expected)
            XCTAssertEqual(try group.storage(of: Name.alignedCurveCounts).element, .integer(bytes: 4, signed: true))
            let values = try group.readArray(Name.alignedCurveValues, of: Float.self)
            // The analysis's matrix, row by row up to the count: the same values; after it, only NaN.
            var start = 0
            let matrix = analysis.alignedCurves.matrix
            for (row, count) in counts.map(Int.init).enumerated() {
                let matrixRow = matrix[(row * options.alignedPoints)..<((row + 1) * options.alignedPoints)]
                XCTAssertEqual(Array(values[start..<(start + count)]).map(\.bitPattern),
                               Array(matrixRow.prefix(count)).map(\.bitPattern), "row \(row)")
                XCTAssertTrue(matrixRow.dropFirst(count).allSatisfy(\.isNaN), "row \(row)")
                XCTAssertFalse(matrixRow.prefix(count).contains(where: \.isNaN), "row \(row)")
                start += count
            }
            XCTAssertEqual(start, values.count)
        }
    }

    /// A row's points before its NaN tail, for every place of its last value
    /// in rows of 0 … 20 points (eight at a time and one at a time both), and
    /// a NaN before the last value stays a point.
    func testThePointsBeforeTheTailAreUpToTheLastValue() {
        for width in 0...20 {
            for last in -1..<width {
                var row = [Float](repeating: .nan, count: width)
                if last >= 0 { row[last] = 0.5 }
                if last >= 2 { row[0] = 0.25 }
                let found = row.withUnsafeBufferPointer { AlignedCurves.pointsBeforeTail($0) }
                XCTAssertEqual(found, last + 1, "width \(width), last value at \(last)")
            }
        }
    }
}
