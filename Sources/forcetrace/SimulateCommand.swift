import ForceTrace
import Foundation

/// `forcetrace simulate`: plausible presses on a pressure touchscreen.
struct SimulateCommand: Subcommand {
    static let spec = CommandSpec(
        name: "simulate",
        abstract: "Simulate presses on a pressure-capable touchscreen (evemu).",
        discussion: """
        The device is multitouch protocol B with ABS_MT_PRESSURE 0..255, scanned at
        --rate Hz with timing jitter, Gaussian noise, the kernel's fuzz filter and
        only changed values sent. Press kinds: \(PressKind.allCases.map(\.rawValue).joined(separator: ", ")).
        The same --seed gives the same file.

        --protocol app|touchpad|pen writes a calibration session instead: a simulated
        person doing --trials rounds of the protocol's trials (calibrate --help) on
        --device touchscreen|touchpad|pen, each class's peaks drawn from a scripted
        range with gaps between the classes, plus two flawed trials (two fingers or a
        hover that touches, and one too short) that calibrate must discard. The ranges
        are written as '# forcetrace-calibration:' comments. Replay it with
        'forcetrace calibrate --replay FILE.evemu --protocol P -o OUT.h5 --fast'.
        """,
        options: [
            .value("output", short: "o", "FILE.evemu", "Recording to write (required); - for standard output."),
            .value("seed", "N", "Random seed (default 1)."),
            .value("presses", "N", "Number of presses (default 24)."),
            .value("rate", "HZ", "Sensor scan rate (default 120)."),
            .value("kinds", "LIST", "Comma-separated press kinds, cycled (default: all)."),
            .value("position-noise", "UNITS", "Position noise sigma in device units (default 1.5)."),
            .value("pressure-noise", "UNITS", "Pressure noise sigma in device units (default 0.8)."),
            .value("protocol", "PROTOCOL", "Simulate a calibration session: app, touchpad or pen."),
            .value("device", "DEVICE", "With --protocol: touchscreen, touchpad or pen (default: the protocol's)."),
            .value("trials", "N", "With --protocol: trials per class (default \(CalibrationProtocol.defaultTrials))."),
            .flag("holds", "With --protocol touchpad: add the steady holds (2 s, light and normal, with noise) to each round."),
            .flag("force", short: "f", "Replace the output if it exists."),
            .flag("quiet", short: "q", "No progress line (it shows only on a terminal)."),
        ])

    let output: String
    let options: SimulationOptions
    let force: Bool
    let quiet: Bool
    /// Set for a calibration session.
    let calibration: (protocol: CalibrationProtocol, device: SimulatedDevice, trials: Int)?
    let holds: Bool

    init(_ arguments: ParsedArguments) throws {
        guard let output = arguments.string("output") else { throw ParseError.missingArgument("--output FILE.evemu") }
        self.output = output
        var options = SimulationOptions()
        if let seed = arguments.string("seed") {
            guard let value = UInt64(seed) else {
                throw ParseError.invalidValue(option: "--seed", value: seed, expected: "a non-negative integer")
            }
            options.seed = value
        }
        options.presses = try arguments.int("presses", in: 1...100_000) ?? options.presses
        options.rateHz = try arguments.double("rate", in: 10...1000) ?? options.rateHz
        options.positionNoise = try arguments.double("position-noise", in: 0...100) ?? options.positionNoise
        options.pressureNoise = try arguments.double("pressure-noise", in: 0...50) ?? options.pressureNoise
        if let kinds = arguments.string("kinds") {
            options.kinds = try kinds.split(separator: ",").map { name in
                guard let kind = PressKind(rawValue: String(name)) else {
                    throw ParseError.invalidValue(option: "--kinds", value: String(name),
                                                  expected: "one of " + PressKind.allCases.map(\.rawValue).joined(separator: ", "))
                }
                return kind
            }
        }
        self.options = options
        force = arguments.flag("force")
        quiet = arguments.flag("quiet")
        let device = try arguments.choice("device", SimulatedDevice.allCases.map(\.rawValue)).flatMap(SimulatedDevice.init(rawValue:))
        let trials = try arguments.int("trials", in: 1...1000)
        holds = arguments.flag("holds")
        if let chosen = try arguments.choice("protocol", CalibrationProtocol.allCases.map(\.rawValue)).flatMap(CalibrationProtocol.init(rawValue:)) {
            let fallback: SimulatedDevice = chosen == .app ? .touchscreen : chosen == .touchpad ? .touchpad : .pen
            calibration = (chosen, device ?? fallback, trials ?? CalibrationProtocol.defaultTrials)
            if holds && chosen != .touchpad { throw ParseError.conflict("'--holds' needs '--protocol touchpad'") }
        } else {
            if holds { throw ParseError.conflict("'--holds' needs '--protocol touchpad'") }
            if device != nil || trials != nil { throw ParseError.conflict("'\(device != nil ? "--device" : "--trials")' needs '--protocol PROTOCOL'") }
            calibration = nil
        }
    }

