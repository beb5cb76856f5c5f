import HDF5

/// A calibration's trials as the `labels` table stores them (docs/FORMAT.md,
/// "labels"): one row per kept trial, with the group attribute `protocol`.
public enum CalibrationLabels {
    /// Adds the `labels` table to recording `name` of the closed trace file
    /// at `path`, matching each trial to its contact (same slot and tracking
    /// id, touch-down within 100 ms; -1 for hovers).
    public static func write(_ trials: [CalibrationTrial], protocol calibrationProtocol: CalibrationProtocol,
                             toFile path: String, recording name: String) throws {
        try write(trials.map { ($0.trialClass, $0.observation) }, protocol: calibrationProtocol.rawValue, toFile: path,
                  recording: name)
    }

    /// The table of any guided session (calibrations, `levels`): `session`
    /// fills trial N's row beyond the calibration's fields (`intended_peak`
    /// is NaN unless it sets it) and names the session's own columns,
    /// `attributes` writes its table attributes.
    static func write(_ trials: [(trialClass: TrialClass, observation: TrialObservation)], protocol protocolName: String,
                      toFile path: String, recording name: String, sessionFields: [TableField<LabelRow>] = [],
                      session: (Int, inout LabelRow) -> Void = { _, _ in }, attributes: (Group) throws -> Void = { _ in }) throws {
        let file = try File.open(path, mode: .readWrite)
        let group = try file.root.openGroup(TraceSchema.recordingsGroup).openGroup(name)
        let t0Ns = try group.attribute(RecordingAttribute.t0Ns)?.intValue ?? 0
        try write(trials, protocol: protocolName, into: group, t0Ns: t0Ns, sessionFields: sessionFields, session: session, attributes: attributes)
        // The file is compacted already; give the new table its dimension scale as compaction gives the others.
        let fields = TraceSchema.Labels.fields + TraceSchema.Labels.calibrationFields + sessionFields
        try group.openGroup(TraceSchema.Table.labels.rawValue).attachDimensionScale(TraceSchema.Table.labels.dimension, rows: trials.count,
                                                                                     to: fields.map(\.name))
        try file.sync()
        try file.close()
    }

    /// The table in the recording `group` (t0 at `t0Ns`), without its
    /// dimension scale: the import path's writer gives every table its scale.
    static func write(_ trials: [(trialClass: TrialClass, observation: TrialObservation)], protocol protocolName: String,
                      into group: Group, t0Ns: Int64, sessionFields: [TableField<LabelRow>] = [],
                      session: (Int, inout LabelRow) -> Void = { _, _ in }, attributes: (Group) throws -> Void = { _ in }) throws {
        typealias L = TraceSchema.Labels
        let matcher = try ContactMatcher(contacts: group.openGroup(TraceSchema.Table.contacts.rawValue))
        let matched: [Int32] = trials.map { trial in
            guard !trial.trialClass.isHover else { return -1 }
            // A time past Int64 from t0 matches nothing rather than trapping.
            let (start, overflow) = trial.observation.startNs.subtractingReportingOverflow(t0Ns)
            return overflow ? -1 : matcher.match(slot: trial.observation.slot, trackingID: trial.observation.trackingID, tNs: start)
        }
        let table = try group.createGroup(TraceSchema.Table.labels.rawValue)
        try table.setAttribute(RecordingAttribute.calibrationProtocol, .string(protocolName))
        let rows = zip(trials, matched).enumerated().map { index, trialAndContact in
            let (trial, contact) = trialAndContact
            var row = LabelRow()
            row.contact = contact
            row.slot = trial.observation.slot
            row.trackingID = trial.observation.trackingID
            row.tNs = trial.observation.startNs - t0Ns
            row.pressClass = trial.trialClass.rawValue
            row.kind = "calibration"
            row.peak = trial.observation.peak
            row.tEndNs = trial.observation.endNs - t0Ns
            session(index, &row)
            return row
        }
        // The session's attributes between the calibration's columns and its own, as they always were.
        try table.write(rows, L.fields + L.calibrationFields)
        try attributes(table)
        try table.write(rows, sessionFields)
    }
}

