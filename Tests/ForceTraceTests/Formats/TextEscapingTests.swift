@testable import ForceTrace
import Foundation
import XCTest

/// Strings from a recording in exported files: the escape
/// syntax itself, and names, kernel/DMI strings, label kinds and comments
/// through the evemu and libinput writers and readers.
final class TextEscapingTests: XCTestCase {
    /// Every C0 control but NUL, DEL, C1, the separators, noncharacters and
    /// bidi controls, backslashes and quotes, and a 1000-byte name.
    static let hostile: [String] = [
        "A" + String(String.UnicodeScalarView((1..<0x20).compactMap(Unicode.Scalar.init))) + "\u{7f}Z",
        "C1 " + String(String.UnicodeScalarView((0x80..<0xa0).compactMap(Unicode.Scalar.init))),
        "bidi \u{202e}evil\u{202c} \u{2066}x\u{2069} \u{200f}\u{61c}\u{200e}",
        "ls\u{2028}ps\u{2029}bom\u{feff}non\u{fffe}\u{ffff}",
        "\u{1b}]52;c;aGVsbG8=\u{7} \u{1b}[31mred",
        "pad\n# forcetrace-label: press slot=0 tracking_id=999 t=1.000000 class=pop-press",
        "pad\nI: 0003 dead beef 0001\r\nN: other",
        "back\\slash \\n \\x41 \\u0041 \\\\ end\\",
        "say \"hi\" # not: a [comment] {x}",
        "  leading and trailing\t ",
        String(repeating: "L", count: 990) + String(repeating: "\u{e9}", count: 5),
    ]

    func testEscapedTextHoldsNoCharacterThatMustBeEscapedAndDecodesBack() {
        for text in Self.hostile {
            let escaped = TextEscaping.escaped(text)
            XCTAssertFalse(TextEscaping.needsEscaping(escaped), escaped)
            XCTAssertFalse(escaped.contains("\n") || escaped.contains("\r"), escaped)
            XCTAssertEqual(TextEscaping.unescaped(escaped), text)
            let word = GroundTruth.escapedWord(text)
            XCTAssertFalse(word.contains(" "), word)
            XCTAssertEqual(TextEscaping.unescaped(word), text)
        }
        XCTAssertEqual(TextEscaping.escaped("\u{1b}\u{85}\u{202e}\\"), "\\x1b\\x85\\u202e\\\\")
        XCTAssertEqual(TextEscaping.escaped("plain name"), "plain name")
    }

    func testUnescapedRefusesMalformedEscapes() {
        for text in ["\\", "end\\", "\\q", "\\x4", "\\x4g", "\\u12", "\\ud800", "\\U0001f600"] {
            XCTAssertNil(TextEscaping.unescaped(text), text)
        }
        XCTAssertEqual(TextEscaping.unescaped("no escapes"), "no escapes")
        XCTAssertEqual(TextEscaping.unescaped("\\\"\\t\\x41\\u00e9"), "\"\tA\u{e9}")
    }

    /// libyaml (forcetrace's YAML reader) decodes every quoted string to itself.
    func testYAMLQuotedStringsReadBackThroughLibyaml() throws {
        for text in Self.hostile {
            let document = "key: \(TextEscaping.yamlQuoted(text))\n"
            let reader = YAMLEventReader(source: ByteSource(bytes: Array(document.utf8), file: "quoted.yml"))
            var scalars: [String] = []
            while true {
                let event = try reader.next()
                if case .scalar(let value) = event.kind { scalars.append(value) }
                if event.kind == .streamEnd { break }
            }
            XCTAssertEqual(scalars, ["key", text])
        }
    }

    private func sample(name: String, kernel: String?, dmi: String?, kind: String) throws -> Recording {
        var recording = try Evemu.read(FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path)
        recording.device.name = name
        recording.device.system = SystemInfo(kernel: kernel, dmi: dmi)
        recording.groundTruth.labels[0].kind = kind
        return recording
    }

