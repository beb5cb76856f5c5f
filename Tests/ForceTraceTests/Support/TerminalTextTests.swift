import Foundation
import XCTest
@testable import ForceTrace

/// `TerminalText`: literals kept, everything interpolated shown escaped, and
/// the renderers that only the library reaches (devices, errors, progress).
final class TerminalTextTests: XCTestCase {
    /// Every character a terminal acts on or that reorders text, and how it shows.
    static let hostile: [(Unicode.Scalar, String)] = {
        var list: [(Unicode.Scalar, String)] = []
        for value in UInt32(0x00)...0x1F {
            let shown = value == 0x0A ? "\\n" : value == 0x09 ? "\\t" : value == 0x0D ? "\\r" : String(format: "\\x%02x", value)
            list.append((Unicode.Scalar(value)!, shown))
        }
        list.append(("\u{7F}", "\\x7f"))
        for value in UInt32(0x80)...0x9F { list.append((Unicode.Scalar(value)!, String(format: "\\u%04x", value))) }
        for value: UInt32 in [0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                              0x2066, 0x2067, 0x2068, 0x2069] {
            list.append((Unicode.Scalar(value)!, String(format: "\\u%04x", value)))
        }
        return list
    }()

    /// No character of `hostile` left in `text`.
    func assertClean(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let raw = Set(Self.hostile.map(\.0))
        let found = text.unicodeScalars.filter { raw.contains($0) }.map { String(format: "U+%04X", $0.value) }
        XCTAssertEqual(found, [], "raw controls in \(text.debugDescription)", file: file, line: line)
    }

    func testEveryControlInAnInterpolatedValueIsShownEscaped() {
        for (scalar, shown) in Self.hostile {
            let name = "a" + String(Character(scalar)) + "b"
            let text: TerminalText = "name: \(name)\n"
            XCTAssertEqual(text.rendered, "name: a\(shown)b\n", String(format: "U+%04X", scalar.value))
        }
    }

    func testLiteralsKeepTheirNewlinesAndTabs() {
        let text: TerminalText = "one\ttwo\n" + "three\n"
        XCTAssertEqual(text.rendered, "one\ttwo\nthree\n")
    }

    func testABackslashIsEscapedSoTheFormIsUnambiguous() {
        XCTAssertEqual(TerminalText(escaping: "a\\x1b").rendered, "a\\\\x1b")
        XCTAssertEqual(TerminalText(escaping: "a\u{1B}").rendered, "a\\x1b")
        XCTAssertNotEqual(TerminalText(escaping: "a\\x1b"), TerminalText(escaping: "a\u{1B}"))
    }

    func testOtherTextIsUnchanged() {
        let name = "Wacom Intuos Pro M Pen é 日本 ∞ × \u{FFFD} 🙂"
        XCTAssertEqual(TerminalText(escaping: name).rendered, name)
        XCTAssertEqual(("\(42) \(1.5) \(name)" as TerminalText).rendered, "42 1.5 \(name)")
    }

    func testTerminalTextInterpolatedIsNotEscapedTwice() {
        let inner: TerminalText = "x\(String("\u{1B}"))\n"
        let outer: TerminalText = "[\(inner)]"
        XCTAssertEqual(outer.rendered, "[x\\x1b\n]")
    }

    func testBytesThatAreNotUTF8AreShownByte() {
        XCTAssertEqual(TerminalText.escape(bytes: Array("g".utf8) + [0xFF] + Array("n.h5".utf8)), "g\\xffn.h5")
        XCTAssertEqual(TerminalText.escape(bytes: [0x68, 0xC3, 0x6E]), "h\\xc3n")
        XCTAssertEqual(TerminalText.escape(bytes: [0xC3, 0xA9, 0xE2, 0x80, 0xAE, 0x1B, 0xC2, 0x9B]), "é\\u202e\\x1b\\u009b")
        // An overlong encoding of '/' and a lone surrogate are not UTF-8.
        XCTAssertEqual(TerminalText.escape(bytes: [0xC0, 0xAF, 0xED, 0xA0, 0x80]), "\\xc0\\xaf\\xed\\xa0\\x80")
        let text: TerminalText = "note: \(bytes: [0x61, 0xFF])"
        XCTAssertEqual(text.rendered, "note: a\\xff")
    }

