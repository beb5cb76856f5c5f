import Foundation
import HDF5
import XCTest
@testable import ForceTrace

/// ForceTraceError has one layout: `terminalText` is `description` with the
/// outside parts (file, message, hint) escaped, for every location.
final class ErrorLayoutTests: XCTestCase {
    func testTerminalTextIsTheDescriptionWithOutsidePartsEscaped() {
        let hostile = ["plain.h5", "a\u{1b}[31mred\nline\\x", "\u{202e}evil\u{200f}.h5", "12", ""]
        for file in hostile {
            for message in hostile {
                for hint in [nil] + hostile.map(Optional.some) {
                    for location: ForceTraceError.Location in [.whole, .line(7), .byteOffset(4096)] {
                        let error = ForceTraceError(file: file, location: location, message, hint: hint)
                        let place: String
                        switch location {
                        case .line(let line): place = ":\(line): "
                        case .byteOffset(let offset): place = ": at byte \(offset): "
                        case .whole: place = ": "
                        }
                        func escape(_ text: String) -> String { TerminalText.escape(text) }
                        XCTAssertEqual(error.description, file + place + message + (hint.map { "\n  hint: " + $0 } ?? ""))
                        XCTAssertEqual(error.terminalText.rendered,
                                       escape(file) + place + escape(message) + (hint.map { "\n  hint: " + escape($0) } ?? ""))
                    }
                }
            }
        }
    }

    /// Every path into the one error type says what failed and keeps errno:
    /// HDF5's, a system call's, an output's, a device's; a plain one is an input's.
    func testEveryErrorCarriesItsKindAndErrno() {
        let hdf5 = ForceTraceError(HDF5Error(function: "H5Fcreate", context: "/out/x.h5", stack: [], kind: .noSpace, errno: ENOSPC))
        XCTAssertEqual(hdf5.kind, .hdf5)
        XCTAssertEqual(hdf5.errno, ENOSPC)
        let call = ForceTraceError(SystemCallError(function: "fsync", path: "/out/x.h5", errno: EIO))
        XCTAssertEqual(call.kind, .system)
        XCTAssertEqual(call.errno, EIO)
        let output = writeError("/out/x.h5", "cannot write", errno: ENOSPC)
        XCTAssertEqual(output.kind, .output)
        XCTAssertEqual(output.errno, ENOSPC)
        XCTAssertEqual(writeError("/out/x.h5", "cannot write", errno: EACCES).kind, .output)
        let device = ForceTraceError.device(SystemCallError(function: "open", path: "/dev/input/event3", errno: EACCES), path: "/dev/input/event3")
        XCTAssertEqual(device.kind, .device)
        XCTAssertEqual(device.errno, EACCES)
        let input = ForceTraceError(file: "in.evemu", location: .line(3), "expected an evemu line")
        XCTAssertEqual(input.kind, .input)
        XCTAssertNil(input.errno)
        // userFacing keeps both, for each of them.
        for error in [hdf5, call, output, device, input] {
            let shown = ForceTraceError.userFacing(error) as? ForceTraceError
            XCTAssertEqual(shown?.kind, error.kind)
            XCTAssertEqual(shown?.errno, error.errno)
        }
        XCTAssertEqual((ForceTraceError.userFacing(SystemCallError(function: "open", path: "p", errno: ENOENT)) as? ForceTraceError)?.kind, .system)
    }
}
