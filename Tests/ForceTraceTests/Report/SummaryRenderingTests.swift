import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// The renderers of the report summary: every field reaches each of them,
/// and they agree on unbounded and undefined values.
final class SummaryRenderingTests: XCTestCase {
    typealias F = AnalysisFixtures

    static var curveOptions: AnalysisOptions {
        var options = AnalysisOptions()
        options.curves = true
        options.tolerance = .millimetres(0.25)
        return options
    }

    static func report(_ analysis: RecordingAnalysis) -> PressureReport {
        PressureReport(options: analysis.options, files: [FileAnalysis(file: "x.h5", recordings: [analysis])])
    }

    static func json(_ report: PressureReport) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.jsonBytes())) as? [String: Any])
    }

    /// One contact: a down row, then `pressures` as pressure-only frames.
    static func pressureOnlyContact(_ pressures: [Int32]) throws -> RecordingAnalysis {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 10)])
        for (index, pressure) in pressures.enumerated() { builder.frame(Int64(10 * (index + 1)), [(F.p, pressure)]) }
        builder.frame(Int64(10 * (pressures.count + 1)), [(F.id, -1)])
        return try F.analyze(builder.recording, options: curveOptions)
    }

    /// Writes the report's --save file and opens it.
    static func saved(_ report: PressureReport, _ name: String) throws -> File {
        let path = F.temporaryPath(name)
        try ReportFile.write(report, to: path, replace: true)
        return try File.open(path)
    }

    /// Unbounded (every motion event stationary): ∞ in text, null in JSON,
    /// +inf in --save, per contact and in the summaries and the sweep alike.
    func testUnboundedInflationAgreesAcrossRenderers() throws {
        let analysis = try Self.pressureOnlyContact([20, 30])
        XCTAssertEqual(analysis.contacts[0].inflation(), .unbounded)
        XCTAssertEqual(analysis.statistics.inflation(), .unbounded)
        let report = Self.report(analysis)
        let text = report.text(contactLimit: nil).rendered
        XCTAssertTrue(text.contains("inflation ∞"), text)
        XCTAssertTrue(text.contains("0 mm ∞"), text)
        XCTAssertTrue(report.contactLine(analysis.contacts[0]).contains("    ∞ "))
        let page = report.html(contactLimit: nil)
        XCTAssertTrue(page.contains("<dt>Inflation</dt><dd>∞</dd>"), "HTML summary")
        XCTAssertTrue(page.contains("<td data-v=\"1e308\">∞</td>"), "HTML contact table")
        let json = try Self.json(report)
        let recording = try XCTUnwrap((json["recordings"] as? [[String: Any]])?.first)
        XCTAssertTrue((recording["contacts"] as? [[String: Any]])?.first?["inflation"] is NSNull)
        XCTAssertTrue((json["total"] as? [String: Any])?["inflation"] is NSNull)
        let file = try Self.saved(report, "unbounded.h5")
        defer { try? file.close() }
        let group = try file.root.openGroup("recordings").openGroup(analysis.name)
        XCTAssertEqual(try group.openGroup("contacts").readArray("inflation", of: Double.self), [.infinity])
        for group in [group, try file.root.openGroup("total")] {
            XCTAssertEqual(try group.attribute("inflation")?.doubleValue, .infinity, "summary attribute")
            let sweep = try group.openGroup("inflation_sweep").readArray("inflation", of: Double.self)
            XCTAssertEqual(sweep.first, .infinity, "0 mm lane of the sweep")
        }
    }

    /// Undefined (no motion events): - in text, null in JSON, NaN in --save.
    func testUndefinedInflationAgreesAcrossRenderers() throws {
        let analysis = try Self.pressureOnlyContact([])
        XCTAssertEqual(analysis.contacts[0].inflation(), .undefined)
        XCTAssertEqual(analysis.statistics.inflation(), .undefined)
        let report = Self.report(analysis)
        XCTAssertTrue(report.text(contactLimit: nil).rendered.contains("inflation -\n"))
        XCTAssertTrue(report.contactLine(analysis.contacts[0]).contains("    - "))
        XCTAssertTrue(report.html(contactLimit: nil).contains("<dt>Inflation</dt><dd>-</dd>"), "HTML summary")
        let json = try Self.json(report)
        XCTAssertTrue((json["total"] as? [String: Any])?["inflation"] is NSNull)
        let file = try Self.saved(report, "undefined.h5")
        defer { try? file.close() }
        let group = try file.root.openGroup("recordings").openGroup(analysis.name)
        XCTAssertTrue(try group.openGroup("contacts").readArray("inflation", of: Double.self)[0].isNaN)
        XCTAssertTrue(try XCTUnwrap(try group.attribute("inflation")?.doubleValue).isNaN)
        XCTAssertTrue(try group.openGroup("inflation_sweep").readArray("inflation", of: Double.self).allSatisfy(\.isNaN))
    }

    /// The field list names every stored property, in order: a new field
    /// that is not in `PressureStatistics.fields` fails here, not silently in `+`.
    func testFieldListCoversEveryProperty() {
        let properties = Mirror(reflecting: PressureStatistics()).children.compactMap(\.label).map(Self.snakeCase)
        XCTAssertEqual(PressureStatistics.fields.map(\.name), properties)
    }

    /// Changing any one field changes the text summary, the JSON summary, the
    /// HTML summary and the --save state; the saved state reads back exactly.
    func testEveryFieldReachesEveryRenderer() throws {
        var simulation = SimulationOptions()
        simulation.seed = 11
        simulation.presses = 24
        let analysis = try F.analyze(Simulator.run(simulation).recording, options: Self.curveOptions)
        let report = Self.report(analysis)
        let base = analysis.statistics
        XCTAssertGreaterThan(base.labelled, 0)
        XCTAssertGreaterThan(base.curveBands.points, 0)
        let baseText = report.summaryText(base), baseJSON = Self.summaryJSON(report, base)
        let baseHTML = report.summaryFigures(base, paths: [], analysis: nil)
        for field in PressureStatistics.fields {
            var changed = base
            let variants = Self.perturbations(field.stored(base))
            XCTAssertTrue(variants.contains { field.restore(&changed, $0) }, "\(field.name) takes none of its perturbations")
            XCTAssertNotEqual(changed, base, field.name)
            XCTAssertNotEqual(report.summaryText(changed), baseText, "text does not show \(field.name)")
            XCTAssertNotEqual(Self.summaryJSON(report, changed), baseJSON, "JSON does not show \(field.name)")
            XCTAssertNotEqual(report.summaryFigures(changed, paths: [], analysis: nil), baseHTML, "HTML does not show \(field.name)")
        }
        let file = try Self.saved(report, "state.h5")
        defer { try? file.close() }
        for group in [try file.root.openGroup("recordings").openGroup(analysis.name), try file.root.openGroup("total")] {
            let state = try group.openGroup("state")  // each field and its dimension scale
            XCTAssertEqual(try state.memberNames().filter { try !state.isDimensionScale($0) }.sorted(), PressureStatistics.fields.map(\.name).sorted())
            XCTAssertEqual(try ReportFile.readStatistics(from: group, file: "state.h5"), base, "--save state reads back exactly")
        }
    }

    /// Merging through the field list equals merging the data.
    func testMergeAddsEveryField() throws {
        let a = try Self.pressureOnlyContact([20, 30]).statistics, b = try Self.pressureOnlyContact([40]).statistics
        let sum = a + b
        for field in PressureStatistics.fields {
            var expected = a
            field.merge(&expected, b)
            XCTAssertEqual(field.stored(sum), field.stored(expected), field.name)
        }
        XCTAssertEqual(sum.contacts, 2)
        XCTAssertEqual(sum.stationary[0], 3)
    }

    /// The byte-buffer writer lays JSON out exactly as JSONText does
    /// (indentation of objects inside arrays, flat number arrays, escapes).
    func testJSONWriterMatchesJSONTextLayout() {
        var out = JSONWriter(capacity: 16)
        out.beginObject()
        out.key("a"); out.beginArray(flat: false)
        out.beginObject(); out.key("b"); out.integers([1, -20, 300]); out.key("c"); out.null(); out.endObject()
        out.integers([Int64.min, 0]); out.doubles([0.1, 1e-05, 2.0, .nan])
        out.endArray()
        out.key("d"); out.beginObject(); out.endObject()
        out.key("e"); out.string("quote \" tab \t é \u{1}"); out.key("f"); out.bool(true); out.key("g"); out.seconds(1_500_000_000)
        out.endObject()
        let expected: [String: Any] = [
            "a": [["b": [1, -20, 300], "c": NSNull()] as [String: Any], [Int64.min, Int64(0)], [0.1, 1e-05, 2.0, Double.nan]] as [Any],
            "d": [String: Any](), "e": "quote \" tab \t é \u{1}", "f": true, "g": 1.5,
        ]
        XCTAssertEqual(String(decoding: out.finish(), as: UTF8.self), JSONText.encode(expected))
    }

    /// Elements rendered in batches on several threads give the text of
    /// rendering them one by one (commas, indentation, order), here and in
    /// a whole report with more contacts than a batch.
    func testElementsOnThreadsEqualElementsInOrder() throws {
        func document(threads: Int, batch: Int, count: Int) -> String {
            var out = JSONWriter(capacity: 16)
            out.beginObject()
            out.key("a"); out.beginArray(flat: false)
            out.elements(count, batch: batch, threads: threads) { index, out in
                out.beginObject()
                out.key("i"); out.int(index)
                out.key("s"); out.string(String(repeating: "x", count: index % 5))
                out.key("v"); out.doubles([Double(index) / 3])
                out.endObject()
            }
            out.endArray()
            out.key("b"); out.int(1)
            out.endObject()
            return String(decoding: out.finish(), as: UTF8.self)
        }
        for count in [0, 1, 7, 8, 9, 50, 1_001] {
            let expected = document(threads: 1, batch: 7, count: count)
            XCTAssertEqual(document(threads: 3, batch: 7, count: count), expected, "\(count) elements")
            XCTAssertEqual(document(threads: 2, batch: 1, count: count), expected, "\(count) elements")
        }
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(document(threads: 2, batch: 7, count: 50).utf8)) as? NSDictionary,
                       ["a": (0..<50).map { ["i": $0, "s": String(repeating: "x", count: $0 % 5), "v": [Double($0) / 3]] as NSDictionary },
                        "b": 1] as NSDictionary)
        var simulation = SimulationOptions()
        simulation.presses = 2_500
        let report = Self.report(try F.analyze(Simulator.run(simulation).recording))
        var sequential = JSONWriter()
        sequential.beginObject()
        sequential.key("contacts"); sequential.beginArray(flat: false)
        let contacts = report.recordings[0].contacts, lanes = report.recordings[0].lanes
        let fields = ContactJSONFields(report.jsonContactFields), keys = sequential.prepareKeys(fields.entries.map(\.key))
        for contact in contacts { report.writeContact(contact, fields: fields, keys: keys, lanes: lanes, to: &sequential) }
        sequential.endArray()
        sequential.endObject()
        let text = String(decoding: report.jsonBytes(), as: UTF8.self)
        let expected = String(decoding: sequential.finish(), as: UTF8.self)
        // The contacts array as it appears in the report, one level deeper there.
        let body = expected.split(separator: "\n").dropFirst().dropLast().map { "    " + $0 }.joined(separator: "\n")
        XCTAssertGreaterThan(contacts.count, 2_048, "more than one batch")
        XCTAssertTrue(text.contains(body), "the report's contacts array is the one rendered in order")
    }

    /// The streamed document (a megabyte at a time) equals the one built whole.
    func testStreamedJSONEqualsTheWholeDocument() throws {
        var simulation = SimulationOptions()
        simulation.presses = 3000
        let report = Self.report(try F.analyze(Simulator.run(simulation).recording))
        var streamed: [UInt8] = [], pieces = 0
        report.writeJSON { streamed.append(contentsOf: $0); pieces += 1 }
        XCTAssertGreaterThan(pieces, 1, "more than a megabyte: written in pieces")
        XCTAssertEqual(streamed, report.jsonBytes())
    }

    /// Integers at every digit count and both ends, and keys and strings of
    /// every length around the 8-byte copies, are written as Swift prints them.
    func testIntegersKeysAndStringsAtEveryLength() {
        var values: [Int64] = [0, 9, -9, Int64.max, Int64.min, Int64.min + 1]
        var power: Int64 = 10
        for _ in 1...18 {
            values += [power - 1, power, power + 1, -power, -(power - 1)]
            power = power.multipliedReportingOverflow(by: 10).partialValue
        }
        var out = JSONWriter(capacity: 16)
        out.beginArray(flat: true)
        for value in values { out.int(value) }
        out.endArray()
        XCTAssertEqual(String(decoding: out.finish(), as: UTF8.self), "[" + values.map(String.init).joined(separator: ", ") + "]\n")
        // Keys are StaticStrings: one literal per length, 1 to 26 bytes.
        let keys: [StaticString] = ["a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi",
                                    "abcdefghij", "abcdefghijk", "abcdefghijkl", "abcdefghijklm", "abcdefghijklmn",
                                    "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopqr",
                                    "abcdefghijklmnopqrs", "abcdefghijklmnopqrst", "abcdefghijklmnopqrstu",
                                    "abcdefghijklmnopqrstuv", "abcdefghijklmnopqrstuvw", "abcdefghijklmnopqrstuvwx",
                                    "abcdefghijklmnopqrstuvwxy", "abcdefghijklmnopqrstuvwxyz"]
        var object = JSONWriter(capacity: 16)
        object.beginObject()
        for (index, key) in keys.enumerated() { object.key(key); object.string(String(repeating: "é", count: index) + "x") }
        object.endObject()
        let expected = keys.enumerated().map { index, key in
            "  \"\(key)\": \"" + String(repeating: "é", count: index) + "x\""
        }.joined(separator: ",\n")
        XCTAssertEqual(String(decoding: object.finish(), as: UTF8.self), "{\n" + expected + "\n}\n")
    }

    /// Seconds written from nanoseconds parse to exactly Double(ns) / 1e9.
    func testSecondsAreExact() throws {
        let values: [Int64] = [0, 1, 10, 999_999_999, 1_000_000_000, 1_500_000_000, 123_456_789_012, -2_000_000_001, 7_000_000_000_000_000]
        var out = JSONWriter()
        out.beginArray(flat: true)
        for value in values { out.seconds(value) }
        out.endArray()
        let text = String(decoding: out.finish(), as: UTF8.self)
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Double])
        XCTAssertEqual(parsed, values.map { Double($0) / 1e9 }, text)
        XCTAssertTrue(text.hasPrefix("[0.0, 0.000000001, 0.00000001, 0.999999999, 1.0, 1.5, 123.456789012, -2.000000001"), text)
    }

    static func summaryJSON(_ report: PressureReport, _ statistics: PressureStatistics) -> [UInt8] {
        var out = JSONWriter()
        report.writeSummary(statistics, to: &out)
        return out.finish()
    }

    /// Ways to change a stored array that keep it valid for some field.
    static func perturbations(_ array: StoredArray) -> [StoredArray] {
        switch array {
        case .integers(let values):
            // Doubled plus one: large enough for nanosecond sums to show at the renderers' precision.
            return [.integers(values.map { 2 * $0 + 1 }), .integers(values.prefix(1) + values.dropFirst().map { 2 * $0 + 1 })]
        case .doubles(let values):
            return [.doubles(values + [0.5, 0.25, 0.125])]
        }
    }

    static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { out, character in
            if character.isUppercase { out += "_" + character.lowercased() } else { out.append(character) }
        }
    }
}
