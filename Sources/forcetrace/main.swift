import ForceTrace
import Foundation
import HDF5

/// A subcommand: its spec, how it reads its arguments, and what it does.
protocol Subcommand {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments) throws
    /// Returns the exit status.
    func run() throws -> Int32
}

/// Exit statuses. Usage errors get their own, as in libinput's tools.
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
}

nonisolated(unsafe) let subcommands: [any Subcommand.Type] = [
    ImportCommand.self,
    ExportCommand.self,
    InfoCommand.self,
    SimulateCommand.self,
    ReportCommand.self,
    DevicesCommand.self,
    RecordCommand.self,
    CalibrateCommand.self,
    SuggestCommand.self,
    LevelsCommand.self,
    WhatIfCommand.self,
    CapturePageCommand.self,
]

/// Every `print` of the CLI goes through checked standard output, so that
/// output cut short (a full disk, /dev/full) is an error naming the reason.
/// It takes only `TerminalText`: what it interpolates is shown escaped.
func print(_ text: TerminalText = "", terminator: TerminalText = "\n") {
    StandardOutput.write((text + terminator).rendered)
}

/// Shadows Swift's `print`, so that a `String` cannot reach the terminal unescaped.
@available(*, unavailable, message: "print TerminalText (interpolate the value), or printExact for a machine format")
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {}

/// A machine format (JSON, a quirks section) on standard output, exact: not
/// terminal text, so not escaped.
func printExact(_ text: String) {
    StandardOutput.write(text)
}

/// A line on standard error (errors, warnings, notes, status), as terminal text.
func printError(_ text: TerminalText) {
    let rendered = text.rendered
    StandardError.write(rendered.hasSuffix("\n") ? rendered : rendered + "\n")
}

/// `forcetrace --help`; forcetrace(1) is made from the same text (HelpFormats.swift).
nonisolated var mainHelp: TerminalText { ProgramHelp.helpText }

func runMain(_ arguments: [String]) -> Int32 {
    guard let first = arguments.first else {
        print(mainHelp, terminator: "")
        return ExitStatus.usage
    }
    if first == "--help" || first == "-h" || first == "help" {
        if first == "help", arguments.count > 1, let command = subcommands.first(where: { $0.spec.name == arguments[1] }) {
            print(command.spec.helpText, terminator: "")
        } else {
            print(mainHelp, terminator: "")
        }
        return ExitStatus.success
    }
    if let hook = HelpHook(rawValue: first) { return hook.run(arguments) }
    if first == "--version" {
        print("forcetrace \(ForceTraceVersion.string)")
        return ExitStatus.success
    }
    guard let command = subcommands.first(where: { $0.spec.name == first }) else {
        printError("Error: Unknown subcommand '\(first)'\nUsage: forcetrace <subcommand> [options]\n  See 'forcetrace --help'.")
        return ExitStatus.usage
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        print(command.spec.helpText, terminator: "")
        return ExitStatus.success
    }
    do {
        let parsed = try ParsedArguments.parse(rest, spec: command.spec)
        return try command.init(parsed).run()
    } catch let error as ParseError {
        printError("Error: \(error.message)\nUsage: \(command.spec.usageLine)\n  See 'forcetrace \(command.spec.name) --help'.")
        return ExitStatus.usage
    } catch {
        // One rendering for every failure: "file: message" and a hint;
        // HDF5's call chain only as the innermost cause.
        printError("Error: \(ForceTraceError.terminalText(error))")
        return ExitStatus.failure
    }
}

// A standard stream given closed stays closed, and no file opened later takes its number.
StandardStreams.holdClosed()
// Output to a closed pipe (`forcetrace export ... | head`) should end quietly.
signal(SIGPIPE, SIG_IGN)
// HDF5 faulted on a damaged file and may have overwritten memory first:
// the guard reports it and ends the process at once (CHDF5Guard.h).
hdf5ExitOnFault = true
// File names are bytes: CommandLine.arguments would replace what is not
// UTF-8, so the arguments are read as given (InputPath).
var status = runMain((1..<Int(CommandLine.argc)).compactMap { CommandLine.unsafeArgv[$0].map { InputPath.argument($0) } })
// Output cut short (a full disk, /dev/full) is a failure, not success.
if case .failed(let code) = StandardOutput.finish() {
    printError("Error: \(StandardOutput.message(forErrno: code))")
    status = ExitStatus.failure
}
if hdf5SkipsExitCleanup {
    // HDF5 faulted on a damaged file, or a file failed to close (a full
    // disk): skip its atexit cleanup, which would walk that broken state.
    fflush(nil)
    _exit(status)
}
exit(status)
