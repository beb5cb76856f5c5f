import Foundation
import XCTest
@testable import ForceTrace

/// `suggest --format libinput-plugin`: the Lua is checked by the real
/// `luac5.4 -p` and run by the real `lua5.4` in a harness standing in for
/// libinput (Tests/libinput-plugin/harness.lua) that prints what the plugin does.
final class LibinputPluginTests: XCTestCase {
    static let harness = FormatTestSupport.packageRoot.appendingPathComponent("Tests/libinput-plugin/harness.lua").path

    let plugin = LibinputPlugin(name: "Wacom Intuos S Pen", bus: 0x03, vendor: 0x056a, product: 0x0374,
                                axisMinimum: 0, axisMaximum: 4095, range: 300...3700, curve: PressureCurve(40, 10, 80, 60))

    /// Names that break naive quoting: long-bracket ends, quotes, backslashes,
    /// escapes that would swallow the next digit, controls, UTF-8 and direction marks.
    static let hostileNames = ["]]", "a]]b]=]", "\"", "it's \"a\" pen", "\\", "\\\"", "\\0", "x\\065", "\n", "pen\n", "\r\t\u{1b}[31m\u{07}\u{7f}",
                               "\u{01}2", "Stift für Grafiktabletts – €", "\u{202e}nep\u{202c}", "\u{200f}\u{061c}x", "\u{2028}\u{0085}", "--[[", "%s%d", ""]

    private func tool(_ name: String) throws -> String {
        for directory in ["/usr/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        if ProcessInfo.processInfo.environment["FORCETRACE_REQUIRE_LUA"] != nil {
            XCTFail("\(name) is not installed: apt-get install lua5.4 (make test-swift does)")
        }
        throw XCTSkip("\(name) (Debian package lua5.4) is not installed")
    }

