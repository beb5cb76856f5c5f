import Foundation
import HDF5

/// Recordings copied from one trace file into another (`forcetrace import
/// TRACE.h5 ...`). Each recording is first read whole, block by block,
/// through the reader's validation, then its group is copied table by table,
/// column by column: every table, attribute, label column and unit comes across as it is,
/// including what this forcetrace does not know (docs/ARCHITECTURE.md,
/// "Combining trace files", says why not decode and re-encode).
public enum TraceCopy {
    /// Whether `path` names a regular file with HDF5's signature: a trace
    /// file to copy rather than a recording to decode. Pipes and standard
    /// input are never trace files (HDF5 needs to seek).
    public static func isTraceFile(_ path: String) -> Bool {
        guard path != "-" else { return false }
        guard let info = try? Syscall.status(path), (info.st_mode & S_IFMT) == S_IFREG else { return false }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: RecordingImporter.hdf5Signature.count)) ?? Data()
        if Array(head) == RecordingImporter.hdf5Signature { return true }
        // A file with a user block keeps the signature at 512, 1024, ... bytes.
        return head.count == RecordingImporter.hdf5Signature.count && ((try? File.isHDF5(path)) ?? false)
    }

    /// What one copied recording holds, counted while it was validated.
    public struct Copied {
        public var summary: RecordingSummary
        /// `FILE:/recordings/NAME` of the original.
        public var origin: String
        /// Things worth saying about the copy (partial, still being written).
        public var warnings: [String]
    }
}

extension TraceWriter {
    /// Copies every recording of `reader` into this file, each under the
    /// first free name from its own (or from `name`, for every one of them).
    /// Nothing is copied until all of the file's recordings passed validation.
    /// - Throws: `ForceTraceError` naming the file, the recording and the
    ///   table for a damaged input.
    public func copyRecordings(from reader: TraceReader, name: String? = nil) throws -> [TraceCopy.Copied] {
        // An input that adds nothing is a mistake the user should hear of, not an empty output.
        guard !reader.recordingNames.isEmpty else {
            throw ForceTraceError(file: reader.path, "holds no recordings (its /\(TraceSchema.recordingsGroup) group is empty), so there is nothing to import",
                                  hint: "check that this is the trace you meant; 'forcetrace info \(reader.path)' lists what a trace holds")
        }
        var checked: [(name: String, summary: RecordingSummary, warnings: [String])] = []
        for recordingName in reader.recordingNames {
            let recording = try reader.recording(recordingName)
            var warnings: [String] = []
            switch recording.importStatus {
            case .complete?: break
            case .partial?:
                warnings.append("copied as it is: import_status = \"partial\" (\(recording.importError ?? "no import_error"))")
            case nil:
                warnings.append("copied as it is: it has no import_status, so its writer was killed or is still writing")
            }
            checked.append((recordingName, try recording.validateWhole(), warnings))
        }
        var copied: [TraceCopy.Copied] = []
        for item in checked {
            let target = uniqueName(name ?? item.name)
            try Self.copyGroup(try reader.recordings.openGroup(item.name), to: try recordings.createGroup(target),
                               chunkRows: options.chunkRows, compression: options.compression)
            try Self.attachScales(in: try recordings.openGroup(target))
            var summary = item.summary
            summary.name = target
            copied.append(TraceCopy.Copied(summary: summary, origin: "\(reader.path):/\(TraceSchema.recordingsGroup)/\(item.name)",
                                           warnings: item.warnings))
        }
        return copied
    }
}

extension TraceWriter {
    /// HDF5's dimension-scale bookkeeping: object references, meaningless in
    /// another file, and read by HDF5 without a guard. Never copied; the
    /// copy gets its scales anew (`TraceSchema.attachDimensionScales`).
    static let scaleAttributes: Set<String> = ["DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME", "_Netcdf4Dimid"]

