import ForceTrace
import Foundation

extension ReportCommand {
    /// `report --merge PART.h5...`: reads `--save` files and renders their
    /// merged report (ForceTrace's `ReportMerge`), as `report` over all their
    /// inputs at once would with `--contacts 0`.
    func runMerge() throws -> Int32 {
        let parts = try ReportInputs.expand(inputs, savedReports: true, note: { printError($0) })
        for (option, output) in [("--save", save), ("--save-part", savePart), ("--html", html)] {
            guard let output else { continue }
            let target = URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path
            for part in parts where URL(fileURLWithPath: part).standardizedFileURL.resolvingSymlinksInPath().path == target {
                throw ParseError.conflict("\(option) \(output) is one of the parts; reports never modify their input")
            }
        }
        // As report computes the curve bands only for outputs that draw or store curves.
        let merged = try ReportMerge.read(parts, curves: save != nil || html != nil)
        if let save { try ReportMerge.write(merged, parts: parts, to: save, replace: force) }
        if let savePart { try ReportMerge.write(merged, parts: parts, to: savePart, replace: force, stateOnly: true) }
        return try output(merged.report, contactLimit: 0)
    }
}
