import Foundation
import XCTest

/// Every sample, shared recording and boundary fixture, imported by the
/// command-line tool, against the independent reading of its evemu text
/// (EvemuOracle): contacts from ABS_MT_TRACKING_ID transitions, rows per
/// contact, and contacts/first_sample, last_sample and n_samples against
/// the samples table.
final class OracleTests: XCTestCase {
    private func check(_ path: String, description: String? = nil) throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let (trace, _) = try BlackBox.importTrace(path, into: directory, extra: description.map { ["--desc", $0] } ?? [])
        let oracle = try EvemuOracle(path: path, descriptionPath: description)
        XCTAssertGreaterThan(oracle.events, 0, path)
        let file = try BlackBox.Trace(trace)
        defer { try? file.close() }
        try oracle.assertMatches(file, URL(fileURLWithPath: path).lastPathComponent)
    }

    func testSamplesAgreeWithTheirEvemuText() throws {
        for name in ["touchscreen-mixed.evemu", "touchscreen-deep-presses.evemu"] {
            let path = FormatTestSupport.samples.appendingPathComponent(name).path
            try check(path)
            XCTAssertGreaterThan(try EvemuOracle(path: path).contacts.count, 20, "\(name) is the substantial input it was")
        }
    }

    func testSharedRecordingsAgreeWithTheirEvemuText() throws {
        for (path, description) in try FormatTestSupport.sharedRecordingInputs() {
            try check(path, description: description)
        }
    }

    func testBoundaryFixturesAgreeWithTheirEvemuText() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: BlackBox.fixtures.path).filter { $0.hasSuffix(".evemu") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 8)
        for name in names { try check(BlackBox.fixture(name)) }
    }

    /// The oracle itself, on a fixture whose answer is worked out by hand.
    func testOracleOnAHandComputedFixture() throws {
        let oracle = try EvemuOracle(path: BlackBox.fixture("short-contacts.evemu"))
        XCTAssertEqual(oracle.contacts, [
            EvemuOracle.Contact(slot: 0, trackingID: 1, downNs: 0, upNs: 10_000_000, rows: 1),
            EvemuOracle.Contact(slot: 0, trackingID: 2, downNs: 1_000_000_000, upNs: 1_000_000_000, rows: 1),
            EvemuOracle.Contact(slot: 0, trackingID: 4, downNs: 3_000_000_000, upNs: -1, rows: 2),
        ])
        XCTAssertEqual(oracle.events, 21)
    }
}
