import HDF5

/// The optional `labels` table of a recording (an addition to format v1,
/// docs/FORMAT.md; its columns are `TraceSchema.Labels`): ground truth per contact.
public enum LabelTable {
    /// Largest gap between a label's time and a contact's touch-down that still matches.
    public static let matchWindowNs: Int64 = 100_000_000
}

/// Finds a label's contact: the one with its slot and tracking id whose
/// touch-down is nearest the label's time, within `LabelTable.matchWindowNs`
/// (the window's edge included; the earlier row wins a tie).
struct ContactMatcher {
    private struct Key: Hashable { let tracking: Int32; let slot: Int16 }
    private let ids: [Int32], down: [Int64]
    // Rows by (tracking id, slot): a scan of all contacts per label made
    // importing 120 k labelled presses quadratic.
    private var rowsByKey: [Key: [Int]] = [:]

    init(ids: [Int32], slots: [Int16], tracking: [Int32], down: [Int64]) {
        self.ids = ids
        self.down = down
        for row in ids.indices { rowsByKey[Key(tracking: tracking[row], slot: slots[row]), default: []].append(row) }
    }

    /// The matcher of a recording's `contacts` table.
    init(contacts: Group) throws {
        typealias C = TraceSchema.Contacts
        self.init(ids: try contacts.read(C.id), slots: try contacts.read(C.slot),
                  tracking: try contacts.read(C.trackingID), down: try contacts.read(C.tDownNs))
    }

    /// The contact id for a label at `tNs` (since t0), or -1.
    func match(slot: Int16, trackingID: Int32, tNs: Int64) -> Int32 {
        var best: (id: Int32, gap: UInt64)?
        for row in rowsByKey[Key(tracking: trackingID, slot: slot)] ?? [] {
            // Times from a file can be anything: a difference that overflows is no match.
            let difference = down[row].subtractingReportingOverflow(tNs)
            guard !difference.overflow else { continue }
            let gap = difference.partialValue.magnitude
            if gap <= LabelTable.matchWindowNs.magnitude && gap < (best?.gap ?? .max) { best = (ids[row], gap) }
        }
        return best?.id ?? -1
    }
}

/// One row of the `labels` table as stored (times since t0_ns); the
/// session-only fields are written by calibrations and `levels` only.
public struct LabelRow: Equatable, Sendable {
    /// Matched contact id, -1 where none matches.
    public var contact: Int32 = -1
    public var slot: Int16 = -1
    public var trackingID: Int32 = -1
    public var tNs: Int64 = 0
    public var pressClass = ""
    /// "" when unknown.
    public var kind = ""
    /// NaN when unknown.
    public var intendedPeak = Double.nan
    /// Calibrations: the trial's largest raw pressure and its end.
    public var peak: Int32 = -1
    public var tEndNs: Int64 = 0
    /// `levels` sessions.
    public var level: Int16 = 0
    public var levelCount: Int16 = 0
    public var held: Int32 = 0

    public init() {}
}

extension RecordingWriter {
    /// Writes `truth` as the `labels` table, matching each label to the
    /// contact with its slot and tracking id whose touch-down is nearest
    /// (within 100 ms); `contact` is −1 where none matches. Call after `finish()`.
    public func writeGroundTruth(_ truth: GroundTruth) throws {
        guard !truth.isEmpty else { return }
        if let session = truth.session {
            let trials = session.trials.map { trial in
                (trialClass: trial.trialClass, observation: TrialObservation(startNs: trial.startNs, endNs: trial.endNs, slot: trial.slot,
                                                                             trackingID: trial.trackingID, peak: trial.peak))
            }
            try CalibrationLabels.write(trials, protocol: session.calibrationProtocol.rawValue, into: group, t0Ns: t0Ns)
            return
        }
        typealias L = TraceSchema.Labels
        let matcher = try ContactMatcher(contacts: group.openGroup(TraceSchema.Table.contacts.rawValue))
        let matched = truth.labels.map { matcher.match(slot: $0.slot, trackingID: $0.trackingID, tNs: $0.tNs - t0Ns) }
        let table = try group.createGroup(TraceSchema.Table.labels.rawValue)
        if let peek = truth.peek { try table.setAttribute(RecordingAttribute.peek, .double(peek)) }
        if let pop = truth.pop { try table.setAttribute(RecordingAttribute.pop, .double(pop)) }
        let rows = zip(truth.labels, matched).map { label, contact in
            var row = LabelRow()
            row.contact = contact
            row.slot = label.slot
            row.trackingID = label.trackingID
            row.tNs = label.tNs - t0Ns
            row.pressClass = label.label.rawValue
            row.kind = label.kind ?? ""
            row.intendedPeak = label.intendedPeak ?? .nan
            return row
        }
        try table.write(rows, L.fields)
    }
}

