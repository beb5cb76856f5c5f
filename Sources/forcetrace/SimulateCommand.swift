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
        --device touchscreen|touchpad|touchpad-127|pressurepad|pen, each class's peaks drawn from a scripted
        range with gaps between the classes, plus two flawed trials (two fingers or a
        hover that touches, and one too short) that calibrate must discard. The ranges
        are written as '# forcetrace-calibration:' comments. Replay it with
        'forcetrace calibrate --replay FILE.evemu --protocol P -o OUT.h5 --fast'.
        --protocol force writes a trace file (FILE.h5) instead, since an evemu file
        holds no scale: a pen pressed onto a scale 6 times, alternately to 250 and
        500 gf, activating at 8 gf and saturating at 400 gf, with 15 gf of
        hysteresis, read by a scale 150 ms late; 'forcetrace suggest FILE.h5'
        finds those figures, 'forcetrace report --html' draws them.
        A pen session's person aims through a scripted curve, --pen-curve X1,Y1,X2,Y2
        (xsetwacom's form, 0-100; default \(PenScript.default.curve.points.map(String.init).joined(separator: ","))), over the raw range
        --pen-range LOW..HIGH (default \(PenScript.default.range.lowerBound)..\(PenScript.default.range.upperBound)): light, normal and firm strokes peak
        where that curve gives 25, 50 and 85 %, and 'suggest' recovers the curve.

        --protocol levels writes a levels session (levels --help) of a person who holds
        --capacity levels (default 4) every time and, at every larger count, misses --misses
        in 10 trials of each level (default 3, rounded up) into a neighbouring band, in the order --seed gives;
        plus two trials to be discarded (two fingers, one lifted before the hold).
        Replay it with 'forcetrace levels --replay FILE.evemu --seed N -o OUT.h5 --fast'
        with the same --seed, --levels and --trials.
        """,
        options: [
            .value("output", short: "o", "FILE.evemu", "Recording to write (required); - for standard output."),
            .value("seed", "N", "Random seed (default 1)."),
            .value("presses", "N", "Number of presses (default 24)."),
            .value("rate", "HZ", "Sensor scan rate (default 120)."),
            .value("kinds", "LIST", "Comma-separated press kinds, cycled (default: all)."),
            .value("position-noise", "UNITS", "Position noise sigma in device units (default 1.5)."),
            .value("pressure-noise", "UNITS", "Pressure noise sigma in device units (default 0.8)."),
            .choice("protocol", "PROTOCOL", "Simulate a calibration session: app, touchpad or pen; or levels.",
                    CalibrationProtocol.allCases.map(\.rawValue) + [LevelsLabels.protocolName]),
            .choice("device", "DEVICE", "With --protocol: touchscreen, touchpad, touchpad-127, pressurepad (pressure at 2 units per gram) or pen (default: the protocol's).", SimulatedDevice.allCases.map(\.rawValue)),
            .value("trials", "N", "With --protocol: trials per class (default \(CalibrationProtocol.defaultTrials))."),
            .value("pen-curve", "X1,Y1,X2,Y2", "With --protocol pen: the simulated person's curve."),
            .value("pen-range", "LOW..HIGH", "With --protocol pen: their usable raw range (within 1..4095)."),
            .value("levels", "LIST", "With --protocol levels: level counts, e.g. 2-7 (default 2-7)."),
            .value("capacity", "N", "With --protocol levels: levels the person holds reliably (default 4)."),
            .value("misses", "N", "With --protocol levels: trials in 10 that miss above the capacity (default 3)."),
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
    let penScript: PenScript
    /// Set for a levels session.
    let levels: (device: SimulatedDevice, plan: LevelsPlan, person: SimulatedLevelsPerson)?
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
        let device = arguments.string("device").flatMap(SimulatedDevice.init(rawValue:))
        let trials = try arguments.int("trials", in: 1...1000)
        let chosenProtocol = arguments.string("protocol")
        levels = try chosenProtocol == LevelsLabels.protocolName ? Self.levelsSession(arguments, device: device, trials: trials, seed: options.seed) : nil
        if chosenProtocol != LevelsLabels.protocolName, let option = ["levels", "capacity", "misses"].first(where: { arguments.string($0) != nil }) {
            throw ParseError.conflict("'--\(option)' needs '--protocol levels'")
        }
        holds = arguments.flag("holds")
        if levels != nil {
            if holds { throw ParseError.conflict("'--holds' needs '--protocol touchpad'") }
            calibration = nil
        } else if let chosen = chosenProtocol.flatMap(CalibrationProtocol.init(rawValue:)) {
            let fallback: SimulatedDevice = chosen == .app ? .touchscreen : chosen == .touchpad ? .touchpad : .pen
            calibration = (chosen, device ?? fallback, trials ?? CalibrationProtocol.defaultTrials)
            if holds && chosen != .touchpad { throw ParseError.conflict("'--holds' needs '--protocol touchpad'") }
        } else {
            if holds { throw ParseError.conflict("'--holds' needs '--protocol touchpad'") }
            if device != nil || trials != nil { throw ParseError.conflict("'\(device != nil ? "--device" : "--trials")' needs '--protocol PROTOCOL'") }
            calibration = nil
        }
        var script = PenScript.default
        if let text = arguments.string("pen-curve") {
            guard let curve = PressureCurve(parsing: text) else {
                throw ParseError.invalidValue(option: "--pen-curve", value: text, expected: "four integers 0-100, x1 <= x2 and y1 <= y2 (e.g. 40,10,80,60)")
            }
            script.curve = curve
        }
        if let text = arguments.string("pen-range") {
            let parts = text.components(separatedBy: "..").map { Int32($0) }
            guard parts.count == 2, let low = parts[0], let high = parts[1], 1 <= low, low < high, high <= 4095 else {
                throw ParseError.invalidValue(option: "--pen-range", value: text, expected: "LOW..HIGH, 1 <= LOW < HIGH <= 4095 (e.g. 300..3700)")
            }
            script.range = low...high
        }
        if (arguments.string("pen-curve") != nil || arguments.string("pen-range") != nil) && calibration?.protocol != .pen {
            throw ParseError.conflict("'--pen-curve' and '--pen-range' need '--protocol pen'")
        }
        penScript = script
    }

    func run() throws -> Int32 {
        if calibration?.protocol == .force { return try runForce() }
        if let calibration { return try runCalibration(calibration) }
        if let levels { return try runLevels(levels) }
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

    /// A force session: a trace file, since an evemu file holds no scale.
    private func runForce() throws -> Int32 {
        guard output != "-", output.hasSuffix(".h5") else {
            throw ParseError.invalidValue(option: "--output", value: output, expected: "FILE.h5 with --protocol force: the scale's readings need a trace file")
        }
        let target = try AtomicOutput(path: output, replace: force)
        let script = ForceScript()
        try script.writeSession(to: target.temporaryPath)
        try target.commit()
        report("force session on a simulated pen and scale: \(script.presses) presses, activation \(GramScale.text(script.activationGrams)), "
               + "saturation \(GramScale.text(script.saturationGrams)), scale lag \(script.lagNs / 1_000_000) ms")
        return ExitStatus.success
    }

    private func runCalibration(_ calibration: (protocol: CalibrationProtocol, device: SimulatedDevice, trials: Int)) throws -> Int32 {
        let simulation = CalibrationSimulator.run(device: calibration.device, protocol: calibration.protocol,
                                                  trials: calibration.trials, seed: options.seed, penScript: penScript, holds: holds)
        var comment = "simulated by forcetrace \(ForceTraceVersion.string): \(calibration.protocol.rawValue) calibration on a "
            + "\(calibration.device.rawValue), seed \(options.seed), \(calibration.trials) trials per class"
        for trialClass in calibration.protocol.classes {
            let range = simulation.peakRanges[trialClass]!
            comment += "\nforcetrace-calibration: class=\(trialClass.rawValue) peaks=\(range.lowerBound)..\(range.upperBound)"
        }
        if calibration.protocol == .pen {
            comment += "\nforcetrace-calibration: pen-curve=\(penScript.curve.points.map(String.init).joined(separator: ",")) "
                + "pen-range=\(penScript.range.lowerBound)..\(penScript.range.upperBound) targets=\(penScript.targets.text)"
        }
        try write(simulation.recording, comment: comment)
        let flawed = simulation.trials.filter { $0.flaw != nil }.count
        report("\(simulation.trials.count) trials (\(flawed) to be discarded), \(simulation.recording.events.count) events")
        return ExitStatus.success
    }

    private static func levelsSession(_ arguments: ParsedArguments, device: SimulatedDevice?, trials: Int?, seed: UInt64)
        throws -> (device: SimulatedDevice, plan: LevelsPlan, person: SimulatedLevelsPerson) {
        var counts = LevelsPlan.defaultCounts
        if let text = arguments.string("levels") {
            guard let parsed = LevelsPlan.parseCounts(text) else {
                throw ParseError.invalidValue(option: "--levels", value: text, expected: "counts 2..12 as 'A-B' or 'A,B,C'")
            }
            counts = parsed
        }
        guard trials.map({ $0 <= 100 }) ?? true else {
            throw ParseError.invalidValue(option: "--trials", value: String(trials!), expected: "1..100 with --protocol levels")
        }
        let capacity = try arguments.int("capacity", in: 1...12) ?? SimulatedLevelsPerson.standard.capacity
        let plan = LevelsPlan(counts: counts, trialsPerLevel: trials ?? LevelsPlan.defaultTrials, seed: seed)
        let misses = try arguments.int("misses", in: 0...10) ?? SimulatedLevelsPerson.standard.missesPerTen
        return (device ?? .touchscreen, plan, SimulatedLevelsPerson(capacity: capacity, missesPerTen: misses))
    }

    private func runLevels(_ levels: (device: SimulatedDevice, plan: LevelsPlan, person: SimulatedLevelsPerson)) throws -> Int32 {
        let simulation = LevelsSimulator.run(device: levels.device, plan: levels.plan, person: levels.person)
        let plan = levels.plan
        let comment = "simulated by forcetrace \(ForceTraceVersion.string): levels session on a \(levels.device.rawValue), seed \(plan.seed)"
            + "\nforcetrace-levels: seed=\(plan.seed) levels=\(plan.counts.map(String.init).joined(separator: ",")) trials=\(plan.trialsPerLevel) capacity=\(levels.person.capacity)"
        try write(simulation.recording, comment: comment)
        let flawed = simulation.trials.filter { $0.flaw != nil }.count
        report("\(simulation.trials.count) level trials (\(flawed) to be discarded), capacity \(levels.person.capacity), \(simulation.recording.events.count) events")
        return ExitStatus.success
    }

    /// Writes a simulated session as one evemu recording, the comment first.
    private func write(_ recording: Recording, comment: String) throws {
        let (stream, target) = try openOutput()
        let encoder = try EvemuCodec().encoder(to: stream, count: 1, comment: comment)
        try encoder.begin(RecordingHeader(device: recording.device, clock: recording.clock, t0Ns: recording.t0Ns,
                                          source: recording.source, name: recording.name), groundTruth: GroundTruth())
        try encoder.append(recording.events)
        try encoder.end()
        try encoder.finish()
        try stream.close()
        try target?.commit()
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
