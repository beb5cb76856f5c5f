import Foundation

/// Where a HID scale's input report keeps its weight, and how to read it:
/// the Scales page (0x8D) of the HID Usage Tables (HUT 1.2 and later,
/// "Scales Page"): Data Weight (0x40), Data Scaling (0x41, a power of ten),
/// Weight Unit selectors (0x51 milligram to 0x5C pound) and Scale Status
/// selectors (0x71 fault to 0x78 requires rezeroing).
public struct HIDScaleReport: Sendable {
    public static let page: UInt32 = 0x8D
    static func usage(_ id: UInt32) -> UInt32 { page << 16 | id }
    static let dataWeight = usage(0x40)
    static let dataScaling = usage(0x41)

    /// The Weight Unit selectors.
    static let units: [UInt32: WeightUnit] = [
        usage(0x51): .milligram, usage(0x52): .gram, usage(0x53): .kilogram, usage(0x54): .carat,
        usage(0x56): .grain, usage(0x57): .pennyweight, usage(0x58): .metricTon, usage(0x59): .avoirTon,
        usage(0x5A): .troyOunce, usage(0x5B): .ounce, usage(0x5C): .pound,
        // 0x55 taels is left out: the tael differs between regions.
    ]
    static let unitRange = usage(0x51)...usage(0x5C)

    /// The Scale Status selectors.
    static let statuses: [UInt32: ScaleStatus] = [
        usage(0x71): .fault, usage(0x72): [.stable, .stableAtZero], usage(0x73): .inMotion, usage(0x74): .stable,
        usage(0x75): .underZero, usage(0x76): .overload, usage(0x77): .requiresCalibration, usage(0x78): .requiresRezeroing,
    ]
    static let statusRange = usage(0x71)...usage(0x78)

    public let reportID: UInt8
    public let usesReportIDs: Bool
    let weight: (field: HIDReportDescriptor.Field, index: Int)
    let scaling: (field: HIDReportDescriptor.Field, index: Int)?
    let unit: HIDReportDescriptor.Field?
    let status: HIDReportDescriptor.Field?

    /// The scale's report in `descriptor`; an error naming `name` when it has no Data Weight.
    public init(_ descriptor: HIDReportDescriptor, name: String) throws {
        func find(_ usage: UInt32) -> (HIDReportDescriptor.Field, Int)? {
            for field in descriptor.inputFields where field.isVariable {
                for index in 0..<field.count where field.usage(at: index) == usage { return (field, index) }
            }
            return nil
        }
        guard let weight = find(Self.dataWeight) else {
            throw ForceTraceError(file: name, "has no Data Weight (HID usage 0x8D:0x40) in its input reports: not a HID scale",
                                  hint: "a USB scale of the HID Scales page shows as /dev/hidrawN; a serial scale is given as --scale /dev/ttyUSB0:9600",
                                  kind: .device)
        }
        self.weight = weight
        reportID = weight.0.reportID
        usesReportIDs = descriptor.usesReportIDs
        func selectorField(_ range: ClosedRange<UInt32>) -> HIDReportDescriptor.Field? {
            descriptor.inputFields.first { field in
                field.reportID == weight.0.reportID && !field.isVariable
                    && (field.usageRange.map { range.overlaps($0) } ?? field.usages.contains(where: range.contains))
            }
        }
        let id = weight.0.reportID
        if let found = find(Self.dataScaling), found.0.reportID == id { scaling = found } else { scaling = nil }
        unit = selectorField(Self.unitRange)
        status = selectorField(Self.statusRange)
    }

    /// The reading in one report as hidraw gives it (with the ID byte when
    /// the descriptor uses report IDs); nil for another report. A report
    /// too short, a unit that is not named or not a mass, fault and over
    /// weight give a reading without a weight, flagged.
    public func reading(_ report: [UInt8], timeNs: Int64) -> ScaleReading? {
        var body = report[...]
        if usesReportIDs {
            guard let id = body.first, id == reportID else { return nil }
            body = body.dropFirst()
        }
        var status: ScaleStatus = []
        if let field = self.status, let value = field.value(at: 0, in: body), let selector = field.selector(for: value) {
            status = Self.statuses[selector] ?? []
        }
        guard let raw = weight.field.value(at: weight.index, in: body) else {
            return .withoutWeight(timeNs: timeNs, status: status.union(.unreadable))
        }
        // Data Scaling, when the report carries it, is the power of ten; else the item's Unit Exponent.
        var exponent = weight.field.unitExponent
        if let scaling, let value = scaling.field.value(at: scaling.index, in: body) { exponent = Int(value) }
        guard abs(exponent) <= 30 else { return .withoutWeight(timeNs: timeNs, status: status.union(.unreadable), rawValue: Double(raw)) }
        var value = Double(raw) * pow(10, Double(exponent))
        // A weight field that cannot hold a negative number gives the size of an under-zero weight.
        if status.contains(.underZero) && weight.field.logicalMinimum >= 0 { value = -value }
        if value < 0 { status.insert(.underZero) }
        var unitName = ""
        var unit: WeightUnit?
        if let field = self.unit, let code = field.value(at: 0, in: body) {
            if let selector = field.selector(for: code) {
                unitName = String(format: "0x%06x", selector)
                unit = Self.units[selector]
            }
        }
        guard let unit else {
            return .withoutWeight(timeNs: timeNs, status: status.union(.unreadable), rawValue: value, rawUnit: unitName)
        }
        if !status.isDisjoint(with: ScaleStatus.noWeight) {
            return .withoutWeight(timeNs: timeNs, status: status, rawValue: value, rawUnit: unit.rawValue)
        }
        return ScaleReading(timeNs: timeNs, grams: value * unit.grams, status: status, rawValue: value, rawUnit: unit.rawValue)
    }

    /// The exponent the descriptor gives the weight (Data Scaling may
    /// change it report by report).
    public var unitExponent: Int { weight.field.unitExponent }
}
