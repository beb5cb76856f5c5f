import Foundation
import XCTest
@testable import ForceTrace

/// W3C InkML documents as pen recordings.
final class InkMLTests: XCTestCase {
    static let fixture = BlackBox.fixture("inkml-pen.inkml")

    private func read(_ text: String) throws -> [ParsedRecording] {
        try InkMLCodec().decode(Array(text.utf8), file: "doc.inkml")
    }

    private func ink(_ traces: String, format: String = "") -> String {
        "<ink xmlns=\"http://www.w3.org/2003/InkML\">\(format)\(traces)</ink>"
    }

    /// The fixture's values worked out by hand from the Recommendation's
    /// rules: X, Y on the 1000-per-cm grid, F and OTx as integers, T in ms
    /// plus each trace's timeOffset; one contact per trace.
    func testFixtureValuesFollowTheDifferenceEncoding() throws {
        let recording = try RecordingImporter.read(Self.fixture)[0].recording
        func frames(_ code: UInt16) -> [[Int64]] {
            recording.events.filter { $0.type == EventType.abs && $0.code == code }.map { [$0.timeNs / 1_000_000, Int64($0.value)] }
        }
        XCTAssertEqual(frames(AbsoluteAxis.x), [[0, 10000], [10, 10500], [20, 11000], [30, 11500], [40, 12000], [100, 20000], [108, 20500], [120, 21000]])
        XCTAssertEqual(frames(AbsoluteAxis.y), [[0, 5000], [10, 5250], [20, 5750], [30, 6250], [40, 6000], [100, 10000], [120, 11000]])
        XCTAssertEqual(frames(AbsoluteAxis.pressure), [[0, 100], [10, 150], [20, 180], [40, 90], [100, 300], [108, 310], [120, 0]])
        XCTAssertEqual(frames(0x1a), [[0, -10], [40, 5]])
        XCTAssertEqual(recording.events.filter { $0.type == EventType.key && $0.code == Button.touch }.map(\.value), [1, 0, 1, 0])
        XCTAssertEqual(recording.events.filter { $0.type == EventType.key && $0.code == Button.toolPen }.map(\.value), [1, 0, 1, 0, 1, 0])
        let device = recording.device
        XCTAssertEqual(device.name, "Example & Co Tablet A")
        XCTAssertEqual(device.axis(AbsoluteAxis.x), AxisInfo(code: AbsoluteAxis.x, minimum: 0, maximum: 30000, resolution: 100))
        XCTAssertEqual(device.axis(AbsoluteAxis.pressure), AxisInfo(code: AbsoluteAxis.pressure, minimum: 0, maximum: 1023))
        XCTAssertTrue(device.isPen)
        XCTAssertEqual(recording.source.description, "inkml:\(Self.fixture)")
    }

    /// Without a traceFormat the channels are X Y; F's range is then the
    /// observed one, and decimals keep their digits (10^-1 here).
    func testDefaultFormatAndObservedRange() throws {
        let plain = try read(ink("<trace>1 2, 3 4</trace>"))[0].recording
        XCTAssertEqual(plain.device.axis(AbsoluteAxis.x), AxisInfo(code: AbsoluteAxis.x, minimum: 1, maximum: 3))
        XCTAssertNil(plain.device.axis(AbsoluteAxis.pressure))
        let format = "<traceFormat><channel name=\"X\"/><channel name=\"Y\"/><channel name=\"F\"/></traceFormat>"
        let pressed = try read(ink("<trace>0 0 0.2, 1 1 0.75</trace>", format: format))[0].recording
        XCTAssertEqual(pressed.device.axis(AbsoluteAxis.pressure), AxisInfo(code: AbsoluteAxis.pressure, minimum: 20, maximum: 75))
    }

    /// Exponents with their signs are numbers; an exponent without digits at
    /// a point's end, or a prefix with no value after it, is refused by name.
    func testExponentsAndValuesCutShort() throws {
        let values = try read(ink("<trace>1.5e+1 2E-1, 2.5e1 4e0</trace>"))[0].recording.device
        XCTAssertEqual(values.axis(AbsoluteAxis.x).map { [$0.minimum, $0.maximum] }, [15, 25])
        XCTAssertEqual(values.axis(AbsoluteAxis.y).map { [$0.minimum, $0.maximum] }, [2, 40])
        XCTAssertThrowsError(try read(ink("<trace>1 2, 3 4e</trace>"))) {
            XCTAssertTrue("\($0)".contains("'4e' in point 2 is not a number"), "\($0)")
        }
        XCTAssertThrowsError(try read(ink("<trace>1 2, 3 !</trace>"))) {
            XCTAssertTrue("\($0)".contains("unexpected '!' in point 2"), "\($0)")
        }
    }

    /// A boolean channel reads T as 1 and F as 0; a mapped channel that a
    /// document declares but never gives (intermittent) spans 0..0.
    func testBooleanValuesAndAChannelNeverGiven() throws {
        let boolean = "<traceFormat><channel name=\"X\"/><channel name=\"Y\"/><channel name=\"F\" type=\"boolean\"/></traceFormat>"
        let pressed = try read(ink("<trace>0 0 T, 1 1 F, 2 2 T</trace>", format: boolean))[0].recording
        XCTAssertEqual(pressed.events.filter { $0.type == EventType.abs && $0.code == AbsoluteAxis.pressure }.map(\.value), [1, 0, 1])
        XCTAssertEqual(pressed.device.axis(AbsoluteAxis.pressure).map { [$0.minimum, $0.maximum] }, [0, 1])
        let intermittent = "<traceFormat><channel name=\"X\"/><channel name=\"Y\"/>"
            + "<intermittentChannels><channel name=\"F\"/></intermittentChannels></traceFormat>"
        let never = try read(ink("<trace>0 0, 1 1</trace>", format: intermittent))[0].recording
        XCTAssertEqual(never.device.axis(AbsoluteAxis.pressure).map { [$0.minimum, $0.maximum] }, [0, 0])
    }

