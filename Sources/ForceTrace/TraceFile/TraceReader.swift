import Foundation
import HDF5

/// Opens a trace file and checks that it is one this forcetrace can read.
public final class TraceReader {
    public let path: String
    let file: File
    public let formatVersion: Int64
    public let createdUTC: String?
    public let toolVersion: String?
    public let recordingNames: [String]
    /// The file is still marked open by a writer (a recorder that is running,
    /// or was killed), so it was read in SWMR mode up to the last flush.
    public let markedOpenByWriter: Bool
    let recordings: Group

    public init(path: String, swmr: Bool = false) throws {
        self.path = path
        // Before HDF5 opens it: a FIFO would block the open, a device stream.
        try FileKind.requireRegular(path, "a trace file")
        let isHDF5: Bool
        do { isHDF5 = try File.isHDF5(path) } catch let error as HDF5Error { throw ForceTraceError(error) }
        guard isHDF5 else {
            let size = TraceValidation.fileSize(path)
            throw ForceTraceError(file: path, size == 0 ? "is empty, not a forcetrace HDF5 file" : "is not an HDF5 file",
                                 hint: "recordings (evemu, libinput YAML, raw) go through 'forcetrace import' first")
        }
        var opened: File
        var markedOpen = false
        do {
            opened = try File.open(path, mode: swmr ? .swmrRead : .readOnly)
        } catch let error as HDF5Error {
            let size = TraceValidation.fileSize(path)
            // No superblock fits in a few hundred bytes: a file that small was cut inside it.
            // A live or killed recorder's file may be shorter for a moment than its
            // superblock's end: read it as a SWMR reader below, which HDF5 allows.
            let writerMarked = size >= 256 && File.superblockMarksWriter(path)
            if (error.kind == .truncated && !writerMarked) || size < 256 {
                throw ForceTraceError(file: path, "truncated file: it ends at byte \(size), before the end its HDF5 superblock records (\(error.innermostCause))",
                                     hint: "the file was cut short (an interrupted copy or download, or a full disk); copy it again from its source")
            }
            if [.noSpace, .permissionDenied, .notFound].contains(error.kind) { throw ForceTraceError(error) }
            // A recorder's file is marked open for writing until it closes:
            // while it records, or for good after a crash. SWMR readers may
            // still read it, up to the writer's last flush.
            if !swmr, let reopened = try? File.open(path, mode: .swmrRead) {
                opened = reopened
                markedOpen = true
            } else if error.kind == .locked {
                throw ForceTraceError(error)
            } else {
                throw ForceTraceError(file: path, "cannot be opened as HDF5: it is damaged, or still open by a crashed writer (\(error.innermostCause))",
                                     hint: "if a recorder was killed, run 'h5clear -s --increment=0 \(path)' and try again")
            }
        }
        file = opened
        markedOpenByWriter = markedOpen
        let root = try file.root
        let format = try? root.attribute(FileAttribute.format)
        if case .string(ReportFile.formatName)?? = format {
            throw ForceTraceError(file: path, "is a report written by 'report --save', not a trace file",
                                  hint: "merge saved reports with 'forcetrace report --merge \(path) ...'")
        }
        guard case .string(TraceSchema.formatName)?? = format else {
            throw ForceTraceError(file: path, "is an HDF5 file but not a forcetrace file (no format = \"forcetrace\" attribute)")
        }
        guard let stored = (try? root.attribute(FileAttribute.formatVersion)) ?? nil else {
            throw ForceTraceError(file: path, "has no format_version attribute")
        }
        guard case .int(let version) = stored else {
            throw ForceTraceError(file: path, "format_version is \(TraceValidation.kind(stored)), expected int64: the file is damaged or was not written by forcetrace")
        }
        // Versions count from 1: zero or below is no version any forcetrace wrote.
        guard version >= 1 else {
            throw ForceTraceError(file: path, "format_version \(version) is not a forcetrace format version (versions count from 1; this forcetrace reads up to \(TraceSchema.formatVersion)): the file is damaged or was not written by forcetrace")
        }
        guard version <= TraceSchema.formatVersion else {
            throw ForceTraceError(file: path, "format_version \(version) is newer than this forcetrace (reads \(TraceSchema.formatVersion))",
                                 hint: "upgrade forcetrace")
        }
        formatVersion = version
        createdUTC = (try? root.attribute(FileAttribute.createdUTC))??.stringValue
        toolVersion = (try? root.attribute(FileAttribute.toolVersion))??.stringValue
        try TraceValidation.refuseForeignObjects(root, file: path)
        guard root.contains(TraceSchema.recordingsGroup) && !root.isDataset(TraceSchema.recordingsGroup) else {
            throw ForceTraceError(file: path, "has no /recordings group")
        }
        recordings = try root.openGroup(TraceSchema.recordingsGroup)
        recordingNames = try recordings.memberNames()
    }

