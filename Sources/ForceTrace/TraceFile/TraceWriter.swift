import Foundation
import HDF5

/// Options shared by everything that writes trace files.
public struct TraceWriteOptions: Sendable {
    public var compression: Compression = .standard
    /// Rows per chunk for the events and samples tables. 65536 rather than
    /// 16384 makes time columns 6 % smaller at the same deflate cost
    /// (docs/FORMAT.md, "Chunks and compression").
    public var chunkRows = 65536
    /// Newest HDF5 file format, required for SWMR.
    public var latestFormat = false
    /// Compress full chunks on a second thread (`ChunkPipeline`) while this
    /// one parses and decodes. The live recorder, which flushes partial
    /// chunks for durability and writes in SWMR mode, turns it off.
    public var compressOnWorker = true
    /// Write each partial chunk whole, deflated at level 1 until it fills
    /// (`OpenChunkWriter`): for the live recorder, which flushes them.
    public var openChunks = false
    /// Each long or decoded table's columns (tests add one to check that a
    /// column needs nothing beyond its entry and its row type's field).
    public var eventColumns = TraceSchema.Events.fields
    public var sampleColumns = TraceSchema.Samples.fields
    public var contactColumns = TraceSchema.Contacts.fields
    public var markerColumns = TraceSchema.Markers.fields

    public init() {}
}

/// Writes a trace file: one `TraceWriter` per file, one `RecordingWriter`
/// per recording in it.
public final class TraceWriter {
    public let path: String
    public let options: TraceWriteOptions
    let file: File
    let recordings: Group
    private var usedNames: Set<String> = []
    /// Recording groups, given their dimension scales on `close()`.
    private var written: [Group] = []
    private var swmr = false
    /// Compresses the recordings' full chunks off this thread.
    let pipeline: ChunkPipeline?

    /// Creates (or replaces) the file at `path` and writes the root attributes.
    public init(creating path: String, options: TraceWriteOptions = TraceWriteOptions()) throws {
        self.path = path
        self.options = options
        pipeline = options.compressOnWorker && options.compression.deflateLevel > 0 ? ChunkPipeline() : nil
        file = try File.create(path, latestFormat: options.latestFormat)
        let root = try file.root
        try root.setAttribute(FileAttribute.format, .string(TraceSchema.formatName))
        try root.setAttribute(FileAttribute.formatVersion, .int(TraceSchema.formatVersion))
        try root.setAttribute(FileAttribute.createdUTC, .string(ISO8601DateFormatter().string(from: Date())))
        try root.setAttribute(FileAttribute.toolVersion, .string("forcetrace \(ForceTraceVersion.string)"))
        recordings = try root.createGroup(TraceSchema.recordingsGroup)
    }

    /// A group name from `name`: no "/" and unique in this file.
    public func uniqueName(_ name: String) -> String {
        var base = name.replacingOccurrences(of: "/", with: "_")
        if base.isEmpty || base == "." || base == ".." { base = "recording" }
        var candidate = base
        var suffix = 2
        while usedNames.contains(candidate) {
            candidate = "\(base)-\(suffix)"
            suffix += 1
        }
        usedNames.insert(candidate)
        return candidate
    }

    /// Creates a recording's group, its attributes and its empty tables.
    /// - Parameter t0Ns: absolute time of the first event on `clock`.
    public func addRecording(name: String, device: DeviceDescription, source: RecordingSource, clock: RecordingClock,
                             t0Ns: Int64, synDroppedPolicy: TraceDecoder.SynDroppedPolicy = .discardUntilReport) throws -> RecordingWriter {
        let group = try recordings.createGroup(uniqueName(name))
        written.append(group)
        return try RecordingWriter(group: group, device: device, source: source, clock: clock, t0Ns: t0Ns,
                                   options: options, pipeline: pipeline, synDroppedPolicy: synDroppedPolicy)
    }

