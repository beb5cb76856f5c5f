import Foundation

/// Can a device's contacts report pressure? The Linux counterpart of iOS's
/// `UIForceTouchCapability`.
public enum ForceCapability: String, Sendable {
    /// Each contact carries its own pressure: ABS_MT_PRESSURE with slots,
    /// ABS_PRESSURE on single-touch devices and pens.
    case available
    /// A multitouch device with only ABS_PRESSURE: one value for all
    /// contacts (the kernel's pointer emulation, or a semi-MT pad).
    case shared
    /// No pressure axis, or one with fewer than three levels.
    case unavailable
}

extension DeviceDescription {
    public var forceCapability: ForceCapability {
        func usable(_ axis: AxisInfo?) -> Bool { axis.map { Int64($0.maximum) - Int64($0.minimum) >= 2 } ?? false }
        if usable(contactPressureAxis) { return .available }
        if contactProtocol == .slots && usable(axis(AbsoluteAxis.pressure)) { return .shared }
        return .unavailable
    }
}

/// One /dev/input/event* node: its description, or why it could not be read.
public struct InputDeviceEntry: Sendable {
    public var path: String
    public var description: DeviceDescription?
    public var error: ForceTraceError?
}

/// The evdev nodes of this machine.
public enum InputDevices {
    /// Kernel BUS_* names for the buses input devices sit on.
    public static func busName(_ bus: UInt16) -> String {
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

    public static let defaultDirectory = "/dev/input"

    /// `event*` nodes in `directory`, in numeric order (event2 before event10).
    /// - Throws: `ForceTraceError.device` when the directory does not exist or cannot be read.
    public static func eventNodes(in directory: String = defaultDirectory) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ForceTraceError.device(directory, "does not exist: this machine (or container) has no input devices",
                              hint: "run forcetrace where the device is attached; in a container, pass it in (docker run --device /dev/input/eventN)")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw ForceTraceError.device(directory, "cannot be listed: \(error.localizedDescription)")
        }
        return names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("event"), let number = Int(name.dropFirst(5)) else { return nil }
            return (number, name)
        }
        .sorted { $0.0 < $1.0 }
        .map { directory + "/" + $0.1 }
    }

    /// Opens every node in `directory` and describes it; a node that cannot
    /// be opened is listed with its error.
    public static func list(in directory: String = defaultDirectory) throws -> [InputDeviceEntry] {
        try eventNodes(in: directory).map { path in
            do {
                let device = try EvdevDevice(path: path)
                defer { device.close() }
                return InputDeviceEntry(path: path, description: device.describe(), error: nil)
            } catch let error as ForceTraceError where error.kind == .device {
                return InputDeviceEntry(path: path, description: nil, error: error)
            } catch {
                return InputDeviceEntry(path: path, description: nil, error: .device(path, "\(error)"))
            }
        }
    }

    /// The node that `argument` names: a path as is, or the one device
    /// whose name contains `argument` (case-insensitive).
    /// - Throws: `ForceTraceError.device` when no device or several devices match.
    public static func resolve(_ argument: String, in directory: String = defaultDirectory) throws -> String {
        if argument.contains("/") { return argument }
        let entries = try list(in: directory)
        return try match(argument, among: entries.map { ($0.path, $0.description?.name) }, directory: directory)
    }

    /// Picks the one device whose name contains `query`; an exact name wins
    /// over substrings. `devices` are (path, name), name nil when unreadable.
    public static func match(_ query: String, among devices: [(path: String, name: String?)],
                             directory: String = defaultDirectory) throws -> String {
        let named = devices.compactMap { device in device.name.map { (path: device.path, name: $0) } }
        let exact = named.filter { $0.name.caseInsensitiveCompare(query) == .orderedSame }
        if exact.count == 1 { return exact[0].path }
        let matches = exact.count > 1 ? exact : named.filter { $0.name.range(of: query, options: .caseInsensitive) != nil }
        if matches.count == 1 { return matches[0].path }
        let unreadable = devices.count - named.count
        if matches.isEmpty {
            var hint = "'forcetrace devices' lists the devices and their names"
            if unreadable > 0 {
                hint = "\(unreadable) device(s) could not be opened and were not searched: join the 'input' group or run as root; " + hint
            }
            throw ForceTraceError.device(directory, "no device's name contains '\(query)'", hint: hint)
        }
        let listing = matches.map { "\($0.path) (\($0.name))" }.joined(separator: ", ")
        throw ForceTraceError.device(directory, "\(matches.count) devices match '\(query)': \(listing)",
                          hint: "give a longer part of the name, or the /dev/input/eventN path")
    }
}

extension InputDeviceEntry {
    /// `devices`: one device as text; its name, path and error shown escaped.
    public var text: TerminalText {
        let entry = self
        guard let device = entry.description else {
            return "\(entry.path)\n  cannot be opened: \(entry.error?.message ?? "unknown error")\n"
        }
        var text: TerminalText = "\(entry.path)  \"\(device.name)\"\n"
        text += "\(String(format: "  bus %@  vendor 0x%04x  product 0x%04x", InputDevices.busName(device.bus), device.vendor, device.product))\n"
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