    /// Runs `program arguments` with `input` on standard input: status, standard output, standard error.
    private func run(_ program: String, _ arguments: [String], input: String = "") throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, errors)
    }

    private func write(_ plugin: LibinputPlugin) throws -> String {
        let path = try makeTemporaryDirectory(self).appendingPathComponent("50-forcetrace-pen.lua").path
        try plugin.text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The harness's output lines for `script` run against `plugin`.
    private func harness(_ plugin: LibinputPlugin, _ script: [String]) throws -> [String] {
        let (status, output, errors) = try run(try tool("lua5.4"), [Self.harness, try write(plugin)], input: script.map { $0 + "\n" }.joined())
        XCTAssertEqual(status, 0, errors)
        XCTAssertEqual(errors, "")
        return output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    private func device(bus: UInt16 = 0x03, vendor: UInt16 = 0x056a, product: UInt16 = 0x0374, axis: ClosedRange<Int32> = 0...4095,
                        name: String = "Wacom Intuos S Pen") -> String {
        "device \(bus) \(vendor) \(product) \(axis.lowerBound) \(axis.upperBound) " + name.utf8.map { String(format: "%02x", $0) }.joined()
    }

    static let pressure = (3 << 16) | 0x18, absX = 3 << 16

    /// What the fitted curve makes of `raw`, from the Swift PressureCurve: the
    /// range's input through the curve, back to raw units, rounded half up.
    private func expected(_ raw: Int32, _ plugin: LibinputPlugin) -> Int32 {
        let (low, high) = (Double(plugin.range.lowerBound), Double(plugin.range.upperBound))
        guard plugin.range.contains(raw) else { return raw }
        return Int32((low + plugin.curve.output(at: (Double(raw) - low) / (high - low)) * (high - low) + 0.5).rounded(.down))
    }

    func testLuacAcceptsThePluginForHostileNames() throws {
        let luac = try tool("luac5.4")
        for name in Self.hostileNames + ["Wacom Intuos S Pen"] {
            var plugin = plugin
            plugin.name = name
            let (status, _, errors) = try run(luac, ["-p", try write(plugin)])
            XCTAssertEqual(status, 0, "\(name.debugDescription): \(errors)")
            // Only printable ASCII and the lines' own newlines.
            XCTAssertTrue(plugin.text.utf8.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x0A }, name.debugDescription)
        }
    }

    func testTheCheckCanFail() throws {
        // luac refuses a literal that a naive quoting would write.
        let path = try makeTemporaryDirectory(self).appendingPathComponent("bad.lua").path
        try "local NAME = \"pen\"\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNotEqual(try run(try tool("luac5.4"), ["-p", path]).0, 0)
    }

    func testLuaStringsHoldTheNameExactly() throws {
        XCTAssertEqual(LibinputPlugin.luaString("a\"b\\c"), "\"a\\\"b\\\\c\"")
        XCTAssertEqual(LibinputPlugin.luaString("\n1"), "\"\\0101\"", "three digits, so the 1 after is not read into the escape")
        XCTAssertEqual(LibinputPlugin.luaString("é"), "\"\\195\\169\"")
        XCTAssertEqual(LibinputPlugin.luaString("]]"), "\"]]\"")
        // Lua itself reads each literal back to the same bytes.
        let lua = try tool("lua5.4")
        for name in Self.hostileNames {
            let (status, output, errors) = try run(lua, ["-e", "io.write(\(LibinputPlugin.luaString(name)))"])
            XCTAssertEqual(status, 0, errors)
            XCTAssertEqual(Array(output.utf8), Array(name.utf8), name.debugDescription)
        }
    }

    func testTheCalibratedDeviceGetsTheRangeAndTheCurve() throws {
        let (low, high) = (plugin.range.lowerBound, plugin.range.upperBound)
        let values: [Int32] = [0, 1, low - 1, low, low + 1, 500, 1000, 1500, 2000, 2500, 3000, 3500, high - 1, high, high + 1, 4094, 4095]
        let lines = try harness(plugin, [device(), "frame " + values.map(String.init).joined(separator: " "), "frame 0 4095"])
        XCTAssertEqual(lines[0], "register 1")
        XCTAssertEqual(lines[1], "connect new-evdev-device")
        XCTAssertEqual(Array(lines[2...8]), ["info", "name", "absinfos", "set_absinfo \(Self.pressure) minimum=300 maximum=3700",
                                             "device-connect evdev-frame", "log_info forcetrace: pressure range 300..3700, curve 40 10 80 60",
                                             "frame \(Self.absX)=7 " + values.map { "\(Self.pressure)=\(expected($0, plugin))" }.joined(separator: " ")])
        XCTAssertEqual(lines[9], "frame nil", "a frame the curve leaves as it is is kept, not copied")
        XCTAssertEqual(lines.count, 10)
        // The boundaries pinned: the range's ends and what is outside are kept; one inside follows the curve.
        XCTAssertEqual([low - 1, low, high, high + 1].map { expected($0, plugin) }, [low - 1, low, high, high + 1])
        XCTAssertEqual(expected(low + 1, plugin), 300, "40 10 80 60 is firm: one unit in stays at the range's start")
        XCTAssertEqual(expected(high - 1, plugin), 3698, "the curve ends with slope (100 - 60) / (100 - 80) = 2")
        XCTAssertEqual(expected(2000, plugin), Int32((300 + PressureCurve(40, 10, 80, 60).output(at: 0.5) * 3400 + 0.5).rounded(.down)))
        XCTAssertNotEqual(expected(2000, plugin), 2000, "the check needs a curve that moves the middle")
    }

    func testASofterCurveAtTheBoundaries() throws {
        var soft = plugin
        soft.curve = PressureCurve(0, 30, 70, 100)
        soft.range = 1000...1100
        let values: [Int32] = [999, 1000, 1001, 1002, 1050, 1098, 1099, 1100, 1101]
        let lines = try harness(soft, [device(), "frame " + values.map(String.init).joined(separator: " ")])
        let frame = try XCTUnwrap(lines.last).split(separator: " ").dropFirst(2).map { Int32($0.split(separator: "=")[1])! }
        XCTAssertEqual(frame, values.map { expected($0, soft) })
        XCTAssertEqual(frame.first, 999)
        XCTAssertGreaterThan(frame[2], 1001, "a soft curve raises the value one above the range's minimum")
        XCTAssertEqual(frame.last, 1101)
    }

    func testNoOtherDeviceIsTouched() throws {
        let others = [device(bus: 0x05), device(vendor: 0x056b), device(product: 0x0375), device(name: "Wacom Intuos S Pen "),
                      device(name: "Wacom Intuos S Pe"), device(name: "wacom intuos s pen"), device(name: "Wacom Intuos S Pen\n"),
                      device(name: "")]
        for other in others {
            let lines = try harness(plugin, [other, "frame 500 2000"])
            XCTAssertFalse(lines.contains { $0.hasPrefix("set_absinfo") || $0.hasPrefix("device-connect") || $0.hasPrefix("log_") }, "\(other): \(lines)")
            XCTAssertEqual(lines.last, "frame nil", other)
        }
        // The calibrated device with another pressure axis: left alone, and said so.
        let lines = try harness(plugin, [device(axis: 0...8191), "frame 500 2000"])
        XCTAssertEqual(Array(lines.suffix(2)), ["log_error forcetrace: ABS_PRESSURE is not the calibrated 0..4095: left alone", "frame nil"])
        XCTAssertFalse(lines.contains { $0.hasPrefix("set_absinfo") })
    }

    func testHostileNamesMatchOnlyThemselves() throws {
        for name in Self.hostileNames {
            var plugin = plugin
            plugin.name = name
            let lines = try harness(plugin, [device(name: name), device(name: name + "x")])
            XCTAssertEqual(lines.filter { $0.hasPrefix("set_absinfo") }.count, 1, "\(name.debugDescription): \(lines)")
            XCTAssertEqual(lines.filter { $0 == "device-connect evdev-frame" }.count, 1, name.debugDescription)
        }
    }

    func testASuggestionBecomesAPlugin() throws {
        let axis = AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 4095)
        var device = CalibrationSimulator.device(.pen)
        device.name = "x]]\"\n"
        func trial(_ trialClass: TrialClass, _ peak: Int32) -> LabelledTrial {
            LabelledTrial(trialClass: trialClass, peak: peak, startNs: 0, curve: [PressurePoint(tNs: 0, pressure: 20), PressurePoint(tNs: 1, pressure: peak)])
        }
        let trials = [trial(.strokeLight, 400), trial(.strokeLight, 600), trial(.strokeNormal, 1500), trial(.strokeFirm, 2800), trial(.fullPress, 3600),
                      LabelledTrial(trialClass: .hover, peak: 5, startNs: 0)]
        let suggestion = CalibrationSuggestion(protocol: .pen, trials: trials, device: device, axis: axis, file: "pen.h5", recording: "r")
        let made = try suggestion.libinputPlugin().get()
        let profile = try XCTUnwrap(suggestion.pen?.profile)
        XCTAssertEqual(made.range, 400...3600)
        XCTAssertEqual(made.curve, profile.rangeFit?.curve)
        XCTAssertEqual([made.name, "\(made.bus)", "\(made.vendor)", "\(made.product)"], [device.name, "\(device.bus)", "\(device.vendor)", "\(device.product)"])
        XCTAssertEqual(made.tipThreshold, 560, "5 % of 3200 above 400")
        // A name that was not UTF-8 cannot be matched byte for byte.
        var lost = suggestion
        lost.device.name = "pen \u{FFFD}"
        guard case .failure(let error) = lost.libinputPlugin() else { return XCTFail("a plugin for a name with lost bytes") }
        XCTAssertTrue(error.message.contains("not valid UTF-8"), error.message)
    }
}
