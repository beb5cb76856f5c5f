import ForceTrace
import Foundation
import HDF5

/// Exit status of `record` when the device disappeared mid-recording: the
/// file is closed and complete, but the capture did not end as asked.
enum RecordExitStatus {
    static let deviceRemoved: Int32 = 3
}

/// `forcetrace record`: capture a live device (or replay a recording through
/// the same pipeline) into a crash-safe trace file.
struct RecordCommand: Subcommand {
    static let spec = CommandSpec(
        name: "record",
        abstract: "Record a live evdev device into an HDF5 trace file (SWMR, crash-safe).",
        discussion: """
        DEVICE is a /dev/input/eventN path or a part of the device's name that matches
        exactly one device ('forcetrace devices' lists them). Without DEVICE, the one
        device with per-contact pressure is recorded.

        Timestamps are CLOCK_MONOTONIC. The device's state at start (axis values, MT
        slots, keys) is written as a first frame, so a touch already down is a contact
        from t = 0. After SYN_DROPPED, libevdev's resync delta is written after a
        'resync' marker. The file is flushed and fsynced every --flush-ms and is
        readable while recording (h5py: File(path, "r", swmr=True)); after a crash run
        'h5clear -s --increment=0 FILE.h5' before opening it without swmr=True.

        --scale reads a scale beside the device: a USB HID scale (/dev/hidrawN, the HID
        Scales page) or a serial one (/dev/ttyUSB0:9600, lines like "ST,+00123.45  g").
        Its readings, stamped on the same clock as the events, become the recording's
        force table when it stops (a crash loses them); unstable, overloaded and
        unreadable readings are flagged, never zero. A scale unplugged mid-recording
        ends the force table there, the recording goes on, and the exit status is 1.

        SIGINT or SIGTERM stops and closes the file cleanly (a second one kills).
        Exit status: 0 stopped as asked, 1 failure, 2 usage error, 3 the device was
        removed (the file is closed and complete up to that point).

        --replay feeds a recording (evemu, libinput record YAML, or raw input_event with
        --desc; "-" for standard input) through the same pipeline at its original pace
        (--speed X scales it, --fast does not wait); its tables equal 'import'. It is
        decoded as it plays, so memory does not grow with its length. Of a libinput
        file with several devices, the first is replayed.

        Keys: on a device with keyboard keys (a keyboard, or a touchpad sharing a node
        with one), letters, digits, punctuation, space, enter, the keypad and the
        modifiers are stored as KEY_A, and their MSC_SCAN as A's scancode, so the file
        does not hold what was typed (as libinput record does); BTN_* buttons are kept.
        --show-keycodes stores them as they are. The recording's 'keycodes' attribute
        says which ("obfuscated" or "as-is"), and a warning names the device before
        the first event. A device with keys and no pressure axis is a keyboard: it is
        refused unless --allow-keyboard is given. --replay keeps its input's keys.
        """,
        positionals: [PositionalSpec(name: "DEVICE", help: "Device path or name substring.", optional: true)],
        options: [
            .value("output", short: "o", "FILE.h5", "Trace file to write (required)."),
            .value("duration", "S", "Stop after S seconds."),
            .value("max-events", "N", "Stop after N events."),
            .grab,
            .recordingName,
            .value("label", "TEXT", "Free text stored as the recording's label attribute."),
            .flushMs,
            .value("compression", "0-9", "Deflate level for the tables (default 4)."),
            .flag("quiet", short: "q", "No status line."),
            .showKeycodes,
            .flag("allow-keyboard", "Record a device with keys and no pressure axis (a keyboard)."),
            .value("replay", "RECORDING", "Replay a recording (any format import reads) instead of reading a device."),
            .value("desc", "DESC", "Device description (evemu header) for a raw or events-only evemu --replay."),
            .value("speed", "X", "Replay at X times the original pace (default 1)."),
            .fast,
            .scale,
            .flag("force", short: "f", "Replace FILE.h5 if it exists."),
        ])

