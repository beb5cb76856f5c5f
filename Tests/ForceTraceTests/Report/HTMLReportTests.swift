import Foundation
import XCTest
@testable import ForceTrace

/// The HTML page's escaping and its Content-Security-Policy, read from the
/// page `report --html` writes. Tests/browser loads such pages in chromium.
final class HTMLReportTests: XCTestCase {
    /// Each character HTML gives a meaning is written as its entity, in text
    /// and in (double-quoted) attributes alike; everything else as it is.
    func testEscapeWritesEachSpecialCharacterAsItsEntity() {
        let cases: [(String, String)] = [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&#39;")]
        for (character, entity) in cases {
            XCTAssertEqual(esc("a\(character)b"), "a\(entity)b", character)
        }
        let plain = "`${x}` ]]> \u{2028}\u{2029}\u{1}\u{1b}\u{7f} é 👍 &amp"
        XCTAssertEqual(esc(plain), plain.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: ">", with: "&gt;"))
        XCTAssertEqual(esc("<img src=x onerror=\"a('b')\">"), "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;")
    }

    /// No 'unsafe-inline': the policy names the hash of each inline script
    /// and stylesheet, and the page has nothing a hash cannot allow (event
    /// handler attributes, style attributes, javascript: URLs).
    func testPolicyAllowsOnlyThePagesOwnScriptAndStyle() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The labelled sample: confusion tables and the phase split are drawn.
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path
        let trace = try BlackBox.importTrace(sample, into: directory).path
        let pagePath = directory.appendingPathComponent("report.html").path
        try BlackBox.run(["report", trace, "--html", pagePath])
        let page = try String(contentsOfFile: pagePath, encoding: .utf8)
        XCTAssertTrue(page.contains("data-chart=\"confusion\"") && page.contains("data-chart=\"phase-split\""), "the sample draws every part")

