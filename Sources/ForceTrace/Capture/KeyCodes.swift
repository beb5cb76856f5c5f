import Foundation

/// What a live recorder did with keyboard key codes: the recording attribute
/// `keycodes` (docs/FORMAT.md). libinput record(1) does the same by default:
/// "common keys are obfuscated and printed as KEY_A to avoid information leaks".
public enum KeyCodeHandling: String, Sendable, CaseIterable {
    /// Common keys (letters, digits, punctuation, space, enter, the keypad,
    /// modifiers) were stored as KEY_A, their MSC_SCAN as A's scancode.
    case obfuscated
    /// Every key was stored as typed (`--show-keycodes`).
    case asIs = "as-is"

    /// The recording attribute that holds it.
    public static let attribute = RecordingAttribute.keycodes
}

/// Which EV_KEY codes are keyboard keys whose code would give away what was typed.
public enum KeyboardKeys {
    /// `KEY_A`, what every common key becomes.
    public static let keyA: UInt16 = 30
    /// `EV_MSC` `MSC_SCAN`: the hardware scancode sent just before its EV_KEY.
    public static let mscScan: UInt16 = 0x04
    /// A's scancode on a PC keyboard (AT set 1, as atkbd reports it) and as a
    /// USB HID usage (page 7, usage 4, as hid-input reports it).
    static let atScancodeA: Int32 = 0x1e
    static let hidScancodeA: Int32 = 0x70004

    /// KEY_Q..KEY_P, KEY_A..KEY_L, KEY_Z..KEY_M.
    public static func isLetter(_ code: UInt16) -> Bool {
        (16...25).contains(code) || (30...38).contains(code) || (44...50).contains(code)
    }

    /// Letters, digits, punctuation, space, enter, the keypad and the
    /// modifiers. Never a `BTN_*` code (0x100 and up), which the analysis needs.
    public static func isCommon(_ code: UInt16) -> Bool {
        switch code {
        // The main block from KEY_1 to KEY_SPACE: digits, - =, backspace,
        // tab, letters, brackets, enter, ; ' ` \ , . /, shifts, left ctrl
        // and alt, keypad *, space. Esc (1) is left alone, as libinput does.
        case 2...57: true
        case 58: true                       // KEY_CAPSLOCK
        case 71...83: true                  // keypad 7..9, -, 4..6, +, 1..3, 0, .
        case 86, 89, 124: true              // KEY_102ND, KEY_RO, KEY_YEN: punctuation on ISO/JIS boards
        case 95, 96, 98: true               // KEY_KPJPCOMMA, KEY_KPENTER, KEY_KPSLASH
        case 97, 100: true                  // KEY_RIGHTCTRL, KEY_RIGHTALT
        case 117, 118, 121: true            // KEY_KPEQUAL, KEY_KPPLUSMINUS, KEY_KPCOMMA
        case 125, 126: true                 // KEY_LEFTMETA, KEY_RIGHTMETA
        case 179, 180: true                 // KEY_KPLEFTPAREN, KEY_KPRIGHTPAREN
        default: false
        }
    }

    /// The scancode a KEY_A press carries, in the scheme `value` uses.
    static func scancodeOfA(like value: Int32) -> Int32 {
        (value >> 16) == 0x7 ? hidScancodeA : atScancodeA
    }

    /// Makes one frame (events up to and including its SYN_REPORT) say
    /// nothing about which common keys were pressed: their codes become
    /// KEY_A, and the frame's MSC_SCAN values A's scancode. A frame whose
    /// only keys are buttons keeps its scancodes; one with a scancode but no
    /// key (an unmapped key) loses it. Returns how many events changed.
    @discardableResult
    public static func obfuscate(frame: inout [InputEvent]) -> Int {
        var hasCommonKey = false, hasOtherKey = false
        for event in frame where event.type == EventType.key {
            if isCommon(event.code) { hasCommonKey = true } else { hasOtherKey = true }
        }
        let hideScancodes = hasCommonKey || !hasOtherKey
        var changed = 0
        for index in frame.indices {
            let event = frame[index]
            if event.type == EventType.key && isCommon(event.code) && event.code != keyA {
                frame[index].code = keyA
                changed += 1
            } else if event.type == EventType.msc && event.code == mscScan && hideScancodes {
                let replacement = scancodeOfA(like: event.value)
                if event.value != replacement { frame[index].value = replacement; changed += 1 }
            }
        }
        return changed
    }
}

extension DeviceDescription {
    /// Whether the device has keyboard keys (EV_KEY letter codes): recording
    /// it may record what someone types.
    public var hasKeyboardKeys: Bool {
        (codes[EventType.key] ?? []).contains(where: KeyboardKeys.isLetter)
    }

    /// Whether it can send any common key, the ones obfuscation rewrites.
    public var hasCommonKeys: Bool {
        (codes[EventType.key] ?? []).contains(where: KeyboardKeys.isCommon)
    }
}

