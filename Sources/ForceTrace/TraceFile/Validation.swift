import Foundation
import HDF5

/// Checks on what a trace file holds, made on read, before the analysis and
/// the exporters rely on it: attribute types, column dtypes, declared sizes
/// against the file's size, slot counts, ids, ordering and time ranges. A
/// file written by forcetrace passes them all; a damaged or hand-made one
/// gets one line per violation naming the recording, the table and the row.
public enum TraceValidation {
    /// Times (`t0_ns`, every `*_ns` column) must lie within ±2⁶² ns (±146
    /// years): then every sum and difference of two of them fits an Int64,
    /// so no later arithmetic can overflow.
    public static let timeLimitNs: Int64 = (1 << 62) - 1

    /// Deflate compresses at most about 1032:1; more logical bytes than this
    /// many times the file's size cannot be real data.
    static let maximumCompressionRatio: UInt64 = 1100
    /// A written chunk costs at least its index entry (8 bytes of address
    /// alone) in the file.
    static let minimumChunkBytes: UInt64 = 8
    /// A chunk is inflated whole for a read of any part of it, so its size
    /// bounds the work of each read. forcetrace's own columns take at most
    /// 512 KiB a chunk (long label strings get fewer rows a chunk); h5py's
    /// own choice stays under 1 MiB.
    static let maximumChunkBytes = UInt64(Group.maximumChunkBytes)

    /// Violations listed before "and N more".
    static let shownViolations = 10

    /// One violation: where, and what is wrong.
    struct Violation {
        var table: String
        var row: Int?
        var message: String
        var line: String { "\(table)" + (row.map { " row \($0)" } ?? "") + ": " + message }
    }

    static func error(_ violations: [Violation], file: String, recording: String) -> ForceTraceError {
        var lines = violations.prefix(shownViolations).map(\.line)
        if violations.count > shownViolations { lines.append("and \(violations.count - shownViolations) more") }
        let message = violations.count == 1
            ? "recording '\(recording)': \(lines[0])"
            : "recording '\(recording)' has \(violations.count) problems:\n  " + lines.joined(separator: "\n  ")
        return ForceTraceError(file: file, message, hint: "the file is damaged or was not written by forcetrace; re-import the recording from its source")
    }

    /// An integer attribute, which must be an integer when present.
    static func integerAttribute(_ group: Group, _ name: String, file: String, recording: String) throws -> Int64? {
        guard let value = try group.attribute(name) else { return nil }
        guard case .int(let number) = value else {
            throw error([Violation(table: "attribute \(name)", row: nil, message: "is \(kind(value)), expected int64")],
                        file: file, recording: recording)
        }
        return number
    }

    static func kind(_ value: AttributeValue) -> String {
        switch value {
        case .string(let text): "the string \"\(text.prefix(40))\""
        case .strings: "a string array"
        case .int: "an integer"
        case .ints: "an integer array"
        case .double(let number): "the float \(number)"
        case .doubles: "a float array"
        }
    }

    /// Refuses a file that holds anything docs/FORMAT.md does not define
    /// ("Objects"): links other than hard links (an external link would make
    /// a read open another file, or block on a FIFO), and objects other than
    /// groups and datasets. Nothing is followed to find them.
    /// Also an object reached by a second hard link (its rows would be read
    /// twice) and groups nested beyond `Group.maximumWalkDepth`: forcetrace
    /// writes neither.
    public static func refuseForeignObjects(_ root: Group, file: String) throws {
        guard let first = try root.foreignObjects().first else { return }
        switch first.kind {
        case .secondLink:
            throw ForceTraceError(file: file, "\(first); forcetrace writes each object once",
                                  hint: "delete the second link (h5py: del f[\"\(first.path)\"]), or re-import the recording from its source")
        case .tooDeep:
            throw ForceTraceError(file: file, "\(first); forcetrace's own files nest at most 5",
                                  hint: "the file was not written by forcetrace; copy the recordings you need into a new file")
        default:
            throw ForceTraceError(file: file, "\(first); forcetrace reads only hard links to groups and datasets in the file itself, and follows no link out of it")
        }
    }

