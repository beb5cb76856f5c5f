import Foundation

extension InputDevices {
    /// `devices --json`: one object per node, keys in byte order; a node that
    /// could not be opened is `{errno, error, path}`.
    public static func json(_ entries: [InputDeviceEntry]) -> String {
        var out = JSONWriter(capacity: 4096)
        out.beginArray(flat: false)
        for entry in entries {
            out.beginObject()
            guard let device = entry.description else {
                out.key("errno")
                out.int(entry.error?.errno)
                out.key("error"); out.string(entry.error?.message ?? "unknown error")
                out.key("path"); out.string(entry.path)
                out.endObject()
                continue
            }
            out.key("bus"); out.int(device.bus)
            out.key("bus_name"); out.string(busName(device.bus))
            out.key("force_capability"); out.string(device.forceCapability.rawValue)
            out.key("is_pen"); out.bool(device.isPen)
            out.key("keyboard"); out.bool(device.hasKeyboardKeys)
            out.key("mt_protocol_b"); out.bool(device.contactProtocol == .slots)
            out.key("name"); out.string(device.name)
            out.key("path"); out.string(entry.path)
            out.key("pressure_axis"); out.pressureAxis(device.contactPressureAxis)
            out.key("product"); out.int(device.product)
            out.key("properties"); out.strings(device.properties.map { EventNames.property($0) })
            out.key("slots"); out.int(device.slotCount)
            out.key("vendor"); out.int(device.vendor)
            out.key("version"); out.int(device.version)
            out.endObject()
        }
        out.endArray()
        return out.text()
    }
}