    public func recording(_ name: String) throws -> TraceRecording {
        guard recordingNames.contains(name) else {
            throw ForceTraceError(file: path, "has no recording named '\(name)'",
                                 hint: "recordings in it: \(recordingNames.joined(separator: ", "))")
        }
        return try TraceRecording(group: recordings.openGroup(name), name: name, filePath: path)
    }

    public func fileSize() throws -> UInt64 { try file.fileSize() }
    public func close() throws { try file.close() }
}

/// One recording in a trace file, read by range through the schema's typed
/// columns (`TraceSchema`): no HDF5 group or column name reaches callers.
public final class TraceRecording {
    public let name: String
    public let filePath: String
    let group: Group
    public let device: DeviceDescription
    public let source: RecordingSource
    public let clock: RecordingClock
    public let t0Ns: Int64
    /// Absent while a writer has it (or crashed), or for a value this forcetrace does not know.
    public let importStatus: ImportStatus?
    /// No `import_status`: a recorder is still writing it, or was killed
    /// (docs/FORMAT.md, "Crash recovery"). Its `contacts` table then lacks
    /// the contacts still down at its last flush.
    public var isUnfinished: Bool { importStatus == nil }
    /// Why a `partial` recording is partial.
    public let importError: String?
    /// Live recordings, once closed cleanly.
    public let stopReason: StopReason?
    /// `record --label`'s free text.
    public let label: String?

    init(group: Group, name: String, filePath: String) throws {
        self.group = group
        self.name = name
        self.filePath = filePath
        func fail(_ message: String) -> ForceTraceError {
            ForceTraceError(file: filePath, "recording '\(name)': \(message)")
        }
        for table in TraceSchema.Table.allCases where table.isRequired && !group.contains(table.rawValue) {
            throw fail("missing the \(table.rawValue) table")
        }
        let declared = try TraceValidation.checkExtents(group, fileSize: TraceValidation.fileSize(filePath), file: filePath, recording: name)
        typealias A = RecordingAttribute
        func string(_ name: String) throws -> String? { try group.attribute(name).flatMap(\.stringValue) }
        source = RecordingSource(try string(A.source) ?? "")
        clock = RecordingClock(rawValue: try string(A.clock) ?? "") ?? .relative
        t0Ns = try TraceValidation.integerAttribute(group, A.t0Ns, file: filePath, recording: name) ?? 0
        importStatus = try string(A.importStatus).flatMap(ImportStatus.init(rawValue:))
        importError = try string(A.importError)
        stopReason = try string(A.stopReason).flatMap(StopReason.init(rawValue:))
        label = try string(A.label)
        var device = DeviceDescription(name: try string(A.deviceName) ?? "")
        let id = try group.attribute(A.deviceID)?.intsValue ?? []
        if id.count == 4 {
            device.bus = UInt16(truncatingIfNeeded: id[0]); device.vendor = UInt16(truncatingIfNeeded: id[1])
            device.product = UInt16(truncatingIfNeeded: id[2]); device.version = UInt16(truncatingIfNeeded: id[3])
        }
        device.properties = (try group.attribute(A.properties)?.intsValue ?? []).map { UInt16(truncatingIfNeeded: $0) }
        func pairs(_ attribute: String) throws -> [(UInt16, Int32)] {
            let flat = try group.attribute(attribute)?.intsValue ?? []
            return stride(from: 0, to: flat.count - 1, by: 2).map { (UInt16(truncatingIfNeeded: flat[$0]), Int32(truncatingIfNeeded: flat[$0 + 1])) }
        }
        device.ledStates = try pairs(A.ledState)
        device.switchStates = try pairs(A.switchState)
        device.system = SystemInfo(kernel: try string(A.kernel), dmi: try string(A.dmi))
        typealias S = TraceSchema
        let capabilities = try group.openGroup(S.Table.capabilities.rawValue)
        let types = try capabilities.read(S.Capabilities.type)
        let codes = try capabilities.read(S.Capabilities.code)
        guard types.count == codes.count else { throw fail("capabilities/type and capabilities/code differ in length") }
        for (type, code) in zip(types, codes) { device.codes[type, default: []].append(code) }
        let axes = try group.openGroup(S.Table.axes.rawValue)
        let axisCodes = try axes.read(S.Axes.code)
        let minimum = try axes.read(S.Axes.min)
        let maximum = try axes.read(S.Axes.max)
        let fuzz = try axes.read(S.Axes.fuzz)
        let flat = try axes.read(S.Axes.flat)
        let resolution = try axes.read(S.Axes.resolution)
        let value = axes.contains(S.Axes.value.schema) ? try axes.read(S.Axes.value) : [Int32](repeating: 0, count: axisCodes.count)
        guard [minimum.count, maximum.count, fuzz.count, flat.count, resolution.count, value.count].allSatisfy({ $0 == axisCodes.count }) else {
            throw fail("the axes table's columns differ in length")
        }
        device.axes = axisCodes.indices.map {
            AxisInfo(code: axisCodes[$0], minimum: minimum[$0], maximum: maximum[$0], fuzz: fuzz[$0], flat: flat[$0],
                     resolution: resolution[$0], value: value[$0])
        }
        self.device = device
        try TraceValidation.checkStructure(self)
        if !isUnfinished { try TraceValidation.checkLengths(declared, file: filePath, recording: name) }
        // The last event's time is the recording's duration, which every command
        // may use: read and checked once, here (a row read inflates its whole chunk).
        lastEventTime = try readLastEventTime()
    }

