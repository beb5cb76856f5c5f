import Foundation
import HDF5
import XCTest

/// Black-box access for tests: the command-line tool, and trace files read
/// through the thin HDF5 layer by the names docs/FORMAT.md gives, not
/// through forcetrace's own reader. A bug shared by forcetrace's writer and
/// reader cannot hide from these.
enum BlackBox {
    static let fixtures = FormatTestSupport.packageRoot.appendingPathComponent("Tests/fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// Runs forcetrace and fails the test unless it exits 0.
    @discardableResult
    static func run(_ arguments: [String], stdin: Data? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> FormatTestSupport.Run {
        let run = try FormatTestSupport.run(arguments, stdin: stdin)
        XCTAssertEqual(run.status, 0, "forcetrace \(arguments.joined(separator: " ")): \(run.stderr)", file: file, line: line)
        return run
    }

    /// `forcetrace import INPUT -o DIR/NAME.h5` (plus `extra`); returns the trace path and the run.
    static func importTrace(_ input: String, into directory: URL, name: String? = nil, extra: [String] = [],
                            file: StaticString = #filePath, line: UInt = #line) throws -> (path: String, run: FormatTestSupport.Run) {
        let stem = name ?? URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        let output = directory.appendingPathComponent("\(stem)-\(UUID().uuidString.prefix(8)).h5").path
        let run = try Self.run(["import", input, "-o", output] + extra, file: file, line: line)
        return (output, run)
    }

    /// `forcetrace report TRACE --json` (plus `extra`), parsed.
    static func report(_ trace: String, _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let run = try Self.run(["report", trace, "--json", "--contacts", "all"] + extra, file: file, line: line)
        guard let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] else {
            XCTFail("report --json printed no JSON object: \(run.stdout.prefix(200))", file: file, line: line)
            return [:]
        }
        return object
    }

    /// The per-contact objects of the report's only (or `index`th) recording.
    static func contacts(_ report: [String: Any], recording index: Int = 0) -> [[String: Any]] {
        let recordings = report["recordings"] as? [[String: Any]] ?? []
        return index < recordings.count ? recordings[index]["contacts"] as? [[String: Any]] ?? [] : []
    }

    static func summary(_ report: [String: Any], recording index: Int = 0) -> [String: Any] {
        let recordings = report["recordings"] as? [[String: Any]] ?? []
        return index < recordings.count ? recordings[index]["summary"] as? [String: Any] ?? [:] : [:]
    }

    /// One column of every contact: `key` of each, as given (NSNull for null).
    static func column(_ contacts: [[String: Any]], _ key: String) -> [AnyHashable] {
        contacts.map { ($0[key] as? AnyHashable) ?? AnyHashable(NSNull()) }
    }

    /// A test failure thrown where a value was needed (never a skip).
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A trace file's recording, read by FORMAT.md's names.
    struct Trace {
        let file: File
        let recording: Group
        let name: String

        init(_ path: String, recording name: String? = nil) throws {
            file = try File.open(path)
            let recordings = try file.root.openGroup("recordings")
            let names = try recordings.memberNames().sorted()
            guard let chosen = name ?? names.first else { throw BlackBox.Failure("\(path) has no recordings") }
            self.name = chosen
            recording = try recordings.openGroup(chosen)
        }

        /// Every column of `table` widened to Int64 (HDF5 converts on read).
        func table(_ table: String) throws -> [String: [Int64]] {
            let group = try recording.openGroup(table)
            var columns: [String: [Int64]] = [:]
            for name in try group.memberNames() where name != "name" {
                columns[name] = try group.readArray(name, of: Int64.self)
            }
            return columns
        }

        func strings(_ table: String, _ column: String) throws -> [String] {
            try recording.openGroup(table).readStrings(column)
        }

        func attribute(_ name: String) throws -> AttributeValue? { try recording.attribute(name) }

        func close() throws { try file.close() }
    }
}
