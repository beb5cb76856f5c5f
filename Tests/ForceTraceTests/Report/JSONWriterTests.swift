import Foundation
import XCTest
@testable import ForceTrace

/// The JSON writer's bytes: escapes, layout, numbers and parallel elements.
final class JSONWriterTests: XCTestCase {
    /// `elements` fills an array of objects at any depth, the top level
    /// included (depth 1), with the text rendering in order gives; on one
    /// thread and on several (more elements than a batch).
    func testElementsIntoATopLevelArray() {
        func render(_ index: Int, _ w: inout JSONWriter) {
            w.beginObject(); w.key("i"); w.int(index); w.endObject()
        }
        for (count, batch) in [(3, 2_048), (9, 2)] {
            var inOrder = JSONWriter()
            inOrder.beginArray(flat: false)
            for index in 0..<count { render(index, &inOrder) }
            inOrder.endArray()
            var parallel = JSONWriter()
            parallel.beginArray(flat: false)
            parallel.elements(count, batch: batch, threads: 3, render: render)
            parallel.endArray()
            XCTAssertEqual(String(decoding: parallel.finish(), as: UTF8.self), String(decoding: inOrder.finish(), as: UTF8.self))
        }
    }

    /// A prepared key writes the bytes `key` writes, first and later in its
    /// object, in objects at several depths and in parallel elements; a key
    /// long enough to take more than one eight-byte copy too.
    func testPreparedKeysWriteWhatKeysWrite() {
        let names: [StaticString] = ["a", "bb", "key_of_seventeen_", "tracking_id_long_enough_to_copy_four_times"]
        for depth in 0...3 {
            func document(prepared: Bool, threads: Int) -> String {
                var out = JSONWriter()
                for _ in 0..<depth { out.beginArray(flat: false) }
                let keys = out.prepareKeys(names)
                out.elements(5, batch: 2, threads: threads) { index, out in
                    out.beginObject()
                    for (position, name) in names.enumerated() {
                        if prepared { out.key(keys, position) } else { out.key(name) }
                        out.int(index * 10 + position)
                    }
                    out.endObject()
                }
                for _ in 0..<depth { out.endArray() }
                return out.text()
            }
            guard depth > 0 else {
                var plain = JSONWriter(), prepared = JSONWriter()
                let keys = prepared.prepareKeys(names)
                plain.beginObject(); prepared.beginObject()
                for (position, name) in names.enumerated() {
                    plain.key(name); plain.int(position)
                    prepared.key(keys, position); prepared.int(position)
                }
                plain.endObject(); prepared.endObject()
                XCTAssertEqual(prepared.text(), plain.text(), "an object at the top")
                continue
            }
            let expected = document(prepared: false, threads: 1)
            XCTAssertTrue(expected.contains("\"tracking_id_long_enough_to_copy_four_times\": 3"), expected)
            XCTAssertEqual(document(prepared: true, threads: 1), expected, "depth \(depth)")
            XCTAssertEqual(document(prepared: true, threads: 3), expected, "depth \(depth), in parallel")
        }
    }

    /// JSON's two-character escapes are used where they exist (RFC 8259 §7),
    /// and \u00XX only for the other controls: the bytes are part of the
    /// byte-identical output, not only what a parser reads back.
    func testJSONStringEscapesByteForByte() {
        var writer = JSONWriter()
        writer.beginArray(flat: true)
        writer.string("a\nb\rc\td\"e\\f\u{01}g\u{1f}h\u{7f}é")
        writer.endArray()
        XCTAssertEqual(writer.text(), "[\"a\\nb\\rc\\td\\\"e\\\\f\\u0001g\\u001fh\u{7f}é\"]\n")
    }

    /// An object's closing brace goes on its own line once it has a member,
    /// the first one included; an empty object stays "{}".
    func testOneMemberObjectClosesOnItsOwnLine() {
        var one = JSONWriter()
        one.beginObject(); one.key("i"); one.int(1); one.endObject()
        XCTAssertEqual(one.text(), "{\n  \"i\": 1\n}\n")
        var two = JSONWriter()
        two.beginObject(); two.key("i"); two.int(1); two.key("j"); two.int(2); two.endObject()
        XCTAssertEqual(two.text(), "{\n  \"i\": 1,\n  \"j\": 2\n}\n")
        var none = JSONWriter()
        none.beginObject(); none.endObject()
        XCTAssertEqual(none.text(), "{}\n")
    }

    /// A string with a backslash takes the writer's escaping loop; it must
    /// come back from a JSON parser as it went in.
    func testJSONStringsWithBackslashes() throws {
        var out = JSONWriter(capacity: 16)
        out.beginObject()
        out.key("a"); out.int(1)
        out.key("b"); out.string("back\\slash \u{7} and \"quote\"")
        out.endObject()
        let bytes = Data(out.finish())
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: bytes) as? [String: Any], String(decoding: bytes, as: UTF8.self))
        XCTAssertEqual(parsed["a"] as? Int, 1)
        XCTAssertEqual(parsed["b"] as? String, "back\\slash \u{7} and \"quote\"")
    }

    /// Seconds from nanoseconds as exact decimals: 0 ns is "0.0", 1 ns keeps
    /// its ninth digit, a whole second "1.0"; each parses to ns / 1e9.
    func testJSONSecondsAtTheSmallestFractions() throws {
        for (ns, text) in [(Int64(0), "0.0"), (1, "0.000000001"), (1_000_000_000, "1.0"), (1_000_000_001, "1.000000001"),
                           (-1, "-0.000000001"), (10, "0.00000001")] {
            var out = JSONWriter(capacity: 16)
            out.beginArray(flat: true)
            out.seconds(ns)
            out.endArray()
            let json = String(decoding: out.finish(), as: UTF8.self).trimmingCharacters(in: .newlines)
            XCTAssertEqual(json, "[\(text)]", "\(ns) ns")
            let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double])
            XCTAssertEqual(parsed, [Double(ns) / 1e9])
        }
    }
}
