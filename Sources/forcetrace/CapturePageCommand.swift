import ForceTrace
import Foundation

/// `forcetrace capture-page`: the page that records traces in a browser.
struct CapturePageCommand: Subcommand {
    static let spec = CommandSpec(
        name: "capture-page",
        abstract: "Write a self-contained HTML page that records pressure traces in any browser.",
        discussion: """
        OUT.html is one file that loads nothing (its Content-Security-Policy allows
        only its own script and stylesheet): open it from disk on a phone, a tablet
        or a laptop. It runs calibrate's guided protocols (app: tap, peek-press,
        pop-press; pen: hover and strokes), shows the current force and each trial's
        prompt, and records pointer events (pressure, tilt, altitude and azimuth,
        twist, size, the coalesced events), touch events (Touch.force, radii,
        rotation, touchType: iOS 3D Touch and Apple Pencil) and Safari's webkitForce
        events (macOS Force Touch trackpads), with the screen size, devicePixelRatio,
        user agent and performance.timeOrigin. Save JSON downloads one capture file;
        Copy JSON copies it. 'forcetrace import CAPTURE.json -o FILE.h5' turns it into
        a recording per kind of input, with the trials as calibrate's labels, so
        'report', 'suggest' and 'levels' read it (docs/FORMAT.md, "Browser captures").
        Opening OUT.html with '#protocol=app&trials=5' starts that session at once.
        """,
        positionals: [],
        options: [
            .value("output", short: "o", "OUT.html", "Page to write (required)."),
            .flag("force", short: "f", "Replace OUT.html if it exists."),
        ])

    let output: String
    let force: Bool

    init(_ arguments: ParsedArguments) throws {
        guard let output = arguments.string("output") else { throw ParseError.missingArgument("--output OUT.html") }
        self.output = output
        force = arguments.flag("force")
    }

    func run() throws -> Int32 {
        try OutputPath.check(output, replace: force)
        let target = try AtomicOutput(path: output, replace: force)
        do {
            try Data(CapturePage.html().utf8).write(to: URL(fileURLWithPath: target.temporaryPath))
            try target.commit()
        } catch let error as ForceTraceError {
            target.discard()
            throw error
        } catch {
            target.discard()
            throw ForceTraceError(file: output, "cannot write the capture page: \(error.localizedDescription)", kind: .output)
        }
        print("wrote the capture page to \(output): open it in a browser, run a protocol, save the JSON, then 'forcetrace import FILE.json -o FILE.h5'")
        return ExitStatus.success
    }
}
