import Foundation
import XCTest

/// A python3 script failed; the assertion before it says how.
struct PythonFailed: Error {}

extension XCTestCase {
    /// Runs a python3 script (h5py edits of a file, mostly) with `argument`
    /// as sys.argv[1]; skips only when python3 itself is missing. Any other
    /// failure (h5py missing, a bug in the script) fails the test.
    func runPython(_ script: String, _ argument: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let search = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let python = search.map({ "\($0)/python3" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("python3 is not installed")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, argument]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(python) failed: \(String(decoding: message, as: UTF8.self))", file: file, line: line)
        if process.terminationStatus != 0 { throw PythonFailed() }
    }
}
