import Foundation
import XCTest

/// The boundary fixtures on times (Tests/fixtures/README.md): the long-press
/// timeouts in `report` and in `suggest`, and calibration's trial discards.
/// Every expected number is worked out by hand in the fixture's comment.
final class TimingBoundaryTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try FormatTestSupport.temporaryDirectory(self)
    }

    // MARK: report: within 400 / 500 ms

    /// Times of 399.999, 400.000, 400.001, 499.999, 500.000 and 500.001 ms: only those below a timeout are within it.
    func testLongPressTimeoutsCountTimesStrictlyBelow() throws {
        let (trace, _) = try BlackBox.importTrace(BlackBox.fixture("long-press-timeouts.evemu"), into: directory)
        let within = "within the long-press timeouts (400 / 500 ms of n): "
            + "time_to_peak 2 / 8 of 12, t_peek 7 / 10 of 12, t_pop 2 / 8 of 12, peek_to_pop 7 / 10 of 12"
        let text = try BlackBox.run(["report", trace]).stdout
        XCTAssertTrue(text.contains(within), text)

        let html = directory.appendingPathComponent("long-press.html").path
        try BlackBox.run(["report", trace, "--html", html])
        XCTAssertTrue(try String(contentsOfFile: html, encoding: .utf8)
            .contains("(400 / 500 ms): time_to_peak 2 / 8 of 12, t_peek 7 / 10 of 12, t_pop 2 / 8 of 12, peek_to_pop 7 / 10 of 12."))

        let report = try BlackBox.report(trace)
        let contacts = BlackBox.contacts(report)
        let d = [0.399999, 0.4, 0.400001, 0.499999, 0.5, 0.500001]
        XCTAssertEqual(contacts.map { $0["time_to_peak_s"] as? Double }, d + d)
        XCTAssertEqual(contacts.map { $0["t_peek_s"] as? Double }, d + Array(repeating: 0, count: 6))
        XCTAssertEqual(contacts.map { $0["t_pop_s"] as? Double }, d + d)
        let histograms = BlackBox.summary(report)["histograms"] as? [String: Any]
        let bins = (histograms?["time_to_peak_s"] as? [String: Any])?["counts"] as? [Int] ?? []
        XCTAssertEqual(bins.enumerated().filter { $0.element > 0 }.map { [$0.offset, $0.element] }, [[39, 2], [40, 4], [49, 2], [50, 4]])
    }

    // MARK: calibrate and suggest

    private func calibrated() throws -> String {
        let output = directory.appendingPathComponent("calibration.h5").path
        try BlackBox.run(["calibrate", "--replay", BlackBox.fixture("calibration-app-boundaries.evemu"), "--fast",
                          "--protocol", "app", "--trials", "7", "-q", "-o", output])
        return output
    }

    /// 29.999 ms is discarded, 30.000 and 30.001 ms kept; two fingers (at once, or the second later) discarded.
    func testShortAndTwoFingerTrialsAreDiscardedAtTheirBoundaries() throws {
        let path = try calibrated()
        let trace = try BlackBox.Trace(path)
        defer { try? trace.close() }
        var labels: [String: [Int64]] = [:]
        for column in ["t_ns", "t_end_ns", "peak", "contact"] {
            labels[column] = try trace.recording.openGroup("labels").readArray(column, of: Int64.self)
        }
        let kept: [Int64] = [1] + Array(4...23)
        XCTAssertEqual(labels["t_ns"], kept.map { $0 * 1_000_000_000 }, "trials k 0, 2 and 3 discarded")
        XCTAssertEqual(labels["t_end_ns"]?.prefix(4), [1_030_000_000, 4_200_000_000, 5_600_000_000, 6_030_001_000])
        XCTAssertEqual(try trace.strings("labels", "class"), Array(repeating: ["tap", "peek-press", "pop-press"], count: 7).flatMap { $0 })
        XCTAssertEqual(labels["peak"], Array(repeating: [20, 50, 60], count: 7).flatMap { $0 })
        // Contacts: k 0 → 0, k 1 → 1, k 2 → 2 and 3, k 3 → 4 and 5, then one per trial.
        XCTAssertEqual(labels["contact"], [1] + Array(6...25))
    }

    /// Tie-breaks (peek 0.35, pop 0.55 of 300 tied pairs), the raw thresholds, and pops before 400 / 500 ms.
    func testAppSuggestionAtTheTimeoutsAndTheTieBreaks() throws {
        let path = try calibrated()
        let run = try BlackBox.run(["suggest", path, "--format", "json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let app = try XCTUnwrap(object["app"] as? [String: Any])
        XCTAssertEqual(app["peek"] as? Double, 0.35)
        XCTAssertEqual(app["pop"] as? Double, 0.55)
        XCTAssertEqual(app["peek_raw"] as? Int, 35)
        XCTAssertEqual(app["pop_raw"] as? Int, 55, "the least raw pressure whose normalized value reaches pop")
        XCTAssertEqual(app["confusion"] as? [Int], [7, 0, 0, 0, 7, 0, 0, 0, 7])
        XCTAssertEqual(app["pop_presses"] as? Int, 7)
        XCTAssertEqual(app["reached_pop"] as? Int, 7)
        XCTAssertEqual(app["median_time_to_pop_ms"] as? Double, 400.001)
        let before = try XCTUnwrap(app["before_long_press"] as? [[String: Any]])
        XCTAssertEqual(before.map { $0["timeout_ms"] as? Int }, [400, 500])
        XCTAssertEqual(before.map { $0["count"] as? Int }, [2, 5])
        XCTAssertEqual(before[0]["median_saved_ms"] as? Double ?? .nan, 150.0005, accuracy: 1e-9)
        XCTAssertEqual(before[1]["median_saved_ms"] as? Double ?? .nan, 100, accuracy: 1e-9)

        // report scores the same labelled peaks with the same sweep.
        let labelled = (BlackBox.summary(try BlackBox.report(path))["suggested_thresholds"] as? [String: Any])?["with_labels"] as? [String: Any]
        XCTAssertEqual(labelled?["peek"] as? Double, 0.35)
        XCTAssertEqual(labelled?["pop"] as? Double, 0.55)
        XCTAssertEqual(labelled?["tied_pairs"] as? Int, 300)
    }
}
