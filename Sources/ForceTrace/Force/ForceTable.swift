import Foundation
import HDF5

/// A recording's `force` table: the scale, its readings (times relative to
/// the recording's t0_ns) and, once estimated, its lag behind the device.
public struct ForceTable: Sendable {
    public var kind: ScaleKind
    /// The node it was read from, and what it calls itself: both from
    /// outside, stored escaped as exports escape (`TextEscaping.escaped`).
    public var device: String
    public var name: String
    /// The unit most readings came in, as the scale named it.
    public var unit: String
    public var unitExponent: Int
    public var readings: [ScaleReading]
    /// How far the scale's readings trail the device's pressure, and the
    /// uncertainty of that figure (`ScaleLag`); nil until estimated.
    public var lagNs: Int64?
    public var lagUncertaintyNs: Int64?
    /// Why reading stopped early (the scale unplugged), if it did.
    public var scaleError: String?

    public init(kind: ScaleKind, device: String, name: String, unit: String = "", unitExponent: Int = 0, readings: [ScaleReading],
                lagNs: Int64? = nil, lagUncertaintyNs: Int64? = nil, scaleError: String? = nil) {
        self.kind = kind
        self.device = device
        self.name = name
        self.unit = unit
        self.unitExponent = unitExponent
        self.readings = readings
        self.lagNs = lagNs
        self.lagUncertaintyNs = lagUncertaintyNs
        self.scaleError = scaleError
    }

    /// What a capture read, times made relative to `t0Ns`.
    public init(capture scale: any ScaleDevice, readings: [ScaleReading], failure: ForceTraceError?, t0Ns: Int64) {
        let relative = readings.map { reading -> ScaleReading in
            var copy = reading
            copy.timeNs -= t0Ns
            return copy
        }
        var counts: [String: Int] = [:]
        for reading in relative where !reading.grams.isNaN { counts[reading.rawUnit, default: 0] += 1 }
        let unit = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? ""
        self.init(kind: scale.kind, device: scale.path, name: scale.name, unit: unit, unitExponent: scale.unitExponent,
                  readings: relative, scaleError: failure.map { $0.message })
    }

    /// "1=stable,2=in_motion,...": the `status_flags` attribute.
    public static var statusFlagsText: String {
        ScaleStatus.names.map { "\($0.0.rawValue)=\($0.1)" }.joined(separator: ",")
    }

    /// The readings with the lag taken off their times (as stored when no lag is known).
    public var correctedReadings: [ScaleReading] {
        guard let lagNs else { return readings }
        return readings.map { reading in
            var copy = reading
            copy.timeNs -= lagNs
            return copy
        }
    }
}

extension Group {
    /// Writes `table` as this recording's `force` table (replacing no
    /// other: a recording has at most one).
    func writeForceTable(_ table: ForceTable) throws {
        typealias A = ForceAttribute
        let group = try createGroup(TraceSchema.Table.force.rawValue)
        try group.setAttribute(A.scaleKind, .string(table.kind.rawValue))
        try group.setAttribute(A.scaleDevice, .string(TextEscaping.escaped(table.device)))
        try group.setAttribute(A.scaleName, .string(TextEscaping.escaped(table.name)))
        try group.setAttribute(A.unit, .string(TextEscaping.escaped(table.unit)))
        try group.setAttribute(A.unitExponent, .int(Int64(table.unitExponent)))
        try group.setAttribute(A.statusFlags, .string(ForceTable.statusFlagsText))
        if let lag = table.lagNs { try group.setAttribute(A.lagNs, .int(lag)) }
        if let uncertainty = table.lagUncertaintyNs { try group.setAttribute(A.lagUncertaintyNs, .int(uncertainty)) }
        if let error = table.scaleError { try group.setAttribute(A.scaleError, .string(TextEscaping.escaped(error))) }
        let rows = table.readings.map { reading -> ScaleReading in
            var copy = reading
            copy.rawUnit = TextEscaping.escaped(reading.rawUnit)
            return copy
        }
        try group.write(rows, TraceSchema.Force.fields)
    }
}

extension TraceRecording {
    /// The `force` table, or nil when the recording has none (files
    /// written before it, and recordings without `--scale`).
    public func force() throws -> ForceTable? {
        typealias A = ForceAttribute
        guard has(.force) else { return nil }
        let table = try open(.force)
        func fail(_ message: String) -> ForceTraceError {
            ForceTraceError(file: filePath, "recording '\(name)': force: \(message)", hint: "docs/FORMAT.md, \"force\", says what the table holds")
        }
        guard let kindText = try table.attribute(A.scaleKind)?.stringValue, let kind = ScaleKind(rawValue: kindText) else {
            throw fail("scale_kind is missing or not serial or hid")
        }
        let rows = try TableRows(table, TraceSchema.Force.fields, blank: ScaleReading(timeNs: 0, grams: .nan, status: [], rawValue: .nan, rawUnit: ""))
        guard Set(rows.lengths).count <= 1 else { throw fail("its columns differ in length") }
        let readings = try rows.read(0..<(rows.lengths.first ?? 0))
        try TraceValidation.checkTimes(readings.lazy.map(\.timeNs), table: TraceSchema.Table.force.rawValue, firstRow: 0, file: filePath, recording: name)
        if let bad = readings.indices.dropFirst().first(where: { readings[$0].timeNs < readings[$0 - 1].timeNs }) {
            throw fail("t_ns goes back in time at row \(bad)")
        }
        let lag = try table.attribute(A.lagNs)?.intValue
        let uncertainty = try table.attribute(A.lagUncertaintyNs)?.intValue
        if let lag, lag.magnitude > 60_000_000_000 { throw fail("lag_ns \(lag) is beyond a minute") }
        return ForceTable(kind: kind, device: try table.attribute(A.scaleDevice)?.stringValue ?? "",
                          name: try table.attribute(A.scaleName)?.stringValue ?? "",
                          unit: try table.attribute(A.unit)?.stringValue ?? "",
                          unitExponent: Int(clamping: try table.attribute(A.unitExponent)?.intValue ?? 0),
                          readings: readings, lagNs: lag, lagUncertaintyNs: uncertainty,
                          scaleError: try table.attribute(A.scaleError)?.stringValue)
    }
}

extension ForceScript {
    /// The scripted session as the recorder leaves one: the pen's recording
    /// `name` and its `force` table (times from the recording's t0, no lag
    /// stored), written into the new file `path`.
    public func writeSession(to path: String, name: String = "force") throws {
        let (recording, readings) = run()
        let writer = try TraceWriter(creating: path)
        try writer.write(recording, name: name)
        try writer.close()
        let relative = readings.map { reading -> ScaleReading in
            var copy = reading
            copy.timeNs -= recording.t0Ns
            return copy
        }
        let file = try File.open(path, mode: .readWrite)
        try file.root.openGroup(TraceSchema.recordingsGroup).openGroup(name)
            .writeForceTable(ForceTable(kind: .serial, device: "simulated", name: "forcetrace simulated scale", unit: "g", readings: relative))
        try file.close()
        // The trials as calibrate keeps them: each press, found by the tracker calibrate uses, in the protocol's order.
        var tracker = TrialTracker(device: recording.device)
        let presses = recording.events.compactMap { tracker.feed($0) }
        let schedule = CalibrationProtocol.force.schedule(trials: (presses.count + 1) / 2, holds: false)
        let trials = zip(schedule, presses).map { CalibrationTrial(trialClass: $0, observation: $1) }
        try CalibrationLabels.write(trials, protocol: .force, toFile: path, recording: name)
    }
}