extension TraceRecording {
    /// The `labels` table, or an empty `GroundTruth` when there is none.
    /// Label times come back absolute, like `loadRecording()`'s events.
    public func groundTruth() throws -> GroundTruth {
        typealias L = TraceSchema.Labels
        guard has(.labels) else { return GroundTruth() }
        let table = try open(.labels)
        var truth = GroundTruth(peek: try threshold(table, RecordingAttribute.peek), pop: try threshold(table, RecordingAttribute.pop))
        // `kind` and `intended_peak`, which old files lack or may hold fewer of, read as unknown there.
        let labels = try TableRows(table, L.fields, blank: LabelRow())
        guard Set(labels.lengths).count <= 1 else {
            throw ForceTraceError(file: filePath, "recording '\(name)': the labels columns differ in length")
        }
        let rows = try labels.read(0..<(labels.lengths.first ?? 0))
        try TraceValidation.checkTimes(rows.lazy.map(\.tNs), table: TraceSchema.Table.labels.rawValue, firstRow: 0, file: filePath, recording: name)
        let classes = rows.map(\.pressClass)
        // The same check as contactLabels: a class outside the documented ones is damage, not a label.
        // Calibration classes other than the app's (light, palm, hover, ...) are no press labels: skipped.
        var parsed = LabelClasses()
        let kindsOfClass = classes.map { parsed.kind(of: $0) }
        if let bad = classes.indices.first(where: { kindsOfClass[$0].pressClass == nil && !kindsOfClass[$0].calibrationOnly }) {
            throw ForceTraceError(file: filePath, "recording '\(name)': labels/class has '\(classes[bad])'",
                                  hint: "use tap, peek-press or pop-press, or a calibration class (docs/FORMAT.md)")
        }
        truth.labels = rows.indices.filter { !kindsOfClass[$0].calibrationOnly }.map { index in
            let row = rows[index]
            // Canonical: old files may hold "deep" or "pop" (FORMAT.md, history); checked above.
            return ContactLabel(slot: row.slot, trackingID: row.trackingID, tNs: row.tNs + t0Ns, label: kindsOfClass[index].pressClass!,
                                kind: row.kind.isEmpty ? nil : row.kind, intendedPeak: row.intendedPeak.isNaN ? nil : row.intendedPeak)
        }
        return truth
    }

    /// A scripted threshold of the labels table (`peek`, `pop`): a finite float64 when present.
    private func threshold(_ table: Group, _ attribute: String) throws -> Double? {
        guard let value = try table.attribute(attribute) else { return nil }
        guard case .double(let number) = value, number.isFinite else {
            let what = if case .double(let number) = value { "\(number), not a finite number" } else { TraceValidation.kind(value) }
            throw TraceValidation.error([.init(table: "labels attribute \(attribute)", row: nil, message: "is \(what), expected float64")],
                                        file: filePath, recording: name)
        }
        return number
    }

    /// Ground-truth class per contact id (nil where unlabelled), from the
    /// labels table's `contact` and `class` columns.
    public func contactLabels(count: Int) throws -> [PressClass?] {
        var result = [PressClass?](repeating: nil, count: count)
        guard has(.labels) else { return result }
        let table = try open(.labels)
        let contacts = try table.read(TraceSchema.Labels.contact)
        let classes = try table.read(TraceSchema.Labels.pressClass)
        guard contacts.count == classes.count else {
            throw ForceTraceError(file: filePath, "recording '\(name)': labels/contact and labels/class differ in length")
        }
        var parsed = LabelClasses()
        for (row, (contact, label)) in zip(contacts, classes).enumerated() {
            guard contact >= -1 && Int(contact) < count else {
                throw TraceValidation.error([.init(table: "labels", row: row, message: "contact \(contact) is not a row of the \(count)-row contacts table (-1: none)")],
                                            file: filePath, recording: name)
            }
            if contact == -1 { continue }
            // Calibration classes other than the app's (light, palm, stroke-firm, ...) are no press class.
            let kind = parsed.kind(of: label)
            if kind.calibrationOnly { continue }
            guard let pressClass = kind.pressClass else {
                throw ForceTraceError(file: filePath, "recording '\(name)': labels/class has '\(label)'",
                                      hint: "use tap, peek-press or pop-press, or a calibration class (docs/FORMAT.md)")
            }
            result[Int(contact)] = pressClass
        }
        return result
    }
}

/// What a `labels/class` text is: its press class, or a calibration class
/// that is none. A table repeats a handful of texts, so each distinct one
/// is parsed once (`PressClass(label:)` lowercases).
struct LabelClasses {
    struct Kind {
        var pressClass: PressClass?
        /// A calibration class other than the app's (light, palm, hover, ...).
        var calibrationOnly: Bool
    }

    private var seen: [(String, Kind)] = []

    mutating func kind(of label: String) -> Kind {
        if let known = seen.first(where: { $0.0 == label }) { return known.1 }
        let kind = Kind(pressClass: PressClass(label: label),
                        calibrationOnly: TrialClass(rawValue: label).map { $0.pressClass == nil } ?? false)
        if seen.count < 16 { seen.append((label, kind)) }
        return kind
    }
}
