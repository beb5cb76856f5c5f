import Foundation
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
}
