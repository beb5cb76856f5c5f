import Foundation

/// A pressure axis in the kernel's physical unit. With a non-zero resolution,
/// ABS_PRESSURE and ABS_MT_PRESSURE report units per gram (the kernel's
/// Documentation/input/multi-touch-protocol.rst and event-codes.rst, since
/// commit 20ccc8dd38a3, 2021): a value of 10 at resolution 2 is 5 g. Pressure
/// pads (`INPUT_PROP_PRESSUREPAD`) are the devices that set it; a zero
/// resolution means arbitrary units, and no grams are shown.
public struct GramScale: Equatable, Sendable {
    public let unitsPerGram: Int32

    /// Nil unless `axis` is a pressure axis with a positive resolution.
    public init?(axis: AxisInfo?) {
        guard let axis, axis.code == AbsoluteAxis.pressure || axis.code == AbsoluteAxis.mtPressure,
              axis.resolution > 0 else { return nil }
        unitsPerGram = axis.resolution
    }

    /// Grams (force, gf) for a raw value; the kernel's scale has no offset.
    @inline(__always)
    public func grams(_ raw: Double) -> Double { raw / Double(unitsPerGram) }

    public func grams(_ raw: Int32) -> Double { grams(Double(raw)) }

    /// "62.5 gf", the one way every output writes grams.
    public static func text(_ grams: Double) -> String { String(format: "%.1f gf", grams) }

    /// A raw value with its grams beside it: "125 (62.5 gf)".
    public func beside(_ raw: Double) -> String {
        let shown = raw == raw.rounded() && abs(raw) < 1e15 ? String(Int64(raw)) : String(format: "%.1f", raw)
        return "\(shown) (\(Self.text(grams(raw))))"
    }

    /// How the unit reads after an axis's range: "2 units per gram, 0..127.5 gf".
    public func describe(_ axis: AxisInfo) -> String {
        "\(unitsPerGram) unit\(unitsPerGram == 1 ? "" : "s") per gram, "
            + "\(String(format: "%.1f", grams(axis.minimum)))..\(Self.text(grams(axis.maximum)))"
    }
}

extension DeviceDescription {
    /// The grams of the per-contact pressure axis, if the kernel gives them.
    public var contactPressureGrams: GramScale? { GramScale(axis: contactPressureAxis) }

    /// Whether the device says its pressure is a force (`INPUT_PROP_PRESSUREPAD`).
    public var isPressurePad: Bool { properties.contains(InputProperty.pressurePad) }
}
