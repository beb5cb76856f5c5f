import XCTest
@testable import ForceTrace

/// The rules of each libinput release (WhatIf/LibinputRules.swift): which
/// release has which rule, pinned where it changes, and what each rule does
/// to a touchpad's or tablet's setup and decisions one unit either side of
/// its boundary. libinput itself checks the same rules in the kernel guest
/// (Tests/kernel, ft-whatif-versions).
final class LibinputRulesTests: XCTestCase {
    private func rules(_ text: String) -> LibinputRules { LibinputRules.at(LibinputVersion(text)!)! }
    private var pad: DeviceDescription { CalibrationSimulator.device(.touchpad) }
    private var pen: DeviceDescription { CalibrationSimulator.device(.pen) }

    private func set(_ version: String, _ lines: String, udevType: String = "touchpad", device: DeviceDescription? = nil) -> LibinputQuirkSet {
        let file = LibinputQuirksFile(path: "t.quirks", text: "[t]\nMatchUdevType=\(udevType)\n" + lines)
        return LibinputQuirkSet(name: "t", files: [file], device: device ?? pad, rules: rules(version))
    }

    func testVersionsParseAsLibinputAndPackagesWriteThem() {
        XCTAssertEqual(LibinputVersion("1.25.0"), LibinputVersion(1, 25, 0))
        XCTAssertEqual(LibinputVersion("1.22.1-1+deb12u1"), LibinputVersion(1, 22, 1))
        XCTAssertEqual(LibinputVersion("1.30")?.description, "1.30")
        for bad in ["", "1", "1.x", "1.25.", ".25", "1.2.3.4", "one.two"] { XCTAssertNil(LibinputVersion(bad), bad) }
        // A series sorts after its releases, so it takes its newest rules.
        XCTAssertLessThan(LibinputVersion(1, 30, 9), LibinputVersion(1, 30))
        XCTAssertLessThan(LibinputVersion(1, 30), LibinputVersion(1, 31, 0))
    }

    func testEachReleaseTakesTheRulesInForceAtItPinnedAtEachChange() {
        XCTAssertNil(LibinputRules.at(LibinputVersion(1, 21, 99)))
        XCTAssertEqual(rules("1.22.0").since, LibinputVersion(1, 22, 0))
        // Each change: the release before it does not have it, the release itself and the next do.
        let changes: [(String, String, (LibinputRules) -> Bool)] = [
            ("1.22.99", "1.23.0", \.pressurePadByModelQuirk),
            ("1.23.99", "1.24.0", \.tabletOffsetWithoutDistance),
            ("1.24.99", "1.25.0", \.touchpadRangeAddsOne),
            ("1.24.99", "1.25.0", \.palmThresholdZeroIsOff),
            ("1.25.99", "1.26.0", \.tabletQuirkRangeSwapped),
            ("1.26.99", "1.27.0", \.quirks.productList),
            ("1.29.99", "1.30.0", \.userQuirksFolder),
            ("1.30.0", "1.30.1", \.pressurePadByProperty),
            ("1.30.99", "1.31.0", \.quirks.pressurePadPropertyByName),
        ]
        for (before, at, rule) in changes {
            XCTAssertFalse(rule(rules(before)), before)
            XCTAssertTrue(rule(rules(at)), at)
        }
        // Changes that end: the tablet's +1 lives in 1.25 only, the swap from 1.26.0 to 1.30.1, ModelPressurePad 1.23 to 1.30.
        XCTAssertEqual(["1.24.9", "1.25.0", "1.25.9", "1.26.0"].map { rules($0).tabletRangeAddsOne }, [false, true, true, false])
        XCTAssertEqual(["1.25.9", "1.26.0", "1.30.1", "1.30.2"].map { rules($0).tabletQuirkRangeSwapped }, [false, true, true, false])
        XCTAssertEqual(["1.30.4", "1.31.0"].map { rules($0).pressurePadByModelQuirk }, [true, false])
        XCTAssertEqual(rules("1.23.0").tabletOffsetLimitPercent, 20)
        XCTAssertEqual(rules("1.24.0").tabletOffsetLimitPercent, 50)
        // "1.30" is its newest: swap fixed, property read; newer than the newest modelled takes the newest rules.
        XCTAssertEqual(rules("1.30"), rules("1.30.2"))
        XCTAssertEqual(rules("1.32.0"), LibinputRules.history.last)
        XCTAssertEqual(LibinputRules.differentWithin(LibinputVersion(1, 30)).map(\.since.description), ["1.30.1", "1.30.2"])
        XCTAssertEqual(LibinputRules.differentWithin(LibinputVersion(1, 25)).count, 0)
    }

