import ForceTrace
import Foundation

/// `forcetrace info`: what a trace file holds.
struct InfoCommand: Subcommand {
    static let spec = CommandSpec(
        name: "info",
        abstract: "Describe a trace file: recordings, devices, axes, counts, size.",
        positionals: [PositionalSpec(name: "FILE.h5", help: "Trace file to describe.")],
        options: [.flag("json", "Print JSON instead of text.")])

    let input: String
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        input = arguments.positional("FILE.h5")!
        json = arguments.flag("json")
    }

    func run() throws -> Int32 {
        let reader = try TraceReader(path: input)
        let fileSize = try reader.fileSize()
        var recordings: [[String: Any]] = []
        var logicalTotal: UInt64 = 0, storedTotal: UInt64 = 0
        for name in reader.recordingNames {
            let trace = try reader.recording(name)
            let storage = try trace.storage()
            logicalTotal += storage.logical
            storedTotal += storage.stored
            recordings.append(try describe(trace, storage: storage))
        }
        let info: [String: Any] = [
            "file": input,
            "format_version": reader.formatVersion,
            "created_utc": reader.createdUTC ?? NSNull(),
            "tool_version": reader.toolVersion ?? NSNull(),
            "file_size": fileSize,
            "table_bytes_uncompressed": logicalTotal,
            "table_bytes_stored": storedTotal,
            "compression_ratio": storedTotal > 0 ? Double(logicalTotal) / Double(storedTotal) : NSNull(),
            "recordings": recordings,
            "open_by_writer": reader.markedOpenByWriter,
        ]
        if json {
            print(JSONText.encode(info), terminator: "")
        } else {
            print(renderText(info), terminator: "")
        }
        return ExitStatus.success
    }

    private func describe(_ trace: TraceRecording, storage: (logical: UInt64, stored: UInt64)) throws -> [String: Any] {
        let device = trace.device
        let events = try trace.rowCount(.events)
        var lastTime: Int64 = 0
        if events > 0 {
            let time: Swift.Int64 = try trace.column(.events, "t_ns", as: Int64.self).read((events - 1)..<events)[0]
            lastTime = time
        }
        let axes: [[String: Any]] = device.axes.map {
            ["code": Int($0.code), "name": $0.name, "min": Int($0.minimum), "max": Int($0.maximum), "fuzz": Int($0.fuzz),
             "flat": Int($0.flat), "resolution": Int($0.resolution)]
        }
        let pressure: Any = device.contactPressureAxis.map {
            ["code": Int($0.code), "name": $0.name, "min": Int($0.minimum), "max": Int($0.maximum), "resolution": Int($0.resolution)] as [String: Any]
        } ?? NSNull()
        let markers = try trace.markers()
        return [
            "name": trace.name,
            "source": trace.source,
            "clock": trace.clock.rawValue,
            "t0_ns": trace.t0Ns,
            "import_status": trace.importStatus ?? NSNull(),
            "import_error": ((try? trace.group.attribute("import_error")) ?? nil)?.stringValue ?? NSNull(),
            "device": [
                "name": device.name,
                "bus": Int(device.bus), "vendor": Int(device.vendor), "product": Int(device.product), "version": Int(device.version),
                "properties": device.properties.map { EventNames.property($0) },
                "is_pen": device.isPen,
            ] as [String: Any],
            "contact_protocol": device.contactProtocol.rawValue,
            "slots": device.slotCount,
            "pressure_axis": pressure,
            "axes": axes,
            "events": events,
            "frames": try trace.frameCount(),
            "contacts": try trace.rowCount(.contacts),
            "samples": try trace.rowCount(.samples),
            "markers": markers.count,
            "resyncs": markers.filter { $0.kind == .resync }.count,
            "syn_dropped": markers.filter { $0.kind == .synDropped }.count,
            "duration_s": Double(lastTime) / 1e9,
            "table_bytes_uncompressed": storage.logical,
            "table_bytes_stored": storage.stored,
        ]
    }

    private func renderText(_ info: [String: Any]) -> String {
        func bytes(_ value: Any?) -> String {
            let number: Double
            switch value {
            case let exact as UInt64: number = Double(exact)
            case let exact as Int: number = Double(exact)
            case let exact as Int64: number = Double(exact)
            default: number = 0
            }
            if number >= 1_048_576 { return String(format: "%.2f MiB", number / 1_048_576) }
            if number >= 1024 { return String(format: "%.1f KiB", number / 1024) }
            return "\(Int(number)) B"
        }
        var text = "\(input): forcetrace format \(info["format_version"]!), \(bytes(info["file_size"]))"
        if let tool = info["tool_version"] as? String { text += ", written by \(tool)" }
        if let created = info["created_utc"] as? String { text += " at \(created)" }
        text += "\n"
        if info["open_by_writer"] as? Bool == true {
            text += "  note: the file is still marked open by a writer (recording now, or killed); read up to its last flush.\n"
            text += "        If no recorder is running, 'h5clear -s \(input)' clears the mark.\n"
        }
        if let ratio = info["compression_ratio"] as? Double {
            text += String(format: "  tables: %@ uncompressed, %@ stored (%.1fx)\n",
                           bytes(info["table_bytes_uncompressed"]), bytes(info["table_bytes_stored"]), ratio)
        }
        for recording in info["recordings"] as? [[String: Any]] ?? [] {
            let device = recording["device"] as? [String: Any] ?? [:]
            text += "\n/recordings/\(recording["name"]!)\n"
            text += "  source:     \(recording["source"]!)\n"
            text += "  device:     \"\(device["name"]!)\" " + String(format: "bus 0x%04x vendor 0x%04x product 0x%04x version 0x%04x",
                device["bus"] as! Int, device["vendor"] as! Int, device["product"] as! Int, device["version"] as! Int) + "\n"
            let properties = device["properties"] as? [String] ?? []
            text += "  properties: \(properties.isEmpty ? "none" : properties.joined(separator: ", "))\n"
            let slots = recording["slots"] as! Int
            var contacts = recording["contact_protocol"] as! String == ContactProtocol.slots.rawValue
                ? "multitouch protocol B, \(slots) slots" : "no slots (contacts follow BTN_TOUCH)"
            if device["is_pen"] as? Bool == true { contacts += ", pen" }
            text += "  contacts:   \(contacts)\n"
            if let pressure = recording["pressure_axis"] as? [String: Any] {
                text += "  pressure:   \(pressure["name"]!) \(pressure["min"]!)..\(pressure["max"]!)\n"
            } else {
                text += "  pressure:   no per-contact pressure axis\n"
            }
            text += "  axes:\n"
            text += "    code  name                       min      max  fuzz  flat   res\n"
            for axis in recording["axes"] as? [[String: Any]] ?? [] {
                text += String(format: "    0x%02x  %@ %8d %8d %5d %5d %5d\n", axis["code"] as! Int,
                               (axis["name"] as! String).padding(toLength: 22, withPad: " ", startingAt: 0),
                               axis["min"] as! Int, axis["max"] as! Int, axis["fuzz"] as! Int, axis["flat"] as! Int, axis["resolution"] as! Int)
            }
            text += "  events \(recording["events"]!), frames \(recording["frames"]!), contacts \(recording["contacts"]!), "
                + "samples \(recording["samples"]!), markers \(recording["markers"]!)\n"
            text += String(format: "  duration:   %.3f s (clock %@)\n", recording["duration_s"] as! Double, recording["clock"] as! String)
            if let status = recording["import_status"] as? String, status != "complete" {
                text += "  status:     \(status)\n"
                if let error = recording["import_error"] as? String { text += "  import_error: \(error)\n" }
            } else if recording["import_status"] is NSNull {
                text += "  status:     incomplete (no import_status: still being written, or the writer stopped early)\n"
            }
        }
        return text
    }
}
