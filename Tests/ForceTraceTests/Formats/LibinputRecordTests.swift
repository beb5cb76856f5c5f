import Foundation
import XCTest
@testable import ForceTrace

/// Reading `libinput record` YAML at its limits and when it is damaged.
final class LibinputRecordTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// A minimal libinput record file of the fixture device, with `extra`
    /// lines put after "ndevices: 1" (top-level keys).
    private func libinputYAML(extra: String) -> [UInt8] {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, [(F.id, -1)])
        var yaml = ""
        LibinputRecord.write([builder.recording], to: &yaml)
        return Array(yaml.replacingOccurrences(of: "\nndevices: 1\n", with: "\nndevices: 1\n" + extra).utf8)
    }

    /// A forcetrace extension's `led_state` holds at most 1024 [code, value]
    /// pairs (`DeviceDescription.maximumStates`, one per code): 1024 are read,
    /// the 1025th is refused where it stands.
    func testExtensionStatePairsStopAt1024() throws {
        func parse(_ count: Int) throws -> [Recording] {
            var builder = RecordingBuilder()
            builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
            builder.frame(10, [(F.id, -1)])
            var yaml = ""
            LibinputRecord.write([builder.recording], to: &yaml)
            let marker = "    forcetrace:\n"
            XCTAssertTrue(yaml.contains(marker))
            let pairs = (0..<count).map { "        - [\($0), 1]\n" }.joined()
            return try LibinputRecord.parse(Array(yaml.replacingOccurrences(of: marker, with: marker + "      led_state:\n" + pairs).utf8),
                                            file: "leds.yml")
        }
        XCTAssertEqual(try parse(1024).first?.device.ledStates.count, 1024)
        XCTAssertThrowsError(try parse(1025)) { error in
            XCTAssertTrue("\(error)".contains("led_state holds more than 1024 pairs"), "\(error)")
        }
    }

    /// A libinput record file cut inside a character (the first byte of the
    /// two-byte "Ä", 0xC3 0x84) ends mid-structure, and the error says it was
    /// truncated; one that ends in a byte that starts no character (0xFF) is
    /// damaged, not cut, and the error does not say so.
    func testYAMLCutInsideACharacterIsTruncated() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let fixture = try Data(contentsOf: URL(fileURLWithPath: BlackBox.fixture("negative-times.yml")))
        let name = Data("name: forcetrace boundary fixture negative times".utf8)
        let at = try XCTUnwrap(fixture.range(of: name)).upperBound
        for (last, truncated) in [(UInt8(0xC3), true), (UInt8(0xFF), false)] {
            let cut = fixture[..<at] + Data(" ".utf8) + Data([last])
            let path = directory.appendingPathComponent(String(format: "cut-%02x.yml", last)).path
            try cut.write(to: URL(fileURLWithPath: path))
            let run = try FormatTestSupport.run(["import", path, "-o", directory.appendingPathComponent("cut.h5").path])
            XCTAssertEqual(run.status, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("not YAML text"), run.stderr)
            XCTAssertEqual(run.stderr.contains("(truncated?)"), truncated, run.stderr)
        }
    }

    /// A key that is a list or mapping (YAML's "? KEY : VALUE") is skipped
    /// whole, however deep it nests: one level ([1]), two ([1, [2]]) and a
    /// mapping holding a list. Skipping stops when the depth is back at 0; a
    /// skip that stopped at depth 1 would leave the key's items to be read as
    /// keys and fail at the list's end.
    func testListAndMappingKeysAreSkippedWhole() throws {
        for key in ["[1]", "[1, [2]]", "{a: [1]}"] {
            let bytes = libinputYAML(extra: "? \(key)\n: 3\n")
            XCTAssertTrue(String(decoding: bytes, as: UTF8.self).contains("\n? \(key)\n: 3\n"), key)
            let recordings = try LibinputRecord.parse(bytes, file: "complex-key.yml")
            XCTAssertEqual(recordings.count, 1, key)
            XCTAssertEqual(recordings.first?.events.count, 8, key)
        }
    }

    /// libyaml reads its input in 16384-byte blocks, and the reader lets it
    /// read while at most 1 MiB came since the last event. After the "name"
    /// key's event (libyaml then holds the first block) it may take 1 MiB
    /// more and one block past it: 16384 + 1 MiB + 16384 = 1081344 bytes. A
    /// name scalar starting at byte `offset` ends with its quote and needs one
    /// byte of lookahead, so the longest name read is 1081344 - offset - 2;
    /// one byte more needs another block, refused.
    func testAScalarMayRunToTheLastBlockOfTheLimit() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0)])
        var yaml = ""
        LibinputRecord.write([builder.recording], to: &yaml)
        let start = try XCTUnwrap(yaml.range(of: "      name: \""))
        let end = try XCTUnwrap(yaml[start.upperBound...].firstIndex(of: "\n"))
        let offset = yaml.utf8.distance(from: yaml.startIndex, to: start.upperBound)
        XCTAssertLessThan(offset, 16384)
        let longest = (1 << 20) + 2 * 16384 - offset - 2
        func parse(_ length: Int) throws -> [Recording] {
            let text = yaml[..<start.upperBound] + String(repeating: "x", count: length) + "\"" + yaml[end...]
            return try LibinputRecord.parse(Array(text.utf8), file: "long-name.yml")
        }
        for length in [longest - 1, longest] {
            XCTAssertEqual(try parse(length).first?.device.name.count, length)
        }
        XCTAssertThrowsError(try parse(longest + 1)) { error in
            XCTAssertTrue("\(error)".contains("a YAML value (or the comments and blanks before one) runs over 1 MiB"), "\(error)")
        }
    }

    /// A libinput record file without devices: with no "ndevices" either it
    /// has no 'devices' list; with "ndevices: 1" it is cut (declares 1, holds
    /// 0); with "ndevices: 0" it has no devices. Without "ndevices" but with a
    /// device it is read.
    func testAFileWithoutDevicesSaysWhichWay() throws {
        func message(_ text: String) -> String {
            do { _ = try LibinputRecord.parse(Array(text.utf8), file: "none.yml"); return "read" } catch { return "\(error)" }
        }
        XCTAssertTrue(message("version: 1\n").contains("has no 'devices' list"), message("version: 1\n"))
        XCTAssertTrue(message("version: 1\nndevices: 1\n").contains("declares ndevices: 1 but holds 0 devices"),
                      message("version: 1\nndevices: 1\n"))
        XCTAssertTrue(message("version: 1\nndevices: 0\n").contains("has no devices; expected at least one device"),
                      message("version: 1\nndevices: 0\n"))
        let withDevice = String(decoding: libinputYAML(extra: ""), as: UTF8.self).replacingOccurrences(of: "\nndevices: 1\n", with: "\n")
        XCTAssertFalse(withDevice.contains("ndevices"))
        XCTAssertEqual(message(withDevice), "read")
    }
}
