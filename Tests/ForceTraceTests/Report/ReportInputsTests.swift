import Foundation
import XCTest
@testable import ForceTrace

/// Which files `report` reads from the paths it is given.
final class ReportInputsTests: XCTestCase {
    /// `report FOLDER` walks it: trace files in it and in its subfolders,
    /// not hidden ones nor other files, in name order.
    func testReportInputsWalkAFolder() throws {
        let directory = try makeTemporaryDirectory(self)
        let sub = directory.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        for name in ["b.h5", "a.hdf5", ".hidden.h5", "notes.txt", "sub/c.h5"] {
            try Data().write(to: directory.appendingPathComponent(name))
        }
        var notes: [String] = []
        let found = try ReportInputs.expand([directory.path], note: { notes.append($0.rendered) })
        XCTAssertEqual(found.map { String($0.dropFirst(directory.path.count + 1)) }.sorted(), ["a.hdf5", "b.h5", "sub/c.h5"], "\(notes)")
    }
}
