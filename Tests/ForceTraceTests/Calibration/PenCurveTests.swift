import Foundation
import XCTest
@testable import ForceTrace

/// The pen protocol's curve: simulated people aiming through a
/// scripted curve, recovered through the live pipeline; the curve's maths;
/// `--targets` at its edges; each desktop's setting as values.
final class PenCurveTests: XCTestCase {
    /// A pen calibration as `calibrate --replay --fast` runs it, then the suggestion.
    private func suggest(_ simulation: CalibrationSimulation, trials: Int, targets: PenTargets = .default) throws -> CalibrationSuggestion {
        let path = try makeTemporaryDirectory(self).appendingPathComponent("pen.h5").path
        let source = CalibrationSource(ReplaySource(recording: simulation.recording, speed: nil), protocol: .pen, trials: trials)
        let recorder = try Recorder(source: source, path: path, name: "session")
        XCTAssertEqual(try recorder.run(stop: nil).reason, .sessionComplete)
        try CalibrationLabels.write(source.session.trials, protocol: .pen, toFile: path, recording: "session")
        let trace = try TraceReader(path: path).recording("session")
        return CalibrationSuggestion(protocol: .pen, trials: try trace.labelledTrials(for: .pen), device: trace.device,
                                     axis: try XCTUnwrap(trace.device.contactPressureAxis), file: path, recording: "session", targets: targets)
    }

    /// Largest gap between two curves' outputs, in percentage points, over inputs 0–1.
    private func distance(_ a: PressureCurve, _ b: PressureCurve) -> Double {
        (0...200).map { abs(a.output(at: Double($0) / 200) - b.output(at: Double($0) / 200)) * 100 }.max()!
    }

    func testScriptedCurvesAreRecovered() throws {
        let curves = [PressureCurve(40, 10, 80, 60), PressureCurve(0, 5, 95, 100), PressureCurve(5, 0, 100, 95),
                      PressureCurve(20, 40, 60, 90), PressureCurve(50, 0, 100, 50), .linear]
        for (index, curve) in curves.enumerated() {
            let script = PenScript(curve: curve, range: 250...3800)
            let simulation = CalibrationSimulator.run(device: .pen, protocol: .pen, trials: 10, seed: UInt64(index + 1), penScript: script)
            let profile = try XCTUnwrap(try suggest(simulation, trials: 10).pen?.profile)
            XCTAssertEqual(profile.usableRange, script.range, "\(curve): the lowest light stroke to the highest full press")
            let fit = try XCTUnwrap(profile.rangeFit)
            XCTAssertEqual(fit.points.map(\.role), [.light, .normal, .firm])
            XCTAssertLessThanOrEqual(fit.maxErrorPoints, 0.5, "\(curve) fitted as \(fit.curve)")
            let gap = distance(fit.curve, curve)
            XCTAssertLessThanOrEqual(gap, 1.0, "\(curve) fitted as \(fit.curve)")
            print("pen curve \(curve) -> \(fit.curve): max error at targets \(String(format: "%.2f", fit.maxErrorPoints)) points, curves apart by at most \(String(format: "%.2f", gap)) points")
            XCTAssertTrue(fit.curve.isRising)
            XCTAssertEqual(profile.peaks(.fullPress)?.count, 10)
        }
        // The default curve's control points come back exactly.
        let simulation = CalibrationSimulator.run(device: .pen, protocol: .pen, trials: 10, seed: 1)
        XCTAssertEqual(try suggest(simulation, trials: 10).pen?.profile?.rangeFit?.curve, PenScript.default.curve)
    }

