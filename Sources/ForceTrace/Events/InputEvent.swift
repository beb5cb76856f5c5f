import CEvdev
import Foundation

/// One evdev event, as the kernel's `struct input_event` carries it.
public struct InputEvent: Equatable, Hashable, Sendable {
    /// Time in nanoseconds. Absolute on the recording's clock while parsing;
    /// relative to the first event (`t_ns`) once in a trace file.
    public var timeNs: Int64
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(timeNs: Int64, type: UInt16, code: UInt16, value: Int32) {
        self.timeNs = timeNs
        self.type = type
        self.code = code
        self.value = value
    }

    public var isSynReport: Bool { type == EventType.syn && code == Synchronization.report }
}

/// Event types (`EV_*` in linux/input-event-codes.h).
public enum EventType {
    /// `EV_SYN`
    public static let syn: UInt16 = 0x00
    /// `EV_KEY`
    public static let key: UInt16 = 0x01
    /// `EV_REL`
    public static let rel: UInt16 = 0x02
    /// `EV_ABS`
    public static let abs: UInt16 = 0x03
    /// `EV_MSC`
    public static let msc: UInt16 = 0x04
    /// `EV_SW`
    public static let sw: UInt16 = 0x05
    /// `EV_LED`
    public static let led: UInt16 = 0x11
    /// `EV_SND`
    public static let snd: UInt16 = 0x12
    /// `EV_REP`
    public static let rep: UInt16 = 0x14
    /// `EV_FF`
    public static let ff: UInt16 = 0x15
    /// `EV_MAX`
    public static let max: UInt16 = 0x1f
}

/// `SYN_*` codes.
public enum Synchronization {
    /// `SYN_REPORT`: ends a frame.
    public static let report: UInt16 = 0
    /// `SYN_CONFIG`
    public static let config: UInt16 = 1
    /// `SYN_MT_REPORT`: ends one contact in multitouch protocol A.
    public static let mtReport: UInt16 = 2
    /// `SYN_DROPPED`: the kernel's buffer overflowed and events were lost.
    public static let dropped: UInt16 = 3
}

/// Absolute axes (`ABS_*`).
public enum AbsoluteAxis {
    /// `ABS_X`
    public static let x: UInt16 = 0x00
    /// `ABS_Y`
    public static let y: UInt16 = 0x01
    /// `ABS_PRESSURE`
    public static let pressure: UInt16 = 0x18
    /// `ABS_MT_SLOT`
    public static let mtSlot: UInt16 = 0x2f
    /// `ABS_MT_POSITION_X`
    public static let mtPositionX: UInt16 = 0x35
    /// `ABS_MT_POSITION_Y`
    public static let mtPositionY: UInt16 = 0x36
    /// `ABS_MT_TOOL_TYPE`
    public static let mtToolType: UInt16 = 0x37
    /// `ABS_MT_TRACKING_ID`
    public static let mtTrackingID: UInt16 = 0x39
    /// `ABS_MT_PRESSURE`
    public static let mtPressure: UInt16 = 0x3a
    /// `ABS_MAX`
    public static let max: UInt16 = 0x3f
}

/// Keys and buttons (`BTN_*`) that matter to contacts.
public enum Button {
    /// `BTN_TOOL_PEN`: first of the `BTN_TOOL_*` range.
    public static let toolPen: UInt16 = 0x140
    /// `BTN_TOOL_RUBBER`
    public static let toolRubber: UInt16 = 0x141
    /// `BTN_TOOL_FINGER`
    public static let toolFinger: UInt16 = 0x145
    /// `BTN_TOUCH`
    public static let touch: UInt16 = 0x14a
    /// `BTN_TOOL_DOUBLETAP`
    public static let toolDoubleTap: UInt16 = 0x14d
    /// `BTN_TOOL_QUADTAP`: last of the `BTN_TOOL_*` range.
    public static let toolQuadTap: UInt16 = 0x14f

    /// Whether `code` is one of the `BTN_TOOL_*` codes (0x140–0x14f, except
    /// `BTN_TOUCH`, `BTN_STYLUS` and `BTN_STYLUS2`).
    public static func isTool(_ code: UInt16) -> Bool {
        (toolPen...toolQuadTap).contains(code) && !(0x14a...0x14c).contains(code)
    }
}

/// `INPUT_PROP_*` values.
public enum InputProperty {
    /// `INPUT_PROP_POINTER`
    public static let pointer: UInt16 = 0x00
    /// `INPUT_PROP_DIRECT`
    public static let direct: UInt16 = 0x01
    /// `INPUT_PROP_BUTTONPAD`
    public static let buttonpad: UInt16 = 0x02
    /// `INPUT_PROP_SEMI_MT`
    public static let semiMT: UInt16 = 0x03
    /// `INPUT_PROP_PRESSUREPAD`: the pad reports force, not contact size (kernel 6.16).
    public static let pressurePad: UInt16 = 0x07
    /// `INPUT_PROP_MAX`
    public static let max: UInt16 = 0x1f
}

/// Kernel names for types, codes and properties, from libevdev's tables.
public enum EventNames {
    /// "EV_ABS", or "EV_0x1e" for a type libevdev does not know.
    public static func type(_ type: UInt16) -> String {
        libevdev_event_type_get_name(UInt32(type)).map { String(cString: $0) } ?? String(format: "EV_0x%02x", type)
    }

    /// "ABS_MT_PRESSURE", or "ABS_0x3e" where libevdev has no name.
    public static func code(type: UInt16, code: UInt16) -> String {
        if let name = libevdev_event_code_get_name(UInt32(type), UInt32(code)) { return String(cString: name) }
        let prefix = self.type(type).replacingOccurrences(of: "EV_", with: "")
        return String(format: "%@_0x%02x", prefix, code)
    }

    /// "INPUT_PROP_DIRECT", or "INPUT_PROP_0x1f".
    public static func property(_ property: UInt16) -> String {
        libevdev_property_get_name(UInt32(property)).map { String(cString: $0) } ?? String(format: "INPUT_PROP_0x%02x", property)
    }

    /// The largest code of `type`, or nil for an unknown type.
    /// The corresponding C function is `libevdev_event_type_get_max`.
    public static func maxCode(type: UInt16) -> UInt16? {
        let max = libevdev_event_type_get_max(UInt32(type))
        return max < 0 ? nil : UInt16(max)
    }

    /// The type for a kernel name such as "EV_ABS", if known.
    public static func type(named name: String) -> UInt16? {
        let type = libevdev_event_type_from_name(name)
        return type < 0 ? nil : UInt16(type)
    }

    /// The type and code of a kernel code name such as "ABS_MT_PRESSURE", if known.
    public static func typeAndCode(named name: String) -> (type: UInt16, code: UInt16)? {
        let type = libevdev_event_type_from_code_name(name), code = libevdev_event_code_from_code_name(name)
        return type < 0 || code < 0 ? nil : (UInt16(type), UInt16(code))
    }

    /// The code for a kernel name such as "ABS_MT_PRESSURE", if known.
    public static func code(named name: String, type: UInt16) -> UInt16? {
        let code = libevdev_event_code_from_name(UInt32(type), name)
        return code < 0 ? nil : UInt16(code)
    }
}
