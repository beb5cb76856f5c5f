import Foundation
import XCTest
@testable import ForceTrace

/// Telling a recording's format from its head.
final class FormatDetectionTests: XCTestCase {
    /// Detection reads at most 16 MiB (2^24 bytes) of head: a first recording
    /// line that starts 64 bytes before that (and fits in them: 43 bytes) is
    /// found; one that starts right at it is not, and the error names the
    /// 16 MiB. The padding is one comment line ("#", "x"s, newline), which
    /// detection scans far faster than many short ones.
    func testFormatDetectionReadsSixteenMiB() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        // The fixture without its own leading comments: its first line is "N: ...".
        let fixture = try String(contentsOfFile: BlackBox.fixture("axes-differ.evemu"), encoding: .utf8)
        let recording = Data(fixture.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0.hasPrefix("#") }.joined(separator: "\n").utf8)
        XCTAssertTrue(recording.starts(with: Data("N: ".utf8)))
        let limit = RecordingImporter.maximumHeadBytes
        XCTAssertEqual(limit, 1 << 24)
        for (padding, found) in [(limit - 64, true), (limit, false)] {
            var data = Data("#".utf8) + Data(repeating: UInt8(ascii: "x"), count: padding - 2) + Data("\n".utf8)
            data.append(recording)
            let path = directory.appendingPathComponent("padded-\(padding).evemu").path
            try data.write(to: URL(fileURLWithPath: path))
            do {
                let codec = try RecordingImporter.detect(try ByteSource(path: path))
                XCTAssertTrue(found, "detected \(codec) past the limit")
            } catch {
                XCTAssertFalse(found, "\(error)")
                XCTAssertTrue("\(error)".contains("its first 16 MiB hold no recording line"), "\(error)")
            }
        }
    }

    /// Every recording among the fixtures and samples is told as its own
    /// format, so a format added later takes no other format's files.
    func testEveryFixtureIsDetectedAsItsOwnFormat() throws {
        let expected: [(prefix: String?, suffix: String, format: RecordingFormat)] = [
            (nil, ".evemu", .evemu), (nil, ".yml", .libinput), ("getevent-", ".txt", .getevent),
            (nil, ".inkml", .inkml), ("svc2004-", ".txt", .svc2004),
        ]
        var checked: Set<RecordingFormat> = []
        for folder in [BlackBox.fixtures, FormatTestSupport.samples] {
            let names = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: folder.path))
            for name in names {
                let base = URL(fileURLWithPath: name).lastPathComponent
                guard let format = expected.first(where: { base.hasSuffix($0.suffix) && ($0.prefix.map(base.hasPrefix) ?? true) })?.format else { continue }
                let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
                XCTAssertEqual(try RecordingImporter.detect(Array(bytes), file: name), format, name)
                checked.insert(format)
            }
        }
        XCTAssertEqual(checked, Set(expected.map(\.format)))
        // The genuine recordings, when present, are evemu.
        let shared = FormatTestSupport.sharedRecordings
        for name in (try? FileManager.default.contentsOfDirectory(atPath: shared.path)) ?? [] where name.hasSuffix(".events") || name.hasSuffix(".evemu") {
            let head = try ByteSource(path: shared.appendingPathComponent(name).path)
            XCTAssertEqual(try RecordingImporter.detect(head).format, .evemu, name)
        }
    }

    /// Detection takes a first line `key:` as libinput YAML from a key of two
    /// letters on; one letter is an evemu line ("E: 0.1 ...", "N: name").
    func testLibinputDetectionNeedsAKeyOfTwoLetters() {
        func recognized(_ text: String) -> Bool { LibinputCodec().recognizes(RecordingHead(ArraySlice(Array(text.utf8)), complete: true)) }
        XCTAssertTrue(recognized("ab: 1\n"))
        XCTAssertTrue(recognized("version: 1\n"))
        XCTAssertFalse(recognized("E: 0.000001 0003 0035 7\n"))
        XCTAssertFalse(recognized("a: 1\n"))
    }

    /// A head's control bytes below the tab (0x08) make it binary; the tab
    /// (0x09) and the next bytes kept in text (0x0b vertical tab; 0x0a is the
    /// line end) do not: "\tN: x" is a text line whose first field is "N: x".
    func testTheTabIsTextInAHead() {
        func head(_ byte: UInt8) -> RecordingHead {
            RecordingHead(ArraySlice([byte] + Array("N: x\n".utf8)), complete: true)
        }
        XCTAssertTrue(head(0x08).isBinary)
        XCTAssertFalse(head(0x09).isBinary)
        XCTAssertEqual(head(0x09).firstLine.map { Array($0) }, Array("N: x".utf8))
        XCTAssertFalse(head(0x0b).isBinary)
        // 0x0d (the carriage return) is text; from 0x0e (shift out) to 0x1f, binary; then text again.
        XCTAssertFalse(head(0x0d).isBinary)
        XCTAssertTrue(head(0x0e).isBinary)
        XCTAssertTrue(head(0x1f).isBinary)
        XCTAssertFalse(head(0x20).isBinary)
    }
}
