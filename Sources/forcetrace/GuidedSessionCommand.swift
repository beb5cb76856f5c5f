import ForceTrace
import Foundation

/// What `calibrate` and `levels` share around their sessions: the device
/// with a pressure axis, the recorder with a bar and a line per trial, and
/// the exit status once the capture ends. The sessions differ only in the
/// words they say.
struct GuidedSessionCommand<Session: GuidedSession> {
    let capture: CaptureOptions
    let name: String?
    let quiet: Bool

    /// Opens the device (or the replay); without a per-contact pressure
    /// axis it is closed again and `nothing` says why the session cannot run.
    func openSource(_ options: inout RecorderOptions, nothing: String) throws -> (source: any CaptureSource, axis: AxisInfo) {
        let source = try capture.openSource(&options)
        guard let axis = source.device.contactPressureAxis else {
            source.close()
            throw ForceTraceError.device("\(source.sourceName)", "\"\(source.device.name)\" has no per-contact pressure axis: \(nothing)",
                              hint: "'forcetrace devices' lists the devices with pressure")
        }
        return (source, axis)
    }

    /// Records until the session has every trial (or stops), saying
    /// `intro`, a prompt before each trial and a line after each; `bar`
    /// draws the pressure bar when standard error is a terminal.
    func record(_ guided: GuidedSessionSource<Session>, options: RecorderOptions, intro: TerminalText,
                prompt: (Session) -> TerminalText?, line: (Session.Update, Session) -> TerminalText,
                bar barText: (Int32, Session) -> TerminalText?) throws -> (result: RecorderResult, recording: String) {
        let stop = try StopSignal()
        let scale = try capture.openScale()
        let recorder = try Recorder(source: guided, path: capture.output, name: name, options: options, replace: capture.force, scale: scale)
        let terminal = !quiet && FileDescriptor.standardError.isTerminal
        let bar = ProgressLine(enabled: terminal)
        func ask() { if let text = prompt(guided.session) { Self.say(text) } }
        func report() {
            let updates = guided.takeUpdates()
            guard !updates.isEmpty else { return }
            bar.clear()
            for update in updates { Self.say(line(update, guided.session)) }
            ask()
        }
        Self.say(intro)
        ask()
        let result = try recorder.run(stop: stop) { _ in
            report()
            if terminal, let pressure = guided.session.currentPressure, let text = barText(pressure, guided.session) {
                bar.update(text)
            }
        }
        report()
        bar.clear()
        return (result, recorder.recordingName)
    }

    /// The exit status once the capture ended, with a word on standard
    /// error when it ended early; `uses` names what was computed from the
    /// trials so far.
    func exitStatus(_ result: RecorderResult, source: any CaptureSource, session: Session, uses: String) -> Int32 {
        let output = capture.output
        let scaleEnded = CaptureOptions.reportForce(result.force, output: output)
        if result.reason == .deviceRemoved {
            printError("\(source.sourceName): the device was removed (ENODEV); \(output) keeps the \(session.trials.count) trials so far")
            return RecordExitStatus.deviceRemoved
        }
        guard session.isComplete else {
            printError("warning: stopped after \(session.trials.count) of \(session.schedule.count) trials (\(result.reason.rawValue)); the \(uses) uses those, and \(output) keeps them")
            return ExitStatus.failure
        }
        return scaleEnded ? ExitStatus.failure : ExitStatus.success
    }

    /// Prompts and results go to standard output, flushed at once: a person
    /// or a script waits on each.
    static func say(_ line: TerminalText) {
        print(line)
        fflush(nil)  // all streams: stdout is not concurrency-safe to name in Swift 6
    }
}
