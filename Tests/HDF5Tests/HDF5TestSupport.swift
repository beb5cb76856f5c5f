import Foundation
import XCTest

/// A fresh temporary directory, removed by the test's teardown block (the
/// HDF5 module's twin of ForceTraceTests' helper: test targets share no files).
func makeTemporaryDirectory(_ test: XCTestCase, prefix: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}