    func testTouchpadDefaultsCountBothEndsOfTheRangeFrom125() {
        // 0..99: (int)(0.12*99)=11, (int)(0.10*99)=9; with +1: (int)(0.12*100)=12, (int)(0.10*100)=10.
        var small = pad
        small.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 99))
        let before = TouchpadPressureSetup(device: small, quirks: LibinputQuirkSet(name: "d", rules: rules("1.24.9")))
        let after = TouchpadPressureSetup(device: small, quirks: LibinputQuirkSet(name: "d", rules: rules("1.25.0")))
        XCTAssertEqual([before.high, before.low, after.high, after.low], [11, 9, 12, 10])
        // 0..255 gives 30:25 both ways: (int)30.6 = (int)30.72, (int)25.5 = (int)25.6.
        let wide = TouchpadPressureSetup(device: pad, quirks: LibinputQuirkSet(name: "d", rules: rules("1.25.0")))
        XCTAssertEqual([wide.high, wide.low], [30, 25])
    }

    func testPalmThresholdZeroFlagsEveryPressedTouchBefore125AndNothingFrom125() {
        let old = TouchpadPressureSetup(device: pad, quirks: set("1.24.0", "AttrPalmPressureThreshold=0\n"))
        let new = TouchpadPressureSetup(device: pad, quirks: set("1.25.0", "AttrPalmPressureThreshold=0\n"))
        XCTAssertEqual(old.palmThreshold, 0)
        XCTAssertNil(new.palmThreshold)
        // One above the boundary is a threshold in every release.
        XCTAssertEqual(TouchpadPressureSetup(device: pad, quirks: set("1.25.0", "AttrPalmPressureThreshold=1\n")).palmThreshold, 1)
    }

    func testPressurePadPropertyTurnsPressureOffFrom1301() {
        var haptic = pad
        haptic.properties.append(InputProperty.pressurePad)
        let before = TouchpadPressureSetup(device: haptic, quirks: LibinputQuirkSet(name: "d", rules: rules("1.30.0")))
        let after = TouchpadPressureSetup(device: haptic, quirks: LibinputQuirkSet(name: "d", rules: rules("1.30.1")))
        XCTAssertNil(before.ignored)
        XCTAssertEqual(after.ignored, .pressurePad(.property))
        XCTAssertNil(after.palmThreshold)
        // The quirk that sets the property: by hex from 1.23 (1.30.1 reads it), by name in 1.31 whatever libevdev knows.
        XCTAssertEqual(TouchpadPressureSetup(device: pad, quirks: set("1.30.4", "AttrInputProp=+0x07\n")).ignored, .pressurePad(.property))
        XCTAssertEqual(TouchpadPressureSetup(device: pad, quirks: set("1.31.3", "AttrInputProp=+INPUT_PROP_PRESSUREPAD\n")).ignored,
                       .pressurePad(.property))
        // A quirk can also take the property away again.
        XCTAssertNil(TouchpadPressureSetup(device: haptic, quirks: set("1.31.3", "AttrInputProp=-0x07\n")).ignored)
    }

    func testModelPressurePadIsKnownFrom123To130AndDropsEveryQuirkElsewhere() {
        let line = "ModelPressurePad=1\nAttrPalmPressureThreshold=200\n"
        for version in ["1.22.1", "1.31.0"] {
            let quirks = set(version, line)
            XCTAssertEqual(quirks.refused?.line, 3, version)
            XCTAssertNil(quirks.palmThreshold, version)
            XCTAssertNil(TouchpadPressureSetup(device: pad, quirks: quirks).ignored, version)
        }
        for version in ["1.23.0", "1.30.4"] {
            XCTAssertNil(set(version, line).refused, version)
            XCTAssertEqual(TouchpadPressureSetup(device: pad, quirks: set(version, line)).ignored, .pressurePad(.modelQuirk), version)
        }
        XCTAssertNil(TouchpadPressureSetup(device: pad, quirks: set("1.25.0", "ModelPressurePad=0\n")).ignored)
    }

    func testEventCodeQuirksTakeTheKeysOfTheirRelease() {
        // 1.22's …Disable keys are unknown from 1.23, and 1.23's +/- keys unknown before.
        XCTAssertNil(set("1.22.1", "AttrEventCodeDisable=ABS_MT_PRESSURE;ABS_PRESSURE\n").refused)
        XCTAssertNotNil(set("1.23.0", "AttrEventCodeDisable=ABS_MT_PRESSURE\n").refused)
        XCTAssertNotNil(set("1.22.1", "AttrEventCode=-ABS_MT_PRESSURE\n").refused)
        // Disabling both pressure axes leaves a pad without pressure.
        XCTAssertEqual(TouchpadPressureSetup(device: pad, quirks: set("1.23.0", "AttrEventCode=-ABS_MT_PRESSURE;-ABS_PRESSURE\n")).ignored,
                       .noPressureAxis)
        XCTAssertEqual(TouchpadPressureSetup(device: pad, quirks: set("1.22.1", "AttrEventCodeDisable=ABS_MT_PRESSURE;ABS_PRESSURE;\n")).ignored,
                       .noPressureAxis)
    }

    /// `libinput quirks validate` on one-line files, run on the builds of
    /// 1.22.1, 1.25.0, 1.28.1, 1.30.4 and 1.31.3 (libevdev 1.13.0, which has no
    /// name for INPUT_PROP_PRESSUREPAD): true where the release loads the file.
    func testTheParserAcceptsWhatEachReleaseAccepts() {
        let cases: [(String, [Bool])] = [
            ("AttrPressureRange=20:10", [true, true, true, true, true]),
            ("AttrPressureRange=none", [true, true, true, true, true]),
            ("AttrPressureRange=0:0", [false, false, false, false, false]),
            ("AttrPressureRange=10:20", [false, false, false, false, false]),
            ("AttrPressureRange=5:-1", [true, true, true, true, true]),
            ("AttrPressureRange=20:10abc", [true, true, true, true, true]),
            ("AttrPressureRange = 20:10", [false, false, false, false, false]),
            ("AttrPressureRange=\"20:10\"", [false, false, false, false, false]),
            ("AttrPressureRange=20:10 ", [false, false, false, false, false]),
            ("AttrPressureRange=20:10 # c", [true, true, true, true, true]),
            ("AttrPalmPressureThreshold=0", [true, true, true, true, true]),
            ("AttrPalmPressureThreshold=-1", [false, false, false, false, false]),
            ("AttrThumbPressureThreshold=abc", [false, false, false, false, false]),
            ("ModelPressurePad=1", [false, true, true, true, false]),
            ("AttrEventCode=-ABS_MT_PRESSURE", [false, true, true, true, true]),
            ("AttrEventCodeDisable=ABS_MT_PRESSURE", [true, false, false, false, false]),
            ("AttrInputPropEnable=INPUT_PROP_BUTTONPAD", [true, false, false, false, false]),
            ("AttrInputProp=+0x07", [false, true, true, true, true]),
            ("AttrIsVirtual=1", [false, false, false, true, true]),
            ("AttrFoo=1", [false, false, false, false, false]),
            ("ModelFoo=1", [false, false, false, false, false]),
        ]
        let versions = ["1.22.1", "1.25.0", "1.28.1", "1.30.4", "1.31.3"]
        for (line, accepted) in cases {
            let file = LibinputQuirksFile(path: "t", text: "[test]\nMatchUdevType=touchpad\n\(line)\n")
            XCTAssertEqual(versions.map { file.refusal(rules($0).quirks) == nil }, accepted, line)
        }
        let matches: [(String, [Bool])] = [
            ("MatchProduct=0x1;0x2", [false, false, true, true, true]),
            ("MatchUniq=abc", [false, false, true, true, true]),
            ("MatchUdevType=touchscreen", [false, false, false, false, false]),
            ("MatchVendor=0x1d6b", [false, false, false, false, false]),
        ]
        for (line, accepted) in matches {
            let file = LibinputQuirksFile(path: "t", text: "[test]\n\(line)\nAttrPressureRange=20:10\n")
            XCTAssertEqual(versions.map { file.refusal(rules($0).quirks) == nil }, accepted, line)
        }
        // A section with only a Match line, and one with an attribute before its Match line.
        XCTAssertNotNil(LibinputQuirksFile(path: "t", text: "[a]\nMatchUdevType=touchpad\n").syntaxError)
        XCTAssertNotNil(LibinputQuirksFile(path: "t", text: "[a]\nMatchUdevType=touchpad\n[b]\nMatchBus=usb\nAttrPressureRange=9:8\n").syntaxError)
        XCTAssertNotNil(LibinputQuirksFile(path: "t", text: "[a]\nAttrPressureRange=9:8\nMatchBus=usb\n").syntaxError)
        XCTAssertNotNil(LibinputQuirksFile(path: "t", text: "# only a comment\n").syntaxError)
        XCTAssertNil(LibinputQuirksFile(path: "t", text: "[a]\nMatchBus=usb\nAttrPressureRange==9:8\n").syntaxError)
    }

    func testQuirksFilesAreReadInVersionOrder() {
        let names = ["10-b.quirks", "9-a.quirks", "50-x.quirks", "5-y.quirks", "a.quirks"]
        XCTAssertEqual(names.sorted { LibinputQuirksFile.versionOrder($0, $1) },
                       ["5-y.quirks", "9-a.quirks", "10-b.quirks", "50-x.quirks", "a.quirks"])
    }

    // MARK: tablets

    private func penSetup(_ version: String, _ lines: String = "", device: DeviceDescription? = nil) -> TabletPressureSetup {
        let quirks = lines.isEmpty ? LibinputQuirkSet(name: "d", rules: rules(version))
            : set(version, lines, udevType: "tablet", device: device ?? pen)
        return TabletPressureSetup(device: device ?? pen, quirks: quirks)
    }

    func testTabletDefaultsCountBothEndsIn125Only() {
        var small = pen
        small.setAxis(AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 99))
        // 5 % of 99 = 4.95 → 4, 1 % → 0; of 100: 5 and 1.
        let tips = ["1.24.0", "1.25.0", "1.26.0", "1.31.3"].map { v in penSetup(v, device: small) }.map { [$0.upper, $0.lower] }
        XCTAssertEqual(tips, [[4, 0], [5, 1], [4, 0], [4, 0]])
    }

    func testTabletPressureRangeIsSwappedFrom126To1301() {
        let line = "AttrPressureRange=100:50\n"
        XCTAssertEqual(["1.25.0", "1.26.0", "1.28.1", "1.30.1", "1.30.2", "1.31.3"].map { v -> [Int32] in
            let setup = penSetup(v, line)
            return [setup.upper, setup.lower]
        }, [[100, 50], [50, 100], [50, 100], [50, 100], [100, 50], [100, 50]])
        // "none" keeps the defaults on a tablet (5 % and 1 % of 0..4095 = 204, 40) in every release.
        XCTAssertEqual([penSetup("1.28.1", "AttrPressureRange=none\n").upper, penSetup("1.22.1", "AttrPressureRange=none\n").upper], [204, 204])
    }

    /// Frames of a pen with ABS_PRESSURE (and ABS_DISTANCE when `distance`):
    /// each (pressure, distance?, proximity) becomes one frame.
    private func tips(_ version: String, quirks lines: String = "", distance: Bool = false,
                      _ frames: [(p: Int32, d: Int32?, x: Int32?, inProximity: Bool)]) -> (tips: [String], offsets: [Int32]) {
        var device = pen
        if distance { device.setAxis(AxisInfo(code: 0x19, minimum: 0, maximum: 100)) }
        let quirks = lines.isEmpty ? LibinputQuirkSet(name: "d", rules: rules(version))
            : set(version, lines, udevType: "tablet", device: device)
        var emulator = TabletEmulator(setup: TabletPressureSetup(device: device, quirks: quirks), device: device, rules: quirks.rules)
        var t: Int64 = 0, wasIn = false
        for frame in frames {
            t += 1_000_000
            if frame.inProximity != wasIn {
                emulator.feed(InputEvent(timeNs: t, type: EventType.key, code: Button.toolPen, value: frame.inProximity ? 1 : 0))
                wasIn = frame.inProximity
            }
            if let x = frame.x { emulator.feed(InputEvent(timeNs: t, type: EventType.abs, code: AbsoluteAxis.x, value: x)) }
            if let d = frame.d { emulator.feed(InputEvent(timeNs: t, type: EventType.abs, code: 0x19, value: d)) }
            emulator.feed(InputEvent(timeNs: t, type: EventType.abs, code: AbsoluteAxis.pressure, value: frame.p))
            emulator.feed(InputEvent(timeNs: t, type: EventType.syn, code: 0, value: 0))
        }
        return (emulator.decisions.map(\.logLine), emulator.offsets.map(\.offset))
    }

    func testOffsetLimitIs20PercentBefore124And50PercentFrom124() {
        // 0..4095: 20 % = 819, 50 % = 2047. A proximity in far away (distance 60 of 0..100) at the pressure given.
        for (version, pressure, taken) in [("1.23.0", 819, true), ("1.23.0", 820, false),
                                           ("1.24.0", 2047, true), ("1.24.0", 2048, false)] as [(String, Int32, Bool)] {
            let run = tips(version, distance: true, [(pressure, 60, nil, true), (0, 60, nil, false)])
            XCTAssertEqual(run.offsets, taken ? [pressure] : [], "\(version) at \(pressure)")
        }
        // Closer than half the distance range: no offset in any release (50 % of 0..100 = 50).
        XCTAssertEqual(tips("1.31.3", distance: true, [(300, 49, nil, true)]).offsets, [])
        XCTAssertEqual(tips("1.31.3", distance: true, [(300, 50, nil, true)]).offsets, [300])
    }

    func testPensWithoutDistanceTakeAnOffsetAtTheThirdProximityInFrom124() {
        // Three proximity-ins resting at 300, 280, 290: the lowest, 280, becomes the offset at the third.
        let frames: [(p: Int32, d: Int32?, x: Int32?, inProximity: Bool)] =
            [(300, nil, nil, true), (300, nil, 1, false), (280, nil, nil, true), (280, nil, 2, false), (290, nil, nil, true)]
        XCTAssertEqual(tips("1.23.0", frames).offsets, [])
        XCTAssertEqual(tips("1.24.0", frames).offsets, [280])
        // Two proximity-ins are not enough.
        XCTAssertEqual(tips("1.24.0", Array(frames.prefix(4))).offsets, [])
    }

    func testTheSwappedRangeFlipsTheTipOnEveryAxisUpdateBetweenItsEnds() {
        // AttrPressureRange=100:50 swapped: down at >= 50, up at <= 100; at 75 each axis update flips.
        let line = "AttrPressureRange=100:50\n"
        let frames: [(p: Int32, d: Int32?, x: Int32?, inProximity: Bool)] =
            [(0, nil, nil, true), (75, nil, nil, true), (75, nil, 1, true), (75, nil, 2, true), (75, nil, nil, true)]
        XCTAssertEqual(tips("1.28.1", quirks: line, frames).tips, ["tip down", "tip up", "tip down"])
        // The last frame carries no change (pressure equal): no update, no flip. Fixed releases go down once, at 100.
        XCTAssertEqual(tips("1.30.2", quirks: line, frames).tips, [])
        XCTAssertEqual(tips("1.30.2", quirks: line, [(0, nil, nil, true), (99, nil, nil, true), (100, nil, nil, true)]).tips, ["tip down"])
    }
}

