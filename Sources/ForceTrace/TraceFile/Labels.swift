import HDF5

/// The optional `labels` table of a recording (an addition to format v1,
/// docs/FORMAT.md): ground truth per contact.
public enum LabelTable {
    public static let group = "labels"
    public static let columns = ["contact", "slot", "tracking_id", "t_ns", "class", "kind", "intended_peak"]
    /// Largest gap between a label's time and a contact's touch-down that still matches.
    public static let matchWindowNs: Int64 = 100_000_000
}

extension RecordingWriter {
    /// Writes `truth` as the `labels` table, matching each label to the
    /// contact with its slot and tracking id whose touch-down is nearest
    /// (within 100 ms); `contact` is −1 where none matches. Call after `finish()`.
    public func writeGroundTruth(_ truth: GroundTruth) throws {
        guard !truth.isEmpty else { return }
        let contacts = try group.openGroup(TraceSchema.Table.contacts.rawValue)
        let ids = try contacts.readArray("id", of: Int32.self)
        let slots = try contacts.readArray("slot", of: Int16.self)
        let tracking = try contacts.readArray("tracking_id", of: Int32.self)
        let down = try contacts.readArray("t_down_ns", of: Int64.self)
        var matched: [Int32] = []
        for label in truth.labels {
            let relative = label.tNs - t0Ns
            var best: (id: Int32, gap: Int64)?
            for row in ids.indices where tracking[row] == label.trackingID && slots[row] == label.slot {
                let gap = abs(down[row] - relative)
                if gap <= LabelTable.matchWindowNs && gap < (best?.gap ?? .max) { best = (ids[row], gap) }
            }
            matched.append(best?.id ?? -1)
        }
        let table = try group.createGroup(LabelTable.group)
        if let peek = truth.peek { try table.setAttribute("peek", .double(peek)) }
        if let pop = truth.pop { try table.setAttribute("pop", .double(pop)) }
        try table.writeArray("contact", matched)
        try table.writeArray("slot", truth.labels.map(\.slot))
        try table.writeArray("tracking_id", truth.labels.map(\.trackingID))
        try table.writeArray("t_ns", truth.labels.map { $0.tNs - t0Ns })
        try table.writeStrings("class", truth.labels.map(\.label))
        try table.writeStrings("kind", truth.labels.map { $0.kind ?? "" })
        try table.writeArray("intended_peak", truth.labels.map { $0.intendedPeak ?? .nan })
    }
}

extension TraceRecording {
    /// The `labels` table, or an empty `GroundTruth` when there is none.
    /// Label times come back absolute, like `loadRecording()`'s events.
    public func groundTruth() throws -> GroundTruth {
        guard group.contains(LabelTable.group) else { return GroundTruth() }
        let table = try group.openGroup(LabelTable.group)
        var truth = GroundTruth(peek: try table.attribute("peek")?.doubleValue, pop: try table.attribute("pop")?.doubleValue)
        let classes = try table.readStrings("class")
        let slots = try table.readArray("slot", of: Int16.self)
        let tracking = try table.readArray("tracking_id", of: Int32.self)
        let times = try table.readArray("t_ns", of: Int64.self)
        let kinds = table.contains("kind") ? try table.readStrings("kind") : []
        let peaks = table.contains("intended_peak") ? try table.readArray("intended_peak", of: Double.self) : []
        guard [slots.count, tracking.count, times.count].allSatisfy({ $0 == classes.count }) else {
            throw TraceFileError(file: filePath, "recording '\(name)': the labels columns differ in length")
        }
        truth.labels = classes.indices.map { row in
            ContactLabel(slot: slots[row], trackingID: tracking[row], tNs: times[row] + t0Ns, label: classes[row],
                         kind: row < kinds.count && !kinds[row].isEmpty ? kinds[row] : nil,
                         intendedPeak: row < peaks.count && !peaks[row].isNaN ? peaks[row] : nil)
        }
        return truth
    }

    /// Ground-truth class per contact id (nil where unlabelled), from the
    /// labels table's `contact` and `class` columns.
    public func contactLabels(count: Int) throws -> [PressClass?] {
        var result = [PressClass?](repeating: nil, count: count)
        guard group.contains(LabelTable.group) else { return result }
        let table = try group.openGroup(LabelTable.group)
        let contacts = try table.readArray("contact", of: Int32.self)
        let classes = try table.readStrings("class")
        guard contacts.count == classes.count else {
            throw TraceFileError(file: filePath, "recording '\(name)': labels/contact and labels/class differ in length")
        }
        for (contact, label) in zip(contacts, classes) where contact >= 0 && Int(contact) < count {
            guard let pressClass = PressClass(label: label) else {
                throw TraceFileError(file: filePath, "recording '\(name)': labels/class has '\(label)'",
                                     hint: "use tap, peek-press or pop-press")
            }
            result[Int(contact)] = pressClass
        }
        return result
    }
}
