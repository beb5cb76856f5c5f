import Foundation
import XCTest

/// Every conversion with an x and a y form (tolerance lanes, stationary
/// events, displacement, stationary deep presses, absinfo ranges, the device
/// card) on recordings whose axes differ: the hand-made axes-differ.evemu
/// (x 10, y 40 units/mm; numbers worked out in its comment) and the shared
/// Cypress recording (x 16, y 15 units/mm).
final class AxesTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try FormatTestSupport.temporaryDirectory(self)
    }

    private func recording(_ report: [String: Any]) -> [String: Any] {
        (report["recordings"] as? [[String: Any]])?.first ?? [:]
    }

    func testHandMadeAxesOfDifferentResolution() throws {
        let (trace, _) = try BlackBox.importTrace(BlackBox.fixture("axes-differ.evemu"), into: directory)
        let report = try BlackBox.report(trace, ["--tolerance", "0.5mm"])
        XCTAssertEqual(recording(report)["tolerance"] as? String, "0.5 mm (5 x units, 20 y units)")
        let contacts = BlackBox.contacts(report)
        XCTAssertEqual(contacts.map { $0["displacement_mm"] as? Double }, [1.1, 1.025, 0.5, 0.525, 0.6, 0.35])
        XCTAssertEqual(contacts.map { $0["displacement_units"] as? Int }, [11, 41, 20, 21, 20, 14])
        XCTAssertEqual(contacts.map { $0["stationary_pressure_events"] as? Int }, [1, 1, 1, 0, 0, 2])
        XCTAssertEqual(contacts.map { $0["motion_events"] as? Int }, [2, 2, 1, 1, 1, 2])
        XCTAssertEqual(contacts.map { $0["stationary_deep_press"] as? Bool }, [false, false, true, false, false, false])
        XCTAssertEqual(contacts.map { $0["class"] as? String }, ["tap", "tap", "pop-press", "pop-press", "pop-press", "tap"])

        let summary = BlackBox.summary(report)
        XCTAssertEqual(summary["inflation"] as? Double, 2.25)
        let sweep = summary["inflation_sweep"] as? [[String: Any]] ?? []
        XCTAssertEqual(sweep.map { $0["tolerance_mm"] as? Double }, [0, 0.1, 0.25, 0.5, 1])
        XCTAssertEqual(sweep.map { $0["motion_events"] as? Int }, [9, 9, 9, 9, 9])
        XCTAssertEqual(sweep.map { $0["stationary_pressure_events"] as? Int }, [0, 1, 2, 5, 9])
        XCTAssertEqual(sweep.map { $0["stationary_deep_presses"] as? Int }, [0, 0, 0, 1, 3])
        XCTAssertEqual((summary["data_quality"] as? [String: Any])?["out_of_range_samples"] as? Int, 2)

        let html = directory.appendingPathComponent("axes.html").path
        try BlackBox.run(["report", trace, "--html", html])
        let page = try String(contentsOfFile: html, encoding: .utf8)
        XCTAssertTrue(page.contains("ABS_MT_POSITION_X 100..1100, 10 units/mm (0.1000 mm per unit)"))
        XCTAssertTrue(page.contains("ABS_MT_POSITION_Y 20..520, 40 units/mm (0.0250 mm per unit)"))
    }

    /// Cypress: displacement_mm and the 0.5 mm lane (8 x units, 7.5 y units)
    /// recomputed from the samples table with ANALYSIS.md's definitions.
    func testCypressSixteenByFifteen() throws {
        let source = try SharedRecording.cypress.path()
        let (trace, _) = try BlackBox.importTrace(source, into: directory, name: "cypress")
        let report = try BlackBox.report(trace, ["--tolerance", "0.5mm"])
        XCTAssertEqual(recording(report)["tolerance"] as? String, "0.5 mm (8 x units, 7.5 y units)")

        let file = try BlackBox.Trace(trace)
        defer { try? file.close() }
        let table = try file.table("contacts"), samples = try file.table("samples")
        let first = try XCTUnwrap(table["first_sample"]), last = try XCTUnwrap(table["last_sample"])
        let contactOf = try XCTUnwrap(samples["contact"]), xs = try XCTUnwrap(samples["x"]), ys = try XCTUnwrap(samples["y"])
        let flags = try XCTUnwrap(samples["flags"])
        var displacement: [Double] = [], stationary: [Int] = []
        for (id, down) in first.enumerated() {
            let rows = (Int(down)...Int(last[id])).filter { contactOf[$0] == id }
            let dx = rows.map { abs(xs[$0] - xs[Int(down)]) }.max() ?? 0, dy = rows.map { abs(ys[$0] - ys[Int(down)]) }.max() ?? 0
            displacement.append(max(Double(dx) / 16, Double(dy) / 15))
            stationary.append(zip(rows, rows.dropFirst()).filter { previous, row in
                flags[row] & 4 != 0 && Double(abs(xs[row] - xs[previous])) <= 8 && Double(abs(ys[row] - ys[previous])) <= 7.5
            }.count)
        }
        let contacts = BlackBox.contacts(report)
        XCTAssertEqual(contacts.count, 3)
        XCTAssertEqual(contacts.map { $0["displacement_mm"] as? Double }, displacement)
        XCTAssertEqual(contacts.map { $0["stationary_pressure_events"] as? Int }, stationary)
        XCTAssertTrue(displacement.contains { $0 > 0 }, "the recording moves, so the axes are told apart")
    }
}
