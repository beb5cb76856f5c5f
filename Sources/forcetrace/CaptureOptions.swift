import ForceTrace
import Foundation

/// `--show-keycodes` and `--allow-keyboard`, shared by `record` and `calibrate`.
struct KeyOptions {
    let handling: KeyCodeHandling
    let allowKeyboard: Bool

    init(_ arguments: ParsedArguments, replay: Bool) throws {
        handling = arguments.flag("show-keycodes") ? .asIs : .obfuscated
        allowKeyboard = arguments.flag("allow-keyboard")
        if replay, handling == .asIs || allowKeyboard {
            throw ParseError.conflict("'\(allowKeyboard ? "--allow-keyboard" : "--show-keycodes")' applies to a live DEVICE; '--replay' keeps its recording's key codes as they are")
        }
    }

    /// Opens `path` for capture under the keyboard rules: refuses a keyboard
    /// without --allow-keyboard, warns before the first event when the device
    /// has keys, and obfuscates common keys unless --show-keycodes.
    func openLiveSource(path: String, grab: Bool, command: String) throws -> any CaptureSource {
        let live = try LiveDeviceSource(path: path, grab: grab) { description in
            try KeyboardPolicy.check(description, path: path, allowKeyboard: allowKeyboard, command: command)
        }
        if let warning = KeyboardPolicy.warning(live.device, path: path, handling: handling) { printError("\(warning)") }
        return handling == .obfuscated && live.device.hasCommonKeys ? KeyObfuscatingSource(live) : live
    }
}

/// What `record` and `calibrate` capture from, and how: a live DEVICE (or
/// the one device with pressure) or `--replay`, with `--grab`, the key rules,
/// `--flush-ms`, and the output checks. Each command lists the options in
/// its own spec, with its own help; the rules are here, once.
struct CaptureOptions {
    let command: String
    let device: String?
    let output: String
    let force: Bool
    let replay: String?
    /// `--desc`, for commands that take it.
    let description: String?
    /// Replay pace: nil as fast as possible, 1 the original.
    let speed: Double?
    let grab: Bool
    let keys: KeyOptions
    let flushIntervalNs: Int64?
    /// `--scale DEVICE[:BAUD]`: a scale read beside the device.
    let scale: ScaleAddress?

    /// - Parameter takesPacing: the command has `--speed` and `--desc` (record).
    init(_ arguments: ParsedArguments, command: String, takesPacing: Bool) throws {
        self.command = command
        device = arguments.positional("DEVICE")
        guard let output = arguments.string("output") else { throw ParseError.missingArgument("--output FILE.h5") }
        self.output = output
        force = arguments.flag("force")
        replay = arguments.string("replay")
        grab = arguments.flag("grab")
        flushIntervalNs = try arguments.int("flush-ms", in: 1...1000).map { Int64($0) * 1_000_000 }
        description = takesPacing ? arguments.string("desc") : nil
        if replay == nil, description != nil { throw ParseError.conflict("'--desc' needs '--replay RECORDING'") }
        let fast = arguments.flag("fast")
        let scale = takesPacing ? try arguments.double("speed", in: 0.001...1e6) : nil
        if replay == nil, fast || scale != nil {
            throw ParseError.conflict("'\(fast ? "--fast" : "--speed")' needs '--replay RECORDING'")
        }
        if fast, scale != nil { throw ParseError.conflict("'--speed' and '--fast' cannot be combined") }
        if replay != nil, let device { throw ParseError.conflict("give either DEVICE ('\(device)') or '--replay', not both") }
        if replay != nil, grab { throw ParseError.conflict("'--grab' needs a live DEVICE, not '--replay'") }
        keys = try KeyOptions(arguments, replay: replay != nil)
        speed = fast ? nil : (scale ?? 1)
        if let text = arguments.string("scale") {
            if replay != nil { throw ParseError.conflict("'--scale' needs a live DEVICE: a replay's events are not on the scale's clock") }
            switch ScaleAddress.parse(text) {
            case .success(let address): self.scale = address
            case .failure(let error): throw ParseError.invalidValue(option: "--scale", value: text, expected: "a serial rate, \(error.hint ?? "")")
            }
        } else {
            self.scale = nil
        }
    }

