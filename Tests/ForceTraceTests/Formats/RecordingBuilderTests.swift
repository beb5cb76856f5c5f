import Foundation
import XCTest
@testable import ForceTrace

/// The builder that names recordings and cuts frames.
final class RecordingBuilderTests: XCTestCase {
    /// An input named by file only (no path) is "stdin" when the file is
    /// "standard input", and named after the file otherwise.
    func testStandardInputWithoutAPathIsNamedStdin() throws {
        func name(file: String, path: String?) throws -> String? {
            let collector = RecordingCollector()
            let builder = ForceTrace.RecordingBuilder(sink: collector, file: file, path: path, codec: EvemuCodec(), options: DecodeOptions())
            builder.startRecording(device: DeviceDescription(name: "d"))
            try builder.add(InputEvent(timeNs: 0, type: EventType.syn, code: Synchronization.report, value: 0))
            try builder.finish()
            return collector.recordings.first?.recording.name
        }
        XCTAssertEqual(try name(file: "standard input", path: nil), "stdin")
        XCTAssertEqual(try name(file: "other.evemu", path: nil), "other")
        XCTAssertEqual(try name(file: "standard input", path: "-"), "stdin")
        // A path, when given, names the recording, whatever the file is called.
        XCTAssertEqual(try name(file: "standard input", path: "in.evemu"), "in")
    }
}
