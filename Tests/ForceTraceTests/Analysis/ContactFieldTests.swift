import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// The per-contact registry (`ContactField.all`): every field reaches the
/// JSON contacts and the `--save` datasets with the same values, every column
/// the text and HTML tables, and a field added to the registry alone reaches
/// all of them and the Python package.
final class ContactFieldTests: XCTestCase {
    typealias F = AnalysisFixtures

    /// Smoothing, so every field applies (signal_peak); curves, for --save.
    static var options: AnalysisOptions {
        var options = AnalysisOptions()
        options.curves = true
        options.smoothing = .ema(alpha: 0.5)
        options.tolerance = .millimetres(0.25)
        return options
    }

    static func analysis() throws -> RecordingAnalysis {
        var simulation = SimulationOptions()
        simulation.seed = 5
        simulation.presses = 12
        return try F.analyze(Simulator.run(simulation).recording, options: options)
    }

    static func report(_ analysis: RecordingAnalysis) -> PressureReport {
        PressureReport(options: analysis.options, files: [FileAnalysis(file: "x.h5", recordings: [analysis])])
    }

    /// Changes to a contact, one idea each; every field and column is changed by one of them.
    /// Changes to a contact, one idea each, named after the stored property
    /// they change (`contact.` for the contacts table's row); every field and
    /// column is changed by one of them, and every stored property has one.
    static let mutations: [(String, @Sendable (inout ContactStatistics) -> Void)] = [
        ("contact.id", { $0.contact.id += 1 }), ("contact.slot", { $0.contact.slot += 1 }),
        ("contact.trackingID", { $0.contact.trackingID += 1 }),
        ("contact.tool", { $0.contact.tool += 1 }), ("contact.tDownNs", { $0.contact.tDownNs += 10_000_000 }),
        ("contact.tUpNs", { $0.contact.tUpNs = $0.tUpNs < 0 ? $0.endNs : -1 }),
        ("endNs", { $0.endNs += 10_000_000 }), ("samples", { $0.samples += 1 }), ("peakRaw", { $0.peakRaw += 1 }),
        ("peakNorm", { $0.peakNorm = ($0.peakNorm ?? 0) + 0.01 }), ("peakGrams", { $0.peakGrams = ($0.peakGrams ?? 0) + 1 }), ("signalPeak", { $0.signalPeak = ($0.signalPeak ?? 0) + 0.01 }),
        ("timeToPeakNs", { $0.timeToPeakNs = ($0.timeToPeakNs ?? 0) + 10_000_000 }),
        ("tPeekNs", { $0.tPeekNs = ($0.tPeekNs ?? 0) + 10_000_000 }), ("tPopNs", { $0.tPopNs = ($0.tPopNs ?? 0) + 20_000_000 }),
        ("peek and pop", { $0.tPeekNs = 10_000_000; $0.tPopNs = ($0.tPopNs ?? 0) + 50_000_000 }),
        ("peekCrossings", { $0.peekCrossings += 2 }), ("popCrossings", { $0.popCrossings += 2 }),
        ("maxDx", { $0.maxDx += 100 }), ("maxDy", { $0.maxDy = $0.maxDx + 1_000 }),
        ("displacementMM", { $0.displacementMM = ($0.displacementMM ?? 0) + 1 }),
        ("motionEvents", { $0.motionEvents += 5 }), ("stationary", { $0.stationary &+= 1 }),
        ("stationaryRise", { $0.stationaryRise &+= 1 }),
        ("withinTolerance", { $0.withinTolerance[0] = 1 - $0.withinTolerance[0]; $0.pressClass = .popPress }),
        ("pressClass", { $0.pressClass = $0.pressClass == .tap ? .popPress : .tap }),
        ("label", { $0.label = $0.label == .tap ? .popPress : .tap }),
    ]

    /// The contacts table's row pointers: what `ContactStatistics` carries of
    /// the trace file's row, not a measurement (the report shows `samples`).
    static let notShown: Set<String> = ["contact.firstSample", "contact.lastSample", "contact.sampleCount"]

    /// Every stored property of a contact's statistics, as "name" or "contact.name".
    static func storedProperties(_ statistics: ContactStatistics) -> [String: String] {
        var found: [String: String] = [:]
        for child in Mirror(reflecting: statistics).children {
            guard let label = child.label else { continue }
            if label == "contact" {
                for row in Mirror(reflecting: child.value).children { found["contact." + row.label!] = "\(row.value)" }
            } else {
                found[label] = "\(child.value)"
            }
        }
        return found
    }

