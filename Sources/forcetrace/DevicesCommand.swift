import ForceTrace
import Foundation

/// `forcetrace devices`: the evdev devices and what they can record.
struct DevicesCommand: Subcommand {
    static let spec = CommandSpec(
        name: "devices",
        abstract: "List input devices and whether they report pressure.",
        discussion: """
        Opens every /dev/input/event* node through libevdev and prints its name, bus,
        vendor and product, whether it is multitouch protocol B (and its slots), its
        pressure axis, whether it is a pen, and a one-word verdict:
          available    each contact has its own pressure (ABS_MT_PRESSURE, or
                       ABS_PRESSURE on single-touch devices and pens)
          shared       multitouch with ABS_PRESSURE only: one value for all contacts
          unavailable  no pressure axis
        A device with letter keys is marked 'keyboard: yes': record and calibrate
        obfuscate its key codes, and refuse it without --allow-keyboard when it has
        no pressure axis.
        Exits 1 when some device could not be opened (it is listed with the reason).
        """,
        options: [.flag("json", "Print JSON instead of text.")])

    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        json = arguments.flag("json")
    }

    func run() throws -> Int32 {
        let entries = try InputDevices.list()
        if json {
            printExact(JSONText.encode(entries.map(Self.jsonObject)))
        } else if entries.isEmpty {
            printError("\(InputDevices.defaultDirectory) has no event devices")
        } else {
            print(entries.map(Self.text).joined(separator: "\n"), terminator: "")
        }
        let failed = entries.filter { $0.error != nil }
        guard failed.isEmpty else {
            if failed.contains(where: { $0.error?.errno == EACCES || $0.error?.errno == EPERM }) {
                printError("warning: \(failed.count) of \(entries.count) devices could not be opened: evdev nodes belong to the 'input' group; add yourself (usermod -aG input $USER, then log in again) or run as root")
            } else {
                printError("warning: \(failed.count) of \(entries.count) devices could not be opened")
            }
            return ExitStatus.failure
        }
        return ExitStatus.success
    }

    /// Kernel BUS_* names for the buses input devices sit on.
    static func busName(_ bus: UInt16) -> String {
        switch bus {
        case 0x01: "pci"
        case 0x03: "usb"
        case 0x05: "bluetooth"
        case 0x06: "virtual"
        case 0x10: "isa"
        case 0x11: "i8042"
        case 0x18: "i2c"
        case 0x19: "host"
        case 0x1c: "spi"
        case 0x1d: "rmi"
        default: String(format: "0x%04x", bus)
        }
    }

    static func jsonObject(_ entry: InputDeviceEntry) -> [String: Any] {
        guard let device = entry.description else {
            return ["path": entry.path, "error": entry.error?.message ?? "unknown error",
                    "errno": entry.error?.errno.map { Int($0) } ?? NSNull()]
        }
        let pressure: Any = device.contactPressureAxis.map {
            ["code": Int($0.code), "name": $0.name, "min": Int($0.minimum), "max": Int($0.maximum), "resolution": Int($0.resolution)] as [String: Any]
        } ?? NSNull()
        return [
            "path": entry.path,
            "name": device.name,
            "bus": Int(device.bus), "bus_name": busName(device.bus),
            "vendor": Int(device.vendor), "product": Int(device.product), "version": Int(device.version),
            "properties": device.properties.map { EventNames.property($0) },
            "mt_protocol_b": device.contactProtocol == .slots,
            "slots": device.slotCount,
            "pressure_axis": pressure,
            "is_pen": device.isPen,
            "keyboard": device.hasKeyboardKeys,
            "force_capability": device.forceCapability.rawValue,
        ]
    }

    /// One device as text; its name and path shown escaped.
    static func text(_ entry: InputDeviceEntry) -> TerminalText {
        guard let device = entry.description else {
            return "\(entry.path)\n  cannot be opened: \(entry.error?.message ?? "unknown error")\n"
        }
        var text: TerminalText = "\(entry.path)  \"\(device.name)\"\n"
        text += "\(String(format: "  bus %@  vendor 0x%04x  product 0x%04x", busName(device.bus), device.vendor, device.product))\n"
        text += device.contactProtocol == .slots
            ? "  multitouch protocol B, \(device.slotCount) slots\n" : "  not multitouch protocol B\n"
        if let axis = device.contactPressureAxis {
            text += "  pressure: \(axis.name) (0x\(String(axis.code, radix: 16))) \(axis.minimum)..\(axis.maximum), resolution \(axis.resolution)\n"
        } else if device.forceCapability == .shared, let axis = device.axis(AbsoluteAxis.pressure) {
            text += "  pressure: \(axis.name) \(axis.minimum)..\(axis.maximum) for all contacts together, none per contact\n"
        } else {
            text += "  no pressure axis\n"
        }
        text += "  pen: \(device.isPen ? "yes" : "no")\n"
        if device.hasKeyboardKeys {
            text += device.forceCapability == .unavailable
                ? "  keyboard: yes (letter keys; record stores common keys as KEY_A, and needs --allow-keyboard)\n"
                : "  keyboard: yes (letter keys; record stores common keys as KEY_A)\n"
        }
        text += "  pressure-capable: \(device.forceCapability.rawValue)\n"
        return text
    }
}
