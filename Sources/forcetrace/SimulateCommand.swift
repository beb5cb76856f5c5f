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
        """,
        options: [
            .value("output", short: "o", "FILE.evemu", "Recording to write (required)."),
            .value("seed", "N", "Random seed (default 1)."),
            .value("presses", "N", "Number of presses (default 24)."),
            .value("rate", "HZ", "Sensor scan rate (default 120)."),
            .value("kinds", "LIST", "Comma-separated press kinds, cycled (default: all)."),
            .value("position-noise", "UNITS", "Position noise sigma in device units (default 1.5)."),
            .value("pressure-noise", "UNITS", "Pressure noise sigma in device units (default 0.8)."),
            .flag("force", short: "f", "Replace the output if it exists."),
        ])

    let output: String
    let options: SimulationOptions
    let force: Bool

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
    }

    func run() throws -> Int32 {
        let target = try AtomicOutput(path: output, replace: force)
        let stream = try ByteOutput(path: target.temporaryPath)
        let comment = "simulated by forcetrace \(ForceTraceVersion.string): seed \(options.seed), \(options.presses) presses, \(options.rateHz) Hz"
        // Streamed frame by frame into the file: memory holds the script, not the events.
        let written = try Simulator.stream(options, into: try EvemuCodec().encoder(to: stream, count: 1, comment: comment))
        try stream.close()
        try target.commit()
        print("\(output): \(written.presses) contacts, \(written.events) events")
        return ExitStatus.success
    }
}
