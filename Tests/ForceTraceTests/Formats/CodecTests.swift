import ForceTrace
import Foundation
import XCTest

/// The codecs as one interface: the timestamp type every format shares,
/// labels canonicalised as classes, the builder's salvage cut across
/// chunks, and inputs that are streams (pipes, FIFOs, /dev/fd/N), through
/// import and record --replay in every format.
final class CodecTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try FormatTestSupport.temporaryDirectory(self)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private let device: DeviceDescription = {
        var device = DeviceDescription(name: "codec touchscreen")
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtSlot, minimum: 0, maximum: 4))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtTrackingID, minimum: 0, maximum: 65535))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255))
        return device
    }()

    private func frames(_ times: [Int64]) -> [InputEvent] {
        times.flatMap { t in
            [InputEvent(timeNs: t, type: EventType.abs, code: AbsoluteAxis.mtPressure, value: 7),
             InputEvent(timeNs: t, type: EventType.syn, code: Synchronization.report, value: 0)]
        }
    }

    // MARK: Timestamp

    func testTimestampSplitsFloorAndDecimalKeepsTheSign() {
        XCTAssertEqual(Timestamp(ns: -500_000_000).timeval.seconds, -1)
        XCTAssertEqual(Timestamp(ns: -500_000_000).timeval.microseconds, 500_000)
        XCTAssertEqual(Timestamp(ns: -500_000_000).decimal, "-0.500000")
        XCTAssertEqual(Timestamp(ns: -1_500_000_000).decimal, "-1.500000")
        XCTAssertEqual(Timestamp(ns: 1_382_570_977_035_628_000).decimal, "1382570977.035628")
        XCTAssertEqual(Timestamp(ns: 1_000_000_001).decimal, "1.000000001", "finer than a microsecond keeps nine digits")
        XCTAssertEqual(Timestamp(ns: -1).decimal, "-0.000000001")
        XCTAssertEqual(Timestamp(seconds: -1, microseconds: 500_000).ns, -500_000_000)
        for ns: Int64 in [0, 1, -1, 999, -999_999_999, 1_000_000_000, -1_000_000_000, 1_764_400_000_200_000_000] {
            XCTAssertEqual(Timestamp.parseDecimal(Array(Timestamp(ns: ns).decimal.utf8))?.ns, ns, "\(ns)")
            let split = Timestamp(ns: ns).timeval
            XCTAssertTrue((0..<1_000_000).contains(split.microseconds), "\(ns)")
            XCTAssertEqual(Timestamp(seconds: split.seconds, microseconds: split.microseconds).ns, ns - Timestamp(ns: ns).nanosecondsInSecond % 1000)
        }
        XCTAssertNil(Timestamp.parseDecimal(Array("1.".utf8)))
        XCTAssertNil(Timestamp.parseDecimal(Array("1.0000000001".utf8)))
        XCTAssertNil(Timestamp.parseDecimal(Array("-".utf8)))
    }

    /// Negative times (an event before the first, or a negative origin)
    /// come back identical from every format; sub-microsecond times from
    /// evemu, the one format whose text can hold them.
    func testNegativeTimesRoundTripInEveryCodec() throws {
        // In time order: frames that step back are refused on import.
        let times: [Int64] = [-2_000_000_000, -1_500_000_000, -500_000_000, -1_000, 0, 250_000_000]
        let recording = Recording(device: device, events: frames(times), clock: .relative, source: .other("test"), name: "negative")
        for codec in RecordingCodecs.writable {
            let output = ByteOutput()
            try codec.encode([recording], to: output)
            let back = try codec.decode(output.memory, file: "negative.\(codec.format)", options: DecodeOptions(description: device))
            XCTAssertEqual(back.map(\.recording.events), [recording.events], "\(codec.format)")
        }
        let fine = Recording(device: device, events: frames([-1, 1_000_000_001, 2_000_000_500]), clock: .relative, source: .other(""), name: "")
        let output = ByteOutput()
        try EvemuCodec().encode([fine], to: output)
        let text = String(decoding: output.memory, as: UTF8.self)
        XCTAssertTrue(text.contains("E: -0.000000001 0003 003a 0007\n"), text)
        XCTAssertEqual(try Evemu.parse(output.memory, file: "fine.evemu").events, fine.events)
    }

    // MARK: Labels as classes

    /// `class=deep` and `class=pop` are the pop-press class: the labels
    /// table holds only the documented names.
    func testLabelsAreCanonicalisedToTheDocumentedClasses() throws {
        var text = "# forcetrace-label: thresholds peek=0.6 pop=0.8\n"
        text += "# forcetrace-label: press slot=0 tracking_id=1 t=1.000000 class=deep kind=deep\n"
        text += "# forcetrace-label: press slot=0 tracking_id=2 t=2.000000 class=Peek\n"
        text += "# forcetrace-label: press slot=0 tracking_id=3 t=3.000000 class=pop\n"
        text += "N: labelled\nI: 0018 0001 0002 0001\nA: 2f 0 4 0 0 0\nA: 39 0 65535 0 0 0\nA: 3a 0 255 0 0 0\n"
        for (index, t) in [1, 2, 3].enumerated() {
            text += "E: \(t).000000 0003 0039 \(index + 1)\nE: \(t).000000 0003 003a 0100\nE: \(t).000000 0000 0000 0000\n"
            text += "E: \(t).100000 0003 0039 -001\nE: \(t).100000 0000 0000 0000\n"
        }
        let recording = try Evemu.parse(Array(text.utf8), file: "labelled.evemu")
        XCTAssertEqual(recording.groundTruth.labels.map(\.label), [.popPress, .peekPress, .popPress])
        XCTAssertEqual(recording.groundTruth.labels.map(\.kind), ["deep", nil, nil], "kind stays as scripted")

        let input = path("labelled.evemu")
        try text.write(toFile: input, atomically: true, encoding: .utf8)
        let trace = path("labelled.h5")
        let run = try FormatTestSupport.run(["import", input, "-o", trace])
        XCTAssertEqual(run.status, 0, run.stderr)
        let reader = try TraceReader(path: trace)
        let stored = try reader.recording("labelled")
        XCTAssertEqual(try stored.read(TraceSchema.Labels.pressClass), ["pop-press", "peek-press", "pop-press"])
        XCTAssertEqual(try stored.groundTruth().labels.map(\.label), [.popPress, .peekPress, .popPress])

        let exported = try FormatTestSupport.run(["export", trace, "--format", "evemu"])
        XCTAssertTrue(exported.stdout.contains("t=1.000000 class=pop-press kind=deep\n"), exported.stdout)
    }

    // MARK: The builder

    /// Damage after many chunks keeps exactly the complete frames, and
    /// names how many there were without --salvage.
    func testSalvageCutFallsAtTheLastReportAcrossChunks() throws {
        let count = ForceTrace.RecordingBuilder.chunkEvents * 3 / 2 + 1
        let events = frames((0..<Int64(count)).map { 1_000_000_000 + $0 * 1_000_000 })
        var original = Recording(device: device, events: events, clock: .relative, source: .other(""), name: "")
        original.events.append(InputEvent(timeNs: 9_000_000_000, type: EventType.abs, code: AbsoluteAxis.mtPressure, value: 9))
        let output = ByteOutput()
        try RawCodec().encode([original], to: output)
        let damaged = output.memory + [1, 2, 3]
        let parsed = try RawCodec().decode(damaged, file: "cut.raw", options: DecodeOptions(description: device, salvage: true))
        XCTAssertEqual(parsed.count, 1)
        XCTAssertEqual(parsed[0].recording.events, events, "the unfinished last frame is cut, every complete one kept")
        XCTAssertNotNil(parsed[0].damage)
        XCTAssertThrowsError(try RawCodec().decode(damaged, file: "cut.raw", options: DecodeOptions(description: device))) { error in
            XCTAssertEqual((error as? ForceTraceError)?.hint, "pass --salvage to import the \(count) complete frames before it")
        }
    }

    // MARK: Streams

    /// A FIFO and /dev/fd/N are read as streams, like a file.
    func testImportReadsFIFOsAndDevFd() throws {
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path
        let expected = try Evemu.read(sample).events
        let fifo = path("recording.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = Thread {
            let bytes = FileManager.default.contents(atPath: sample)!
            let handle = FileHandle(forWritingAtPath: fifo)!
            handle.write(bytes)
            try? handle.close()
        }
        writer.start()
        let trace = path("fifo.h5")
        let run = try FormatTestSupport.run(["import", fifo, "-o", trace])
        XCTAssertEqual(run.status, 0, run.stderr)
        let reader = try TraceReader(path: trace)
        XCTAssertEqual(try reader.recording("recording").loadRecording().events, expected)

        // /dev/fd/0 of the child is its standard input.
        let devFd = try FormatTestSupport.run(["import", "/dev/fd/0", "-o", path("fd.h5")],
                                              stdin: FileManager.default.contents(atPath: sample)!)
        XCTAssertEqual(devFd.status, 0, devFd.stderr)
        XCTAssertEqual(try TraceReader(path: path("fd.h5")).recording("0").loadRecording().events, expected)
    }

    /// A head of comments longer than detection's first read still detects.
    func testDetectionReadsMoreThanItsFirstBlockOfComments() throws {
        let sample = try String(contentsOfFile: FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path, encoding: .utf8)
        let comments = String(repeating: "# " + String(repeating: "c", count: 1000) + "\n", count: 200)
        let run = try FormatTestSupport.run(["import", "-", "-o", path("comments.h5")], stdin: Data((comments + sample).utf8))
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    /// record --replay takes every format import takes, and its tables
    /// equal the import's.
    func testReplayTakesEveryFormat() throws {
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-deep-presses.evemu").path
        let original = try Evemu.read(sample)
        var yaml = ""
        LibinputRecord.write([original], to: &yaml)
        try yaml.write(toFile: path("deep.yml"), atomically: true, encoding: .utf8)
        var raw: [UInt8] = []
        RawEventStream.write(original) { raw.append(contentsOf: $0) }
        FileManager.default.createFile(atPath: path("deep.raw"), contents: Data(raw))
        for (input, extra) in [(path("deep.yml"), [String]()), (path("deep.raw"), ["--desc", sample])] {
            let replayed = input + ".replayed.h5"
            let run = try FormatTestSupport.run(["record", "--replay", input, "--fast", "-q", "-o", replayed] + extra)
            XCTAssertEqual(run.status, 0, run.stderr)
            let reader = try TraceReader(path: replayed)
            let recording = try reader.recording(reader.recordingNames[0])
            XCTAssertEqual(try recording.loadRecording().events, original.events, input)
            XCTAssertEqual(try recording.rowCount(.samples), try importedSamples(sample), input)
        }
    }

    private func importedSamples(_ input: String) throws -> Int {
        let trace = path("imported-\(UUID().uuidString).h5")
        let run = try FormatTestSupport.run(["import", input, "-o", trace])
        XCTAssertEqual(run.status, 0, run.stderr)
        let reader = try TraceReader(path: trace)
        return try reader.recording(reader.recordingNames[0]).rowCount(.samples)
    }
}
