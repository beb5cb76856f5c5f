import ForceTrace
import Foundation
import XCTest

/// evemu, libinput record YAML and raw input_event streams, through trace
/// files and back: every event must survive unchanged.
final class FormatRoundTripTests: XCTestCase {
    private func writeTrace(_ recordings: [Recording], to path: String) throws {
        let writer = try TraceWriter(creating: path)
        for recording in recordings { try writer.write(recording) }
        try writer.close()
    }

    private func readTrace(_ path: String) throws -> [Recording] {
        let reader = try TraceReader(path: path)
        defer { try? reader.close() }
        return try reader.recordingNames.map { try reader.recording($0).loadRecording() }
    }

    /// evemu → h5 → libinput YAML → h5 → evemu keeps every event identical.
    func testEvemuThroughLibinputAndBackKeepsEveryEvent() throws {
        try assertEvemuThroughLibinputAndBack(FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path, nil)
    }

    /// The same for each shared recording; skipped only when ../shared is absent.
    func testEvemuThroughLibinputAndBackKeepsEveryEventOfTheSharedRecordings() throws {
        for (path, description) in try FormatTestSupport.sharedRecordingInputs() {
            try assertEvemuThroughLibinputAndBack(path, description)
        }
    }

    private func assertEvemuThroughLibinputAndBack(_ path: String, _ description: String?) throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let original = try Evemu.read(path, descriptionPath: description)
        XCTAssertGreaterThan(original.events.count, 100, path)
        let first = directory.appendingPathComponent("first.h5").path
        try writeTrace([original], to: first)
        var yaml = ""
        LibinputRecord.write(try readTrace(first), to: &yaml)
        let fromYAML = try LibinputRecord.parse(Array(yaml.utf8), file: "export.yml")
        XCTAssertEqual(fromYAML.count, 1)
        let second = directory.appendingPathComponent("second.h5").path
        try writeTrace(fromYAML, to: second)
        var evemu = ""
        Evemu.write(try readTrace(second)[0], to: &evemu)
        let final = try Evemu.parse(Array(evemu.utf8), file: "final.evemu")

