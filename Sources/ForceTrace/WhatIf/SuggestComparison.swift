import Foundation

extension WhatIfAnalysis {
    /// What `suggest --format quirks` says of its own section: the calibration
    /// run under one libinput release's defaults (with the shipped quirks in
    /// `shippedFolder`) and under those plus `section`, as `whatif` would compare them.
    /// Nil when the device is no touchpad or tablet libinput would read.
    public static func suggestComment(_ trace: TraceRecording, file: String, section: String,
                                      shippedFolder: String? = LibinputQuirksFile.shippedFolder,
                                      libinput: LibinputChoice = LibinputChoice(source: .newest, version: LibinputRules.newest)) throws -> String? {
        let shipped = try shippedFolder.map { try LibinputQuirksFile.folder($0) } ?? []
        let candidate = LibinputQuirksFile(path: "suggested section", text: section)
        let rules = libinput.rules[0]
        let sets = [LibinputQuirkSet(name: "defaults", files: shipped, device: trace.device, rules: rules),
                    LibinputQuirkSet(name: "suggested", files: shipped + [candidate], device: trace.device, rules: rules)]
        guard sets[1].matched.contains(where: { $0.hasPrefix("suggested section:") }) else { return nil }
        return try run(trace, file: file, quirkSets: sets, libinput: libinput).comparisonComment
    }
}