    /// Each table's dimension scale, attached to every column of it: the
    /// schema's, and the others of as many rows (a calibration's `peak`).
    static func attachScales(in group: Group) throws {
        try TraceSchema.attachDimensionScales(in: group)
        for table in TraceSchema.Table.allCases where group.contains(table.rawValue) {
            let tableGroup = try group.openGroup(table.rawValue)
            guard tableGroup.contains(table.dimension) else { continue }
            let rows = try tableGroup.storage(of: table.dimension).rows
            let schema = Set(table.columns.map(\.name))
            for member in try tableGroup.memberNames() where member != table.dimension && !schema.contains(member) {
                if try tableGroup.storage(of: member).rows == rows { try tableGroup.attachScale(table.dimension, to: [member]) }
            }
        }
    }

    /// Copies a recording group: every attribute listed, read and written
    /// one by one under the fault guard, each column's values with
    /// `Group.copyValues` (chunks as stored), never `H5Ocopy` of a known
    /// table: HDF5 before 1.14.4 crashes copying a variable-length string
    /// attribute kept in dense storage (HDF5 issue 2414), which is where a
    /// newest-format file (the recorder's, calibrate's) keeps a recording's
    /// dozen attributes; H5Ocopy converts every attribute, the scales'
    /// references included, outside the guard; and it copies a column's
    /// object header and chunk index as stored, which crashed inside HDF5
    /// on damaged ones. The dimension scales are not copied but made again.
    /// `chunkRows` and `compression` apply to columns that are re-encoded.
    static func copyGroup(_ source: Group, to destination: Group, chunkRows: Int, compression: Compression) throws {
        let plan = try CopyPlan(source)
        for (name, value) in plan.attributes { try destination.setAttribute(name, value) }
        for name in plan.unknownTables {
            // Something a newer forcetrace added: copied whole, as it is.
            try source.copy(name, to: destination)
        }
        for table in plan.tables {
            let from = try source.openGroup(table.name)
            let copy = try destination.createGroup(table.name)
            for (name, value) in table.attributes { try copy.setAttribute(name, value) }
            for column in table.columns {
                try from.copyValues(column.name, to: copy, chunkRows: chunkRows, compression: compression)
                if let described = column.schema { try copy.describe(described) }
                for (name, value) in column.attributes { try copy.setAttribute(name, value, onMember: column.name) }
            }
        }
    }

    /// Everything of a recording group that is copied by value, read before
    /// anything is written: a damaged attribute list then fails the copy
    /// while the output holds nothing of it (HDF5 crashed flushing an output
    /// that had its columns when the listing failed after them).
    struct CopyPlan {
        struct Column {
            var name: String
            /// The schema's description, which replaces the source's units and long_name.
            var schema: ColumnSchema?
            var attributes: [(String, AttributeValue)]
        }
        struct Table {
            var name: String
            var attributes: [(String, AttributeValue)]
            var columns: [Column]
        }
        var attributes: [(String, AttributeValue)]
        var unknownTables: [String] = []
        var tables: [Table] = []

        init(_ source: Group) throws {
            attributes = try Self.values(of: try source.attributeNames()) { try source.attribute($0) }
            for tableName in try source.memberNames() {
                guard let known = TraceSchema.Table(rawValue: tableName) else {
                    unknownTables.append(tableName)
                    continue
                }
                let table = try source.openGroup(tableName)
                let schema = known.columns + (known == .labels ? TraceSchema.Labels.calibrationOnly : [])
                var columns: [Column] = []
                for name in try table.memberNames() where name != known.dimension {
                    let described = schema.first(where: { $0.name == name })
                    // The schema's own columns get its units and long_name (files from before
                    // them gain them) rather than the source's; the rest is copied.
                    let skipped = described == nil ? scaleAttributes : scaleAttributes.union(["units", "long_name"])
                    let names = try table.attributeNames(ofMember: name).filter { !skipped.contains($0) }
                    columns.append(Column(name: name, schema: described,
                                          attributes: try Self.values(of: names) { try table.attribute($0, ofMember: name) }))
                }
                tables.append(Table(name: tableName, attributes: try Self.values(of: try table.attributeNames()) { try table.attribute($0) },
                                    columns: columns))
            }
        }