    /// Declared sizes and element types of every table, checked before any
    /// table is read: a damaged extent would make a read allocate or walk
    /// chunks without bound.
    /// A column the schema does not know (a newer forcetrace's, or anyone's)
    /// is bounded too: by the same sizes, and by its table's rows, since a
    /// table's columns are of equal length (an unwritten 2^27-row column in
    /// a 100 KB file made `import` write 1.5 GB).
    /// - Returns: the rows each schema column present declares, by table (for `checkLengths`).
    static func checkExtents(_ group: Group, fileSize: UInt64, file: String, recording: String) throws -> [TraceSchema.Table: [String: Int]] {
        var violations: [Violation] = []
        var declared: [TraceSchema.Table: [String: Int]] = [:]
        for table in TraceSchema.Table.allCases where group.contains(table.rawValue) {
            let group = try group.openGroup(table.rawValue)
            var tableRows = 0
            for column in table.columns {
                guard group.contains(column.name) else {
                    if column.isRequired {
                        violations.append(Violation(table: table.rawValue, row: nil, message: "missing column \(column.name)"))
                    }
                    continue
                }
                let storage = try group.storage(of: column.name)
                declared[table, default: [:]][column.name] = storage.rows
                tableRows = max(tableRows, storage.rows)
                if let message = extentProblem(storage, fileSize: fileSize) ?? elementProblem(storage, expected: column.element) {
                    violations.append(Violation(table: "\(table.rawValue)/\(column.name)", row: nil, message: message))
                }
            }
            let known = Set(table.columns.map(\.name) + [table.dimension])
            for name in try group.memberNames() where !known.contains(name) && group.isDataset(name) {
                let storage = try group.storage(of: name)
                if let message = extentProblem(storage, fileSize: fileSize) {
                    violations.append(Violation(table: "\(table.rawValue)/\(name)", row: nil, message: message))
                } else if storage.rows > tableRows {
                    violations.append(Violation(table: "\(table.rawValue)/\(name)", row: nil,
                                                message: "declares \(storage.rows) rows, more than the table's \(tableRows) (a table's columns are of equal length)"))
                }
            }
        }
        if !violations.isEmpty { throw error(violations, file: file, recording: recording) }
        return declared
    }

    /// What is wrong with a column's shape or element type against the
    /// schema's, or nil: it must be one-dimensional and hold exactly the
    /// schema's type (class, width and sign; any byte order).
    static func elementProblem(_ storage: DatasetStorage, expected: ColumnElement) -> String? {
        let format = "trace format \(TraceSchema.formatVersion)"
        guard storage.rank == 1 else {
            let shape = storage.rank == 0 ? "a scalar" : "\(storage.rank)-dimensional"
            return "is \(shape), not a column; \(format) stores one-dimensional columns"
        }
        switch expected {
        case .scalar(let kind) where storage.element.matches(kind): return nil
        case .string where storage.element == .string: return nil
        default: return "holds \(valuesName(storage.element)); \(format) stores \(valuesName(expected.stored)) here"
        }
    }

    /// "int32 values", "strings", "enum values".
    static func valuesName(_ element: StoredElement) -> String {
        element == .string ? "strings" : "\(element) values"
    }