    func testOtherTargetsAreMet() throws {
        let targets = try XCTUnwrap(PenTargets(parsing: "10,40,90"))
        let script = PenScript(curve: PressureCurve(30, 0, 90, 70), range: 400...3000, targets: targets)
        let simulation = CalibrationSimulator.run(device: .pen, protocol: .pen, trials: 6, seed: 9, penScript: script)
        let fit = try XCTUnwrap(try suggest(simulation, trials: 6, targets: targets).pen?.profile?.rangeFit)
        XCTAssertEqual(fit.points.map(\.target), [0.10, 0.40, 0.90])
        XCTAssertLessThanOrEqual(fit.maxErrorPoints, 0.5)
        XCTAssertLessThanOrEqual(distance(fit.curve, script.curve), 1.0)
        // The same strokes aimed at the default targets give another curve: the targets are used.
        let other = try XCTUnwrap(try suggest(simulation, trials: 6).pen?.profile?.rangeFit)
        XCTAssertEqual(other.points.map(\.target), [0.25, 0.50, 0.85])
        XCTAssertGreaterThan(distance(other.curve, script.curve), 5)
        XCTAssertEqual(other.points.map(\.errorPoints), other.points.map { abs($0.output - $0.target) * 100 })
    }

    func testTargetsAtTheirEdges() {
        XCTAssertEqual(PenTargets(parsing: "25,50,85"), .default)
        XCTAssertNotNil(PenTargets(parsing: "0,50,100"), "0 and 100 are allowed")
        XCTAssertNil(PenTargets(parsing: "-0.01,50,100"), "one step below 0")
        XCTAssertNil(PenTargets(parsing: "0,50,100.01"), "one step above 100")
        XCTAssertNil(PenTargets(parsing: "25,50,50"), "equal targets")
        XCTAssertNotNil(PenTargets(parsing: "25,50,50.01"))
        XCTAssertNil(PenTargets(parsing: "25,25,85"))
        XCTAssertNotNil(PenTargets(parsing: "25,25.01,85"))
        XCTAssertNil(PenTargets(parsing: "25,50"))
        XCTAssertNil(PenTargets(parsing: "25,50,85,90"))
        XCTAssertNil(PenTargets(parsing: "25,,85"))
        XCTAssertNil(PenTargets(parsing: "nan,50,85"))
    }

    func testCurveShapes() {
        for input in stride(from: 0.0, through: 1.0, by: 0.05) {
            XCTAssertEqual(PressureCurve.linear.output(at: input), input, accuracy: 1e-9)
        }
        // wacom(4): "5 0 100 95" is firmer (less output for the same input), "0 5 95 100" softer.
        XCTAssertLessThan(PressureCurve(5, 0, 100, 95).output(at: 0.5), 0.5)
        XCTAssertGreaterThan(PressureCurve(0, 5, 95, 100).output(at: 0.5), 0.5)
        let curve = PressureCurve(40, 10, 80, 60)
        for output in [0.1, 0.25, 0.5, 0.85] {
            XCTAssertEqual(curve.output(at: curve.input(for: output)), output, accuracy: 1e-6)
        }
        XCTAssertEqual(curve.output(at: 0), 0, accuracy: 1e-12)
        XCTAssertEqual(curve.output(at: 1), 1, accuracy: 1e-12)
        // Rising: x1 <= x2 and y1 <= y2, every coordinate 0-100.
        XCTAssertTrue(PressureCurve(50, 10, 50, 60).isRising)
        XCTAssertFalse(PressureCurve(51, 10, 50, 60).isRising)
        XCTAssertTrue(PressureCurve(10, 60, 50, 60).isRising)
        XCTAssertFalse(PressureCurve(10, 61, 50, 60).isRising)
        XCTAssertTrue(PressureCurve(0, 0, 100, 100).isRising)
        XCTAssertFalse(PressureCurve(-1, 0, 100, 100).isRising)
        XCTAssertFalse(PressureCurve(0, 0, 101, 100).isRising)
        XCTAssertEqual(PressureCurve(parsing: "40,10,80,60"), curve)
        XCTAssertEqual(PressureCurve(parsing: "40 10 80 60"), curve)
        XCTAssertNil(PressureCurve(parsing: "80,10,40,60"))
        XCTAssertNil(PressureCurve(parsing: "40,10,80"))
    }

    func testKWinString() {
        XCTAssertEqual(PressureCurve(40, 10, 80, 60).kwinString, "0.40,0.10;0.80,0.60;")
        XCTAssertEqual(PressureCurve.linear.kwinString, "0,0;1,1;")
        XCTAssertEqual(PressureCurve(5, 0, 100, 95).kwinString, "0.05,0;1,0.95;")
    }

