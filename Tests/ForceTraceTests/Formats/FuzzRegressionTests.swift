import ForceTrace
import Foundation
import XCTest

/// Replays every input the fuzzers ever crashed on (Tests/fuzz-regressions/
/// <parser>/) through the same entry points the harnesses call, each input in
/// a child process of its own: a trap fails the test naming that input, and
/// the other inputs still run.
final class FuzzRegressionTests: XCTestCase {
    private static let inputVariable = "FORCETRACE_FUZZ_REGRESSION_INPUT"
    private static func parser(_ name: String) -> (([UInt8]) -> Void)? {
        switch name {
        case "evemu": ParserFuzzing.evemu
        case "libinput": ParserFuzzing.libinput
        case "raw": ParserFuzzing.raw
        case "getevent": ParserFuzzing.getevent
        case "inkml": ParserFuzzing.inkml
        case "svc2004": ParserFuzzing.svc2004
        default: nil
        }
    }

    private func replay(_ parser: String) throws {
        let directory = FormatTestSupport.packageRoot.appendingPathComponent("Tests/fuzz-regressions/\(parser)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertFalse(names.isEmpty, "no regression inputs in \(directory.path)")
        for name in names {
            let input = directory.appendingPathComponent(name).path
            let (status, output) = try runChild(parser: parser, input: input)
            if status != 0 {
                let tail = output.split(separator: "\n").suffix(8).joined(separator: "\n")
                XCTFail("\(parser) regression input \(input): the replay \(status < 0 ? "died of signal \(-status)" : "exited \(status)")\n\(tail)")
            }
        }
    }

    func testEvemuRegressions() throws { try replay("evemu") }
    func testLibinputRegressions() throws { try replay("libinput") }
    func testRawRegressions() throws { try replay("raw") }

    /// The child's side: replays the one input named in the environment.
    func testReplayOneInput() throws {
        guard let spec = ProcessInfo.processInfo.environment[Self.inputVariable] else {
            throw XCTSkip("runs only in the child processes the regression tests above start, one per input")
        }
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let body = Self.parser(parts[0]) else { return XCTFail("bad \(Self.inputVariable): \(spec)") }
        body([UInt8](try Data(contentsOf: URL(fileURLWithPath: parts[1]))))
    }

    /// Runs this test bundle again with only `testReplayOneInput`, for one input.
    private func runChild(parser: String, input: String) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["ForceTraceTests.FuzzRegressionTests/testReplayOneInput"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.inputVariable] = "\(parser):\(input)"
        process.environment = environment
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("forcetrace-fuzz-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        // A hang is a failure too: one input takes well under a second.
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate(); process.waitUntilExit(); return (-9, "timed out after 120 s") }
        process.waitUntilExit()
        try handle.close()
        let output = String(decoding: try Data(contentsOf: log), as: UTF8.self)
        let status = process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
        // The child must really have run the replay, not skipped or filtered it away.
        if status == 0 && !output.contains("Executed 1 test, with 0 failures") {
            return (1, "the child did not run testReplayOneInput:\n\(output)")
        }
        return (status, output)
    }

    /// Every harness compiles from the parser sources alone, as fuzz.sh
    /// builds it (no HDF5 module): type-checked, which catches a missing
    /// module or type without an instrumented build.
    func testHarnessesCompileWithTheParserSourcesAlone() throws {
        let swiftc = ["/opt/swift/usr/bin"] + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        guard swiftc.contains(where: { FileManager.default.isExecutableFile(atPath: $0 + "/swiftc") }) else {
            throw XCTSkip("no swiftc on PATH or in /opt/swift/usr/bin")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [FormatTestSupport.packageRoot.appendingPathComponent("Fuzz/fuzz.sh").path, "--typecheck"]
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("forcetrace-fuzz-build-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let output = String(decoding: try Data(contentsOf: log), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, output)
        for parser in ["evemu", "libinput", "raw", "getevent", "inkml", "svc2004"] {
            XCTAssertTrue(output.contains("type-checked Fuzz/\(parser).swift"), "fuzz.sh did not check the \(parser) harness:\n\(output)")
        }
    }

    /// The device the fuzz harnesses read raw streams with is the one its
    /// comment promises: slots 0 to 9 (10), tracking ids 0 to 65535.
    func testFuzzDeviceHasTenSlots() throws {
        let device = ParserFuzzing.rawDescription
        let slot = try XCTUnwrap(device.axis(AbsoluteAxis.mtSlot))
        XCTAssertEqual([slot.minimum, slot.maximum], [0, 9])
        let tracking = try XCTUnwrap(device.axis(AbsoluteAxis.mtTrackingID))
        XCTAssertEqual([tracking.minimum, tracking.maximum], [0, 65535])
    }
}
