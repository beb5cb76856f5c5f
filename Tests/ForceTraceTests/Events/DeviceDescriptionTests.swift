import Foundation
import XCTest
@testable import ForceTrace

/// A device's description: its axes' ranges and the limits on what it may list.
final class DeviceDescriptionTests: XCTestCase {
    /// A range of one value (min = max) normalises nothing (nil, not a
    /// division by 0); a range of one step (max = min + 1) does.
    func testNormalizedNeedsARange() throws {
        let flat = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 7, maximum: 7)
        XCTAssertNil(flat.normalized(7))
        let step = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 7, maximum: 8)
        XCTAssertEqual(try XCTUnwrap(step.normalized(8)), 1)
        XCTAssertEqual(try XCTUnwrap(step.normalized(7)), 0)
    }

    /// A description may list 4096 properties (what one HDF5 attribute
    /// holds, `maximumProperties`): 4095 and 4096 pass, 4097 is refused.
    func testPropertiesStopAt4096() throws {
        func validate(_ count: Int) throws {
            var device = DeviceDescription(name: "many properties")
            device.properties = (0..<count).map { UInt16($0) }
            try device.validate(file: "props.evemu")
        }
        XCTAssertNoThrow(try validate(4095))
        XCTAssertNoThrow(try validate(4096))
        XCTAssertThrowsError(try validate(4097)) { error in
            XCTAssertTrue("\(error)".contains("the description lists 4097 properties; at most 4096 are accepted"), "\(error)")
        }
    }
}