    /// Whether the recording has `table` (only `labels` may be missing).
    public func has(_ table: TraceSchema.Table) -> Bool { group.contains(table.rawValue) }

    func open(_ table: TraceSchema.Table) throws -> Group { try group.openGroup(table.rawValue) }

    func open<Element>(_ column: TypedColumn<Element>) throws -> Column<Element> {
        try open(column.schema.table).open(column)
    }

    /// Reads a whole column.
    public func read<Element>(_ column: TypedColumn<Element>) throws -> [Element] {
        try open(column.schema.table).read(column)
    }

    /// Reads a whole string column.
    public func read(_ column: StringColumn) throws -> [String] {
        try open(column.schema.table).read(column)
    }

    /// Reads any numeric column, converting to `Element` (for code that walks
    /// `TraceSchema.Table.columns`).
    public func readNumbers<Element: HDF5Scalar>(_ column: ColumnSchema, as type: Element.Type = Element.self) throws -> [Element] {
        guard case .scalar = column.element else {
            throw fail("\(column.table.rawValue)/\(column.name) holds strings, not numbers")
        }
        return try open(column.table).readArray(column.name)
    }

    private func fail(_ message: String) -> ForceTraceError {
        ForceTraceError(file: filePath, "recording '\(name)': \(message)")
    }

    /// Rows in `table` (0 for a missing `labels`): those every one of its
    /// required columns holds. A killed writer may have flushed some columns
    /// further than others, and what all of them hold is what it kept; a
    /// finished recording's were checked equal when it opened. Optional
    /// columns (`ColumnSchema.isRequired`) may hold fewer rows and count not.
    public func rowCount(_ table: TraceSchema.Table) throws -> Int {
        guard has(table) else { return 0 }
        let group = try open(table)
        var rows = try group.storage(of: table.columns[0].name).rows
        for column in table.columns.dropFirst() where try column.isRequired && group.linkExists(column.name) {
            rows = min(rows, try group.storage(of: column.name).rows)
        }
        return rows
    }

    /// `t_ns` of the last event kept (`rowCount`) when the recording was
    /// opened: the recording's duration.
    public func lastEventTimeNs() -> Int64 { lastEventTime }
    private var lastEventTime: Int64 = 0

    private func readLastEventTime() throws -> Int64 {
        let rows = try rowCount(.events)
        guard rows > 0 else { return 0 }
        // Its chunk is read once: inflated here, not through HDF5's zlib and cache.
        let last = try open(TraceSchema.Events.tNs).read((rows - 1)..<rows, cached: false)
        try TraceValidation.checkTimes(last, table: "events", firstRow: rows - 1, file: filePath, recording: name)
        return last[0]
    }

    /// Streams the events table in blocks of `blockRows`; times are `t_ns`
    /// (relative to the first event).
    public func forEachEventBlock(blockRows: Int = 65536, _ body: ([InputEvent]) throws -> Void) throws {
        let events = try TableRows(try open(.events), TraceSchema.Events.fields, blank: InputEvent(timeNs: 0, type: 0, code: 0, value: 0))
        // A writer that was killed may have flushed some columns further than
        // others: what all of them hold is what it kept.
        guard isUnfinished || Set(events.lengths).count <= 1 else { throw fail("the events columns differ in length") }
        let count = events.lengths.min() ?? 0
        var start = 0
        while start < count {
            let range = start..<min(count, start + blockRows)
            let block = try events.read(range)
            try TraceValidation.checkTimes(block.lazy.map(\.timeNs), table: "events", firstRow: range.lowerBound, file: filePath, recording: name)
            try body(block)
            start = range.upperBound
        }
    }