    /// Writes a whole parsed recording.
    @discardableResult
    /// - Parameter importError: for a recording salvaged from damaged input:
    ///   it is marked `import_status = "partial"` with this as `import_error`.
    public func write(_ recording: Recording, name: String? = nil, importError: String? = nil) throws -> RecordingSummary {
        let writer = try addRecording(name: name ?? recording.name, device: recording.device, source: recording.source,
                                      clock: recording.clock, t0Ns: recording.t0Ns)
        for event in recording.events { try writer.append(event) }
        return try finishImport(writer, groundTruth: recording.groundTruth, importError: importError)
    }

    /// Ends an imported recording: finishes its tables, writes its labels
    /// and, for a salvaged one (`importError` set), marks it partial.
    public func finishImport(_ writer: RecordingWriter, groundTruth: GroundTruth, importError: String?) throws -> RecordingSummary {
        let summary = try writer.finish(markComplete: importError == nil)
        try writer.writeGroundTruth(groundTruth)
        if let importError { try writer.markPartial(importError) }
        // Its scales now, while its metadata is in HDF5's cache: kept for
        // close(), 10 000 recordings' groups stayed open and their metadata
        // was read back from the file.
        if !swmr, let index = written.lastIndex(where: { $0 === writer.group }) {
            try TraceSchema.attachDimensionScales(in: writer.group)
            written.remove(at: index)
        }
        return summary
    }

    public func flush() throws { try file.flush() }
    public func sync() throws { try file.sync() }
    public func startSWMRWrite() throws {
        try file.startSWMRWrite()
        swmr = true
    }

    /// Writes every buffered row, gives each table its dimension scale
    /// (except in SWMR mode, which forbids new datasets) and closes the file.
    public func close() throws {
        defer { pipeline?.shutdown() }
        do {
            if !swmr {
                try file.flush()
                for group in written { try TraceSchema.attachDimensionScales(in: group) }
                written = []
            }
        } catch {
            // Close anyway (a full disk fails here first); the first error is the one to report.
            try? file.close()
            throw error
        }
        try file.close()
    }

    deinit { pipeline?.shutdown() }
}

/// Counts for one written recording.
public struct RecordingSummary: Sendable {
    public var name: String
    public var events: Int64
    public var frames: Int64
    public var contacts: Int64
    public var samples: Int64
    public var markers: Int64
    public var durationNs: Int64
    public var anomalies: [DecoderAnomaly]
    public var anomalyCount: Int
}

/// Appends one recording's events, decoding them into samples and contacts
/// as they arrive, so a live capture and an import write the same tables.
public final class RecordingWriter {
    let group: Group
    public let name: String
    public let t0Ns: Int64
    @exclusivity(unchecked) public private(set) var decoder: TraceDecoder
    @exclusivity(unchecked) private var lastTimeNs: Int64 = 0
    @exclusivity(unchecked) private var eventCount: Int64 = 0
    @exclusivity(unchecked) private var markerCount: Int64 = 0
    private var finished = false

    /// One per `options.eventColumns` entry, and so on.
    private let eventColumns: [RowSink<InputEvent>]
    private let sampleColumns: [RowSink<Sample>]
    private let contactColumns: [RowSink<Contact>]
    private let markerColumns: [RowSink<Marker>]
    /// Rows (event times relative) not yet in `eventColumns` and
    /// `sampleColumns`: handed over in batches, so the call per column (and
    /// its retains) is paid per batch, not per row or frame. `flush()` and
    /// `finish()` write them.
    @exclusivity(unchecked) private var events: [InputEvent] = []
    @exclusivity(unchecked) private var samples: [Sample] = []
    private static let batchRows = 4096

