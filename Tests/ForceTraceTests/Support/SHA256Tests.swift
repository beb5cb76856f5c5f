import Foundation
import XCTest
@testable import ForceTrace

/// SHA-256 against the FIPS 180-4 / NIST vectors and against Python's hashlib
/// on random inputs of every length around the padding boundaries.
final class SHA256Tests: XCTestCase {
    func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    func testKnownVectors() {
        let vectors: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            // 56 bytes: the length no longer fits in the first block.
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
             "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
            ("The quick brown fox jumps over the lazy dog", "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"),
        ]
        for (text, digest) in vectors {
            XCTAssertEqual(hex(SHA256.hash(Array(text.utf8))), digest, "\(text.utf8.count) bytes")
        }
        XCTAssertEqual(hex(SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000))),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "a million 'a'")
        XCTAssertEqual(SHA256.base64("abc"), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
    }

    /// Every length 0...200 (the 55/56/64-byte boundaries and their multiples)
    /// and a few large ones, random bytes, checked by hashlib.
    func testAgreesWithHashlib() throws {
        var generator = SystemRandomNumberGenerator()
        let lengths = Array(0...200) + [447, 448, 511, 512, 1000, 4095, 4096, 65_537, 1_000_003]
        let inputs = lengths.map { length in (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sha256-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputFile = directory.appendingPathComponent("inputs")
        try inputs.map { hex($0) }.joined(separator: "\n").appending("\n").write(to: inputFile, atomically: true, encoding: .utf8)
        try runPython("""
            import hashlib, sys
            lines = open(sys.argv[1]).read().split("\\n")[:-1]
            open(sys.argv[1] + ".out", "w").write("".join(hashlib.sha256(bytes.fromhex(line)).hexdigest() + "\\n" for line in lines))
            """, inputFile.path)
        let expected = try String(contentsOf: inputFile.appendingPathExtension("out"), encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(expected.count, inputs.count)
        for (input, digest) in zip(inputs, expected) {
            XCTAssertEqual(hex(SHA256.hash(input)), digest, "\(input.count) bytes: \(hex(Array(input.prefix(80))))")
        }
    }
}
