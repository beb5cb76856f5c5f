import Foundation

/// What `suggest --format` writes.
public enum SuggestionFormat: String, CaseIterable, Sendable {
    case text, json, quirks
    /// A pen's settings for one desktop (`PenSetting`, Calibration/PenSettings.swift).
    case xsetwacom, gsettings, kwin
    case libinputRange = "libinput-range"
    case hyprland
    /// A Lua plugin for libinput ≥ 1.30 (`LibinputPlugin`).
    case libinputPlugin = "libinput-plugin"
}

extension CalibrationSuggestion {
    func percent(_ value: Int32) -> String {
        axis.normalized(value).map { String(format: "%.0f %%", $0 * 100) } ?? "-"
    }

    /// The pressure axis's grams, where its resolution gives them (`GramScale`).
    public var grams: GramScale? { GramScale(axis: axis) }

    /// A raw pressure, with its grams where the axis gives them.
    func raw(_ value: Int32) -> String { grams?.beside(Double(value)) ?? "\(value)" }

    private func line(_ name: String, _ value: QuirkValue) -> TerminalText {
        switch value {
        case .value(let raw, let note):
            "  \(name) = \(raw) (\(grams.map { GramScale.text($0.grams(raw)) + ", " } ?? "")\(percent(raw)) of the range): \(note)\n"
        case .omitted(let reason): "  \(name): left out: \(reason)\n"
        }
    }

    /// The human-readable suggestion; the file, recording and device names
    /// shown escaped.
    public var text: TerminalText {
        var text: TerminalText = "\(file): /recordings/\(recording): \(calibrationProtocol.rawValue) calibration, \"\(device.name)\", "
        text += "\(axis.name) \(axis.minimum)..\(axis.maximum)"
        if let grams { text += " (\(grams.describe(axis)))" }
        text += "\n"
        text += "  trials: \(calibrationProtocol.classes.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", "))\n"
        switch payload {
        case .app(nil): break
        case .app(let app?):
            let t = app.thresholds
            text += "\(String(format: "  peek = %.2f", t.peek)) (raw \(raw(app.peekRaw))), \(String(format: "pop = %.2f", t.pop)) (raw \(raw(app.popRaw)))"
            text += "\(String(format: ": balanced accuracy %.3f over the labelled trials", t.balancedAccuracy ?? 0))\n"
            if let confusion = t.confusion {
                text += "  confusion (rows: asked for; columns: classified as tap, peek-press, pop-press):\n"
                for label in PressClass.allCases {
                    let cells: [String] = PressClass.allCases.map { String(format: "%6lld", confusion[label: label, found: $0]) }
                    text += "    \(TerminalText(escaping: label.rawValue).padded(to: 11))\(cells.joined())\n"
                }
            }
            text += "  pop-presses reaching pop: \(app.reachedPop) of \(app.popPresses)"
            if let median = app.medianTimeToPopMs { text += "\(String(format: ", median %.0f ms after touch-down", median))" }
            text += "\n"
            for entry in app.beforeTimeout {
                text += "  before a \(entry.timeoutMs) ms long-press timeout: \(entry.count) of \(app.popPresses)"
                if let saved = entry.medianSavedMs { text += "\(String(format: ", saving a median %.0f ms", saved))" }
                text += "\n"
            }
        case .touchpad(let touchpad):
            text += line("AttrPressureRange N (touch begins at >= N)", touchpad.begin)
            text += line("AttrPressureRange M (touch ends below M)", touchpad.end)
            text += line("AttrThumbPressureThreshold P", touchpad.thumb)
            text += line("AttrPalmPressureThreshold O", touchpad.palm)
            if let holds = touchpad.holds { text += "  \(holds.summary)\n" }
            let range = Double(axis.maximum) - Double(axis.minimum)
            let defaults = String(format: "  libinput without a quirk: touch begins at %d, ends below %d, palm at %d; no thumb threshold",
                                  Int32((Double(axis.minimum) + range * Self.libinputBeginFraction).rounded()),
                                  Int32((Double(axis.minimum) + range * Self.libinputEndFraction).rounded()), Self.libinputPalmDefault)
            text += "\(defaults)\n"
        case .pen(let pen):
            if let hover = pen.hoverMax { text += "  hover noise: up to \(hover)\n" }
            text += line("tip threshold (AttrPressureRange N)", pen.tip)
            text += line("tip release (AttrPressureRange M)", pen.release)
            if let profile = pen.profile { text += penProfileText(profile) }
        case .force(let force):
            if let force { text += force.text }
        }
        for note in notes { text += "  note: \(note)\n" }
        return text
    }

