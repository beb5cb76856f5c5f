import Foundation

/// The JSON shapes more than one output writes, each written in one place:
/// an axis, the pressure axis and a device's identity are the same object in
/// `info --json`, `devices --json`, `report --json` (and whatever output
/// adopts them: docs/ARCHITECTURE.md, "A JSON or HTML output").
extension JSONWriter {
    /// The pressure axis `{code, max, min, name, resolution}`, or null without one.
    mutating func pressureAxis(_ axis: AxisInfo?) {
        guard let axis else { null(); return }
        beginObject()
        key("code"); int(axis.code)
        key("max"); int(axis.maximum)
        key("min"); int(axis.minimum)
        key("name"); string(axis.name)
        key("resolution"); int(axis.resolution)
        endObject()
    }

    /// An absolute axis with its whole absinfo `{code, flat, fuzz, max, min, name, resolution}`.
    mutating func absoluteAxis(_ axis: AxisInfo) {
        beginObject()
        key("code"); int(axis.code)
        key("flat"); int(axis.flat)
        key("fuzz"); int(axis.fuzz)
        key("max"); int(axis.maximum)
        key("min"); int(axis.minimum)
        key("name"); string(axis.name)
        key("resolution"); int(axis.resolution)
        endObject()
    }

    /// A string, or null.
    mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// Strings on one line, as every flat array is.
    mutating func strings(_ values: [String]) {
        beginArray(flat: true)
        for value in values { string(value) }
        endArray()
    }

    /// The document as text.
    mutating func text() -> String { String(decoding: finish(), as: UTF8.self) }
}