    /// A stored statistic nobody shows fails here: each has a mutation of its
    /// own name that changes it, and that change reaches a `ContactField`
    /// (and so the JSON, `--save` and Python, by the tests above).
    func testEveryStoredStatisticReachesAField() throws {
        let base = try Self.analysis().contacts[0]
        let properties = Self.storedProperties(base)
        XCTAssertFalse(properties.isEmpty)
        let mutations = Dictionary(Self.mutations, uniquingKeysWith: { first, _ in first })
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) where !Self.notShown.contains(name) {
            guard let mutate = mutations[name] else {
                XCTFail("no mutation changes \(name): add one to ContactFieldTests.mutations, and a ContactField that shows it")
                continue
            }
            var changed = base
            mutate(&changed)
            XCTAssertNotEqual(Self.storedProperties(changed)[name], value, "the \(name) mutation does not change \(name)")
            XCTAssertTrue(ContactField.all.contains { $0.value(changed) != $0.value(base) }, "\(name) reaches no ContactField")
        }
        XCTAssertTrue(Self.notShown.isSubset(of: Set(properties.keys)), "notShown names a property that is gone")
    }

    func testFieldNamesAreUniqueAndEveryKindIsUsed() {
        let names = ContactField.all.map(\.name)
        XCTAssertEqual(Set(names).count, names.count, "a JSON key or dataset named twice")
        XCTAssertEqual(ContactField.all.compactMap(\.column).count, 20, "the table's 20 columns")
    }

    /// The table's heading, byte for byte as before the registry, on a
    /// recording without grams; with them, the gf column after force.
    func testTextHeadingIsTheTablesOwn() throws {
        XCTAssertEqual(ContactField.textHeading(ContactField.all.compactMap(\.column)),
                       "    id slot  track    down_s   dur_s  smpl  peak  norm force     gf  t_peak  t_peek   t_pop pk>pop rx   disp  motion  stat  infl class")
        var analysis = try Self.analysis()
        let report = Self.report(analysis)
        XCTAssertEqual(ContactField.textHeading(report.contactColumns(analysis)),
                       "    id slot  track    down_s   dur_s  smpl  peak  norm force  t_peak  t_peek   t_pop pk>pop rx   disp  motion  stat  infl class")
        analysis.pressureAxis?.resolution = 2
        XCTAssertEqual(report.contactColumns(analysis).count, 20)
    }

    /// Each field changes its contact's JSON object when its value changes,
    /// and its --save dataset holds what the JSON says, row by row.
    func testEveryFieldReachesJSONAndSave() throws {
        let analysis = try Self.analysis()
        let report = Self.report(analysis)
        let fields = report.jsonContactFields
        XCTAssertEqual(fields.count, ContactField.all.count, "every field applies with smoothing")
        let base = analysis.contacts[0]
        func object(_ contact: ContactStatistics) -> [UInt8] {
            var out = JSONWriter()
            let entries = ContactJSONFields(fields)
            report.writeContact(contact, fields: entries, keys: out.prepareKeys(entries.entries.map(\.key)), lanes: analysis.lanes, to: &out)
            return out.finish()
        }
        for field in ContactField.all {
            let changed = Self.mutations.map { _, mutate in var copy = base; mutate(&copy); return copy }
                .first { field.value($0) != field.value(base) }
            let contact = try XCTUnwrap(changed, "no mutation changes \(field.name)")
            XCTAssertNotEqual(object(contact), object(base), "JSON does not show \(field.name)")
        }

        let path = F.temporaryPath("contact-fields.h5")
        try ReportFile.write(report, to: path, replace: true)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.jsonBytes())) as? [String: Any])
        let objects = try XCTUnwrap(((json["recordings"] as? [[String: Any]])?.first)?["contacts"] as? [[String: Any]])
        let file = try File.open(path)
        defer { try? file.close() }
        let contacts = try file.root.openGroup("recordings").openGroup(analysis.name).openGroup("contacts")
        XCTAssertEqual(Set(try contacts.memberNames()), Set(ContactField.all.map(\.name)))
        XCTAssertEqual(Set(objects[0].keys), Set(ContactField.all.map(\.name)))
        for field in ContactField.all where !field.isSweep {
            let saved: [Any]
            switch field.storage {
            case .int16: saved = try contacts.readArray(field.name, of: Int16.self).map { Int64($0) }
            case .int32: saved = try contacts.readArray(field.name, of: Int32.self).map { Int64($0) }
            case .int64: saved = try contacts.readArray(field.name, of: Int64.self)
            case .uint8: saved = try contacts.readArray(field.name, of: UInt8.self).map { Int64($0) }
            case .uint16: saved = try contacts.readArray(field.name, of: UInt16.self).map { Int64($0) }
            case .double: saved = try contacts.readArray(field.name, of: Double.self)
            case .string: saved = try contacts.readStrings(field.name)
            case .int64PerLane: continue
            }
            XCTAssertEqual(saved.count, objects.count, field.name)
            for (row, object) in objects.enumerated() {
                let value = object[field.name]
                switch saved[row] {
                case let number as Int64:
                    if value is NSNull { XCTAssertEqual(number, field.missing, field.name) }
                    else if let flag = value as? Bool, field.storage == .uint8 { XCTAssertEqual(number, flag ? 1 : 0, field.name) }
                    else { XCTAssertEqual(number, (value as? NSNumber)?.int64Value, field.name) }
                case let number as Double:
                    if value is NSNull { XCTAssertFalse(number.isFinite, "\(field.name) row \(row)") }
                    // Foundation's JSON parser on Linux is not correctly rounded; test_report_registry.py compares exactly.
                    else { XCTAssertEqual(number, try XCTUnwrap((value as? NSNumber)?.doubleValue), accuracy: 1e-12 * max(1, abs(number)), "\(field.name) row \(row)") }
                case let text as String:
                    XCTAssertEqual(text, value as? String ?? "", field.name)
                default:
                    XCTFail("\(field.name): unexpected type")
                }
            }
        }
    }

    /// Each column's cell changes with the number it shows, in the text row and the HTML table alike.
    func testEveryColumnReachesTextAndHTML() throws {
        var analysis = try Self.analysis()
        // Grams, so the table has every column.
        analysis.pressureAxis?.resolution = 2
        let report = Self.report(analysis)
        let base = analysis.contacts[0]
        let baseHTML = report.contactTable(analysis, limit: 1)
        for column in report.contactColumns() {
            let changed = Self.mutations.map { _, mutate in var copy = base; mutate(&copy); return copy }
                .first { column.cell($0).text != column.cell(base).text }
            let contact = try XCTUnwrap(changed, "no mutation changes the \(column.heading) column")
            XCTAssertNotEqual(report.contactLine(contact), report.contactLine(base), "text does not show \(column.heading)")
            var edited = analysis
            edited.contacts[0] = contact
            XCTAssertNotEqual(report.contactTable(edited, limit: 1), baseHTML, "HTML does not show \(column.heading)")
        }
        XCTAssertTrue(baseHTML.contains(report.contactColumns().map { "<th>\($0.heading.replacingOccurrences(of: ">", with: "&gt;"))</th>" }.joined()))
    }

    /// A statistic and its column, added to the registry alone, reach the
    /// text and HTML tables, the JSON, the --save file and `read_report`.
    func testAddedStatisticReachesEveryOutput() throws {
        let analysis = try Self.analysis()
        var report = Self.report(analysis)
        let squared = ContactField("peak_squared", .double, units: "1", "peak_norm squared, a test's own statistic",
                                   column: ContactColumn("sq", width: 6) { contact in
                                       contact.peakNorm.map { .init(String(format: "%.4f", $0 * $0), $0 * $0) } ?? .init("-", nil)
                                   }) { .real($0.peakNorm.map { $0 * $0 }) }
        report.contactFields = ContactField.all + [squared]
        let contact = analysis.contacts.first { $0.peakNorm != nil }!
        let expected = contact.peakNorm! * contact.peakNorm!

        let text = report.text(contactLimit: nil).rendered
        XCTAssertTrue(text.contains(" class     sq\n"), "text heading")
        XCTAssertTrue(report.contactLine(contact).hasSuffix(String(format: "%6.4f", expected)), report.contactLine(contact))
        XCTAssertTrue(report.html(contactLimit: nil).contains("<th>sq</th>"), "HTML heading")
        XCTAssertTrue(report.html(contactLimit: nil).contains(">\(String(format: "%.4f", expected))</td>"), "HTML cell")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.jsonBytes())) as? [String: Any])
        let objects = try XCTUnwrap(((json["recordings"] as? [[String: Any]])?.first)?["contacts"] as? [[String: Any]])
        let object = try XCTUnwrap(objects.first { ($0["id"] as? NSNumber)?.int32Value == contact.id })
        XCTAssertNotNil(object["peak_squared"] as? NSNumber)
        XCTAssertTrue(report.jsonText().contains("\"peak_squared\": \(expected),\n"), "JSON value, as Swift prints it")

        let path = F.temporaryPath("added-field.h5")
        try ReportFile.write(report, to: path, replace: true)
        let file = try File.open(path)
        let contacts = try file.root.openGroup("recordings").openGroup(analysis.name).openGroup("contacts")
        XCTAssertEqual(try contacts.readArray("peak_squared", of: Double.self)[Int(contact.id)], expected)
        XCTAssertEqual(try contacts.attribute("units", ofMember: "peak_squared")?.stringValue, "1")
        try file.close()

        // The Python package reads it by name, with no change of its own.
        let package = packageRoot.appendingPathComponent("python").path
        try runPython("""
            import sys, math
            sys.path.insert(0, \(String(reflecting: package)))
            import forcetrace
            frame = forcetrace.read_report(sys.argv[1]).contacts()
            row = frame[frame["id"] == \(contact.id)].iloc[0]
            assert row["peak_squared"] == \(expected), row["peak_squared"]
            """, path)
    }
}