    /// A confusion matrix row by row (rows: asked for; columns: classified as).
    public static func cells(_ matrix: ConfusionMatrix) -> [Int] {
        PressClass.allCases.flatMap { label in PressClass.allCases.map { Int(matrix[label: label, found: $0]) } }
    }

    /// libinput's name for a bus in `MatchBus`, where it has one.
    static func libinputBus(_ bus: UInt16) -> String? {
        switch bus {
        case 0x03: "usb"
        case 0x05: "bluetooth"
        case 0x11: "ps2"
        case 0x18: "i2c"
        case 0x1d: "rmi"
        default: nil
        }
    }

    /// `--format quirks`: a libinput quirks section (libinput's
    /// doc/user/device-quirks.rst), or nil with the reason for the app protocol.
    /// - Parameter date: written into the comment.
    /// - Parameter whatIf: a comment on what the section changes (`WhatIfAnalysis.suggestComment`).
    /// - Parameter release: the libinput release that will read the section, and its name.
    public func quirks(date: Date = Date(), whatIf: String? = nil,
                       release: (rules: LibinputRules, name: String) = (LibinputRules.history.last!, LibinputRules.newest.description))
        -> Result<String, ForceTraceError> {
        var attributes: [(key: String, value: String)] = []
        var comments: [String] = []
        let udevType: String
        switch payload {
        case .force:
            return .failure(ForceTraceError(file: file, "the force protocol measures the pen in gram-force; it has no libinput quirk",
                                       hint: "use --format text or json"))
        case .app:
            return .failure(ForceTraceError(file: file, "the app protocol's peek/pop thresholds have no libinput quirk",
                                       hint: "use --format text or json; quirks come from the touchpad and pen protocols"))
        case .touchpad(let touchpad):
            udevType = "touchpad"
            if case .pressurePad(let reason) = TouchpadPressureSetup(device: device, quirks: LibinputQuirkSet(name: "", rules: release.rules)).ignored {
                return .failure(ForceTraceError(file: file, "libinput \(release.name) ignores this touchpad's pressure: \(reason.explanation), so it is a pressure pad (tp_init_pressurepad), and no pressure quirk changes anything there",
                                           hint: "pressure pads click by force; their touches are decided by BTN_TOUCH"))
            }
            if let n = touchpad.begin.value, let m = touchpad.end.value { attributes.append(("AttrPressureRange", "\(n):\(m)")) }
            if let p = touchpad.thumb.value { attributes.append(("AttrThumbPressureThreshold", "\(p)")) }
            if let o = touchpad.palm.value { attributes.append(("AttrPalmPressureThreshold", "\(o)")) }
            for (name, value) in [("AttrPressureRange", touchpad.begin), ("AttrThumbPressureThreshold", touchpad.thumb),
                                  ("AttrPalmPressureThreshold", touchpad.palm)] {
                if case .omitted(let reason) = value { comments.append("\(name) left out: \(reason)") }
            }
            if let thumb = touchpad.thumbSeparation, touchpad.thumb.value != nil {
                comments.append(String(format: "thumbs vs touches: balanced accuracy %.2f", thumb.balancedAccuracy))
            }
            if let palm = touchpad.palmSeparation, touchpad.palm.value != nil {
                comments.append(String(format: "palms vs the rest: balanced accuracy %.2f", palm.balancedAccuracy))
            }
            if let lowest = touchpad.lowestLight, touchpad.begin.value != nil {
                comments.append("every one of the \(counts[.light] ?? 0) light touches (lowest peak \(lowest)) reaches N")
            }
            if let holds = touchpad.holds { comments.append(holds.summary) }
        case .pen(let pen):
            udevType = "tablet"
            if release.rules.tabletQuirkRangeSwapped, pen.tip.value != nil {
                // Down at the second number, up at the first, which the parser requires to be the larger: no quirk can say "down at N, up at M < N".
                return .failure(ForceTraceError(file: file, "libinput \(release.name) reads a tablet's AttrPressureRange swapped (libinput 1.26.0 to 1.30.1, fixed by b58d5a16 in 1.30.2): the tip would go down at the lower number and up at the higher, flipping in between, so no quirk gives this pen its tip threshold",
                                           hint: "set the pressure range instead ('--format libinput-range', gsettings or kwin), which these releases apply; or write the quirk for 1.30.2 and later with --libinput 1.30.2"))
            }
            if let tip = pen.tip.value, let release = pen.release.value {
                attributes.append(("AttrPressureRange", "\(tip):\(release)"))
                comments.append("every one of the \(counts[.strokeLight] ?? 0) light strokes (lowest peak \(pen.lowestLight ?? 0)) reaches the tip threshold; hover noise up to \(pen.hoverMax ?? axis.minimum)")
            } else if case .omitted(let reason) = pen.tip {
                comments.append("AttrPressureRange left out: \(reason)")
            }
        }
        // libinput rejects a section without properties: say why instead.
        guard !attributes.isEmpty else {
            return .failure(ForceTraceError(file: file, "no quirk attribute can be suggested: " + comments.joined(separator: "; "),
                                       hint: "repeat the calibration; 'forcetrace suggest \(file)' shows the trials' peaks"))
        }
        let stamp = ISO8601DateFormatter().string(from: date)
        var section = QuirksSection()
        section.comment("Written by forcetrace \(ForceTraceVersion.string) suggest on \(stamp)")
        section.comment("from \(InputPath.displayName(file)):/recordings/\(recording), \(calibrationProtocol.rawValue) calibration")
        section.comment("for libinput \(release.name)\(release.rules.userQuirksFolder ? "; put it in /etc/libinput/local-overrides.quirks, or for one session in $XDG_RUNTIME_DIR/libinput/" : "; put it in /etc/libinput/local-overrides.quirks")")
        for comment in comments { section.comment(comment) }
        for note in notes { section.comment("note: \(note)") }
        if let whatIf { section.comment(whatIf) }
        section.header("forcetrace \(recording)")
        if !device.name.isEmpty, let problem = section.matchName(device.name) {
            section.comment("MatchName left out: \(problem); the ids below alone match, so this applies to every device with them")
        }
        if let bus = Self.libinputBus(device.bus) {
            section.entry("MatchBus", bus)
        } else {
            section.comment(String(format: "MatchBus left out: bus 0x%04x has no libinput name", device.bus))
        }
        section.entry("MatchVendor", String(format: "0x%04X", device.vendor))
        section.entry("MatchProduct", String(format: "0x%04X", device.product))
        section.entry("MatchUdevType", udevType)
        for attribute in attributes { section.entry(attribute.key, attribute.value) }
        // What is written must be what that release reads: its parser drops every quirk over one bad line.
        if let refusal = LibinputQuirksFile(path: "suggested section", text: section.text).refusal(release.rules.quirks) {
            return .failure(ForceTraceError(file: file, "the section for libinput \(release.name) would be refused (\(refusal)); this is a forcetrace bug"))
        }
        return .success(section.text)
    }
}

extension CalibrationSuggestion.HoldNoise {
    /// One line for the text and the quirks comment.
    public var summary: String {
        var text = "steady holds: libinput's default gap (M = \(defaultEnd)) loses the touch \(defaultChatter) times in \(holdsWithDefaultChatter) of \(holds) holds"
        if let lowest = lowestHeld { text += "; once begun they stay at or above \(lowest)" }
        if neverBegin > 0 { text += "; \(neverBegin) never reach N" }
        return text
    }
}
