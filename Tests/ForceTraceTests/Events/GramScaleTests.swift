import Foundation
import XCTest
@testable import ForceTrace

/// A pressure axis with a resolution reports units per gram (the kernel's
/// multi-touch-protocol.rst): grams are raw / resolution, and only there.
final class GramScaleTests: XCTestCase {
    func testOnlyAPressureAxisWithAPositiveResolutionHasGrams() {
        XCTAssertNil(GramScale(axis: nil))
        XCTAssertNil(GramScale(axis: AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255, resolution: 0)))
        XCTAssertNil(GramScale(axis: AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255, resolution: -1)))
        XCTAssertEqual(GramScale(axis: AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255, resolution: 1))?.unitsPerGram, 1)
        XCTAssertEqual(GramScale(axis: AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 4095, resolution: 40))?.unitsPerGram, 40)
        // Positions' resolution is units per millimetre, never grams.
        XCTAssertNil(GramScale(axis: AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: 4095, resolution: 40)))
        XCTAssertNil(GramScale(axis: AxisInfo(code: 0x30, minimum: 0, maximum: 255, resolution: 2)))
    }

    /// The kernel's own examples: 10 at resolution 1 is 10 g, at 1000 it is 10 mg.
    func testGramsAreRawOverTheResolutionWithoutOffset() throws {
        let one = try XCTUnwrap(GramScale(axis: AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 255, resolution: 1)))
        XCTAssertEqual(one.grams(Int32(10)), 10)
        let thousand = try XCTUnwrap(GramScale(axis: AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 65535, resolution: 1000)))
        XCTAssertEqual(thousand.grams(Int32(10)), 0.01, accuracy: 1e-15)
        // A minimum above zero is not subtracted: the kernel's scale has no offset.
        let offset = try XCTUnwrap(GramScale(axis: AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 5, maximum: 255, resolution: 2)))
        XCTAssertEqual(offset.grams(Int32(5)), 2.5)
    }

    func testGramsAreWrittenOneWay() throws {
        let axis = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255, resolution: 2)
        let scale = try XCTUnwrap(GramScale(axis: axis))
        XCTAssertEqual(GramScale.text(62.5), "62.5 gf")
        XCTAssertEqual(scale.beside(125), "125 (62.5 gf)")
        XCTAssertEqual(scale.beside(125.25), "125.2 (62.6 gf)")
        XCTAssertEqual(scale.describe(axis), "2 units per gram, 0.0..127.5 gf")
        let single = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255, resolution: 1)
        XCTAssertEqual(try XCTUnwrap(GramScale(axis: single)).describe(single), "1 unit per gram, 0.0..255.0 gf")
    }

    func testAPressurePadIsTheKernelProperty() {
        var device = CalibrationSimulator.device(.touchpad)
        XCTAssertFalse(device.isPressurePad)
        XCTAssertNil(device.contactPressureGrams)
        device = CalibrationSimulator.device(.pressurepad)
        XCTAssertTrue(device.isPressurePad)
        XCTAssertEqual(device.contactPressureGrams?.unitsPerGram, CalibrationSimulator.simulatedPressurepadUnitsPerGram)
    }
}