    let capture: CaptureOptions
    let options: RecorderOptions
    let name: String?
    let quiet: Bool
    var output: String { capture.output }

    init(_ arguments: ParsedArguments) throws {
        capture = try CaptureOptions(arguments, command: Self.spec.name, takesPacing: true)
        var options = RecorderOptions()
        if let seconds = try arguments.double("duration", in: 0.001...1e9) { options.durationNs = Int64(seconds * 1e9) }
        if let events = try arguments.int("max-events", in: 1...Int.max) { options.maxEvents = Int64(events) }
        options.compression = try Compression(deflateLevel: arguments.int("compression", in: 0...9) ?? 4)
        options.label = arguments.string("label")
        self.options = options
        name = arguments.string("name")
        quiet = arguments.flag("quiet")
    }

    func run() throws -> Int32 {
        var options = self.options
        let source = try capture.openSource(&options)
        let stop = try StopSignal()
        let scale = try capture.openScale()
        let recorder = try Recorder(source: source, path: output, name: name, options: options, replace: capture.force, scale: scale)
        let statusLine = ProgressLine(enabled: !quiet && FileDescriptor.standardError.isTerminal)
        if !quiet && FileDescriptor.standardError.isTerminal {
            printError("recording \(source.sourceName) \"\(source.device.name)\" to \(output):/recordings/\(recorder.recordingName); Ctrl-C stops")
        }
        let replayed = source as? ReplaySource
        let result = try recorder.run(stop: stop) { status in
            guard statusLine.isEnabled else { return }
            // A replay's time left, from how much of its file is decoded.
            let left = replayed.flatMap { ProgressLine.timeLeft(elapsed: Double(status.elapsedNs) / 1e9, fraction: $0.fractionRead) }
            statusLine.update("\(Self.statusText(status))\(left.map { "  " + $0 } ?? "")")
        }
        statusLine.clear()
        let summary = result.summary
        let why: String
        switch result.reason {
        case .signal: why = "stopped by \(result.signalName ?? "a signal")"
        case .duration: why = "duration reached"
        case .maxEvents: why = "event limit reached"
        case .deviceRemoved: why = "device removed"
        case .endOfInput: why = "end of replay"
        case .sessionComplete: why = "every trial done"
        }
        if let replayed = source as? ReplaySource, replayed.skippedRecordings > 0 {
            printError("warning: \(capture.replay ?? ""): holds more than one recording; only the first was replayed ('forcetrace import' takes them all)")
        }
        let counts = String(format: "%.3f s, %lld events, %lld frames, %lld contacts, %d resyncs", Double(result.elapsedNs) / 1e9,
                            summary.events, summary.frames, summary.contacts, result.resyncs)
        print("\(output): /recordings/\(summary.name): \(counts) (\(why))")
        if let why = result.notCompacted {
            printError("warning: \(output): marked complete in place, not compacted: \(why); the file keeps the live recording's dead space")
        }
        for anomaly in summary.anomalies {
            printError("warning: \(summary.name): event \(anomaly.eventIndex): \(anomaly.message)")
        }
        let scaleEnded = CaptureOptions.reportForce(result.force, output: output)
        if result.reason == .deviceRemoved {
            printError("\(source.sourceName): the device was removed (ENODEV); \(output) is closed and holds everything up to then")
            return RecordExitStatus.deviceRemoved
        }
        return scaleEnded ? ExitStatus.failure : ExitStatus.success
    }

    static func statusText(_ status: RecorderStatus) -> String {
        var text = String(format: "%7.1f s  %lld events  %.0f ev/s  %d contact%@", Double(status.elapsedNs) / 1e9,
                          status.events, status.eventsPerSecond, status.activeContacts, status.activeContacts == 1 ? "" : "s")
        if let pressure = status.maxPressure { text += "  max pressure \(pressure)" }
        return text
    }
}
