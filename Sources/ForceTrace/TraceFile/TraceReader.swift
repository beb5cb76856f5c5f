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
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw TraceFileError(file: path, isDirectory.boolValue ? "is a directory, not a trace file" : "no such file")
        }
        guard File.isHDF5(path) else {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            throw TraceFileError(file: path, size == 0 ? "is empty, not a forcetrace HDF5 file" : "is not an HDF5 file",
                                 hint: "recordings (evemu, libinput YAML, raw) go through 'forcetrace import' first")
        }
        var opened: File
        var markedOpen = false
        do {
            opened = try File.open(path, mode: swmr ? .swmrRead : .readOnly)
        } catch let error as HDF5Error {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            // No superblock fits in a few hundred bytes: a file that small was cut inside it.
            if error.isTruncation || size < 256 {
                throw TraceFileError(file: path, "truncated file: it ends at byte \(size), before the end its HDF5 superblock records (\(error.innermostCause))",
                                     hint: "the file was cut short (an interrupted copy or download, or a full disk); copy it again from its source")
            }
            // A recorder's file is marked open for writing until it closes:
            // while it records, or for good after a crash. SWMR readers may
            // still read it, up to the writer's last flush.
            if !swmr, let reopened = try? File.open(path, mode: .swmrRead) {
                opened = reopened
                markedOpen = true
            } else {
                throw TraceFileError(file: path, "cannot be opened as HDF5: it is damaged, or still open by a crashed writer (\(error.innermostCause))",
                                     hint: "if a recorder was killed, run 'h5clear -s \(path)' and try again")
            }
        }
        file = opened
        markedOpenByWriter = markedOpen
        let root = try file.root
        guard case .string(let format)? = try? root.attribute("format"), format == TraceSchema.formatName else {
            throw TraceFileError(file: path, "is an HDF5 file but not a forcetrace file (no format = \"forcetrace\" attribute)")
        }
        guard let version = (try? root.attribute("format_version"))??.intValue else {
            throw TraceFileError(file: path, "has no format_version attribute")
        }
        guard version <= TraceSchema.formatVersion else {
            throw TraceFileError(file: path, "format_version \(version) is newer than this forcetrace (reads \(TraceSchema.formatVersion))",
                                 hint: "upgrade forcetrace")
        }
        formatVersion = version
        createdUTC = (try? root.attribute("created_utc"))??.stringValue
        toolVersion = (try? root.attribute("tool_version"))??.stringValue
        guard root.contains(TraceSchema.recordingsGroup) else {
            throw TraceFileError(file: path, "has no /recordings group")
        }
        recordings = try root.openGroup(TraceSchema.recordingsGroup)
        recordingNames = try recordings.memberNames()
    }

    public func recording(_ name: String) throws -> TraceRecording {
        guard recordingNames.contains(name) else {
            throw TraceFileError(file: path, "has no recording named '\(name)'",
                                 hint: "recordings in it: \(recordingNames.joined(separator: ", "))")
        }
        return try TraceRecording(group: recordings.openGroup(name), name: name, filePath: path)
    }

    public func fileSize() throws -> UInt64 { try file.fileSize() }
    public func close() throws { try file.close() }
}

/// One recording in a trace file, read by range.
public final class TraceRecording {
    public let name: String
    public let filePath: String
    public let group: Group
    public let device: DeviceDescription
    public let source: String
    public let clock: RecordingClock
    public let t0Ns: Int64
    /// "complete", or absent while a writer has it (or crashed).
    public let importStatus: String?

    init(group: Group, name: String, filePath: String) throws {
        self.group = group
        self.name = name
        self.filePath = filePath
        func fail(_ message: String) -> TraceFileError {
            TraceFileError(file: filePath, "recording '\(name)': \(message)")
        }
        for table in TraceSchema.Table.allCases where !group.contains(table.rawValue) {
            throw fail("missing the \(table.rawValue) table")
        }
        source = try group.attribute("source")?.stringValue ?? ""
        clock = RecordingClock(rawValue: try group.attribute("clock")?.stringValue ?? "") ?? .relative
        t0Ns = try group.attribute("t0_ns")?.intValue ?? 0
        importStatus = try group.attribute("import_status")?.stringValue
        var device = DeviceDescription(name: try group.attribute("device_name")?.stringValue ?? "")
        let id = try group.attribute("device_id")?.intsValue ?? []
        if id.count == 4 {
            device.bus = UInt16(truncatingIfNeeded: id[0]); device.vendor = UInt16(truncatingIfNeeded: id[1])
            device.product = UInt16(truncatingIfNeeded: id[2]); device.version = UInt16(truncatingIfNeeded: id[3])
        }
        device.properties = (try group.attribute("properties")?.intsValue ?? []).map { UInt16(truncatingIfNeeded: $0) }
        func pairs(_ attribute: String) throws -> [(UInt16, Int32)] {
            let flat = try group.attribute(attribute)?.intsValue ?? []
            return stride(from: 0, to: flat.count - 1, by: 2).map { (UInt16(truncatingIfNeeded: flat[$0]), Int32(truncatingIfNeeded: flat[$0 + 1])) }
        }
        device.ledStates = try pairs("led_state")
        device.switchStates = try pairs("switch_state")
        let capabilities = try group.openGroup(TraceSchema.Table.capabilities.rawValue)
        let types = try capabilities.readArray("type", of: UInt16.self)
        let codes = try capabilities.readArray("code", of: UInt16.self)
        guard types.count == codes.count else { throw fail("capabilities/type and capabilities/code differ in length") }
        for (type, code) in zip(types, codes) { device.codes[type, default: []].append(code) }
        let axes = try group.openGroup(TraceSchema.Table.axes.rawValue)
        let axisCodes = try axes.readArray("code", of: UInt16.self)
        let minimum = try axes.readArray("min", of: Int32.self)
        let maximum = try axes.readArray("max", of: Int32.self)
        let fuzz = try axes.readArray("fuzz", of: Int32.self)
        let flat = try axes.readArray("flat", of: Int32.self)
        let resolution = try axes.readArray("resolution", of: Int32.self)
        let value = axes.contains("value") ? try axes.readArray("value", of: Int32.self) : [Int32](repeating: 0, count: axisCodes.count)
        guard [minimum.count, maximum.count, fuzz.count, flat.count, resolution.count, value.count].allSatisfy({ $0 == axisCodes.count }) else {
            throw fail("the axes table's columns differ in length")
        }
        device.axes = axisCodes.indices.map {
            AxisInfo(code: axisCodes[$0], minimum: minimum[$0], maximum: maximum[$0], fuzz: fuzz[$0], flat: flat[$0],
                     resolution: resolution[$0], value: value[$0])
        }
        self.device = device
    }