extension TraceRecording {
    /// The calibration protocol its labels come from: the `protocol`
    /// attribute, or, for other labelled recordings, the protocol whose
    /// classes the labels use; nil without labels.
    public func calibrationProtocol() throws -> CalibrationProtocol? {
        guard has(.labels) else { return nil }
        let table = try open(.labels)
        if let text = try table.attribute(RecordingAttribute.calibrationProtocol)?.stringValue,
           let found = CalibrationProtocol(rawValue: text) { return found }
        // A table repeats a handful of texts: each distinct one is parsed once.
        let texts = Set(try table.read(TraceSchema.Labels.pressClass))
        let classes = Set(texts.compactMap { TrialClass(rawValue: PressClass(label: $0)?.rawValue ?? $0) })
        return CalibrationProtocol.allCases.first { !classes.isDisjoint(with: $0.classes) }
    }

    /// Every label as a trial: its class, its peak (the `peak` column, or the
    /// largest pressure of its contact's samples) and its contact's pressure
    /// curve. Labels of other classes than `calibrationProtocol`'s are skipped.
    public func labelledTrials(for calibrationProtocol: CalibrationProtocol) throws -> [LabelledTrial] {
        typealias L = TraceSchema.Labels
        guard has(.labels) else { return [] }
        // The checks `report` makes on the contacts and labels: a damaged row is refused, not skipped.
        let contactCount = try self.contacts().count
        _ = try contactLabels(count: contactCount)
        _ = try groundTruth()
        let table = try open(.labels)
        let classes = try table.read(L.pressClass)
        let contacts = try table.read(L.contact)
        let times = try table.read(L.tNs)
        let peaks = table.contains(L.peak.schema) ? try table.read(L.peak) : []
        guard contacts.count == classes.count, times.count == classes.count, peaks.isEmpty || peaks.count == classes.count else {
            throw ForceTraceError(file: filePath, "recording '\(name)': the labels columns differ in length")
        }
        // Each contact's samples: (t_ns, pressure).
        var curves: [Int32: [PressurePoint]] = [:]
        let wanted = Set(contacts.filter { $0 >= 0 })
        typealias S = TraceSchema.Samples
        var previousTime = Int64.min
        try forEachSampleBuffer { block in
            let contact = block[S.contact], tNs = block[S.tNs], pressure = block[S.pressure]
            try TraceValidation.checkTimes(tNs, table: "samples", firstRow: block.rows.lowerBound, file: filePath, recording: name)
            previousTime = try TraceValidation.checkOrder(tNs, after: previousTime, table: "samples", firstRow: block.rows.lowerBound,
                                                          file: filePath, recording: name)
            if let row = contact.indices.first(where: { contact[$0] < 0 || Int(contact[$0]) >= contactCount }) {
                throw ForceTraceError(file: filePath, "recording '\(name)': samples row \(block.rows.lowerBound + row - contact.startIndex) "
                                      + "names contact \(contact[row]), which the contacts table lacks")
            }
            for row in contact.indices where wanted.contains(contact[row]) {
                curves[contact[row], default: []].append(PressurePoint(tNs: tNs[row], pressure: pressure[row]))
            }
        }
        return classes.indices.compactMap { row in
            let canonical = PressClass(label: classes[row])?.rawValue ?? classes[row]
            guard let trialClass = TrialClass(rawValue: canonical),
                  (calibrationProtocol.classes + calibrationProtocol.holdClasses).contains(trialClass) else { return nil }
            let curve = curves[contacts[row]] ?? []
            let peak = row < peaks.count && peaks[row] >= 0 ? peaks[row] : (curve.map(\.pressure).max() ?? -1)
            let start = curve.first?.tNs ?? times[row]
            return LabelledTrial(trialClass: trialClass, peak: peak, startNs: start, curve: curve)
        }
    }
}