    init(group: Group, device: DeviceDescription, source: RecordingSource, clock: RecordingClock, t0Ns: Int64,
         options: TraceWriteOptions, pipeline: ChunkPipeline? = nil, synDroppedPolicy: TraceDecoder.SynDroppedPolicy) throws {
        self.group = group
        self.name = String(group.path.split(separator: "/").last ?? "")
        self.t0Ns = t0Ns
        decoder = TraceDecoder(device: device, synDroppedPolicy: synDroppedPolicy)
        try group.setAttribute(RecordingAttribute.source, .string(source.description))
        try group.setAttribute(RecordingAttribute.deviceName, .string(device.name))
        try group.setAttribute(RecordingAttribute.deviceID, .ints([device.bus, device.vendor, device.product, device.version].map(Int64.init)))
        try group.setAttribute(RecordingAttribute.properties, .ints(device.properties.map(Int64.init)))
        try group.setAttribute(RecordingAttribute.clock, .string(clock.rawValue))
        try group.setAttribute(RecordingAttribute.t0Ns, .int(t0Ns))
        try group.setAttribute(RecordingAttribute.contactProtocol, .string(device.contactProtocol.rawValue))
        try group.setAttribute(RecordingAttribute.slots, .int(Int64(device.slotCount)))
        try group.setAttribute(RecordingAttribute.pressureAxis, .int(Int64(device.contactPressureAxis.map { Int($0.code) } ?? -1)))
        if !device.ledStates.isEmpty {
            try group.setAttribute(RecordingAttribute.ledState, .ints(device.ledStates.flatMap { [Int64($0.0), Int64($0.1)] }))
        }
        if !device.switchStates.isEmpty {
            try group.setAttribute(RecordingAttribute.switchState, .ints(device.switchStates.flatMap { [Int64($0.0), Int64($0.1)] }))
        }
        if let kernel = device.system.kernel { try group.setAttribute(RecordingAttribute.kernel, .string(kernel)) }
        if let dmi = device.system.dmi { try group.setAttribute(RecordingAttribute.dmi, .string(dmi)) }

        typealias S = TraceSchema
        let axes = try group.createGroup(S.Table.axes.rawValue)
        try axes.write(S.Axes.code, device.axes.map(\.code))
        try axes.write(S.Axes.name, device.axes.map(\.name))
        try axes.write(S.Axes.min, device.axes.map(\.minimum))
        try axes.write(S.Axes.max, device.axes.map(\.maximum))
        try axes.write(S.Axes.fuzz, device.axes.map(\.fuzz))
        try axes.write(S.Axes.flat, device.axes.map(\.flat))
        try axes.write(S.Axes.resolution, device.axes.map(\.resolution))
        try axes.write(S.Axes.value, device.axes.map(\.value))

        let capabilities = try group.createGroup(S.Table.capabilities.rawValue)
        let pairs = device.codes.keys.sorted().flatMap { type in (device.codes[type] ?? []).map { (type, $0) } }
        try capabilities.write(S.Capabilities.type, pairs.map(\.0))
        try capabilities.write(S.Capabilities.code, pairs.map(\.1))

        let chunk = options.chunkRows
        // Every column: the file's compression, full chunks through the pipeline.
        // Deferred, a table shorter than a chunk gets a chunk of its length: a
        // whole 65536-row chunk per column made a short recording cost 100 KB
        // and 27 ms, most of it deflating padding. SWMR, which needs the
        // newest format, forbids making datasets later: not there.
        var layout = ColumnLayout(chunkRows: chunk, compression: options.compression, pipeline: pipeline,
                                  deferred: !options.latestFormat)
        if options.openChunks { layout.openChunks = OpenChunkWriter() }
        func table<Row>(_ table: S.Table, _ fields: [TableField<Row>], chunkRows: Int = chunk) throws -> [RowSink<Row>] {
            let created = try group.createGroup(table.rawValue)
            return try fields.map {
                precondition($0.schema.table == table, "\($0.name) is not a \(table.rawValue) column")
                return try $0.create(created, layout, chunkRows)
            }
        }
        eventColumns = try table(.events, options.eventColumns)
        sampleColumns = try table(.samples, options.sampleColumns)
        // Contacts and markers are short tables: smaller chunks.
        let small = max(1, min(chunk, 4096))
        contactColumns = try table(.contacts, options.contactColumns, chunkRows: small)
        markerColumns = try table(.markers, options.markerColumns, chunkRows: small)
        let markers = try group.openGroup(S.Table.markers.rawValue)
        try markers.setAttribute(RecordingAttribute.markerKinds, .strings(MarkerKind.allCases.map { "\($0.rawValue)=\($0.name)" }))
    }

