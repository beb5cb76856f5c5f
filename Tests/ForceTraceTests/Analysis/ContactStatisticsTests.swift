import XCTest
@testable import ForceTrace

/// Where a contact's measuring ends before any of its samples is read.
final class ContactStatisticsTests: XCTestCase {
    private func contact(tDown: Int64, tUp: Int64) -> Contact {
        Contact(id: 0, slot: 0, trackingID: 1, tool: 0, tDownNs: tDown, tUpNs: tUp, firstSample: 0, lastSample: 0, sampleCount: 1)
    }

    /// A lifted contact ends at its touch-up, t_up = 0 included; one still
    /// down (t_up −1) at the recording's last event, but never before its touch-down.
    func testAContactEndsAtItsTouchUpOrAtTheRecordingsEnd() {
        XCTAssertEqual(ContactStatistics(contact(tDown: 10, tUp: 50), recordingEndNs: 900).endNs, 50)
        XCTAssertEqual(ContactStatistics(contact(tDown: 0, tUp: 0), recordingEndNs: 900).endNs, 0, "t_up 0 is a touch-up")
        XCTAssertEqual(ContactStatistics(contact(tDown: 10, tUp: -1), recordingEndNs: 900).endNs, 900)
        XCTAssertEqual(ContactStatistics(contact(tDown: 10, tUp: -1), recordingEndNs: 10).endNs, 10)
        XCTAssertEqual(ContactStatistics(contact(tDown: 10, tUp: -1), recordingEndNs: 9).endNs, 10, "not before its touch-down")
    }
}
