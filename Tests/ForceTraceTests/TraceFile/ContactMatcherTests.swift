import Foundation
import XCTest
@testable import ForceTrace

/// Which contact a label belongs to.
final class ContactMatcherTests: XCTestCase {
    /// A label matches the contact of its slot and tracking id whose
    /// touch-down is within 100 ms, the edge included: touch-down at 1 s,
    /// labels at 0.9 s and 1.1 s match, 1 ns further out do not. Of two
    /// contacts 50 ms either side, the first row wins the tie; a time that
    /// overflows the difference matches nothing instead of trapping.
    func testLabelMatchingWindowEdges() {
        let window = LabelTable.matchWindowNs, second: Int64 = 1_000_000_000
        let one = ContactMatcher(ids: [7], slots: [0], tracking: [3], down: [second])
        XCTAssertEqual(one.match(slot: 0, trackingID: 3, tNs: second - window), 7)
        XCTAssertEqual(one.match(slot: 0, trackingID: 3, tNs: second + window), 7)
        XCTAssertEqual(one.match(slot: 0, trackingID: 3, tNs: second - window - 1), -1)
        XCTAssertEqual(one.match(slot: 0, trackingID: 3, tNs: second + window + 1), -1)
        XCTAssertEqual(one.match(slot: 1, trackingID: 3, tNs: second), -1)
        XCTAssertEqual(one.match(slot: 0, trackingID: 4, tNs: second), -1)
        XCTAssertEqual(one.match(slot: 0, trackingID: 3, tNs: .min), -1)
        let two = ContactMatcher(ids: [7, 8], slots: [0, 0], tracking: [3, 3], down: [second - 50_000_000, second + 50_000_000])
        XCTAssertEqual(two.match(slot: 0, trackingID: 3, tNs: second), 7)
        XCTAssertEqual(two.match(slot: 0, trackingID: 3, tNs: second + 1), 8)
    }
}
