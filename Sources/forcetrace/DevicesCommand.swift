import ForceTrace
import Foundation

/// `forcetrace devices`: the evdev devices and what they can record.
struct DevicesCommand: Subcommand {
    static let spec = CommandSpec(
        name: "devices",
        abstract: "List input devices and whether they report pressure.",
        discussion: """
        Opens every /dev/input/event* node through libevdev and prints its name, bus,
        vendor and product, whether it is multitouch protocol B (and its slots), its
        pressure axis, whether it is a pen, and a one-word verdict:
          available    each contact has its own pressure (ABS_MT_PRESSURE, or
                       ABS_PRESSURE on single-touch devices and pens)
          shared       multitouch with ABS_PRESSURE only: one value for all contacts
          unavailable  no pressure axis
        A device with letter keys is marked 'keyboard: yes': record and calibrate
        obfuscate its key codes, and refuse it without --allow-keyboard when it has
        no pressure axis.
        Exits 1 when some device could not be opened (it is listed with the reason).
        """,
        options: [.flag("json", "Print JSON instead of text.")])

    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        json = arguments.flag("json")
    }

    func run() throws -> Int32 {
        let entries = try InputDevices.list()
        if json {
            printExact(InputDevices.json(entries))
        } else if entries.isEmpty {
            printError("\(InputDevices.defaultDirectory) has no event devices")
        } else {
            print(entries.map(\.text).joined(separator: "\n"), terminator: "")
        }
        let failed = entries.filter { $0.error != nil }
        guard failed.isEmpty else {
            if failed.contains(where: { $0.error?.errno == EACCES || $0.error?.errno == EPERM }) {
                printError("warning: \(failed.count) of \(entries.count) devices could not be opened: evdev nodes belong to the 'input' group; add yourself (usermod -aG input $USER, then log in again) or run as root")
            } else {
                printError("warning: \(failed.count) of \(entries.count) devices could not be opened")
            }
            return ExitStatus.failure
        }
        return ExitStatus.success
    }
}
