import XCTest
@testable import ForceTrace

/// When libinput ignores a touchpad's pressure, and the numbers its
/// setup derives (docs/ANALYSIS.md, "What libinput would do"); each expected
/// value worked out in the comment beside it.
final class WhatIfSetupTests: XCTestCase {
    /// The simulated touchpad: slots 0..1, ABS_MT_PRESSURE 0..255, clickpad, y 0..4095 at 40 units/mm, USB.
    private var pad: DeviceDescription { CalibrationSimulator.device(.touchpad) }

    private func quirks(_ text: String) -> LibinputQuirkSet {
        let file = LibinputQuirksFile(path: "t.quirks", text: "[t]\nMatchUdevType=touchpad\n" + text)
        return LibinputQuirkSet(name: "t", files: [file], device: pad)
    }

    func testDefaults() {
        let setup = TouchpadPressureSetup(device: pad, quirks: LibinputQuirkSet(name: "defaults"))
        // (int)(0.12 * 255) = 30, (int)(0.10 * 255) = 25; palm 130;
        // 4095 / 40 = 102.375 mm high: upper thumb line (int)(102.375 * 0.85 * 40) = (int)3480.75 = 3480.
        XCTAssertEqual([setup.high, setup.low, setup.palmThreshold, setup.jailLine], [30, 25, 130, 3480])
        XCTAssertNil(setup.ignored)
        XCTAssertEqual(setup.slots, 2)
    }

    func testRangeAtTheAxisEdgesIsKeptOneBeyondIsDiscarded() throws {
        // hi = max (255) is inside the axis; 256 is not (tp_init_pressure's bounds check).
        XCTAssertNil(TouchpadPressureSetup(device: pad, quirks: quirks("AttrPressureRange=255:0\n")).ignored)
        XCTAssertEqual(TouchpadPressureSetup(device: pad, quirks: quirks("AttrPressureRange=256:0\n")).ignored,
                       .outOfBounds(LibinputRange(high: 256, low: 0)))
        XCTAssertEqual(TouchpadPressureSetup(device: pad, quirks: quirks("AttrPressureRange=none\n")).ignored, .disabledByQuirk)
    }

    func testPressurePadAndTouchSize() throws {
        var device = pad
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255, resolution: 1))
        let padSetup = TouchpadPressureSetup(device: device, quirks: LibinputQuirkSet(name: "d"))
        XCTAssertEqual(padSetup.ignored, .pressurePad(.resolution(1)))
        XCTAssertNil(padSetup.palmThreshold)
        // Touch size needs ABS_MT_TOUCH_MAJOR and 5 slots: with 2 slots pressure still decides.
        var sized = pad
        sized.setAxis(AxisInfo(code: 0x30, minimum: 0, maximum: 2048))
        var set = LibinputQuirkSet(name: "s")
        set.touchSizeRange = LibinputRange(high: 150, low: 130)
        XCTAssertNil(TouchpadPressureSetup(device: sized, quirks: set).ignored)
        sized.setAxis(AxisInfo(code: AbsoluteAxis.mtSlot, minimum: 0, maximum: 4))
        XCTAssertEqual(TouchpadPressureSetup(device: sized, quirks: set).ignored, .touchSize(LibinputRange(high: 150, low: 130)))
    }

    func testSemiMTAndExternalPadsHaveNoPressurePalm() {
        var semi = pad
        semi.properties.append(0x03)
        let semiSetup = TouchpadPressureSetup(device: semi, quirks: LibinputQuirkSet(name: "d"))
        XCTAssertFalse(semiSetup.hasMT)
        XCTAssertNil(semiSetup.palmThreshold)
        XCTAssertEqual(semiSetup.high, 30)   // from ABS_PRESSURE 0..255
        var bluetooth = pad
        bluetooth.bus = 0x05
        XCTAssertNil(TouchpadPressureSetup(device: bluetooth, quirks: LibinputQuirkSet(name: "d")).palmThreshold)
        var magic = pad
        magic.vendor = 0x05ac; magic.product = 0x0265
        XCTAssertNil(TouchpadPressureSetup(device: magic, quirks: LibinputQuirkSet(name: "d")).palmThreshold)
        magic.product = 0x0266
        XCTAssertEqual(TouchpadPressureSetup(device: magic, quirks: LibinputQuirkSet(name: "d")).palmThreshold, 130)
    }

    func testLaterSectionsWinAndMatchesMustAllHold() throws {
        let text = """
        [a]
        MatchUdevType=touchpad
        AttrPalmPressureThreshold=200
        [b]
        MatchVendor=0x1D6B
        MatchProduct=0x0001;0x7F02
        AttrPalmPressureThreshold=210
        [c]
        MatchBus=bluetooth
        AttrPalmPressureThreshold=220
        [d]
        MatchDMIModalias=dmi:*
        AttrPalmPressureThreshold=230
        """
        // MatchProduct lists are read from 1.27.
        let set = LibinputQuirkSet(name: "x", files: [LibinputQuirksFile(path: "x", text: text)], device: pad,
                                   rules: LibinputRules.at(LibinputVersion(1, 27, 0))!)
        XCTAssertEqual(set.palmThreshold, 210)
        XCTAssertEqual(set.matched.count, 2)
        XCTAssertEqual(set.undecided, ["x:11 [d]"])
    }
}