/// The rule `record` and `calibrate` apply before reading a device with keys.
public enum KeyboardPolicy {
    /// Refuses a device with keys and no pressure axis unless allowed: it is
    /// a keyboard, and recording it records typing.
    /// - Throws: `ForceTraceError.device` with the reason and the flag that overrides it.
    public static func check(_ device: DeviceDescription, path: String, allowKeyboard: Bool, command: String) throws {
        guard device.hasKeyboardKeys, device.forceCapability == .unavailable, !allowKeyboard else { return }
        throw ForceTraceError.device(path, "\"\(device.name)\" is a keyboard (letter keys, no pressure axis): recording it records what is typed on it",
                          hint: "if that is really what you want, pass --allow-keyboard ('forcetrace \(command) \(path) --allow-keyboard ...'); "
                              + "'forcetrace devices' lists the devices with pressure")
    }

    /// The warning printed before the first event when the device has keys, or nil.
    public static func warning(_ device: DeviceDescription, path: String, handling: KeyCodeHandling) -> String? {
        guard device.hasKeyboardKeys else { return nil }
        let start = "warning: \(path) \"\(device.name)\" has keyboard keys; "
        switch handling {
        case .obfuscated:
            return start + "key codes are obfuscated: letters, digits, punctuation, space, enter, keypad and modifiers are stored as KEY_A "
                + "(--show-keycodes keeps them)"
        case .asIs:
            return start + "key codes are NOT obfuscated (--show-keycodes): the file will hold everything typed on it, passwords included"
        }
    }
}

/// A capture source whose common keys are obfuscated frame by frame
/// (`KeyboardKeys.obfuscate(frame:)`) before the recorder sees them. It holds
/// back the events of a frame until its SYN_REPORT, because MSC_SCAN comes
/// before the key it belongs to.
public final class KeyObfuscatingSource: WrappingCaptureSource {
    public let inner: any CaptureSource
    public let initialEvents: [InputEvent]
    private var frame: [InputEvent] = []
    private var ready: [CaptureItem] = []
    private var ended: CaptureEnd?

    public init(_ inner: any CaptureSource) {
        self.inner = inner
        var initial = inner.initialEvents
        KeyboardKeys.obfuscate(frame: &initial)
        initialEvents = initial
    }

    private func flushFrame() {
        KeyboardKeys.obfuscate(frame: &frame)
        ready.append(contentsOf: frame.map(CaptureItem.event))
        frame.removeAll(keepingCapacity: true)
    }

    public func read(timeoutNs: Int64, wakeDescriptor: FileDescriptor?, limit: Int) throws -> (items: [CaptureItem], end: CaptureEnd?) {
        if ready.isEmpty && ended == nil {
            let (items, end) = try inner.read(timeoutNs: timeoutNs, wakeDescriptor: wakeDescriptor, limit: limit)
            for item in items {
                switch item {
                case .event(let event):
                    frame.append(event)
                    if event.type == EventType.syn { flushFrame() }
                case .resync(let dropped, var delta):
                    flushFrame()
                    KeyboardKeys.obfuscate(frame: &delta)
                    ready.append(.resync(dropped: dropped, delta: delta))
                }
            }
            if let end {
                flushFrame()
                ended = end
            }
        }
        let count = min(max(1, limit), ready.count)
        let items = Array(ready.prefix(count))
        ready.removeFirst(count)
        return (items, ready.isEmpty ? ended : nil)
    }
}

/// Common key presses in a recording, for the warning on imports.
public struct KeyPressCensus: Sendable, Equatable {
    /// EV_KEY value 1 events of common keys.
    public var commonPresses = 0
    /// Of those, presses of a common key other than KEY_A: proof that the
    /// codes were not obfuscated.
    public var revealingPresses = 0

    public init() {}

    public mutating func count(type: UInt16, code: UInt16, value: Int32) {
        guard type == EventType.key, value == 1, KeyboardKeys.isCommon(code) else { return }
        commonPresses += 1
        if code != KeyboardKeys.keyA { revealingPresses += 1 }
    }
}

extension TraceRecording {
    /// The `keycodes` attribute: what the live recorder did, or nil for an
    /// import or replay (which keep what the input said).
    public var keyCodeHandling: KeyCodeHandling? {
        ((try? group.attribute(KeyCodeHandling.attribute)) ?? nil)?.stringValue.flatMap(KeyCodeHandling.init(rawValue:))
    }

    /// Counts the common key presses in the events table.
    public func keyPressCensus() throws -> KeyPressCensus {
        var census = KeyPressCensus()
        try forEachEventBlock { block in
            for event in block { census.count(type: event.type, code: event.code, value: event.value) }
        }
        return census
    }

    /// A warning when the recording holds common key presses that were not
    /// obfuscated; nil otherwise.
    public func unobfuscatedKeysWarning() throws -> String? {
        guard device.hasCommonKeys || keyCodeHandling == .asIs else { return nil }
        let census = try keyPressCensus()
        guard census.revealingPresses > 0 else { return nil }
        let how = keyCodeHandling == .asIs ? "recorded with --show-keycodes" : "not obfuscated (an import keeps what its input said)"
        return "holds \(census.commonPresses) key presses of letters, digits or other common keys, \(how): "
            + "it may hold what was typed, passwords included; share it only if that is fine"
    }
}

extension TraceReader {
    /// Whether any recording holds common key presses as typed: such a file
    /// is written readable by its owner only (`OutputAccess.ownerOnly`).
    public func holdsTypedKeys() throws -> Bool {
        try recordingNames.contains { try recording($0).unobfuscatedKeysWarning() != nil }
    }
}
