import Foundation

/// What `forcetrace info` says about a trace file, computed once; text and
/// JSON are two renderings of it.
public struct TraceFileInfo: Sendable {
    public var file: String
    public var formatVersion: Int64
    public var createdUTC: String?
    public var toolVersion: String?
    public var fileSize: UInt64
    /// Over every recording's tables.
    public var tableBytesUncompressed: UInt64
    public var tableBytesStored: UInt64
    public var recordings: [RecordingInfo]
    /// See `TraceReader.markedOpenByWriter`.
    public var openByWriter: Bool

    /// Uncompressed over stored bytes; nil when nothing is stored.
    public var compressionRatio: Double? {
        tableBytesStored > 0 ? Double(tableBytesUncompressed) / Double(tableBytesStored) : nil
    }

    /// Reads every recording's description and counts (streaming the events
    /// once per recording for the frame count).
    public init(_ reader: TraceReader) throws {
        file = reader.path
        formatVersion = reader.formatVersion
        createdUTC = reader.createdUTC
        toolVersion = reader.toolVersion
        fileSize = try reader.fileSize()
        openByWriter = reader.markedOpenByWriter
        recordings = try reader.recordingNames.map { try RecordingInfo(try reader.recording($0)) }
        tableBytesUncompressed = recordings.reduce(0) { $0 + $1.tableBytesUncompressed }
        tableBytesStored = recordings.reduce(0) { $0 + $1.tableBytesStored }
    }
}

/// One recording's part of `TraceFileInfo`.
public struct RecordingInfo: Sendable {
    public var name: String
    public var source: RecordingSource
    public var clock: RecordingClock
    public var t0Ns: Int64
    public var importStatus: ImportStatus?
    public var importError: String?
    /// The `keycodes` attribute of a live recording.
    public var keyCodes: KeyCodeHandling?
    /// Set when the recording holds common key presses that were not obfuscated.
    public var keyWarning: String?
    public var device: DeviceDescription
    public var events: Int
    public var frames: Int64
    public var contacts: Int
    public var samples: Int
    public var markers: Int
    public var resyncs: Int
    public var synDropped: Int
    /// `t_ns` of the last event.
    public var durationNs: Int64
    public var tableBytesUncompressed: UInt64
    public var tableBytesStored: UInt64

    public init(_ recording: TraceRecording) throws {
        name = recording.name
        source = recording.source
        clock = recording.clock
        t0Ns = recording.t0Ns
        importStatus = recording.importStatus
        importError = recording.importError
        keyCodes = recording.keyCodeHandling
        keyWarning = try recording.unobfuscatedKeysWarning()
        device = recording.device
        events = try recording.rowCount(.events)
        frames = try recording.frameCount()
        contacts = try recording.rowCount(.contacts)
        samples = try recording.rowCount(.samples)
        let markerList = try recording.markers()
        markers = markerList.count
        resyncs = markerList.filter { $0.kind == .resync }.count
        synDropped = markerList.filter { $0.kind == .synDropped }.count
        durationNs = recording.lastEventTimeNs()
        (tableBytesUncompressed, tableBytesStored) = try recording.storage()
    }
}

extension TraceFileInfo {
    /// `info --json`: keys as FORMAT.md and README name them, in byte order.
    public var json: String {
        var out = JSONWriter(capacity: 4096)
        out.beginObject()
        out.key("compression_ratio"); out.double(compressionRatio)
        out.key("created_utc"); out.string(createdUTC)
        out.key("file"); out.string(InputPath.displayName(file))
        out.key("file_size"); out.int(fileSize)
        out.key("format_version"); out.int(formatVersion)
        out.key("open_by_writer"); out.bool(openByWriter)
        out.key("recordings")
        out.beginArray(flat: false)
        for recording in recordings { Self.write(recording, to: &out) }
        out.endArray()
        out.key("table_bytes_stored"); out.int(tableBytesStored)
        out.key("table_bytes_uncompressed"); out.int(tableBytesUncompressed)
        out.key("tool_version"); out.string(toolVersion)
        out.endObject()
        return out.text()
    }

