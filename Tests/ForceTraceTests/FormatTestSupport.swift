import Foundation
import XCTest

/// Paths and helpers shared by the format tests.
enum FormatTestSupport {
    /// The package root: Tests/ForceTraceTests/<this file> up three levels.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let samples = packageRoot.appendingPathComponent("samples")

    /// The four genuine recordings, outside the project.
    static let sharedRecordings = packageRoot.appendingPathComponent("../shared/recordings").standardized

    static func sharedRecording(_ name: String) throws -> String {
        let path = sharedRecordings.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw XCTSkip("\(path) is absent")
        }
        return path
    }

    /// Every shared recording with its description file, if separate.
    static func sharedRecordingInputs() throws -> [(events: String, description: String?)] {
        [
            (try sharedRecording("SynPS2 Synaptics TouchPad.leftmove.events"), try sharedRecording("SynPS2 Synaptics TouchPad.desc")),
            (try sharedRecording("CyPS2 Cypress Trackpad.three_finger_press.events"), nil),
            (try sharedRecording("bcm5974.three-finger-click.events"), nil),
            (try sharedRecording("dell_canvas_pen.evemu"), nil),
        ]
    }

    /// A fresh directory, removed when the test ends.
    static func temporaryDirectory(_ testCase: XCTestCase) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("forcetrace-formats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        testCase.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// The built command-line tool, beside the test bundle.
    static var executable: URL {
        var url = Bundle(for: Marker.self).bundleURL
        while url.pathExtension == "xctest" || url.lastPathComponent.hasSuffix(".xctest") { url.deleteLastPathComponent() }
        return url.appendingPathComponent("forcetrace")
    }

    private final class Marker {}

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `forcetrace` with `arguments` and optional standard input;
    /// `stdoutFile` (e.g. /dev/full) takes standard output instead of `Run.stdout`.
    static func run(_ arguments: [String], stdin: Data? = nil, stdoutFile: String? = nil) throws -> Run {
        let tool = executable
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            XCTFail("\(tool.path) is missing: run 'swift build' (make test does) before the tests")
            return Run(status: -1, stdout: "", stderr: "")
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        // Files, not pipes: a chatty child cannot block on a full pipe.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("forcetrace-run-\(UUID().uuidString)")
        let outURL = scratch.appendingPathExtension("out"), errURL = scratch.appendingPathExtension("err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        process.standardOutput = try FileHandle(forWritingTo: stdoutFile.map { URL(fileURLWithPath: $0) } ?? outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(stdin)
            try input.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        let outData = try Data(contentsOf: outURL), errData = try Data(contentsOf: errURL)
        let status = process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
        return Run(status: status, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }
}