    /// What is wrong with a dataset's declared size in a file of
    /// `fileSize` bytes, or nil: more bytes than the file could hold even
    /// compressed, more chunks than it could index, or chunks over
    /// `maximumChunkBytes`.
    static func extentProblem(_ storage: DatasetStorage, fileSize: UInt64) -> String? {
        let limit = fileSize.multipliedReportingOverflow(by: maximumCompressionRatio)
        let byteLimit = (limit.overflow ? .max : limit.partialValue) &+ (16 << 20)
        if storage.logicalBytes > byteLimit {
            return "declares \(storage.rows) rows (\(storage.logicalBytes) bytes), more than a \(fileSize)-byte file can hold even compressed"
        }
        if storage.declaredChunks > fileSize / minimumChunkBytes + 16 {
            return "declares \(storage.rows) rows in \(storage.declaredChunks) chunks of \(storage.chunkRows ?? 0), more chunks than a \(fileSize)-byte file can index"
        }
        if let chunkBytes = storage.chunkBytes, chunkBytes > maximumChunkBytes {
            return "has chunks of \(storage.chunkRows ?? 0) rows (\(chunkBytes) bytes), more than the \(maximumChunkBytes) bytes (16 MiB) a chunk may hold"
        }
        return nil
    }

    /// The size of the file at `path` for `extentProblem`, 0 when it cannot be told.
    static func fileSize(_ path: String) -> UInt64 {
        (try? Syscall.status(path)).map { UInt64($0.st_size) } ?? 0
    }

    /// Metadata checks, made when a recording is opened: cheap, no table is read.
    static func checkStructure(_ recording: TraceRecording) throws {
        var violations: [Violation] = []
        if recording.t0Ns.magnitude > timeLimitNs.magnitude {
            violations.append(Violation(table: "attribute t0_ns", row: nil, message: "\(recording.t0Ns) is beyond ±2^62 ns (146 years)"))
        }
        // HDF5 1.10 reads a variable-length string whose global heap object
        // is damaged as "": these are never empty when written.
        typealias A = RecordingAttribute
        for name in [A.source, A.clock, A.contactProtocol, A.importStatus, A.stopReason] {
            if case .string(let text)? = try recording.group.attribute(name), text.isEmpty {
                violations.append(Violation(table: "attribute \(name)", row: nil, message: "is empty (its string in the file is damaged)"))
            }
        }
        // Not read by forcetrace (it takes both from the axes), but documented as int64: other readers use them.
        if let slots = try integerAttribute(recording.group, A.slots, file: recording.filePath, recording: recording.name),
           !(0...Int64(DeviceDescription.maximumSlots)).contains(slots) {
            violations.append(Violation(table: "attribute \(A.slots)", row: nil, message: "\(slots) is not a slot count; expected 0 to \(DeviceDescription.maximumSlots)"))
        }
        if let code = try integerAttribute(recording.group, A.pressureAxis, file: recording.filePath, recording: recording.name),
           !(-1...Int64(AbsoluteAxis.max)).contains(code) {
            violations.append(Violation(table: "attribute \(A.pressureAxis)", row: nil,
                                        message: "\(code) is not an axis code; expected -1 (none) or 0 to \(AbsoluteAxis.max)"))
        }
        do {
            try recording.device.validate(file: recording.filePath)
        } catch let error as ForceTraceError {
            violations.append(Violation(table: "axes", row: nil, message: error.message))
        }
        if !violations.isEmpty { throw error(violations, file: recording.filePath, recording: recording.name) }
    }

    /// A finished recording's tables have columns of equal length (optional
    /// ones, which older files hold fewer of, at most as long): checked on
    /// open from the declared sizes, so that every reader sees a table whole
    /// or refuses it. Axes and capabilities are checked as they are read.
    /// - Parameter declared: the rows of each column present, as `checkExtents` returned them.
    static func checkLengths(_ declared: [TraceSchema.Table: [String: Int]], file: String, recording: String) throws {
        for table in TraceSchema.Table.allCases where table != .axes && table != .capabilities {
            guard let columns = declared[table] else { continue }
            var required: Set<Int> = [], optional: [Int] = []
            for column in table.columns {
                guard let rows = columns[column.name] else { continue }
                if column.isRequired { required.insert(rows) } else { optional.append(rows) }
            }
            if required.count > 1 || optional.contains(where: { $0 > (required.first ?? 0) }) {
                throw ForceTraceError(file: file, "recording '\(recording)': the \(table.rawValue) columns differ in length",
                                      hint: "the file is damaged or was not written by forcetrace; re-import the recording from its source")
            }
        }
    }