    /// A value 1.5e-6 off a whole number is not taken for it: the channel
    /// keeps the most digits (6), so 1.0000015 stays apart from 1.
    func testAValueJustOffAWholeNumberKeepsItsDigits() throws {
        let device = try read(ink("<trace>1.0000015 0, 2 0</trace>"))[0].recording.device
        XCTAssertEqual(device.axis(AbsoluteAxis.x).map { [$0.minimum, $0.maximum] }, [1_000_002, 2_000_000])
        XCTAssertEqual(InkML.fractionDigits([1.0000015]), 6)
        XCTAssertEqual(InkML.fractionDigits([1.0000005]), 0, "within 1e-6 of a whole number")
    }

    /// 65,536 traces are read; one more is refused by its count.
    func testTheTraceCountAtItsBound() throws {
        let bound = InkML.maximumTraces
        XCTAssertEqual(bound, 65_536)
        let traces = String(repeating: "<trace>1 2</trace>", count: bound)
        XCTAssertEqual(try read(ink(traces))[0].recording.events.filter { $0.type == EventType.key && $0.code == Button.touch && $0.value == 1 }.count, bound)
        XCTAssertThrowsError(try read(ink(traces + "<trace>1 2</trace>"))) {
            XCTAssertTrue("\($0)".contains("more than 65536 traces"), "\($0)")
        }
    }

    /// Differences need values before them: a first difference at the first
    /// point, a second one at the second, are refused naming the trace.
    func testDifferencesNeedEarlierValues() throws {
        XCTAssertThrowsError(try read(ink("<trace xml:id=\"a\">'1 2</trace>"))) {
            XCTAssertTrue("\($0)".contains("doc.inkml:1: trace 'a': a difference (') in point 1 of channel 'X'"), "\($0)")
        }
        XCTAssertThrowsError(try read(ink("<trace>1 2, \"1 2</trace>"))) {
            XCTAssertTrue("\($0)".contains("a second difference (\") in point 2"), "\($0)")
        }
        XCTAssertEqual(try read(ink("<trace>1 2, '1 '1, \"1 \"0</trace>"))[0].recording.events
            .filter { $0.code == AbsoluteAxis.x && $0.type == EventType.abs }.map(\.value), [1, 2, 4])
    }

    /// The tokenizer refuses what could expand or is not XML, naming the line.
    func testDoctypeEntitiesAndBadXMLAreRefused() {
        let cases: [(String, String)] = [
            ("<?xml version=\"1.0\"?>\n<!DOCTYPE ink [<!ENTITY a \"b\">]>\n<ink/>", "doc.inkml:2: a document type or entity declaration"),
            ("<ink>\n<trace>&bogus;</trace></ink>", "doc.inkml:2: the entity '&bogus;' is not one of XML's five"),
            ("<ink>\n<trace>1 2</traces></ink>", "doc.inkml:2: '</traces>' closes '<trace>'"),
            ("<ink><trace a=\"1\" a=\"2\">1 2</trace></ink>", "doc.inkml:1: the attribute 'a' is given twice"),
            ("<ink>\n<trace>1 2", "doc.inkml:2: the file ends inside '<trace>'"),
            ("<svg/>", "doc.inkml:1: the root element is '<svg>'"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try InkMLCodec().decode(Array(text.utf8), file: "doc.inkml")) { error in
                XCTAssertTrue("\(error)".hasPrefix(message), "\(error)")
            }
        }
    }

    /// Nesting is bounded: 64 levels are read, 65 refused.
    func testNestingDepthIsBounded() throws {
        func nested(_ levels: Int) -> String {
            "<ink>" + String(repeating: "<traceGroup>", count: levels - 2) + "<trace>1 2</trace>" + String(repeating: "</traceGroup>", count: levels - 2) + "</ink>"
        }
        XCTAssertEqual(try read(nested(64)).count, 1)
        XCTAssertThrowsError(try read(nested(65))) { XCTAssertTrue("\($0)".contains("nested deeper than 64 levels"), "\($0)") }
    }

    /// Detection takes an XML declaration followed by <ink, or <ink itself.
    func testDetection() throws {
        XCTAssertEqual(try RecordingImporter.detect(Array("<?xml version=\"1.0\"?>\n<ink>\n".utf8), file: "x"), .inkml)
        XCTAssertEqual(try RecordingImporter.detect(Array("<inkml:ink xmlns:inkml=\"http://www.w3.org/2003/InkML\">".utf8), file: "x"), .inkml)
        XCTAssertThrowsError(try RecordingImporter.detect(Array("<?xml version=\"1.0\"?>\n<svg/>\n".utf8), file: "x"))
    }

    /// import → export --format evemu → import gives the same samples.
    func testRoundTripThroughEvemuKeepsTheSamples() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let (trace, _) = try BlackBox.importTrace(Self.fixture, into: directory)
        let evemu = directory.appendingPathComponent("ink.evemu").path
        try BlackBox.run(["export", trace, "--format", "evemu", "-o", evemu])
        let (again, _) = try BlackBox.importTrace(evemu, into: directory)
        let first = try BlackBox.Trace(trace), second = try BlackBox.Trace(again)
        let samples = try first.table("samples")
        XCTAssertEqual(samples["pressure"]?.count, 7)
        XCTAssertEqual(samples, try second.table("samples"))
        try first.close(); try second.close()
    }
}
