import XCTest
@testable import ForceTrace

/// The key tables of Capture/KeyCodes.swift checked whole, every EV_KEY code
/// from 0 to KEY_MAX, so that a code left out or added fails.
final class KeyTableTests: XCTestCase {
    /// KEY_MAX (linux/input-event-codes.h).
    static let keyMax: UInt16 = 0x2ff

    /// The codes libinput 1.22 obfuscates (Debian bookworm's version; the rule
    /// in tools/libinput-record.c, `obfuscate_keycode`, is the same in 1.21.0,
    /// 1.22.0, 1.22.1 and 1.23.0): every code after KEY_ESC and before
    /// KEY_CAPSLOCK except KEY_TAB (15), KEY_ENTER (28) and KEY_LEFTCTRL (29),
    /// and KEY_KP7 through KEY_KPDOT.
    static let libinput122: Set<UInt16> = Set(2...14).union(16...27).union(30...57).union(71...83)

    /// What forcetrace hides beyond libinput, and why: keys that still say
    /// what was typed.
    static let additions: [UInt16: String] = [
        15: "KEY_TAB: moves between fields, so it shows where a password ends",
        28: "KEY_ENTER: likewise",
        29: "KEY_LEFTCTRL: modifiers, as the right ones",
        58: "KEY_CAPSLOCK: changes what letters were typed",
        86: "KEY_102ND: punctuation on ISO boards",
        89: "KEY_RO: punctuation on JIS boards",
        124: "KEY_YEN: punctuation on JIS boards",
        95: "KEY_KPJPCOMMA", 96: "KEY_KPENTER", 98: "KEY_KPSLASH",
        97: "KEY_RIGHTCTRL", 100: "KEY_RIGHTALT",
        117: "KEY_KPEQUAL", 118: "KEY_KPPLUSMINUS", 121: "KEY_KPCOMMA",
        125: "KEY_LEFTMETA", 126: "KEY_RIGHTMETA",
        179: "KEY_KPLEFTPAREN", 180: "KEY_KPRIGHTPAREN",
    ]

    /// KEY_Q...KEY_P, KEY_A...KEY_L, KEY_Z...KEY_M (linux/input-event-codes.h).
    static let letters: Set<UInt16> = [16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                                       30, 31, 32, 33, 34, 35, 36, 37, 38,
                                       44, 45, 46, 47, 48, 49, 50]

    func testTheListsAreWhatTheyClaim() {
        XCTAssertEqual(Self.libinput122.count, 13 + 12 + 28 + 13)
        XCTAssertTrue(Self.libinput122.isDisjoint(with: Self.additions.keys), "an addition libinput already hides")
        XCTAssertEqual(Self.letters.count, 26)
    }

    func testEveryCodeIsCommonExactlyWhenLibinputOrADocumentedAdditionHidesIt() {
        let expected = Self.libinput122.union(Self.additions.keys)
        let common = Set((0...Self.keyMax).filter(KeyboardKeys.isCommon))
        XCTAssertEqual(common.subtracting(expected).sorted(), [], "obfuscated, but in neither list")
        XCTAssertEqual(expected.subtracting(common).sorted(), [], "left as typed")
    }

    /// The rewrite itself, code by code: a press of each key in a frame of its own.
    func testEveryCodeIsRewrittenToKeyAExactlyWhenCommon() {
        let expected = Self.libinput122.union(Self.additions.keys).union([KeyboardKeys.keyA])
        var rewritten: Set<UInt16> = []
        for code in 0...Self.keyMax {
            var frame = [InputEvent(timeNs: 0, type: EventType.msc, code: KeyboardKeys.mscScan, value: 0x70000 + Int32(code)),
                         InputEvent(timeNs: 0, type: EventType.key, code: code, value: 1),
                         InputEvent(timeNs: 0, type: EventType.syn, code: 0, value: 0)]
            KeyboardKeys.obfuscate(frame: &frame)
            if frame[1].code == KeyboardKeys.keyA {
                rewritten.insert(code)
                XCTAssertEqual(frame[0].value, 0x70004, "code \(code): the scancode becomes A's")
            }
        }
        XCTAssertEqual(rewritten.symmetricDifference(expected).sorted(), [])
    }

    func testLettersAreExactlyTheTwentySixLetterKeys() {
        XCTAssertEqual(Set((0...Self.keyMax).filter(KeyboardKeys.isLetter)).symmetricDifference(Self.letters).sorted(), [])
    }
}