        XCTAssertEqual(final.events.count, original.events.count, path)
        XCTAssertEqual(final.events, original.events, path)
        XCTAssertEqual(final.device, original.device, path)
        XCTAssertEqual(final.clock, original.clock, path)
        XCTAssertEqual(final.groundTruth, original.groundTruth, path)
        if path.hasPrefix(FormatTestSupport.samples.path) {
            XCTAssertFalse(original.groundTruth.labels.isEmpty, "the simulated sample carries labels")
        }
        // The E: lines themselves, as evemu prints them.
        var before = "", after = ""
        Evemu.write(original, to: &before)
        Evemu.write(final, to: &after)
        XCTAssertEqual(before.split(separator: "\n").filter { $0.hasPrefix("E:") },
                       after.split(separator: "\n").filter { $0.hasPrefix("E:") }, path)
        // And against the original text itself, read without forcetrace's parser.
        let originalEvents = try EvemuOracle.events(inText: String(contentsOfFile: path, encoding: .utf8))
        XCTAssertGreaterThan(originalEvents.count, 100, path)
        XCTAssertTrue(try EvemuOracle.events(inText: after) == originalEvents, "\(path): the E: lines after the round trip differ from the file's")
    }

    /// Each shared recording, converted by the command-line tool to each
    /// format and imported again, has the same events, device and contacts.
    func testSharedRecordingsThroughEachFormat() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        for (index, (path, description)) in try FormatTestSupport.sharedRecordingInputs().enumerated() {
            let trace = directory.appendingPathComponent("\(index).h5").path
            var importArguments = ["import", path, "-o", trace]
            if let description { importArguments += ["--desc", description] }
            let imported = try FormatTestSupport.run(importArguments)
            XCTAssertEqual(imported.status, 0, imported.stderr)
            // Independent evidence first: contacts and rows from the evemu text itself.
            let oracle = try EvemuOracle(path: path, descriptionPath: description)
            let importedTrace = try BlackBox.Trace(trace)
            try oracle.assertMatches(importedTrace, "\(path) imported")
            try importedTrace.close()
            let header = directory.appendingPathComponent("\(index)-header.evemu").path
            XCTAssertEqual(try FormatTestSupport.run(["export", trace, "--format", "evemu", "-o", header]).status, 0)
            let reference = try TraceReader(path: trace)
            let referenceRecording = try reference.recording(reference.recordingNames[0])
            let referenceEvents = try referenceRecording.loadRecording()
            let referenceContacts = try referenceRecording.contacts()
            XCTAssertGreaterThan(referenceContacts.count, 0, path)

            for format in RecordingCodecs.writable.map(\.format) {
                let exported = directory.appendingPathComponent("\(index).\(format.rawValue)").path
                let export = try FormatTestSupport.run(["export", trace, "--format", format.rawValue, "-o", exported])
                XCTAssertEqual(export.status, 0, export.stderr)
                let back = directory.appendingPathComponent("\(index)-\(format.rawValue).h5").path
                var arguments = ["import", exported, "-o", back]
                if format == .raw { arguments += ["--desc", header] }
                let reimport = try FormatTestSupport.run(arguments)
                XCTAssertEqual(reimport.status, 0, "\(format): \(reimport.stderr)")

                let reader = try TraceReader(path: back)
                XCTAssertEqual(reader.recordingNames.count, 1)
                let recording = try reader.recording(reader.recordingNames[0])
                XCTAssertEqual(recording.importStatus, .complete)
                let loaded = try recording.loadRecording()
                XCTAssertEqual(loaded.events, referenceEvents.events, "\(path) via \(format)")
                XCTAssertEqual(loaded.device, referenceEvents.device, "\(path) via \(format)")
                XCTAssertEqual(recording.t0Ns, referenceRecording.t0Ns, "\(path) via \(format)")
                XCTAssertEqual(try recording.contacts(), referenceContacts, "\(path) via \(format)")
                let backTrace = try BlackBox.Trace(back)
                try oracle.assertMatches(backTrace, "\(path) via \(format)")
                try backTrace.close()
            }
        }
    }

    /// Several recordings become one libinput file with several devices,
    /// which imports as several recordings again.
    func testSeveralDevicesInOneLibinputFile() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let first = try Evemu.read(FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path)
        let second = try Evemu.read(FormatTestSupport.samples.appendingPathComponent("touchscreen-deep-presses.evemu").path)
        var yaml = ""
        LibinputRecord.write([first, second], to: &yaml)
        XCTAssertTrue(yaml.contains("ndevices: 2\n"))
        let path = directory.appendingPathComponent("two.yml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let trace = directory.appendingPathComponent("two.h5").path
        let run = try FormatTestSupport.run(["import", path, "-o", trace])
        XCTAssertEqual(run.status, 0, run.stderr)
        let reader = try TraceReader(path: trace)
        XCTAssertEqual(reader.recordingNames.sorted(), ["two-device0", "two-device1"])
        XCTAssertEqual(try reader.recording("two-device0").loadRecording().events, first.events)
        XCTAssertEqual(try reader.recording("two-device1").loadRecording().events, second.events)
    }

    /// Several devices of several machines in one libinput file: the file's
    /// `system` block is the first device's, and each other device whose
    /// machine differs (or is unknown) keeps its own in its forcetrace key.
    func testLibinputDevicesOfSeveralMachinesKeepTheirSystem() throws {
        let base = try Evemu.read(FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path)
        let systems = [SystemInfo(kernel: "6.1.0-13-amd64", dmi: "dmi:svnA:pnB:"), SystemInfo(), SystemInfo(kernel: "4.14.0-rc7+"),
                       SystemInfo(kernel: "6.1.0-13-amd64", dmi: "dmi:svnA:pnB:")]
        let recordings = systems.map { system -> Recording in
            var recording = base
            recording.device.system = system
            return recording
        }
        var yaml = ""
        LibinputRecord.write(recordings, to: &yaml)
        XCTAssertTrue(yaml.contains("system:\n  kernel: \"6.1.0-13-amd64\"\n  dmi: \"dmi:svnA:pnB:\"\ndevices:\n"), yaml.prefix(600).description)
        XCTAssertEqual(yaml.components(separatedBy: "      system: {}\n").count, 2)
        let parsed = try LibinputRecord.parse(Array(yaml.utf8), file: "machines.yml")
        XCTAssertEqual(parsed.map(\.device.system), systems)
        XCTAssertEqual(parsed.map(\.events), recordings.map(\.events))
    }

    /// A file as `libinput record` writes it (the man page's example, with
    /// hid and udev keys, comments and unknown keys) imports.
    func testLibinputRecordFileWithUnknownKeys() throws {
        let yaml = """
        # a comment
        version: 1
        ndevices: 1
        libinput:
          version: 1.10.0
          git: "unknown"
        system:
          os: "fedora:26"
          kernel: "4.13.9-200.fc26.x86_64"
          dmi: "dmi:bvnLENOVO:bvrGJET72WW(2.22):bd02/21/2014:svnLENOVO:..."
        devices:
          - node: /dev/input/event9
            evdev:
              # Name: Synaptics TM2668-002
              name: Synaptics TM2668-002
              id: [29, 1739, 0, 0]
              codes:
                0: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] # EV_SYN
                1: [272, 325, 328, 330, 333, 334, 335] # EV_KEY
                3: [0, 1, 24, 47, 48, 49, 52, 53, 54, 55, 57, 58] # EV_ABS
              absinfo:
                0: [0, 4089, 0, 0, 42]
                1: [0, 2811, 0, 0, 41]
                24: [0, 255, 0, 0, 0]
                47: [0, 4, 0, 0, 0]
                48: [0, 15, 0, 0, 0]
                49: [0, 15, 0, 0, 0]
                52: [0, 1, 0, 0, 0]
                53: [0, 4089, 0, 0, 42]
                54: [0, 2811, 0, 0, 41]
                55: [0, 2, 0, 0, 0]
                57: [0, 65535, 0, 0, 0]
                58: [0, 255, 0, 0, 0]
              properties: [0, 2, 4]
              future_key: {a: [1, 2, {b: c}]}
            hid: [12, 23, 34, 45]
            udev:
              properties:
              - ID_INPUT_MOUSE=1
              - ID_INPUT=1
            quirks:
              - ModelAppleTouchpad=1
            events:
              - hid:
                 time: [ 0, 0]
                 hidraw0: [1, 2, 3, 4]
              - evdev:
                - [  0,      0,   3,  57,  1420] # EV_ABS / ABS_MT_TRACKING_ID   1420
                - [  0,      0,   3,  53,  1218] # EV_ABS / ABS_MT_POSITION_X    1218
                - [  0,      0,   3,  54,  1922] # EV_ABS / ABS_MT_POSITION_Y    1922
                - [  0,      0,   3,  58,    47] # EV_ABS / ABS_MT_PRESSURE        47
                - [  0,      0,   1, 330,     1] # EV_KEY / BTN_TOUCH               1
                - [  0,      0,   0,   0,     0] # ------------ SYN_REPORT (0) ------- +0ms
              - evdev:
                - [  0,  11879,   3,  58,    46] # EV_ABS / ABS_MT_PRESSURE        46
                - [  0,  11879,   0,   0,     0] # ------------ SYN_REPORT (0) ------- +0ms
        """
        let recordings = try LibinputRecord.parse(Array(yaml.utf8), file: "man-example.yml")
        XCTAssertEqual(recordings.count, 1)
        let recording = recordings[0]
        XCTAssertEqual(recording.device.name, "Synaptics TM2668-002")
        XCTAssertEqual([recording.device.bus, recording.device.vendor], [29, 1739])
        XCTAssertEqual(recording.device.properties, [0, 2, 4])
        XCTAssertEqual(recording.device.slotCount, 5)
        XCTAssertEqual(recording.device.codes[EventType.syn], [0, 1, 3])
        XCTAssertEqual(recording.device.axis(AbsoluteAxis.x)?.resolution, 42)
        XCTAssertEqual(recording.events.count, 8)
        XCTAssertEqual(recording.events[6], InputEvent(timeNs: 11_879_000, type: 3, code: 58, value: 46))
        XCTAssertEqual(recording.clock, .relative)
    }

    /// Detection goes by content: names that lie do not matter.
    func testFormatIsDetectedFromContent() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path
        let original = try Evemu.read(sample)
        var yaml = ""
        LibinputRecord.write([original], to: &yaml)
        var raw: [UInt8] = []
        RawEventStream.write(original) { raw.append(contentsOf: $0) }

        XCTAssertEqual(try RecordingImporter.detect(Array(yaml.utf8), file: "x"), .libinput)
        XCTAssertEqual(try RecordingImporter.detect([UInt8](try Data(contentsOf: URL(fileURLWithPath: sample))), file: "x"), .evemu)
        XCTAssertEqual(try RecordingImporter.detect(raw, file: "x"), .raw)

        let yamlNamedEvemu = directory.appendingPathComponent("looks-like.evemu").path
        try yaml.write(toFile: yamlNamedEvemu, atomically: true, encoding: .utf8)
        let rawNamedText = directory.appendingPathComponent("looks-like.txt").path
        try Data(raw).write(to: URL(fileURLWithPath: rawNamedText))
        let trace = directory.appendingPathComponent("detected.h5").path
        let run = try FormatTestSupport.run(["import", yamlNamedEvemu, rawNamedText, "--desc", sample, "-o", trace])
        XCTAssertEqual(run.status, 0, run.stderr)
        let reader = try TraceReader(path: trace)
        XCTAssertEqual(try reader.recording("looks-like").source, .libinput(path: yamlNamedEvemu, device: nil))
        XCTAssertEqual(try reader.recording("looks-like-2").source, .raw(path: rawNamedText))
        XCTAssertEqual(try reader.recording("looks-like-2").loadRecording().events, original.events)

        // --format forces a choice, and a wrong one fails on the content.
        let forced = try FormatTestSupport.run(["import", yamlNamedEvemu, "--format", "evemu", "-o", directory.appendingPathComponent("f.h5").path])
        XCTAssertEqual(forced.status, 1)
        XCTAssertTrue(forced.stderr.contains("looks-like.evemu:2: expected an evemu line"), forced.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("f.h5").path))
    }

    /// "-" reads standard input, in any format.
    func testStandardInput() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-deep-presses.evemu").path
        let original = try Evemu.read(sample)
        var raw: [UInt8] = []
        RawEventStream.write(original) { raw.append(contentsOf: $0) }
        let trace = directory.appendingPathComponent("stdin.h5").path
        let run = try FormatTestSupport.run(["import", "--raw", "-", "--desc", sample, "-o", trace], stdin: Data(raw))
        XCTAssertEqual(run.status, 0, run.stderr)
        let reader = try TraceReader(path: trace)
        XCTAssertEqual(reader.recordingNames, ["stdin"])
        XCTAssertEqual(try reader.recording("stdin").loadRecording().events, original.events)

        let yamlTrace = directory.appendingPathComponent("stdin-yaml.h5").path
        var yaml = ""
        LibinputRecord.write([original], to: &yaml)
        let yamlRun = try FormatTestSupport.run(["import", "-", "-o", yamlTrace], stdin: Data(yaml.utf8))
        XCTAssertEqual(yamlRun.status, 0, yamlRun.stderr)
        let yamlReader = try TraceReader(path: yamlTrace)
        XCTAssertEqual(try yamlReader.recording(yamlReader.recordingNames[0]).loadRecording().events, original.events)
    }
}
