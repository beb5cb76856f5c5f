import Foundation

// Writing: the text of a libinput record file, header and events.
extension LibinputRecord {
    /// `system`: the first recording's (one block per file, as libinput writes it).
    static func fileHeader(count: Int, comment: String?, system: SystemInfo) -> String {
        var output = "# libinput record, format version 1 (libinput tools/libinput-record.man), written by forcetrace \(ForceTraceVersion.string)\n"
        if let comment {
            for line in comment.split(separator: "\n", omittingEmptySubsequences: false) { output.write("# \(TextEscaping.escaped(line))\n") }
        }
        output.write("version: 1\nndevices: \(count)\nlibinput:\n  version: \"unknown\"\nsystem:\n  kernel: \(quoted(system.kernel ?? "unknown"))\n")
        if let dmi = system.dmi { output.write("  dmi: \(quoted(dmi))\n") }
        output.write("devices:\n")
        return output
    }

    /// A device's description and forcetrace key, up to its events.
    /// - Parameter fileSystem: the file's `system` block; a device of another
    ///   machine keeps its own in the forcetrace key.
    static func deviceHeader(_ header: RecordingHeader, groundTruth: GroundTruth, fileSystem: SystemInfo) -> String {
        var output = ""
        let device = header.device
        if let node = header.source.deviceNode {
            output.write("  - node: \(quoted(node))\n    evdev:\n")
        } else {
            output.write("  - evdev:\n")
        }
        output.write("      # Name: \(TextEscaping.escaped(device.name))\n")
        output.write("      name: \(quoted(device.name))\n")
        output.write("      id: [\(device.bus), \(device.vendor), \(device.product), \(device.version)]\n")
        output.write("      codes:\n")
        let types = Set(device.codes.keys).union(device.codes[EventType.syn] ?? []).union([EventType.syn]).sorted()
        for type in types {
            // Type 0 lists the EV_SYN codes, as libevdev reports them.
            let codes = type == EventType.syn ? Array(0...15) : (device.codes[type] ?? []).map(Int.init)
            output.write("        \(type): [\(codes.map(String.init).joined(separator: ", "))] # \(EventNames.type(type))\n")
        }
        output.write(device.axes.isEmpty ? "      absinfo: {}\n" : "      absinfo:\n")
        for axis in device.axes {
            output.write("        \(axis.code): [\(axis.minimum), \(axis.maximum), \(axis.fuzz), \(axis.flat), \(axis.resolution)] # \(axis.name)\n")
        }
        output.write("      properties: [\(device.properties.map(String.init).joined(separator: ", "))]\n")
        output.write("    forcetrace:\n      clock: \(header.clock.rawValue)\n      t0_ns: \(header.t0Ns)\n")
        let values = device.axes.filter { $0.value != 0 }
        if !values.isEmpty {
            output.write("      abs_value: {\(values.map { "\($0.code): \($0.value)" }.joined(separator: ", "))}\n")
        }
        if !device.ledStates.isEmpty {
            output.write("      led_state: [\(device.ledStates.map { "[\($0.0), \($0.1)]" }.joined(separator: ", "))]\n")
        }
        if !device.switchStates.isEmpty {
            output.write("      switch_state: [\(device.switchStates.map { "[\($0.0), \($0.1)]" }.joined(separator: ", "))]\n")
        }
        if device.system != fileSystem {
            let system = device.system
            output.write(system.kernel == nil && system.dmi == nil ? "      system: {}\n" : "      system:\n")
            if let kernel = system.kernel { output.write("        kernel: \(quoted(kernel))\n") }
            if let dmi = system.dmi { output.write("        dmi: \(quoted(dmi))\n") }
        }
        let labels = groundTruth.evemuComments()
        if !labels.isEmpty {
            output.write("      labels:\n")
            for label in labels { output.write("        - \(quoted(String(label.dropFirst(GroundTruth.evemuPrefix.count))))\n") }
        }
        return output
    }

    /// One event line, its time relative to `t0Ns` as `Timestamp.timeval`.
    static func appendEvent(_ event: InputEvent, t0Ns: Int64, startsFrame: Bool, to line: inout String) {
        if startsFrame { line += "      - evdev:\n" }
        let time = Timestamp(ns: event.timeNs - t0Ns).timeval
        line += "        - ["
        line += pad(String(time.seconds), 3); line += ", "
        line += pad(String(time.microseconds), 6); line += ", "
        line += pad(String(event.type), 3); line += ", "
        line += pad(String(event.code), 3); line += ", "
        line += pad(String(event.value), 6); line += "] # "
        if event.isSynReport {
            line += "------------ SYN_REPORT (0) ----------\n"
        } else {
            line += EventNames.type(event.type); line += " / "
            line += EventNames.code(type: event.type, code: event.code); line += "\n"
        }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// A YAML double-quoted scalar that YAML readers decode to exactly `text`.
    static func quoted(_ text: String) -> String { TextEscaping.yamlQuoted(text) }
}
