import Foundation
import XCTest

/// A pseudo-terminal standing in for a serial scale: the test writes the
/// scale's lines to the master, forcetrace reads the slave.
enum PseudoTerminal {
    /// The master descriptor and the slave's path (/dev/ptmx, then
    /// TIOCSPTLCK to unlock and TIOCGPTN for the number: posix_openpt does
    /// not import into Swift).
    static func open() throws -> (master: Int32, slave: String) {
        let master = Glibc.open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, UInt(0x4004_5431) /* TIOCSPTLCK */, &unlock) == 0,
              ioctl(master, UInt(0x8004_5430) /* TIOCGPTN */, &number) == 0 else {
            throw XCTSkip("no pseudo-terminals here (errno \(errno))")
        }
        return (master, "/dev/pts/\(number)")
    }

    static func send(_ master: Int32, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let bytes = Array(text.utf8)
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }, bytes.count, file: file, line: line)
    }
}
