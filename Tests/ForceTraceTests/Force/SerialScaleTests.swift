import Foundation
import XCTest
@testable import ForceTrace

/// A serial scale on a pseudo-terminal: the reader configures the line,
/// assembles lines across reads, and says so when the other end hangs up.
final class SerialScaleTests: XCTestCase {
    /// Waits up to a second for readings (a pty delivers at once; the wait only bounds a failure).
    private func readings(_ scale: SerialScale, count: Int) throws -> [ScaleReading] {
        var got: [ScaleReading] = []
        for _ in 0..<100 where got.count < count {
            _ = try Syscall.poll([scale.descriptor], timeoutMs: 10)
            got += try scale.readAvailable(timeNs: 42)
        }
        return got
    }

    func testReadsLinesFromAPtyAtTheGivenRate() throws {
        let (master, slave) = try PseudoTerminal.open()
        defer { close(master) }
        let scale = try SerialScale(path: slave, baud: 19200)
        defer { scale.close() }
        var settings = termios()
        XCTAssertEqual(tcgetattr(scale.descriptor.raw, &settings), 0)
        XCTAssertEqual(cfgetispeed(&settings), speed_t(B19200))
        XCTAssertEqual(settings.c_lflag & tcflag_t(ICANON | ECHO), 0, "the line is raw")
        XCTAssertEqual(scale.kind, .serial)
        PseudoTerminal.send(master, "ST,+00012.30  g\r\nUS,+000")
        PseudoTerminal.send(master, "15.00  g\r\nOL,+999999.9  g\r\n")
        let got = try readings(scale, count: 3)
        XCTAssertEqual(got.map(\.status), [.stable, .inMotion, .overload])
        XCTAssertEqual(got[0].grams, 12.3)
        XCTAssertEqual(got[1].grams, 15)
        XCTAssertTrue(got[2].grams.isNaN)
        XCTAssertEqual(got.map(\.timeNs), [42, 42, 42])
        XCTAssertEqual(try scale.readAvailable(timeNs: 0), [], "nothing waiting is no reading")
    }

    /// The other end closing (a USB serial adapter unplugged) is an error
    /// naming the scale, not an empty reading or a zero.
    func testAHungUpLineIsAnErrorNamingTheScale() throws {
        let (master, slave) = try PseudoTerminal.open()
        let scale = try SerialScale(path: slave, baud: 9600)
        defer { scale.close() }
        PseudoTerminal.send(master, "ST,+00001.00  g\r\n")
        XCTAssertEqual(try readings(scale, count: 1).map(\.grams), [1])
        close(master)
        XCTAssertThrowsError(try scale.readAvailable(timeNs: 0)) { error in
            guard let error = error as? ForceTraceError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.kind, .device)
            XCTAssertEqual(error.file, slave)
            XCTAssertTrue(error.message.hasPrefix("the scale is gone"), error.message)
        }
    }

    func testNodesThatAreNotSerialScales() throws {
        XCTAssertThrowsError(try SerialScale(path: "/dev/null", baud: 9600)) { error in
            XCTAssertTrue("\(error)".hasPrefix("/dev/null: is not a serial tty (tcgetattr: "), "\(error)")
            XCTAssertEqual((error as? ForceTraceError)?.errno, ENOTTY)
        }
        let directory = try makeTemporaryDirectory(self)
        let file = directory.appendingPathComponent("scale.txt").path
        try "ST,+00001.00  g\r\n".write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try SerialScale(path: file, baud: 9600)) { error in
            XCTAssertTrue("\(error)".contains("is not a device node"), "\(error)")
        }
        XCTAssertThrowsError(try ScaleAddress(path: "/dev/null", baud: nil).open()) { error in
            XCTAssertTrue("\(error)".contains("is not a serial tty"), "\(error)")
        }
        XCTAssertThrowsError(try ScaleAddress(path: "/dev/hidraw0", baud: 9600).open()) { error in
            XCTAssertTrue("\(error)".contains("a hidraw node has no serial rate"), "\(error)")
        }
    }
}
