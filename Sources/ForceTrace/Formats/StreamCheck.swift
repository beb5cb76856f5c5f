import Foundation

/// Things in an event stream that are kept as recorded but worth a warning:
/// the kernel passes them on, so forcetrace does too. Fed as the events
/// stream past; its memory does not grow with the recording.
public struct StreamCheck {
    private let device: DeviceDescription
    private let t0Ns: Int64
    private let declaredTypes: Set<UInt16>
    private var axisRanges: [UInt16: AxisInfo] = [:]
    private var unknownTypes: [UInt16: (count: Int, first: Int, timeNs: Int64)] = [:]
    private var undeclared: [UInt32: (count: Int, first: Int, timeNs: Int64)] = [:]
    private var outOfRange: [UInt16: (count: Int, first: Int, timeNs: Int64, low: Int32, high: Int32)] = [:]
    private var backwards = 0
    private var firstBackwards: (index: Int, timeNs: Int64)?
    private var previousTime = Int64.min
    private var index = 0
    private var sinceLastReport = 0
    /// `device.has(type:code:)` for codes below `tableCodes`, as a table:
    /// the check runs for every event, and the lookups dominated it.
    private let declaredCodes: [Bool]
    private static let tableCodes = 1024
    /// `declaredTypes` by type, for types up to `EventType.max`.
    private let declaredTypeTable: [Bool]
    /// Each absolute axis' range by code (ABS codes are below 64), when valid.
    private let axisTable: [(minimum: Int32, maximum: Int32)?]

    public init(_ header: RecordingHeader) {
        device = header.device
        t0Ns = header.t0Ns
        declaredTypes = Set(device.codes[EventType.syn] ?? [])
        for axis in device.axes { axisRanges[axis.code] = axis }
        var declared = [Bool](repeating: false, count: (Int(EventType.max) + 1) * Self.tableCodes)
        for (type, codes) in device.codes where type <= EventType.max {
            for code in codes where Int(code) < Self.tableCodes { declared[Int(type) * Self.tableCodes + Int(code)] = true }
        }
        declaredCodes = declared
        let types = declaredTypes
        declaredTypeTable = (0...Int(EventType.max)).map { types.contains(UInt16($0)) }
        var axes = [(minimum: Int32, maximum: Int32)?](repeating: nil, count: Int(AbsoluteAxis.max) + 1)
        for (code, axis) in axisRanges where code <= AbsoluteAxis.max && axis.maximum > axis.minimum {
            axes[Int(code)] = (axis.minimum, axis.maximum)
        }
        axisTable = axes
    }

    @inline(__always)
    private func declares(type: UInt16, code: UInt16) -> Bool {
        Int(code) < Self.tableCodes ? declaredCodes[Int(type) * Self.tableCodes + Int(code)] : device.has(type: type, code: code)
    }

    /// Checks the next events of the recording.
    public mutating func check(_ events: [InputEvent]) {
        for event in events {
            defer { index += 1 }
            if event.timeNs < previousTime {
                backwards += 1
                if firstBackwards == nil { firstBackwards = (index, event.timeNs) }
            }
            previousTime = event.timeNs
            sinceLastReport = event.isSynReport ? 0 : sinceLastReport + 1
            if event.type == EventType.syn { continue }
            if event.type > EventType.max || (!declaredTypes.isEmpty && !declaredTypeTable[Int(event.type)]) {
                unknownTypes[event.type, default: (0, index, event.timeNs)].count += 1
                continue
            }
            if !declares(type: event.type, code: event.code) {
                undeclared[UInt32(event.type) << 16 | UInt32(event.code), default: (0, index, event.timeNs)].count += 1
            }
            // Tracking ids count up and wrap, and -1 ends a contact: not a range.
            // Slots beyond the range get the decoder's own, sharper warning.
            if event.type == EventType.abs, event.code != AbsoluteAxis.mtTrackingID, event.code != AbsoluteAxis.mtSlot,
               event.code <= AbsoluteAxis.max, let axis = axisTable[Int(event.code)],
               event.value < axis.minimum || event.value > axis.maximum {
                var entry = outOfRange[event.code] ?? (0, index, event.timeNs, event.value, event.value)
                entry.count += 1
                entry.low = min(entry.low, event.value)
                entry.high = max(entry.high, event.value)
                outOfRange[event.code] = entry
            }
        }
    }

    /// Warnings for what was checked, each summarising one kind of oddity.
    public func warnings() -> [String] {
        var warnings: [String] = []
        func at(_ index: Int, _ timeNs: Int64) -> String {
            "event \(index) at \(String(format: "%.6f", Double(timeNs - t0Ns) / 1e9)) s"
        }
        for (type, entry) in unknownTypes.sorted(by: { $0.key < $1.key }) {
            warnings.append("\(entry.count) events of type \(EventNames.type(type)), which the device does not declare, first \(at(entry.first, entry.timeNs)); kept, not decoded")
        }
        for (key, entry) in undeclared.sorted(by: { $0.key < $1.key }) {
            let type = UInt16(key >> 16), code = UInt16(key & 0xffff)
            warnings.append("\(entry.count) \(EventNames.code(type: type, code: code)) events, a code the device does not declare, first \(at(entry.first, entry.timeNs)); kept")
        }
        for (code, entry) in outOfRange.sorted(by: { $0.key < $1.key }) {
            let axis = axisRanges[code]!
            warnings.append("\(entry.count) \(axis.name) values outside its absinfo range \(axis.minimum)..\(axis.maximum) (seen \(entry.low)..\(entry.high)), first \(at(entry.first, entry.timeNs)); kept as recorded, the kernel does not clamp")
        }
        if let firstBackwards {
            warnings.append("timestamps go backwards \(backwards == 1 ? "once" : "\(backwards) times"), first \(at(firstBackwards.index, firstBackwards.timeNs)); kept in recorded order")
        }
        if sinceLastReport > 0 {
            warnings.append("the recording ends mid-frame: \(sinceLastReport) events after the last SYN_REPORT are kept in events but form no frame")
        }
        return warnings
    }

    /// Warnings for a whole recording in memory.
    public static func warnings(for recording: Recording) -> [String] {
        var check = StreamCheck(recording.header)
        check.check(recording.events)
        return check.warnings()
    }
}