    /// A file whose /recordings group is empty: nothing to analyse or read.
    static func noRecordings(_ file: String) -> ForceTraceError {
        ForceTraceError(file: file, "holds no recordings (its /\(TraceSchema.recordingsGroup) group is empty), so there is nothing to read",
                        hint: "import or record into it, or leave it out")
    }

    /// Checks the contacts table against the rule the analysis relies on:
    /// ids 0, 1, 2, … in row order, touch-downs in order, t_up ≥ t_down
    /// (or −1, still down), times within range, sample rows within `samples`.
    static func checkContacts(_ contacts: [Contact], sampleRows: Int, file: String, recording: String) throws {
        var violations: [Violation] = []
        var previousDown = Int64.min
        for (row, contact) in contacts.enumerated() {
            func add(_ message: String) { violations.append(Violation(table: "contacts", row: row, message: message)) }
            if contact.id != Int32(truncatingIfNeeded: row) { add("id is \(contact.id); ids must be 0, 1, 2, … in row order") }
            if contact.tDownNs.magnitude > timeLimitNs.magnitude { add("t_down_ns \(contact.tDownNs) is beyond ±2^62 ns") }
            if contact.tUpNs != -1 && contact.tUpNs.magnitude > timeLimitNs.magnitude { add("t_up_ns \(contact.tUpNs) is beyond ±2^62 ns") }
            if contact.tUpNs != -1 && contact.tUpNs < contact.tDownNs {
                add("t_up_ns \(contact.tUpNs) is before t_down_ns \(contact.tDownNs)")
            }
            if contact.tDownNs < previousDown { add("t_down_ns \(contact.tDownNs) is before the previous contact's \(previousDown); contacts are in touch-down order") }
            previousDown = max(previousDown, contact.tDownNs)
            if contact.firstSample < 0 || contact.lastSample < contact.firstSample || contact.lastSample >= Int64(sampleRows) {
                add("samples \(contact.firstSample)...\(contact.lastSample) are not rows of the \(sampleRows)-row samples table")
            }
            if violations.count > 1000 { break }
        }
        if !violations.isEmpty { throw error(violations, file: file, recording: recording) }
    }

    /// Checks that a block of a `t_ns` column (rows from `firstRow`) does not
    /// step back, from `previous` (the last time before it); returns the block's last.
    static func checkOrder<Times: RandomAccessCollection>(_ times: Times, after previous: Int64, table: String, firstRow: Int, file: String,
                                                          recording: String) throws -> Int64 where Times.Element == Int64, Times.Index == Int {
        var last = previous
        for (offset, time) in times.enumerated() {
            guard time >= last else {
                throw error([Violation(table: table, row: firstRow + offset,
                                       message: "t_ns \(time) is before the previous row's \(last); rows are in time order")],
                            file: file, recording: recording)
            }
            last = time
        }
        return last
    }

    /// Checks a block of a `t_ns` column (rows from `firstRow`) for times
    /// beyond ±2^62 ns; a pass over the block, no allocation.
    public static func checkTimes<Times: RandomAccessCollection>(_ times: Times, table: String, firstRow: Int, file: String,
                                                                 recording: String) throws where Times.Element == Int64, Times.Index == Int {
        // t in ±L exactly when t + L (wrapping) is at most 2L unsigned: one
        // compare per time, which vectorizes (AVX2 has no 64-bit min/max).
        var outside: UInt64 = 0
        for time in times { outside |= UInt64(bitPattern: time &+ timeLimitNs) > 2 * UInt64(timeLimitNs) ? 1 : 0 }
        guard outside != 0 else { return }
        let index = times.firstIndex { $0.magnitude > timeLimitNs.magnitude }!
        throw error([Violation(table: table, row: firstRow + index - times.startIndex, message: "t_ns \(times[index]) is beyond ±2^62 ns (146 years)")],
                    file: file, recording: recording)
    }
}