    public var eventsWritten: Int64 { eventCount }

    /// Sets `import_status`.
    func markStatus(_ status: ImportStatus) throws {
        try group.setAttribute(RecordingAttribute.importStatus, .string(status.rawValue))
    }

    /// Marks a recording salvaged from damaged input: `import_status = "partial"` and why.
    func markPartial(_ importError: String) throws {
        try markStatus(.partial)
        try group.setAttribute(RecordingAttribute.importError, .string(importError))
    }

    /// The free-text `label` attribute (`record --label`).
    public func setLabel(_ label: String) throws {
        try group.setAttribute(RecordingAttribute.label, .string(label))
    }

    /// Appends one event whose time is absolute on the recording's clock.
    public func append(_ event: InputEvent) throws {
        var relative = event
        relative.timeNs = event.timeNs - t0Ns
        lastTimeNs = relative.timeNs
        events.append(relative)
        if events.count >= Self.batchRows { try writeEvents() }
        decoder.feed(relative, index: eventCount)
        eventCount += 1
        if relative.isSynReport || event.type == EventType.syn { try drainDecoder() }
    }

    /// Adds a marker that the decoder cannot see, such as a live resync.
    /// `tNs` is absolute on the recording's clock.
    public func addMarker(_ kind: MarkerKind, atNs tNs: Int64) throws {
        try writeMarker(Marker(tNs: tNs - t0Ns, kind: kind, eventIndex: eventCount))
    }

    private func writeMarker(_ marker: Marker) throws {
        try write([marker], to: markerColumns)
        markerCount += 1
    }

    private func write<Row>(_ rows: [Row], to columns: [RowSink<Row>]) throws {
        guard !rows.isEmpty else { return }
        try rows.withUnsafeBufferPointer { rows in
            for column in columns { try column.append(rows) }
        }
    }

    private func drainDecoder() throws {
        try decoder.drainOutput { output in
            samples.append(contentsOf: output.samples)
            if samples.count >= Self.batchRows { try writeSamples() }
            try write(output.contacts, to: contactColumns)
            try write(output.markers, to: markerColumns)
            markerCount += Int64(output.markers.count)
        }
    }

    private func writeEvents() throws {
        try write(events, to: eventColumns)
        events.removeAll(keepingCapacity: true)
    }

    private func writeSamples() throws {
        try write(samples, to: sampleColumns)
        samples.removeAll(keepingCapacity: true)
    }

    private var allColumns: [() throws -> Void] {
        eventColumns.map(\.flush) + sampleColumns.map(\.flush) + contactColumns.map(\.flush) + markerColumns.map(\.flush)
    }

    /// Writes every buffered row, including partial chunks: for durability
    /// during a live capture. Costs file size if called often.
    public func flush() throws {
        try drainDecoder()
        try writeEvents()
        try writeSamples()
        for flush in allColumns { try flush() }
    }

    /// Ends the recording: closes open contacts (t_up_ns = -1), writes every
    /// buffered row and marks the recording complete.
    /// - Parameter markComplete: write `import_status = "complete"`; a SWMR
    ///   writer cannot add attributes and passes false.
    @discardableResult
    public func finish(markComplete: Bool = true) throws -> RecordingSummary {
        if !finished {
            finished = true
            decoder.finish()
            try flush()
            if markComplete { try markStatus(.complete) }
        }
        return RecordingSummary(name: name, events: eventCount, frames: decoder.frameCount, contacts: decoder.contactCount,
                                samples: decoder.sampleRows, markers: markerCount, durationNs: lastTimeNs,
                                anomalies: decoder.anomalies, anomalyCount: decoder.anomalyCount)
    }
}