/// The tool pressure range a desktop sets (1.26+), applied from the tool's
/// second proximity; 0–1 counts as a setting until 1.29 (48a3391f).
final class LibinputPressureRangeTests: XCTestCase {
    private var pen: DeviceDescription { CalibrationSimulator.device(.pen) }

    private func run(_ version: String, range: String?, _ frames: [(p: Int32, inProximity: Bool)]) -> (tips: [String], offsets: [Int32]) {
        let rules = LibinputRules.at(LibinputVersion(version)!)!
        let quirks = LibinputQuirkSet(name: "d", rules: rules)
        var emulator = TabletEmulator(setup: TabletPressureSetup(device: pen, quirks: quirks), device: pen, rules: rules,
                                      pressureRange: range.flatMap(LibinputPressureRange.init))
        var t: Int64 = 0, wasIn = false, x: Int32 = 0
        for frame in frames {
            t += 1_000_000; x += 1
            if frame.inProximity != wasIn {
                emulator.feed(InputEvent(timeNs: t, type: EventType.key, code: Button.toolPen, value: frame.inProximity ? 1 : 0))
                wasIn = frame.inProximity
            }
            emulator.feed(InputEvent(timeNs: t, type: EventType.abs, code: AbsoluteAxis.x, value: x))
            emulator.feed(InputEvent(timeNs: t, type: EventType.abs, code: AbsoluteAxis.pressure, value: frame.p))
            emulator.feed(InputEvent(timeNs: t, type: EventType.syn, code: 0, value: 0))
        }
        return (emulator.decisions.map(\.logLine), emulator.offsets.map(\.offset))
    }