        private static func values(of names: [String], _ read: (String) throws -> AttributeValue?) throws -> [(String, AttributeValue)] {
            try names.compactMap { name in try read(name).map { (name, $0) } }
        }
    }
}

extension TraceRecording {
    /// Reads every table whole through the reader's checks (times, contacts,
    /// labels, every chunk inflated), in blocks for the long tables, and
    /// counts the rows. An HDF5 failure is reported with its table.
    func validateWhole() throws -> RecordingSummary {
        do {
            var events: Int64 = 0, frames: Int64 = 0
            // What report would refuse once decoded (an unfinished recording is decoded again).
            var order = FrameOrder()
            try forEachEventBlock { block in
                events += Int64(block.count)
                for event in block {
                    if let problem = order.check(event, t0Ns: 0) { throw ForceTraceError(file: filePath, "recording '\(name)': \(problem)") }
                    if event.isSynReport { frames += 1 }
                }
            }
            var samples: Int64 = 0
            try forEachSampleBuffer { block in
                try TraceValidation.checkTimes(block[TraceSchema.Samples.tNs], table: TraceSchema.Table.samples.rawValue, firstRow: block.rows.lowerBound,
                                               file: filePath, recording: name)
                samples += Int64(block.rows.count)
            }
            let contacts = try contacts()
            let markers = try markers()
            try TraceValidation.checkTimes(markers.map(\.tNs), table: TraceSchema.Table.markers.rawValue, firstRow: 0,
                                           file: filePath, recording: name)
            if has(.labels) {
                _ = try groundTruth()
                _ = try contactLabels(count: contacts.count)
                _ = try calibrationProtocol()
                try validateLabelColumns()
            }
            if has(.force) { _ = try force() }
            return RecordingSummary(name: name, events: events, frames: frames, contacts: Int64(contacts.count), samples: samples,
                                    markers: Int64(markers.count), durationNs: lastEventTimeNs(), anomalies: [], anomalyCount: 0)
        } catch let error as HDF5Error {
            throw ForceTraceError(file: filePath, "recording '\(name)': \(tablePath(of: error)): the data is damaged and HDF5 cannot read it (\(error.innermostCause))",
                                  hint: "copy the file again from its source, or re-import the recording from its original")
        }
    }

    /// The labels columns `groundTruth()` does not read: calibration's
    /// `peak` and `t_end_ns`, and `intended_peak` and `kind` of old files.
    private func validateLabelColumns() throws {
        typealias L = TraceSchema.Labels
        let table = try open(.labels)
        let rows = try rowCount(.labels)
        var lengths: [(String, Int)] = []
        if table.contains(L.peak.schema) { lengths.append((L.peak.name, try table.read(L.peak).count)) }
        if table.contains(L.tEndNs.schema) {
            let ends = try table.read(L.tEndNs)
            try TraceValidation.checkTimes(ends, table: "labels/\(L.tEndNs.name)", firstRow: 0, file: filePath, recording: name)
            lengths.append((L.tEndNs.name, ends.count))
        }
        if table.contains(L.kind.schema) { lengths.append((L.kind.name, try table.read(L.kind).count)) }
        if table.contains(L.intendedPeak.schema) { lengths.append((L.intendedPeak.name, try table.read(L.intendedPeak).count)) }
        if let (column, count) = lengths.first(where: { $0.1 != rows }) {
            throw ForceTraceError(file: filePath, "recording '\(name)': labels/\(column) has \(count) rows, the labels table \(rows)",
                                  hint: "the file is damaged or was not written by forcetrace; re-import the recording from its source")
        }
    }

    /// "samples/pressure" from an HDF5 error's context "FILE:/recordings/NAME/samples/pressure".
    private func tablePath(of error: HDF5Error) -> String {
        let prefix = "/\(TraceSchema.recordingsGroup)/\(name)/"
        guard let range = error.context.range(of: prefix) else { return "a table" }
        return String(error.context[range.upperBound...])
    }
}