    private func trials(light: [Int32], normal: [Int32], firm: [Int32], full: [Int32]) -> [LabelledTrial] {
        [(TrialClass.strokeLight, light), (.strokeNormal, normal), (.strokeFirm, firm), (.fullPress, full)].flatMap { entry in
            entry.1.map { LabelledTrial(trialClass: entry.0, peak: $0, startNs: 0) }
        }
    }

    func testMediansThatDoNotRiseAreNamed() {
        let axis = AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 1000)
        let rule = "the medians do not rise"
        let same = PenProfile(trials: trials(light: [100, 500], normal: [300, 300], firm: [600], full: [900]), axis: axis)
        XCTAssertTrue(same.notes.contains { $0.hasPrefix(rule) }, "light median 300 = normal median 300")
        let above = PenProfile(trials: trials(light: [100, 499], normal: [300, 300], firm: [600], full: [900]), axis: axis)
        XCTAssertFalse(above.notes.contains { $0.hasPrefix(rule) }, "light median 299.5 < 300")
        let firmEqual = PenProfile(trials: trials(light: [100], normal: [300], firm: [300], full: [900]), axis: axis)
        XCTAssertTrue(firmEqual.notes.contains { $0.hasPrefix(rule) })
        // No full press: the range ends at the firmest stroke, and says so.
        let noFull = PenProfile(trials: trials(light: [100], normal: [300], firm: [600, 700], full: []), axis: axis)
        XCTAssertEqual(noFull.usableRange, 100...700)
        XCTAssertTrue(noFull.notes.contains { $0.contains("no full presses") })
        // A range needs its top above its bottom: equal is refused, one above is not.
        let flat = PenProfile(trials: trials(light: [500], normal: [500], firm: [500], full: [500]), axis: axis)
        XCTAssertNil(flat.usableRange)
        XCTAssertNil(flat.rangeFit)
        let thin = PenProfile(trials: trials(light: [500], normal: [500], firm: [500], full: [501]), axis: axis)
        XCTAssertEqual(thin.usableRange, 500...501)
    }

    func testActivationAndHoverNoise() {
        let axis = AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 1000)
        func stroke(_ trialClass: TrialClass, first: Int32, peak: Int32) -> LabelledTrial {
            LabelledTrial(trialClass: trialClass, peak: peak, startNs: 0,
                          curve: [PressurePoint(tNs: 0, pressure: first), PressurePoint(tNs: 1, pressure: peak)])
        }
        let profile = PenProfile(trials: [stroke(.strokeLight, first: 12, peak: 100), stroke(.strokeNormal, first: 20, peak: 300),
                                          stroke(.strokeFirm, first: 30, peak: 600), stroke(.fullPress, first: 16, peak: 900),
                                          LabelledTrial(trialClass: .hover, peak: 7, startNs: 0),
                                          LabelledTrial(trialClass: .hover, peak: 3, startNs: 0)], axis: axis)
        XCTAssertEqual(profile.activation, 18, "median of 12, 16, 20, 30")
        XCTAssertEqual(profile.hoverNoise, 7)
    }

    func testSettingsAsValues() throws {
        let simulation = CalibrationSimulator.run(device: .pen, protocol: .pen, trials: 10, seed: 1)
        let suggestion = try suggest(simulation, trials: 10)
        let profile = try XCTUnwrap(suggestion.pen?.profile)
        let tip = try XCTUnwrap(suggestion.pen?.tip.value)
        XCTAssertEqual(try suggestion.penSetting(.xsetwacom).get(),
                       .xsetwacom(device: "forcetrace simulated pen stylus", curve: profile.axisFit!.curve,
                                  threshold: Int((Double(tip) / 4095 * 2048).rounded())))
        // GNOME 47's range in whole percents, widened: 300/4095 = 7.3 %, 3700/4095 = 90.4 %; the curve fitted over it.
        let gnomeCurve = try XCTUnwrap(profile.fit(over: 4095 * 0.07...4095 * 0.91)).curve
        XCTAssertEqual(try suggestion.penSetting(.gsettings).get(),
                       .gsettings(path: "/org/gnome/desktop/peripherals/stylus/default-1d6b:7f04/", curve: profile.axisFit!.curve,
                                  range: 7...91, rangeCurve: gnomeCurve))
        XCTAssertEqual(profile.fit(over: 300...3700), profile.rangeFit)
        XCTAssertEqual(try suggestion.penSetting(.hyprland).get(), .hyprland(minimum: 300.0 / 4095, maximum: 3700.0 / 4095))
        XCTAssertEqual(PenSetting.hyprland(minimum: 300.0 / 4095, maximum: 3700.0 / 4095).lines,
                       ["hl.config({ input = { tablettool = { pressure_range_min = 0.0733, pressure_range_max = 0.9035 } } })"])
        XCTAssertEqual(try suggestion.penSetting(.kwin).get(), .kwin(curve: PenScript.default.curve, rangeMinimum: 300.0 / 4095, rangeMaximum: 3700.0 / 4095))
        XCTAssertEqual(try suggestion.penSetting(.libinputRange).get(), .libinputRange(minimum: 300.0 / 4095, maximum: 3700.0 / 4095))
        XCTAssertEqual(PenSetting.libinputRange(minimum: 300.0 / 4095, maximum: 3700.0 / 4095).lines, ["minimum=0.0733", "maximum=0.9035"])
        // The axis fit aims the range's ends at 0 and 100 % as well.
        XCTAssertEqual(profile.axisFit?.points.map(\.role), [.rangeLow, .light, .normal, .firm, .rangeHigh])
        for format in [SuggestionFormat.text, .json, .quirks, .libinputPlugin] {
            XCTAssertThrowsError(try suggestion.penSetting(format).get())
        }
    }

    func testPenFormatsAreRefusedForOtherProtocols() throws {
        let axis = AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255)
        let touchpad = CalibrationSuggestion(protocol: .touchpad, trials: [LabelledTrial(trialClass: .light, peak: 40, startNs: 0)],
                                             device: CalibrationSimulator.device(.touchpad), axis: axis, file: "t.h5", recording: "r")
        for format in [SuggestionFormat.xsetwacom, .gsettings, .kwin, .libinputRange, .hyprland] {
            guard case .failure(let error) = touchpad.penSettingText(format) else { return XCTFail("\(format) for a touchpad") }
            XCTAssertTrue(error.message.contains("is a pen setting; this is a touchpad calibration"), error.message)
        }
        guard case .failure(let error) = touchpad.libinputPlugin() else { return XCTFail("a plugin for a touchpad") }
        XCTAssertEqual(error.message, "--format libinput-plugin is for a pen calibration; this is a touchpad calibration")
        XCTAssertEqual(error.hint, "use --format quirks for a touchpad, or text or json")
    }

    func testGnomeRangeIsWidenedToWholePercents() {
        XCTAssertEqual(PenSetting.wholePercents(0.0733, 0.9035), 7...91)
        XCTAssertEqual(PenSetting.wholePercents(0.07, 0.91), 7...91, "whole percents stay as they are")
        XCTAssertEqual(PenSetting.wholePercents(0.0799, 0.9001), 7...91)
        XCTAssertEqual(PenSetting.wholePercents(0, 1), 0...100)
        XCTAssertEqual(PenSetting.wholePercents(0.5, 0.5), 50...51, "never an empty range, which GNOME ignores")
        XCTAssertEqual(PenSetting.wholePercents(0.999, 1), 99...100)
    }

    func testShellWordsShowOnlyPrintableCharacters() {
        let plain = ShellText.word("Wacom Intuos Pro M Pen stylus", variable: "device")
        XCTAssertEqual(plain.setup, [])
        XCTAssertEqual(plain.word, "'Wacom Intuos Pro M Pen stylus'")
        XCTAssertEqual(ShellText.word("it's", variable: "device").word, "'it'\\''s'")
        let hostile = ShellText.word("a\u{1b}[31m\n%s\\'\u{202e}", variable: "device")
        XCTAssertEqual(hostile.word, "\"$device\"")
        XCTAssertEqual(hostile.setup, ["device=$(printf 'a\\033[31m\\012%%s\\\\'\\''\\342\\200\\256_')", "device=${device%_}"])
        for line in hostile.setup + [ShellText.comment("x\u{1b}y\u{2028}\\")] {
            XCTAssertFalse(line.unicodeScalars.contains { $0.isControlCode || $0.reordersOrBreaksText }, line)
        }
        XCTAssertEqual(ShellText.comment("x\u{1b}y\u{2028}\\"), "# x\\x1by\\u2028\\\\")
    }

    /// The local search takes every gain over 1e-15 and only those: no rising
    /// neighbour one step away beats the fitted curve by more. These aims
    /// (found by searching targets near a change of the fit) put a neighbour
    /// 1e-15 to 2e-15 below a curve on the search's way, so a wider margin
    /// stops a step early.
    func testTheFitTakesEveryGainOverItsMargin() {
        let aims: [(role: CurvePoint.Role, input: Double, target: Double)] = [
            (.rangeLow, 0, 0), (.light, 0.18832396738752272, 0.31942930484689347),
            (.normal, 0.43611708642499075, 0.4040555196669394), (.firm, 0.8462807962120835, 0.7070206088523312),
            (.rangeHigh, 1, 1)]
        let fitted = CurveFit.fit(aims).curve
        let cost = CurveFit.cost(fitted, aims)
        var nearest = Double.infinity
        for d1 in -1...1 { for d2 in -1...1 { for d3 in -1...1 { for d4 in -1...1 {
            let neighbour = PressureCurve(fitted.x1 + d1, fitted.y1 + d2, fitted.x2 + d3, fitted.y2 + d4)
            guard neighbour != fitted, neighbour.isRising else { continue }
            let gain = cost - CurveFit.cost(neighbour, aims)
            XCTAssertLessThanOrEqual(gain, 1e-15, "\(neighbour) beats \(fitted) by \(gain)")
            nearest = min(nearest, abs(gain))
        } } } }
        XCTAssertGreaterThan(nearest, 0, "a neighbour ties the fitted curve exactly")
    }

    /// A pen curve's ends are exactly (0, 0) and (1, 1): the inputs 0 and 1
    /// and beyond are not left to the bisection, which would land within
    /// 2^-48 of them but not on them (at 0 it gives about 3 t y1 with t =
    /// 2^-49, some 1e-15). Inside, 0.5 goes through the bisection.
    func testPenCurveEndsAreExact() {
        let curve = PressureCurve(20, 40, 60, 90)
        XCTAssertEqual(curve.output(at: -0.01), 0)
        XCTAssertEqual(curve.output(at: 0), 0)
        XCTAssertGreaterThan(curve.output(at: 0.01), 0)
        XCTAssertLessThan(curve.output(at: 0.99), 1)
        XCTAssertEqual(curve.output(at: 1), 1)
        XCTAssertEqual(curve.output(at: 1.01), 1)
    }

    /// A pen axis whose range is one value (minimum = maximum) gives the
    /// curve over the usable range but none over the axis (no division by 0).
    func testPenCurveOverADegenerateAxisHasNoAxisFit() {
        func trials(_ trialClass: TrialClass, _ peaks: [Int32]) -> [LabelledTrial] {
            peaks.map { LabelledTrial(trialClass: trialClass, peak: $0, startNs: 0, curve: [PressurePoint(tNs: 0, pressure: $0)]) }
        }
        let all = trials(.strokeLight, [10, 12]) + trials(.strokeNormal, [20, 22]) + trials(.strokeFirm, [30, 32]) + trials(.fullPress, [40])
        let flat = PenProfile(trials: all, axis: AxisInfo(code: AbsoluteAxis.pressure, minimum: 100, maximum: 100))
        XCTAssertNotNil(flat.rangeFit)
        XCTAssertNil(flat.axisFit)
        let usable = PenProfile(trials: all, axis: AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 1))
        XCTAssertNotNil(usable.axisFit)
    }
}
