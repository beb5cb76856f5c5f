import Foundation

extension PressureReport {
    /// `report --html`'s "What libinput would do" panel for a touchpad or
    /// tablet recording: `whatif` for the installed libinput (else the newest)
    /// with its shipped quirks, read again from the trace file (a merged
    /// report's parts hold no events: no panel).
    func whatIfPanel(_ analysis: RecordingAnalysis) -> String {
        guard analysis.device.isPen || LibinputUdevType(analysis.device) == .touchpad else { return "" }
        let choice = LibinputChoice.choose(nil, installed: LibinputChoice.onThisMachine)!
        guard let reader = try? TraceReader(path: analysis.file), let trace = try? reader.recording(analysis.name),
              let sets = try? LibinputQuirkSet.sets(device: trace.device, shippedFolder: LibinputQuirkSet.shippedFolder(for: choice, given: nil).folder,
                                                    candidates: [], rules: choice.rules),
              let whatIf = try? WhatIfAnalysis.run(trace, file: analysis.file, quirkSets: sets, libinput: choice) else { return "" }
        return whatIf.htmlPanel
    }
}

extension WhatIfAnalysis {
    /// A table of the same rows as the text, one column per quirk set; every text escaped.
    var htmlPanel: String {
        var table = "<table class=\"confusion\" data-chart=\"whatif\"><thead><tr><th></th>"
        table += results.map { "<th>\(esc($0.quirks.name))</th>" }.joined() + "</tr></thead><tbody>\n"
        for row in rows() {
            table += "<tr><th>\(esc(row.label))</th>" + row.cells.map { "<td>\(esc($0))</td>" }.joined() + "</tr>\n"
        }
        table += "</tbody></table>\n"
        let notes = results.flatMap { result in self.notes(result).map { "\(result.quirks.name): \($0)" } }
        let caption = "The \(kind.rawValue) pressure rules of \(libinput.label) over this recording (forcetrace whatif; docs/ANALYSIS.md). "
            + notes.joined(separator: " ")
        return "<figure class=\"card chart\" data-figure=\"whatif\"><h3>What libinput would do</h3>\(table)<figcaption>\(esc(caption))</figcaption></figure>\n"
    }
}
