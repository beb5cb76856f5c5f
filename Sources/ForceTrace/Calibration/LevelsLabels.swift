import HDF5

/// A levels session in the `labels` table (docs/FORMAT.md, "labels"): the
/// calibration columns, class `level`, plus `level`, `level_count` and
/// `held`, and the plan in the table's attributes.
public enum LevelsLabels {
    /// The `protocol` attribute's value for a levels session.
    public static let protocolName = "levels"

    public static func write(_ trials: [LevelTrial], plan: LevelsPlan, axis: AxisInfo, toFile path: String, recording name: String) throws {
        typealias L = TraceSchema.Labels
        let centres = trials.map { LevelBands(count: $0.target.count, range: plan.range, axis: axis).centre($0.target.level) }
        try CalibrationLabels.write(trials.map { (TrialClass.level, $0.observation) }, protocol: protocolName, toFile: path,
                                    recording: name, sessionFields: L.levelsFields, session: { index, row in
            row.intendedPeak = centres[index]
            row.level = Int16(trials[index].target.level)
            row.levelCount = Int16(trials[index].target.count)
            row.held = trials[index].held
        }, attributes: { table in
            try table.setAttribute(RecordingAttribute.levelsSeed, .int(Int64(bitPattern: plan.seed)))
            try table.setAttribute(RecordingAttribute.levelCounts, .ints(plan.counts.map(Int64.init)))
            try table.setAttribute(RecordingAttribute.trialsPerLevel, .int(Int64(plan.trialsPerLevel)))
            try table.setAttribute(RecordingAttribute.levelRange, .doubles([plan.range.low, plan.range.high]))
        })
    }
}

extension TraceRecording {
    /// Whether the recording's labels come from a `levels` session.
    public func holdsLevels() throws -> Bool {
        guard has(.labels) else { return false }
        return try open(.labels).attribute(RecordingAttribute.calibrationProtocol)?.stringValue == LevelsLabels.protocolName
    }

    /// The levels session's result, from its labels table; nil when the
    /// recording holds no levels session.
    public func levelsResult() throws -> LevelsResult? {
        typealias L = TraceSchema.Labels
        guard try holdsLevels() else { return nil }
        guard let axis = device.contactPressureAxis else {
            throw ForceTraceError(file: filePath, "recording '\(name)': the device has no per-contact pressure axis")
        }
        let table = try open(.labels)
        func damaged(_ what: String) -> ForceTraceError {
            ForceTraceError(file: filePath, "recording '\(name)': labels of a levels session: \(what)",
                            hint: "the table was not written by 'forcetrace levels'; record the session again")
        }
        for column in L.levelsOnly where !table.contains(column) { throw damaged("no '\(column.name)' column") }
        let levels = try table.read(L.level), counts = try table.read(L.levelCount), held = try table.read(L.held)
        guard levels.count == counts.count, held.count == counts.count else { throw damaged("the columns differ in length") }
        var range = LevelRange.full
        if case .doubles(let ends)? = try table.attribute(RecordingAttribute.levelRange) {
            guard ends.count == 2, ends[0] >= 0, ends[1] <= 1, ends[0] < ends[1] else { throw damaged("level_range is not LOW < HIGH within 0..1") }
            range = LevelRange(low: ends[0], high: ends[1])
        }
        let tested = try table.attribute(RecordingAttribute.levelCounts)?.intsValue ?? []
        var records: [LevelRecord] = []
        for row in levels.indices {
            let count = Int(counts[row]), level = Int(levels[row])
            guard (2...12).contains(count), (1...count).contains(level) else {
                throw damaged("row \(row) asks for level \(level) of \(count) (levels are 1...count, counts 2...12)")
            }
            records.append(LevelRecord(target: LevelTarget(count: count, level: level), held: held[row]))
        }
        guard tested.allSatisfy({ (2...12).contains($0) }) else { throw damaged("level_counts holds a count outside 2...12") }
        let seed = UInt64(bitPattern: try table.attribute(RecordingAttribute.levelsSeed)?.intValue ?? 0)
        return LevelsResult(records: records, counts: tested.map { Int($0) }, range: range, seed: seed, device: device,
                            axis: axis, file: filePath, recording: name)
    }
}