    /// All events with absolute times, as a format writer wants them.
    public func loadRecording() throws -> Recording {
        var events: [InputEvent] = []
        try forEachEventBlock { block in
            events.append(contentsOf: block.lazy.map { InputEvent(timeNs: $0.timeNs + self.t0Ns, type: $0.type, code: $0.code, value: $0.value) })
        }
        var recording = Recording(device: device, events: events, clock: clock, source: source, name: name)
        recording.groundTruth = try groundTruth()
        return recording
    }

    /// Streams the samples table in blocks of about `blockRows` (whole
    /// chunks), in row order, handing out the reader's own buffers: a
    /// `SampleBuffers` is valid only until `body` returns. `columns` are the
    /// ones read (all of the schema's by default, less optional ones the
    /// file lacks), found in it by name.
    public func forEachSampleBuffer(columns wanted: [TableField<Sample>] = TraceSchema.Samples.fields, blockRows: Int = 65536,
                                    _ body: (SampleBuffers) throws -> Void) throws {
        let samples = try open(.samples)
        let columns = wanted.filter { $0.isRequired || samples.contains($0.schema) }
        let opened = try columns.map { try $0.open(samples) }
        let rows = opened.first?.rows ?? 0
        guard opened.allSatisfy({ $0.rows == rows }) else { throw fail("the samples columns differ in length") }
        // Read and inflated on worker threads while `body` works (HDF5/ColumnBlocks.swift).
        let blocks = try ColumnBlocks(opened.map(\.column), rowCount: rows, preferredRows: max(1, blockRows))
        defer { blocks.finish() }
        let schemas = columns.map(\.schema)
        while let block = try blocks.next() {
            try body(SampleBuffers(rows: block.rows, block: block, columns: schemas))
        }
    }

    public func contacts() throws -> [Contact] {
        let contacts = try TableRows(try open(.contacts), TraceSchema.Contacts.fields,
                                     blank: Contact(id: 0, slot: 0, trackingID: 0, tool: 0, tDownNs: 0, tUpNs: 0, firstSample: 0,
                                                    lastSample: 0, sampleCount: 0))
        guard Set(contacts.lengths).count <= 1 else { throw fail("the contacts columns differ in length") }
        let result = try contacts.read(0..<(contacts.lengths.first ?? 0))
        try TraceValidation.checkContacts(result, sampleRows: try rowCount(.samples), file: filePath, recording: name)
        return result
    }

    /// The markers of a kind this forcetrace knows.
    public func markers() throws -> [Marker] {
        let table = try open(.markers)
        let markers = try TableRows(table, TraceSchema.Markers.fields, blank: Marker(tNs: 0, kind: .synDropped, eventIndex: 0))
        guard Set(markers.lengths).count <= 1 else { throw fail("the markers columns differ in length") }
        let rows = try markers.read(0..<(markers.lengths.first ?? 0))
        // An unknown kind leaves the row's blank one: its rows are dropped by the stored codes.
        let kinds = try table.read(TraceSchema.Markers.kind)
        return rows.indices.filter { MarkerKind(rawValue: kinds[$0]) != nil }.map { rows[$0] }
    }

    /// SYN_REPORT events, counted by streaming the type and code columns.
    public func frameCount() throws -> Int64 {
        let type = try open(TraceSchema.Events.type)
        let code = try open(TraceSchema.Events.code)
        // The frames of the events kept: a killed writer's columns may differ.
        let rows = try rowCount(.events)
        var frames: Int64 = 0
        var start = 0
        while start < rows {
            let range = start..<min(rows, start + 65536)
            let types = try type.read(range), codes = try code.read(range)
            for index in 0..<range.count where types[index] == EventType.syn && codes[index] == Synchronization.report { frames += 1 }
            start = range.upperBound
        }
        return frames
    }

    /// Uncompressed and stored bytes over every table.
    public func storage() throws -> (logical: UInt64, stored: UInt64) {
        var logical: UInt64 = 0, stored: UInt64 = 0
        for table in [TraceSchema.Table.events, .samples, .contacts, .markers] {
            let group = try open(table)
            // A column that cannot be looked up is damage, not an absent column.
            for column in table.columns where try group.linkExists(column.name) {
                let storage = try group.storage(of: column.name)
                logical += storage.logicalBytes
                stored += storage.storedBytes
            }
        }
        return (logical, stored)
    }
}