        let metas = matches(#"<meta http-equiv="Content-Security-Policy" content="([^"]*)">"#, in: page)
        XCTAssertEqual(metas.count, 1, "one policy")
        let policy = try XCTUnwrap(metas.first)
        var directives: [String: [String]] = [:]
        for directive in policy.split(separator: ";") {
            let words = directive.split(separator: " ").map(String.init)
            guard let name = words.first else { continue }
            directives[name] = Array(words.dropFirst())
        }
        XCTAssertFalse(policy.contains("unsafe"), policy)
        XCTAssertEqual(directives["default-src"], ["'none'"], policy)
        XCTAssertEqual(directives["base-uri"], ["'none'"], policy)
        XCTAssertEqual(directives["form-action"], ["'none'"], policy)
        for (element, directive) in [("script", "script-src"), ("style", "style-src")] {
            let bodies = matches("<\(element)>(.*?)</\(element)>", in: page)
            XCTAssertEqual(bodies.count, 1, element)
            XCTAssertEqual(directives[directive] ?? [], bodies.map { "'sha256-\(SHA256.base64($0))'" }, "\(directive): \(policy)")
        }
        XCTAssertEqual(matches(#"<[^>]*\s(on[a-z]+|style)\s*=[^>]*>"#, in: page), [], "event handler or style attributes")
        XCTAssertFalse(page.lowercased().contains("javascript:"))
    }

    /// The first capture group of each match of `pattern` (dot matches newlines).
    func matches(_ pattern: String, in text: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            String(text[Range(match.range(at: 1), in: text)!])
        }
    }

    typealias F = AnalysisFixtures

    /// One contact with pressure: down at p 30, then frames at 10 and 20 ms.
    /// `stationaryAt10`: the 10 ms frame changes only the pressure (a
    /// stationary event, before the peak: rise 1, after 0), else it moves too.
    private func html(stationaryAt10: Bool, recordings: Int = 1) throws -> String {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        builder.frame(10, (stationaryAt10 ? [] : [(F.x, Int32(120))]) + [(F.p, Int32(60))])
        builder.frame(20, [(F.x, 140), (F.p, 70)])
        builder.frame(30, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        XCTAssertEqual(analysis.statistics.stationary[0], stationaryAt10 ? 1 : 0)
        let file = FileAnalysis(file: analysis.file, recordings: Array(repeating: analysis, count: recordings))
        return PressureReport(options: AnalysisOptions(), files: [file]).html(contactLimit: nil)
    }

    /// The x coordinates of every path in the page's `chart` figure.
    private func pathXs(_ page: String, chart: String) throws -> [Double] {
        let svg = try XCTUnwrap(page.components(separatedBy: "data-chart=\"\(chart)\"").dropFirst().first?
            .components(separatedBy: "</svg>").first, "no \(chart) figure")
        var xs: [Double] = []
        for d in svg.components(separatedBy: " d=\"").dropFirst().map({ $0.prefix { $0 != "\"" } }) {
            // "Mx yLx y...Z": every other number is an x.
            let numbers = d.split(whereSeparator: { "MLZ ".contains($0) }).compactMap { Double($0) }
            xs += stride(from: 0, to: numbers.count, by: 2).map { numbers[$0] }
        }
        return xs
    }

    /// Each item of the data-quality card is a check at zero and a warning
    /// from the first problem; shared pressure only when every frame with
    /// two or more contacts shares it.
    func testDataQualityItemsWarnFromTheFirstProblem() {
        let report = PressureReport(options: AnalysisOptions(), files: [])
        func mark(_ statistics: PressureStatistics, _ text: String) -> String {
            let item = report.dataQuality(statistics).components(separatedBy: "\n").filter { $0.contains(text) }
            guard item.count == 1 else { return "\(item.count) items with '\(text)'" }
            if item[0].hasPrefix("<li class=\"ok\"><span class=\"mark\">✓</span> ") { return "ok" }
            if item[0].hasPrefix("<li class=\"warn\"><span class=\"mark\">⚠</span> ") { return "warn" }
            return item[0]
        }
        let problems: [(String, (inout PressureStatistics) -> Void)] = [
            ("outside absinfo", { $0.outOfRangeSamples = 1 }),
            ("SYN_DROPPED markers", { $0.droppedMarkers = 1 }),
            ("still down at the end", { $0.stillDown = 1 }),
            ("partial imports", { $0.partialRecordings = 1 }),
            ("have equal pressures", { $0.multiContactFrames = 2; $0.sharedPressureFrames = 2 }),
        ]
        for (text, problem) in problems {
            XCTAssertEqual(mark(PressureStatistics(), text), "ok", text)
            var statistics = PressureStatistics()
            problem(&statistics)
            XCTAssertEqual(mark(statistics, text), "warn", text)
        }
        var mixed = PressureStatistics()
        mixed.multiContactFrames = 2
        mixed.sharedPressureFrames = 1
        XCTAssertEqual(mark(mixed, "have equal pressures"), "ok", "one of two frames shares pressure")
    }

    /// The inflation figure speaks of stationary deep presses under its bars
    /// from the first contact with pressure, and not without one.
    func testInflationCaptionNamesDeepPressesFromOneContactWithPressure() {
        let report = PressureReport(options: AnalysisOptions(), files: [])
        var statistics = PressureStatistics()
        statistics.motionEvents = 10
        XCTAssertFalse(report.inflationFigure(statistics).contains("Under each bar"))
        statistics.contactsWithPressure = 1
        XCTAssertTrue(report.inflationFigure(statistics).contains("Under each bar: stationary deep presses at that tolerance."))
    }

    /// The HTML page's contact table is left out when it would have no rows
    /// (--contacts 0), and there with one row (--contacts 1).
    func testHTMLContactTableNeedsARow() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let (trace, _) = try BlackBox.importTrace(BlackBox.fixture("long-press-timeouts.evemu"), into: directory)
        for limit in [0, 1] {
            let page = directory.appendingPathComponent("contacts-\(limit).html").path
            try BlackBox.run(["report", trace, "--html", page, "--contacts", "\(limit)"])
            let html = try String(contentsOfFile: page, encoding: .utf8)
            XCTAssertEqual(html.contains("<h3>Contacts</h3>"), limit == 1, "--contacts \(limit)")
            if limit == 1 { XCTAssertTrue(html.contains("data-rows=\"1\""), "one row") }
        }
    }

    /// Every SVG path the page draws starts with its one move-to ("M"); the
    /// other points are line-tos.
    func testHTMLPathsStartWithAMove() throws {
        let page = try html(stationaryAt10: false)
        let paths = page.components(separatedBy: " d=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        XCTAssertFalse(paths.isEmpty)
        for d in paths {
            XCTAssertTrue(d.hasPrefix("M"), String(d))
            XCTAssertEqual(d.filter { $0 == "M" }.count, 1, String(d))
        }
    }

    /// The before/after-peak split of stationary events is drawn from one
    /// event on (rise 1 + after 0), not for none.
    func testHTMLPhaseSplitFromOneStationaryEvent() throws {
        XCTAssertTrue(try html(stationaryAt10: true).contains("data-chart=\"phase-split\""))
        XCTAssertFalse(try html(stationaryAt10: false).contains("data-chart=\"phase-split\""))
    }

    /// The page's total section comes with two recordings, not with one.
    func testHTMLTotalOnlyForSeveralRecordings() throws {
        XCTAssertFalse(try html(stationaryAt10: false, recordings: 1).contains("data-section=\"total\""))
        XCTAssertTrue(try html(stationaryAt10: false, recordings: 2).contains("data-section=\"total\""))
    }

    /// The x/y paths figure shows up to two contacts per class: on the mixed
    /// sample (more than two contacts of a class) no class has three panels,
    /// and some class has two.
    func testHTMLPathsTwoPerClass() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path
        let (trace, _) = try BlackBox.importTrace(sample, into: directory)
        let page = directory.appendingPathComponent("paths.html").path
        try BlackBox.run(["report", trace, "--html", page])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        // Each panel's caption: "<p>contact N, CLASS: ...".
        var perClass: [String: Int] = [:]
        for panel in html.components(separatedBy: "<div class=\"panel\">").dropFirst() {
            guard let caption = panel.components(separatedBy: "</svg><p>contact ").dropFirst().first,
                  let comma = caption.firstIndex(of: ","), let colon = caption.firstIndex(of: ":") else { continue }
            perClass[String(caption[caption.index(comma, offsetBy: 2)..<colon]), default: 0] += 1
        }
        XCTAssertFalse(perClass.isEmpty, "no path panels")
        XCTAssertLessThanOrEqual(perClass.values.max() ?? 0, 2, "\(perClass)")
        XCTAssertEqual(perClass.values.max(), 2, "\(perClass)")
    }

    /// Both curve figures run to the plot's right edge (x = 600 − 18 = 582)
    /// and not beyond: the x axis ends at the last point, (K − 1)/K of the
    /// duration and (points − 1) · step ms. A press held 2.5 s fills all 200
    /// aligned points (10 ms apart).
    func testCurveFiguresEndAtTheLastPoint() throws {
        var builder = RecordingBuilder()
        builder.frame(0, [(F.slot, 0), (F.id, 1), (F.x, 100), (F.y, 100), (F.p, 30)])
        for t in stride(from: Int64(10), through: 2500, by: 10) { builder.frame(t, [(F.p, Int32(30 + t % 40))]) }
        builder.frame(2510, [(F.id, -1)])
        let analysis = try F.analyze(builder.recording)
        let page = PressureReport(options: AnalysisOptions(), files: [FileAnalysis(file: analysis.file, recordings: [analysis])])
            .html(contactLimit: nil)
        for chart in ["curves", "aligned-curves"] {
            let xs = try pathXs(page, chart: chart)
            XCTAssertFalse(xs.isEmpty, chart)
            XCTAssertEqual(xs.max(), 582.0, chart)
            XCTAssertEqual(xs.min(), 62.0, chart)
        }
    }

    /// The HTML contact table notes "[label X]" exactly where the label differs
    /// from the class. The labelled sample at the default thresholds has none;
    /// at --pop 0.95 the JSON report counts 3 contacts (2, 20, 26) labelled pop-press
    /// and classed peek-press. Every row is shown (--contacts all).
    func testHTMLNotesALabelOnlyWhereItDiffersFromTheClass() throws {
        let directory = try FormatTestSupport.temporaryDirectory(self)
        let sample = FormatTestSupport.samples.appendingPathComponent("touchscreen-mixed.evemu").path
        let trace = try BlackBox.importTrace(sample, into: directory).path
        for options in [[], ["--pop", "0.95"]] {
            let json = try BlackBox.run(["report", trace, "--json"] + options).stdout
            let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let recordings = try XCTUnwrap(document["recordings"] as? [[String: Any]])
            let contacts = try XCTUnwrap(recordings.first?["contacts"] as? [[String: Any]])
            let differing = contacts.filter { $0["label"] is String && $0["label"] as? String != $0["class"] as? String }
            XCTAssertEqual(differing.count, options.isEmpty ? 0 : 3)
            let page = directory.appendingPathComponent("report-\(options.count).html").path
            try BlackBox.run(["report", trace, "--html", page, "--contacts", "all"] + options)
            let html = try String(contentsOfFile: page, encoding: .utf8)
            XCTAssertEqual(html.components(separatedBy: "[label ").count - 1, differing.count, "\(options)")
            // The sample's x and y have 20 units/mm; its pressure axis has no resolution, so no grams.
            XCTAssertTrue(html.contains(", 20 units/mm (0.0500 mm per unit)"))
            XCTAssertEqual(html.components(separatedBy: "ABS_MT_PRESSURE 0..255, arbitrary units").count - 1, 1)
            XCTAssertFalse(html.contains(" gf") || html.contains("units/mm (1.0000") || html.contains("<th>gf</th>"))
        }
    }

    /// A drawing's number is printf's "%.1f" to the byte: at ties of the
    /// exact binary value (0.25, −0.25, 2.45 just below its tie), where
    /// the product by ten rounds across a tie, for negative zero and values
    /// that round to it, at the formatter's bounds, and for random values
    /// across the page's range.
    func testAChartsNumberIsPrintfsOneDecimal() {
        var values: [Double] = [0, -0.0, 0.05, -0.05, 0.04, -0.04, 0.25, -0.25, 0.35, 0.45, 2.45, 2.5, 1.15, 1e13 + 0.05, 99_999_999_999_999,
                                1e14, -1e14, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 0.95, 9.95, 599.95]
        // Ties of the exact value (multiples of 0.05 that are binary: k/4, k/20 where exact) and their neighbours.
        for k in -400...400 {
            let tie = Double(k) * 0.25 + 0.05
            values += [Double(k) / 4, Double(k) * 0.05, tie, tie.nextUp, tie.nextDown, Double(k) / 4 + 0.05]
        }
        var generator = SystemRandomNumberGenerator()
        values += (0..<20_000).map { _ in Double.random(in: -700...700, using: &generator) }
        values += (0..<2_000).map { _ in (Double(Int.random(in: -100_000...100_000, using: &generator)) + 0.5) / 10 }
        for value in values {
            XCTAssertEqual(SVGChart.number(value), String(format: "%.1f", value), "\(value)")
        }
    }
}