    func testEvemuExportReadsBackEveryNameKernelDMIAndKindWithNoForgedLine() throws {
        for text in Self.hostile {
            let recording = try sample(name: text, kernel: "6.1 " + text, dmi: "dmi:" + text, kind: "k " + text)
            var output = ""
            Evemu.write(recording, comment: "from \(text)\nforcetrace-label: thresholds peek=0.1 pop=0.2\nKernel: forged", to: &output)
            let back = try Evemu.parse(Array(output.utf8), file: "hostile.evemu")
            XCTAssertEqual(back.device, recording.device, text)
            XCTAssertEqual(back.groundTruth, recording.groundTruth, text)
            XCTAssertEqual(back.events, recording.events, text)
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(lines.filter { $0.hasPrefix("N:") }.count, 1, text)
            XCTAssertFalse(output.unicodeScalars.contains { $0 != "\n" && TextEscaping.mustEscape($0) }, text)
        }
    }

    func testLibinputExportReadsBackEveryNameKernelDMIAndKind() throws {
        for text in Self.hostile {
            let recording = try sample(name: text, kernel: "6.1 " + text, dmi: "dmi:" + text, kind: "k " + text)
            var output = ""
            LibinputRecord.write([recording], comment: "from \(text)", to: &output)
            let back = try LibinputRecord.parse(Array(output.utf8), file: "hostile.yml")
            XCTAssertEqual(back.count, 1)
            XCTAssertEqual(back.first?.device, recording.device, text)
            XCTAssertEqual(back.first?.groundTruth, recording.groundTruth, text)
            XCTAssertEqual(back.first?.events, recording.events, text)
            XCTAssertFalse(output.unicodeScalars.contains { $0 != "\n" && TextEscaping.mustEscape($0) }, text)
        }
    }

    /// Without forcetrace's marker a backslash is the name's own (evemu-record
    /// writes names as they are); with it, an escape.
    func testEvemuEscapesAreDecodedOnlyAfterTheMarker() throws {
        let body = "I: 0003 0001 0002 0001\nB: 00 0b 00 00 00 00 00 00 00\nE: 0.000000 0000 0000 0000\n"
        let plain = try Evemu.parse(Array("# EVEMU 1.3\n# Kernel: 6.1\\n\nN: Foo\\nBar\\x41 \n\(body)".utf8), file: "plain.evemu")
        XCTAssertEqual(plain.device.name, "Foo\\nBar\\x41")
        XCTAssertEqual(plain.device.system.kernel, "6.1\\n")
        let marked = try Evemu.parse(Array("# EVEMU 1.3\n\(Evemu.escapedLine)\n# Kernel: 6.1\\n\nN: Foo\\nBar\\x41 \n\(body)".utf8), file: "marked.evemu")
        XCTAssertEqual(marked.device.name, "Foo\nBarA ")
        XCTAssertEqual(marked.device.system.kernel, "6.1\n")
        XCTAssertThrowsError(try Evemu.parse(Array("# EVEMU 1.3\n\(Evemu.escapedLine)\nN: bad\\q\n\(body)".utf8), file: "bad.evemu")) { error in
            XCTAssertTrue("\(error)".contains("bad.evemu:3"), "\(error)")
            XCTAssertTrue("\(error)".contains("malformed escape"), "\(error)")
        }
    }

    /// A name evemu-record could have written is exported as it is, with no marker.
    func testOrdinaryNamesAreWrittenAsTheyAre() throws {
        let recording = try sample(name: "Wacom Intuos Pro M Pen \\ back", kernel: "6.1.0-13-amd64", dmi: "dmi:bvnLENOVO:", kind: "tap")
        var output = ""
        Evemu.write(recording, to: &output)
        XCTAssertFalse(output.contains(Evemu.escapedPrefix))
        XCTAssertTrue(output.contains("\nN: Wacom Intuos Pro M Pen \\ back\n"))
        XCTAssertTrue(output.contains("\n# Kernel: 6.1.0-13-amd64\n"))
        XCTAssertTrue(output.contains(" kind=tap "))
    }

    /// An escaped character below U+0100 is `\xHH`, from U+0100 on `\uHHHH`
    /// (two hex digits cannot hold 0x100): with `also` naming them, U+00FF is
    /// "\xff", U+0100 "\u0100", U+0101 "\u0101", and each reads back.
    func testEscapesSwitchToFourDigitsAtU0100() {
        let text = "\u{FF}\u{100}\u{101}"
        let escaped = TextEscaping.escaped(text, also: ["\u{FF}", "\u{100}", "\u{101}"])
        XCTAssertEqual(escaped, "\\xff\\u0100\\u0101")
        XCTAssertEqual(TextEscaping.unescaped(escaped), text)
    }
}