    func testRangesParseAsLibinputAcceptsThem() {
        XCTAssertNotNil(LibinputPressureRange("0:1"))
        XCTAssertNotNil(LibinputPressureRange("0.1:0.9"))
        for bad in ["1:1", "0.5:0.4", "-0.1:0.5", "0:1.01", "1:1.5", "0", "a:b", "0:1:2"] { XCTAssertNil(LibinputPressureRange(bad), bad) }
    }

    func testTheFullRangeStopsOffsetsUntil129ButNotFrom130() {
        // A pen without ABS_DISTANCE resting at 300, 280, 290: 1.24+ takes 280 at the third proximity in, unless a range was set.
        let frames: [(p: Int32, inProximity: Bool)] = [(300, true), (300, false), (280, true), (280, false), (290, true)]
        XCTAssertEqual(run("1.25.0", range: "0:1", frames).offsets, [280], "no setting before 1.26")
        XCTAssertEqual(run("1.28.1", range: "0:1", frames).offsets, [])
        XCTAssertEqual(run("1.29.0", range: "0:1", frames).offsets, [])
        XCTAssertEqual(run("1.30.0", range: "0:1", frames).offsets, [280])
        XCTAssertEqual(run("1.28.1", range: nil, frames).offsets, [280])
    }

    func testANarrowedRangeMovesTheThresholdsFromTheSecondProximity() {
        // 0.1:0.9 of 0..4095: 409..3685; 5 % and 1 % of it above 409: 572 and 441. The first proximity keeps 204/40.
        for version in ["1.28.1", "1.30.4", "1.31.3"] {
            let first = run(version, range: "0.1:0.9", [(0, true), (571, true), (0, true), (0, false)])
            XCTAssertEqual(first.tips, ["tip down", "tip up"], version)
            let below = run(version, range: "0.1:0.9", [(0, true), (0, false), (0, true), (571, true), (0, true)])
            XCTAssertEqual(below.tips, [], version)
            let at = run(version, range: "0.1:0.9", [(0, true), (0, false), (0, true), (572, true), (441, true)])
            XCTAssertEqual(at.tips, ["tip down", "tip up"], version)
            let above = run(version, range: "0.1:0.9", [(0, true), (0, false), (0, true), (572, true), (442, true)])
            XCTAssertEqual(above.tips, ["tip down"], version)
        }
        XCTAssertEqual(run("1.25.0", range: "0.1:0.9", [(0, true), (0, false), (0, true), (300, true)]).tips, ["tip down"])
    }

    /// The thresholds whatif shows for the range are the ones its tips follow.
    func testTheRangeThresholdsShownAreTheOnesApplied() {
        func shown(_ version: String, _ range: String?) -> TipThresholds? {
            let rules = LibinputRules.at(LibinputVersion(version)!)!
            return TabletEmulator(setup: TabletPressureSetup(device: pen, quirks: LibinputQuirkSet(name: "d", rules: rules)),
                                  device: pen, rules: rules, pressureRange: range.flatMap(LibinputPressureRange.init)).rangeThresholds
        }
        XCTAssertEqual(shown("1.28.1", "0.1:0.9"), TipThresholds(upper: 572, lower: 441))
        XCTAssertEqual(shown("1.31.3", "0.1:0.9"), TipThresholds(upper: 572, lower: 441))
        XCTAssertEqual(shown("1.31.3", "0:1"), TipThresholds(upper: 204, lower: 40), "the full range keeps the defaults")
        XCTAssertNil(shown("1.25.0", "0.1:0.9"), "no range setting before 1.26")
        XCTAssertNil(shown("1.31.3", nil))
    }
}