    public func table(_ table: TraceSchema.Table) throws -> Group { try group.openGroup(table.rawValue) }

    /// Opens one column of a table, converting to `Element` on read.
    public func column<Element: HDF5Scalar>(_ table: TraceSchema.Table, _ name: String, as type: Element.Type = Element.self) throws -> Column<Element> {
        try self.table(table).openColumn(name)
    }

    public func rowCount(_ table: TraceSchema.Table) throws -> Int {
        let columnName = table == .axes || table == .capabilities ? "code" : (table == .contacts ? "id" : "t_ns")
        return try self.table(table).storage(of: columnName).rows
    }

    /// Streams the events table in blocks of `blockRows`; times are `t_ns`
    /// (relative to the first event).
    public func forEachEventBlock(blockRows: Int = 65536, _ body: ([InputEvent]) throws -> Void) throws {
        let time: Column<Int64> = try column(.events, "t_ns")
        let type: Column<UInt16> = try column(.events, "type")
        let code: Column<UInt16> = try column(.events, "code")
        let value: Column<Int32> = try column(.events, "value")
        let count = time.count
        guard type.count == count, code.count == count, value.count == count else {
            throw TraceFileError(file: filePath, "recording '\(name)': the events columns differ in length")
        }
        var start = 0
        while start < count {
            let range = start..<min(count, start + blockRows)
            let times = try time.read(range), types = try type.read(range), codes = try code.read(range), values = try value.read(range)
            var block: [InputEvent] = []
            block.reserveCapacity(range.count)
            for index in 0..<range.count {
                block.append(InputEvent(timeNs: times[index], type: types[index], code: codes[index], value: values[index]))
            }
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

    public func contacts() throws -> [Contact] {
        let contacts = try table(.contacts)
        let id = try contacts.readArray("id", of: Int32.self)
        let slot = try contacts.readArray("slot", of: Int16.self)
        let tracking = try contacts.readArray("tracking_id", of: Int32.self)
        let tool = try contacts.readArray("tool", of: UInt16.self)
        let down = try contacts.readArray("t_down_ns", of: Int64.self)
        let up = try contacts.readArray("t_up_ns", of: Int64.self)
        let first = try contacts.readArray("first_sample", of: Int64.self)
        let last = try contacts.readArray("last_sample", of: Int64.self)
        let count = try contacts.readArray("n_samples", of: Int64.self)
        guard [slot.count, tracking.count, tool.count, down.count, up.count, first.count, last.count, count.count].allSatisfy({ $0 == id.count }) else {
            throw TraceFileError(file: filePath, "recording '\(name)': the contacts columns differ in length")
        }
        return id.indices.map {
            Contact(id: id[$0], slot: slot[$0], trackingID: tracking[$0], tool: tool[$0], tDownNs: down[$0], tUpNs: up[$0],
                    firstSample: first[$0], lastSample: last[$0], sampleCount: count[$0])
        }
    }

    public func markers() throws -> [Marker] {
        let markers = try table(.markers)
        let time = try markers.readArray("t_ns", of: Int64.self)
        let kind = try markers.readArray("kind", of: UInt8.self)
        let index = try markers.readArray("event_index", of: Int64.self)
        return time.indices.compactMap { row in
            MarkerKind(rawValue: kind[row]).map { Marker(tNs: time[row], kind: $0, eventIndex: index[row]) }
        }
    }

    /// SYN_REPORT events, counted by streaming the type and code columns.
    public func frameCount() throws -> Int64 {
        let type: Column<UInt16> = try column(.events, "type")
        let code: Column<UInt16> = try column(.events, "code")
        var frames: Int64 = 0
        var start = 0
        while start < type.count {
            let range = start..<min(type.count, start + 65536)
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
            let group = try self.table(table)
            for column in try group.memberNames() {
                let storage = try group.storage(of: column)
                logical += storage.logicalBytes
                stored += storage.storedBytes
            }
        }
        return (logical, stored)
    }
}
