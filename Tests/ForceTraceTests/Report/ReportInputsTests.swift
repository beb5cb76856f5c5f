import Foundation
import XCTest
@testable import ForceTrace

/// Which files `report` reads from the paths it is given.
final class ReportInputsTests: XCTestCase {
    /// `report FOLDER` walks it: trace files in it and in its subfolders,
    /// not hidden ones nor other files, in name order.
    /// A folder whose name ends in .h5 is walked, not taken for a file: its
    /// trace is found and nothing is noted about the folder.
    func testAFolderNamedLikeATraceIsWalked() throws {
        let directory = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("d.h5"), withIntermediateDirectories: true)
        try Data().write(to: directory.appendingPathComponent("d.h5/e.h5"))
        var notes: [String] = []
        let found = try ReportInputs.expand([directory.path], note: { notes.append($0.rendered) })
        XCTAssertEqual(found.map { String($0.dropFirst(directory.path.count + 1)) }, ["d.h5/e.h5"])
        XCTAssertEqual(notes, [])
    }

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