    /// Opens `--scale` and starts reading it; nil without it. Called once
    /// the device is open, so every reading falls after the recording's t0.
    func openScale() throws -> ScaleCapture? {
        guard let scale else { return nil }
        return try ScaleCapture(try scale.open())
    }

    /// Says what the scale gave, on standard error; whether it ended early
    /// (unplugged), which makes the command exit 1 with the file kept.
    static func reportForce(_ force: ForceTable?, output: String) -> Bool {
        guard let force else { return false }
        let withoutWeight = force.readings.filter { $0.grams.isNaN }.count
        printError("force: \(force.readings.count) readings from \(force.device) (\(withoutWeight) without a weight) in \(output)")
        if let error = force.scaleError {
            printError("warning: \(force.device): \(error); the force table keeps the readings before that")
            return true
        }
        return false
    }

    /// Checks the output, then opens the source; a live device's key handling
    /// and the flush interval go into `options`.
    func openSource(_ options: inout RecorderOptions) throws -> any CaptureSource {
        try Self.checkOutput(output, force: force, inputs: replay.map { [$0] } ?? [])
        if let flushIntervalNs { options.flushIntervalNs = flushIntervalNs }
        if let replay {
            return try ReplaySource(path: replay, options: DecodeOptions(descriptionPath: description), speed: speed)
        }
        let path = try device.map { try InputDevices.resolve($0) } ?? Self.onlyPressureDevice(command: command)
        options.keyCodes = keys.handling
        return try keys.openLiveSource(path: path, grab: grab, command: command)
    }

    /// The output is created beside its path and moved there once it is a
    /// valid trace, so refuse to clobber by accident, refuse an input as the
    /// output, and with --force refuse a file another process holds.
    static func checkOutput(_ output: String, force: Bool, inputs: [String] = []) throws {
        let target = try OutputTarget.resolve(output, replace: force, inputs: inputs)
        if force { try OutputPath.refuseIfHeld(target.anchoredPath, shownAs: output) }
    }

    /// Without DEVICE: the single device whose contacts have pressure.
    static func onlyPressureDevice(command: String) throws -> String {
        let entries = try InputDevices.list()
        let capable = entries.filter { $0.description?.forceCapability == .available }
        if capable.count == 1 { return capable[0].path }
        let unreadable = entries.filter { $0.error != nil }.count
        if capable.isEmpty {
            throw ForceTraceError.device(InputDevices.defaultDirectory, "no device with per-contact pressure found"
                              + (unreadable > 0 ? " (\(unreadable) could not be opened)" : ""),
                              hint: "name the device: 'forcetrace \(command) DEVICE -o FILE.h5'; 'forcetrace devices' lists them")
        }
        throw ForceTraceError.device(InputDevices.defaultDirectory,
                          "\(capable.count) devices have pressure: " + capable.map { "\($0.path) (\($0.description!.name))" }.joined(separator: ", "),
                          hint: "name the one to use: 'forcetrace \(command) DEVICE -o FILE.h5'")
    }
}

/// The capture options' specs, one help text each, for `record`, `calibrate`
/// and `levels`.
extension OptionSpec {
    static let recordingName = OptionSpec.value("name", "NAME", "Recording group name (default: the device's name).")
    static let flushMs = OptionSpec.value("flush-ms", "MS", "Flush and fsync at least every MS milliseconds (default 250, at most 1000).")
    static let grab = OptionSpec.flag("grab", "Grab the device (EVIOCGRAB): no other program sees its events.")
    static let showKeycodes = OptionSpec.flag("show-keycodes", "Store keyboard key codes as they are (default: common keys become KEY_A).")
    static let fast = OptionSpec.flag("fast", "Replay without waiting between events.")
    static let scale = OptionSpec.value("scale", "SCALE[:BAUD]",
                                        "Record a scale's force beside the device: /dev/hidrawN (USB HID scale) or a serial tty at BAUD (default 9600).")
    /// A guided session's (calibrate, levels) capture options, in their help's order.
    static let guidedSessionCapture: [OptionSpec] = [
        recordingName, flushMs, grab, showKeycodes, scale,
        .flag("allow-keyboard", "Use a device with keys and no pressure axis."),
        .value("replay", "RECORDING", "Run the session on an evemu recording instead of a device."),
        fast,
    ]
}