    func run() throws -> Int32 {
        if let calibration { return try runCalibration(calibration) }
        let (stream, target) = try openOutput()
        let comment = "simulated by forcetrace \(ForceTraceVersion.string): seed \(options.seed), \(options.presses) presses, \(options.rateHz) Hz"
        // Streamed frame by frame into the file: memory holds the script, not the events.
        let progress = ProgressLine(quiet: quiet)
        var counting: CountingEncoder?
        // The labels' times span the script: how far the events have come.
        counting = CountingEncoder(try EvemuCodec().encoder(to: stream, count: 1, comment: comment)) { events, timeNs in
            guard progress.isEnabled, let counting, let t0 = counting.header?.t0Ns else { return }
            let endNs = counting.groundTruth.labels.last?.tNs ?? t0
            progress.count("simulating \(output)", done: events, unit: "events",
                           fraction: endNs > t0 ? Double(timeNs - t0) / Double(endNs - t0) : nil)
        }
        let written = try Simulator.stream(options, into: counting!)
        try stream.close()
        try target?.commit()
        progress.clear()
        report("\(written.presses) contacts, \(written.events) events")
        return ExitStatus.success
    }

    private func runCalibration(_ calibration: (protocol: CalibrationProtocol, device: SimulatedDevice, trials: Int)) throws -> Int32 {
        let simulation = CalibrationSimulator.run(device: calibration.device, protocol: calibration.protocol,
                                                  trials: calibration.trials, seed: options.seed, holds: holds)
        var comment = "simulated by forcetrace \(ForceTraceVersion.string): \(calibration.protocol.rawValue) calibration on a "
            + "\(calibration.device.rawValue), seed \(options.seed), \(calibration.trials) trials per class"
        for trialClass in calibration.protocol.classes {
            let range = simulation.peakRanges[trialClass]!
            comment += "\nforcetrace-calibration: class=\(trialClass.rawValue) peaks=\(range.lowerBound)..\(range.upperBound)"
        }
        let (stream, target) = try openOutput()
        let recording = simulation.recording
        let encoder = try EvemuCodec().encoder(to: stream, count: 1, comment: comment)
        try encoder.begin(RecordingHeader(device: recording.device, clock: recording.clock, t0Ns: recording.t0Ns,
                                          source: recording.source, name: recording.name), groundTruth: GroundTruth())
        try encoder.append(recording.events)
        try encoder.end()
        try encoder.finish()
        try stream.close()
        try target?.commit()
        let flawed = simulation.trials.filter { $0.flaw != nil }.count
        report("\(simulation.trials.count) trials (\(flawed) to be discarded), \(simulation.recording.events.count) events")
        return ExitStatus.success
    }

    /// Standard output for "-", else a temporary that `commit` moves into place.
    private func openOutput() throws -> (ByteOutput, AtomicOutput?) {
        if output == "-" { return (ByteOutput.standardOutput(), nil) }
        let target = try AtomicOutput(path: output, replace: force)
        return (try ByteOutput(path: target.temporaryPath), target)
    }

    /// The closing line: on standard error when standard output holds the recording.
    private func report(_ what: String) {
        if output == "-" { printError("standard output: \(what)") } else { print("\(output): \(what)") }
    }
}