    func testPaddingCountsTheEscapedForm() {
        XCTAssertEqual(TerminalText(escaping: "a\u{1B}").padded(to: 8).rendered, "a\\x1b   ")
        XCTAssertEqual(TerminalText(escaping: "abcdefghij").padded(to: 4).rendered, "abcdefghij")
    }

    func testAnErrorShowsItsFileMessageAndHintEscaped() {
        let error = ForceTraceError(file: "f\u{1B}]52;c;aGk=\u{07}.evemu", location: .line(3),
                                    "expected an evemu line, found 'Q\u{9B}2J\nx'", hint: "rename \u{202E}it")
        XCTAssertEqual(error.terminalText.rendered,
                       "f\\x1b]52;c;aGk=\\x07.evemu:3: expected an evemu line, found 'Q\\u009b2J\\nx'\n  hint: rename \\u202eit")
        XCTAssertEqual(ForceTraceError.terminalText(error), error.terminalText)
        // The plain description stays exact, for code that reads it.
        XCTAssertTrue(error.description.contains("\u{1B}]52"))
        let device = ForceTraceError.device("/dev/input/event\u{1B}9", "cannot be opened \u{7F}")
        assertClean(ForceTraceError.terminalText(device).rendered)
    }

    func testTheProgressLineEscapesItsLabel() {
        let path = "p\u{1B}]52;c;aGk=\u{07}\u{9B}\u{202E}q.h5"
        let text = ProgressLine.countText("analysing \(path)", done: 1_500_000, unit: "samples", elapsed: 1, fraction: 0.5)
        XCTAssertEqual(text.rendered, "analysing p\\x1b]52;c;aGk=\\x07\\u009b\\u202eq.h5: 1.50 M samples, 1.50 M samples/s, 1 s left")
    }

    /// `devices` reads /dev/input, which test machines lack: its text from a
    /// description with every hostile character in the name.
    func testDevicesTextShowsAHostileNameEscaped() {
        let raw = String(String.UnicodeScalarView(Self.hostile.map(\.0)))
        var device = DeviceDescription(name: "d" + raw + "n")
        device.codes[EventType.syn] = [EventType.syn, EventType.abs]
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtSlot, minimum: 0, maximum: 4))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255))
        let entry = InputDeviceEntry(path: "/dev/input/event\u{1B}[2J7", description: device, error: nil)
        let text = entry.text.rendered
        assertClean(text.replacingOccurrences(of: "\n", with: ""))
        XCTAssertTrue(text.hasPrefix("/dev/input/event\\x1b[2J7  \"d" + Self.hostile.map(\.1).joined() + "n\"\n"), text)
        XCTAssertTrue(text.contains("  pressure: ABS_MT_PRESSURE"), text)
        let failed = InputDeviceEntry(path: "/dev/input/event\u{9B}8", description: nil,
                                      error: .device("x", "cannot be opened: \u{1B}[31m"))
        XCTAssertEqual(failed.text.rendered, "/dev/input/event\\u009b8\n  cannot be opened: cannot be opened: \\x1b[31m\n")
    }

    /// Terminal text joins with the separator between the parts only.
    func testTerminalTextJoinsBetweenTheParts() {
        let parts: [TerminalText] = ["a", "b", "c"]
        XCTAssertEqual(parts.joined(separator: ", ").rendered, "a, b, c")
        let one: TerminalText = "one"
        XCTAssertEqual([one].joined(separator: ", ").rendered, "one")
        XCTAssertEqual([TerminalText]().joined(separator: ", ").rendered, "")
    }
}
