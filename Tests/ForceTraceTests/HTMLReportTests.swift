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
}