    static func write(_ recording: RecordingInfo, to out: inout JSONWriter) {
        let device = recording.device
        out.beginObject()
        out.key("axes")
        out.beginArray(flat: false)
        for axis in device.axes { out.absoluteAxis(axis) }
        out.endArray()
        out.key("clock"); out.string(recording.clock.rawValue)
        out.key("contact_protocol"); out.string(device.contactProtocol.rawValue)
        out.key("contacts"); out.int(recording.contacts)
        out.key("device")
        out.beginObject()
        out.key("bus"); out.int(device.bus)
        out.key("is_pen"); out.bool(device.isPen)
        out.key("name"); out.string(device.name)
        out.key("product"); out.int(device.product)
        out.key("properties"); out.strings(device.properties.map { EventNames.property($0) })
        out.key("vendor"); out.int(device.vendor)
        out.key("version"); out.int(device.version)
        out.endObject()
        out.key("duration_s"); out.double(Double(recording.durationNs) / 1e9)
        out.key("events"); out.int(recording.events)
        out.key("frames"); out.int(recording.frames)
        out.key("import_error"); out.string(recording.importError)
        out.key("import_status"); out.string(recording.importStatus?.rawValue)
        out.key("key_warning"); out.string(recording.keyWarning)
        out.key("keycodes"); out.string(recording.keyCodes?.rawValue)
        out.key("markers"); out.int(recording.markers)
        out.key("name"); out.string(recording.name)
        out.key("pressure_axis"); out.pressureAxis(device.contactPressureAxis)
        out.key("resyncs"); out.int(recording.resyncs)
        out.key("samples"); out.int(recording.samples)
        out.key("slots"); out.int(device.slotCount)
        out.key("source"); out.string(recording.source.description)
        out.key("syn_dropped"); out.int(recording.synDropped)
        out.key("system")
        out.beginObject()
        out.key("dmi"); out.string(device.system.dmi)
        out.key("kernel"); out.string(device.system.kernel)
        out.endObject()
        out.key("t0_ns"); out.int(recording.t0Ns)
        out.key("table_bytes_stored"); out.int(recording.tableBytesStored)
        out.key("table_bytes_uncompressed"); out.int(recording.tableBytesUncompressed)
        out.endObject()
    }

    /// `info`'s text; names, strings and paths from the file shown escaped.
    public var text: TerminalText {
        func bytes(_ value: UInt64) -> String {
            let number = Double(value)
            if number >= 1_048_576 { return String(format: "%.2f MiB", number / 1_048_576) }
            if number >= 1024 { return String(format: "%.1f KiB", number / 1024) }
            return "\(value) B"
        }
        var text: TerminalText = "\(file): forcetrace format \(formatVersion), \(bytes(fileSize))"
        if let toolVersion { text += ", written by \(toolVersion)" }
        if let createdUTC { text += " at \(createdUTC)" }
        text += "\n"
        if openByWriter {
            text += "  note: the file is still marked open by a writer (recording now, or killed); read up to its last flush.\n"
            text += "        If no recorder is running, 'h5clear -s --increment=0 \(file)' clears the mark.\n"
        }
        if let compressionRatio {
            text += "\(String(format: "  tables: %@ uncompressed, %@ stored (%.1fx)", bytes(tableBytesUncompressed), bytes(tableBytesStored), compressionRatio))\n"
        }
        for recording in recordings {
            let device = recording.device
            text += "\n/recordings/\(recording.name)\n"
            text += "  source:     \(recording.source)\n"
            let ids = String(format: "bus 0x%04x vendor 0x%04x product 0x%04x version 0x%04x",
                             Int(device.bus), Int(device.vendor), Int(device.product), Int(device.version))
            text += "  device:     \"\(device.name)\" \(ids)\n"
            if let kernel = device.system.kernel { text += "  kernel:     \(kernel)\n" }
            if let dmi = device.system.dmi { text += "  dmi:        \(dmi)\n" }
            let properties = device.properties.map { EventNames.property($0) }
            text += "  properties: \(properties.isEmpty ? "none" : properties.joined(separator: ", "))\n"
            var contacts = device.contactProtocol == .slots
                ? "multitouch protocol B, \(device.slotCount) slots" : "no slots (contacts follow BTN_TOUCH)"
            if device.isPen { contacts += ", pen" }
            text += "  contacts:   \(contacts)\n"
            if let pressure = device.contactPressureAxis {
                text += "  pressure:   \(pressure.name) \(pressure.minimum)..\(pressure.maximum)\n"
            } else {
                text += "  pressure:   no per-contact pressure axis\n"
            }
            text += "  axes:\n"
            text += "    code  name                       min      max  fuzz  flat   res\n"
            for axis in device.axes {
                let numbers = String(format: "%8d %8d %5d %5d %5d", Int(axis.minimum), Int(axis.maximum), Int(axis.fuzz),
                                     Int(axis.flat), Int(axis.resolution))
                text += "    \(String(format: "0x%02x", Int(axis.code)))  \(TerminalText(escaping: axis.name).padded(to: 22)) \(numbers)\n"
            }
            text += "  events \(recording.events), frames \(recording.frames), contacts \(recording.contacts), "
            text += "samples \(recording.samples), markers \(recording.markers)\n"
            text += "\(String(format: "  duration:   %.3f s (clock %@)", Double(recording.durationNs) / 1e9, recording.clock.rawValue))\n"
            if let keyCodes = recording.keyCodes { text += "  keycodes:   \(keyCodes.rawValue)\n" }
            switch recording.importStatus {
            case .complete: break
            case .partial:
                text += "  status:     partial\n"
                if let error = recording.importError { text += "  import_error: \(error)\n" }
            case nil:
                text += "  status:     incomplete (no import_status: still being written, or the writer stopped early)\n"
            }
        }
        return text
    }
}
