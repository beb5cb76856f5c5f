import Foundation

/// What a scale said about a reading besides its weight, as one bit set:
/// the serial header (ST, US, OL, GS/NT) and the HID Scale Status selectors
/// map onto the same bits, so the force table has one status column.
public struct ScaleStatus: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The scale reports the weight as settled (serial ST; HID Weight Stable
    /// or Stable at Center of Zero).
    public static let stable = ScaleStatus(rawValue: 1 << 0)
    /// Still moving (serial US; HID In Motion).
    public static let inMotion = ScaleStatus(rawValue: 1 << 1)
    /// Over the weighing range (serial OL; HID Over Weight Limit): no weight.
    public static let overload = ScaleStatus(rawValue: 1 << 2)
    /// Below zero: a negative net weight (a tare taken with something on the
    /// pan that was then lifted) or HID Under Zero.
    public static let underZero = ScaleStatus(rawValue: 1 << 3)
    /// HID Fault: no weight.
    public static let fault = ScaleStatus(rawValue: 1 << 4)
    /// HID Stable at Center of Zero.
    public static let stableAtZero = ScaleStatus(rawValue: 1 << 5)
    /// HID Requires Calibration.
    public static let requiresCalibration = ScaleStatus(rawValue: 1 << 6)
    /// HID Requires Rezeroing.
    public static let requiresRezeroing = ScaleStatus(rawValue: 1 << 7)
    /// Net weight (serial NT; GS or no field is gross).
    public static let net = ScaleStatus(rawValue: 1 << 8)
    /// The reading could not be read as a weight (a damaged line, a unit
    /// that is not a mass, a report without a weight): no weight.
    public static let unreadable = ScaleStatus(rawValue: 1 << 9)

    /// Every flag with its name, in bit order: docs, JSON and Python's names.
    public static let names: [(ScaleStatus, String)] = [
        (.stable, "stable"), (.inMotion, "in_motion"), (.overload, "overload"), (.underZero, "under_zero"),
        (.fault, "fault"), (.stableAtZero, "stable_at_zero"), (.requiresCalibration, "requires_calibration"),
        (.requiresRezeroing, "requires_rezeroing"), (.net, "net"), (.unreadable, "unreadable"),
    ]

    /// Flags under which a reading has no weight at all (grams is NaN).
    public static let noWeight: ScaleStatus = [.overload, .fault, .unreadable]

    /// The names of the set flags, in bit order.
    public var flagNames: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
}

/// A mass unit a scale may report in, with its size in grams.
public enum WeightUnit: String, Sendable, CaseIterable {
    case milligram = "mg", gram = "g", kilogram = "kg", carat = "ct", grain = "GN", pennyweight = "dwt"
    case metricTon = "t_metric", avoirTon = "ton", troyOunce = "ozt", ounce = "oz", pound = "lb"

    /// Grams in one of this unit (the international avoirdupois pound of
    /// 453.59237 g and its sixteenth; the troy ounce of 31.1034768 g, its
    /// twentieth the pennyweight; the grain of 64.79891 mg; the metric carat
    /// of 200 mg; the short ton of 2000 lb).
    public var grams: Double {
        switch self {
        case .milligram: 0.001
        case .gram: 1
        case .kilogram: 1000
        case .carat: 0.2
        case .grain: 0.06479891
        case .pennyweight: 1.55517384
        case .metricTon: 1_000_000
        case .avoirTon: 907_184.74
        case .troyOunce: 31.1034768
        case .ounce: 28.349523125
        case .pound: 453.59237
        }
    }
}

/// One reading of a scale, as the force table stores it.
public struct ScaleReading: Sendable, Equatable {
    /// When it was read, on the recording's clock (CLOCK_MONOTONIC, ns).
    public var timeNs: Int64
    /// The weight in grams (= gram-force on the pan); NaN when the status
    /// says there is none (`ScaleStatus.noWeight`), never a made-up zero.
    public var grams: Double
    public var status: ScaleStatus
    /// The number as the scale sent it, before the unit.
    public var rawValue: Double
    /// The unit as the scale named it ("g", "oz", a HID usage such as
    /// "0x8d0052"), escaped when written anywhere.
    public var rawUnit: String

    public init(timeNs: Int64, grams: Double, status: ScaleStatus, rawValue: Double, rawUnit: String) {
        self.timeNs = timeNs
        self.grams = grams
        self.status = status
        self.rawValue = rawValue
        self.rawUnit = rawUnit
    }

    /// A reading without a weight: NaN grams, `status` saying why.
    public static func withoutWeight(timeNs: Int64, status: ScaleStatus, rawValue: Double = .nan, rawUnit: String = "") -> ScaleReading {
        ScaleReading(timeNs: timeNs, grams: .nan, status: status, rawValue: rawValue, rawUnit: rawUnit)
    }

    public static func == (a: ScaleReading, b: ScaleReading) -> Bool {
        a.timeNs == b.timeNs && (a.grams == b.grams || (a.grams.isNaN && b.grams.isNaN)) && a.status == b.status
            && (a.rawValue == b.rawValue || (a.rawValue.isNaN && b.rawValue.isNaN)) && a.rawUnit == b.rawUnit
    }
}

/// The two kinds of scale forcetrace reads.
public enum ScaleKind: String, Sendable {
    case serial
    case hid
}
