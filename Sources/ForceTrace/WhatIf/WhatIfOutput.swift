import Foundation

extension LibinputQuirkSet {
    /// For each release in `rules`: libinput's defaults plus the shipped
    /// quirks that match (when `shippedFolder` holds any), then one set per
    /// candidate file, the shipped ones with the file after them, as libinput
    /// reads a folder holding both.
    public static func sets(device: DeviceDescription, shippedFolder: String?, candidates: [LibinputQuirksFile],
                            rules: [LibinputRules] = [LibinputRules.history[0]]) throws -> [LibinputQuirkSet] {
        let shipped = try shippedFolder.map { try LibinputQuirksFile.folder($0) } ?? []
        let base = shipped.isEmpty ? "libinput defaults" : "defaults + shipped"
        var sets: [LibinputQuirkSet] = []
        for release in rules {
            sets.append(LibinputQuirkSet(name: base, files: shipped, device: device, rules: release))
            for file in candidates {
                let path = file.path
                var set = LibinputQuirkSet(name: InputPath.displayName(path), files: shipped + [file], device: device, rules: release)
                if set.refused == nil, !set.matched.contains(where: { $0.hasPrefix(path + ":") }) {
                    set.undecided.append("no section of \(InputPath.displayName(path)) matches this device")
                }
                sets.append(set)
            }
        }
        return sets
    }

    /// The folder of shipped quirks that belongs to `choice`: `given` when
    /// the user named one, else the installed libinput's when the modelled
    /// release is the installed one; nil with the reason otherwise, since
    /// each release ships its own quirks.
    public static func shippedFolder(for choice: LibinputChoice, given: String?,
                                     installedFolder: String = LibinputQuirksFile.shippedFolder) -> (folder: String?, note: String?) {
        if let given { return (given, nil) }
        guard let installed = choice.installed else { return (nil, nil) }
        if choice.source == .installed { return (installedFolder, nil) }
        if let version = choice.version, version.major == installed.version.major, version.minor == installed.version.minor,
           LibinputRules.at(version) == LibinputRules.at(installed.version) {
            return (installedFolder, nil)
        }
        return (nil, "shipped quirks left out: \(installedFolder) holds libinput \(installed.version)'s, and each release ships its own; give --quirks-dir with the modelled release's quirks folder to include them")
    }
}

extension WhatIfAnalysis {
    /// Row labels and one cell per quirk set.
    struct Row { var label: String; var cells: [String] }

    /// The pressure axis the rules read: the touch axis on a touchpad, ABS_PRESSURE on a tablet.
    var pressureAxis: AxisInfo? {
        kind == .touchpad ? (device.contactPressureAxis ?? device.axis(AbsoluteAxis.pressure)) : device.axis(AbsoluteAxis.pressure)
    }

    /// A raw threshold, with its grams where the axis gives them.
    private func pressure(_ value: Int32) -> String { GramScale(axis: pressureAxis)?.beside(Double(value)) ?? "\(value)" }

    private func settingRows() -> [Row] {
        var rows = [Row(label: "libinput", cells: results.map(\.libinputLabel))]
        if kind == .touchpad {
            rows.append(Row(label: "touch begins at", cells: results.map { r in
                r.touchpad.map { $0.high.map { ">= \(pressure($0))" } ?? "pressure ignored" } ?? "-" }))
            rows.append(Row(label: "touch ends below", cells: results.map { r in
                r.touchpad.map { $0.low.map { "< \(pressure($0))" } ?? "-" } ?? "-" }))
            rows.append(Row(label: "palm when pressure", cells: results.map { r in
                r.touchpad.map { $0.palmThreshold.map { "> \(pressure($0))" } ?? "off" } ?? "-" }))
            rows.append(Row(label: "thumb jailed when y", cells: results.map { r in
                guard let pad = r.touchpad, let line = pad.jailLine else { return "off" }
                return pad.thumbPressureThreshold == nil ? ">= \(line)" : "> \(line) (P set)" }))
        } else {
            rows.append(Row(label: "tip down at", cells: results.map { r in r.tablet.map { ">= \(pressure($0.upper))" } ?? "-" }))
            rows.append(Row(label: "tip up at", cells: results.map { r in r.tablet.map { "<= \(pressure($0.lower))" } ?? "-" }))
            if pressureRange != nil {
                rows.append(Row(label: "with the range: down at", cells: results.map { r in r.tabletWithRange.map { ">= \(pressure($0.upper))" } ?? "no range setting" }))
                rows.append(Row(label: "with the range: up at", cells: results.map { r in r.tabletWithRange.map { "<= \(pressure($0.lower))" } ?? "no range setting" }))
            }
        }
        return rows
    }

    private func outcomeRows() -> [Row] {
        var rows: [Row] = []
        if !trials.isEmpty {
            for trialClass in TrialClass.allCases {
                let outcomes = results.map { $0.classes.first { $0.trialClass == trialClass } }
                guard let first = outcomes.first ?? nil else { continue }
                let name = trialClass.rawValue
                let verb = kind == .touchpad ? "begin" : "tip down"
                rows.append(Row(label: "\(name): \(verb)", cells: outcomes.map { "\($0?.began ?? 0)/\(first.trials)" }))
                rows.append(Row(label: "\(name): delay (median)", cells: outcomes.map {
                    $0?.medianDelayMs.map { String(format: "%.0f ms", $0) } ?? "-" }))
                rows.append(Row(label: "\(name): chatter", cells: outcomes.map { "\($0?.chatter ?? 0)" }))
                if kind == .touchpad {
                    rows.append(Row(label: "\(name): taken for a palm", cells: outcomes.map { "\($0?.palms ?? 0)/\(first.trials)" }))
                    rows.append(Row(label: "\(name): jailed as a thumb", cells: outcomes.map { "\($0?.thumbs ?? 0)/\(first.trials)" }))
                }
            }
        } else {
            let minutes = self.minutes
            func perMinute(_ value: Int) -> String {
                minutes > 0 ? String(format: "%d (%.1f/min)", value, Double(value) / minutes) : "\(value)"
            }
            let (begins, ends) = kind == .touchpad ? ("touch begins", "ends by pressure") : ("tip down", "tip up")
            rows.append(Row(label: begins, cells: results.map { perMinute($0.totals.begins) }))
            rows.append(Row(label: ends, cells: results.map { perMinute($0.totals.ends) }))
            if kind == .touchpad {
                rows.append(Row(label: "chatter (end, then begin)", cells: results.map { perMinute($0.totals.chatter) }))
                rows.append(Row(label: "palms", cells: results.map { perMinute($0.totals.palms) }))
                rows.append(Row(label: "thumbs jailed", cells: results.map { perMinute($0.totals.thumbs) }))
            }
        }
        return rows
    }

    /// The rules each set applies, then the outcomes: what text and HTML show.
    func rows() -> [Row] { settingRows() + outcomeRows() }

    /// Side by side, for a person; names from the file escaped.
    public var text: TerminalText {
        let axis = pressureAxis
        var text: TerminalText = "\(file): /recordings/\(recording): \(kind.rawValue) \"\(device.name)\""
        if let axis { text += ", \(axis.name) \(axis.minimum)..\(axis.maximum)" }
        if let axis, let grams = GramScale(axis: axis) { text += " (\(grams.describe(axis)))" }
        text += "\(String(format: ", %.1f s", Double(durationNs) / 1e9))"
        if !trials.isEmpty {
            let counts = TrialClass.allCases.compactMap { c -> String? in
                let n = trials.filter { $0.trialClass == c }.count
                return n > 0 ? "\(n) \(c.rawValue)" : nil
            }
            text += ", trials: \(counts.joined(separator: ", "))"
        }
        text += "\n  \(libinput.label)\n"
        let rows = rows()
        let labelWidth = max(24, rows.map(\.label.count).max() ?? 0) + 2
        let widths = results.indices.map { index in max(14, ([results[index].quirks.name] + rows.map { $0.cells[index] }).map(\.count).max() ?? 0) + 2 }
        func line(_ label: String, _ cells: [String]) -> TerminalText {
            var line = TerminalText(escaping: "  " + label).padded(to: labelWidth + 2)
            for (index, cell) in cells.enumerated() { line += TerminalText(escaping: cell).padded(to: widths[index]) }
            return line + "\n"
        }
        text += line("", results.map(\.quirks.name))
        for row in rows { text += line(row.label, row.cells) }
        for (index, result) in results.enumerated() {
            for note in notes(result) { text += "  [\(index + 1)] \(result.quirks.name): \(note)\n" }
        }
        for note in generalNotes { text += "  note: \(note)\n" }
        return text
    }

    /// What a result's reader must know: ignored pressure, refused ranges, sections not decided.
    func notes(_ result: Result) -> [String] {
        var notes: [String] = []
        if let refused = result.quirks.refused {
            notes.append("libinput \(result.libinputLabel) refuses \(refused) and so loads no quirks at all, the shipped ones included: built-in defaults only")
        }
        if let pad = result.touchpad {
            if let ignored = pad.ignored { notes.append("libinput ignores pressure here: \(ignored.explanation)") }
            if let note = pad.palmNote { notes.append(note) }
            if let note = pad.thumbNote { notes.append(note) }
            if let note = pad.protocolANote { notes.append(note) }
            if pad.thumbPressureThreshold != nil {
                notes.append("libinput jails a new single touch below the thumb line whatever its pressure; AttrThumbPressureThreshold only lowers that line from 85 % to 92 % of the height")
            }
        }
        if let note = result.tablet?.note { notes.append(note) }
        notes.append(contentsOf: result.quirks.undecided.map { "not decided from a recording (needs the machine): \($0)" })
        return notes
    }

    /// `--json`: the same figures, through JSONWriter (keys in byte order).
    public var json: String {
        var out = JSONWriter()
        out.beginObject()
        out.key("device"); out.beginObject()
        out.key("bus"); out.int(device.bus)
        out.key("name"); out.string(device.name)
        out.key("product"); out.int(device.product)
        out.key("vendor"); out.int(device.vendor)
        out.endObject()
        out.key("duration_s"); out.double(Double(durationNs) / 1e9)
        out.key("file"); out.string(InputPath.displayName(file))
        out.key("kind"); out.string(kind.rawValue)
        out.key("libinput"); out.beginObject()
        out.key("chosen"); out.string(libinput.source.rawValue)
        out.key("version"); out.string(libinput.version?.description ?? "all")
        out.endObject()
        out.key("notes"); out.strings(generalNotes)
        out.key("pressure_units_per_gram"); if let grams = GramScale(axis: pressureAxis) { out.int(grams.unitsPerGram) } else { out.null() }
        out.key("quirk_sets"); out.beginArray(flat: false)
        for result in results {
            out.beginObject()
            if !trials.isEmpty {
                out.key("classes"); out.beginArray(flat: false)
                for c in result.classes {
                    out.beginObject()
                    out.key("began"); out.int(c.began)
                    out.key("chatter"); out.int(c.chatter)
                    out.key("class"); out.string(c.trialClass.rawValue)
                    out.key("median_delay_ms"); out.double(c.medianDelayMs)
                    out.key("palms"); out.int(c.palms)
                    out.key("thumbs"); out.int(c.thumbs)
                    out.key("trials"); out.int(c.trials)
                    out.endObject()
                }
                out.endArray()
            }
            out.key("decisions"); out.beginArray(flat: false)
            let lines = result.touchDecisions.map { ($0.tNs, $0.logLine) } + result.tipDecisions.map { ($0.tNs, $0.logLine) }
            for (time, line) in lines {
                out.beginArray(flat: true); out.double(Double(time) / 1e9); out.string(line); out.endArray()
            }
            out.endArray()
            out.key("libinput"); out.string(result.libinputLabel)
            out.key("matched_sections"); out.strings(result.quirks.matched)
            out.key("name"); out.string(result.quirks.name)
            out.key("notes"); out.strings(notes(result))
            out.key("per_minute"); out.beginObject()
            let minutes = self.minutes
            func rate(_ value: Int) -> Double? { minutes > 0 ? Double(value) / minutes : nil }
            out.key("begins"); out.double(rate(result.totals.begins))
            out.key("chatter"); out.double(rate(result.totals.chatter))
            out.key("ends"); out.double(rate(result.totals.ends))
            out.key("palms"); out.double(rate(result.totals.palms))
            out.key("thumbs"); out.double(rate(result.totals.thumbs))
            out.endObject()
            out.key("refused"); if let refused = result.quirks.refused { out.string(refused.description) } else { out.null() }
            out.key("rules"); out.beginObject()
            if let pad = result.touchpad {
                out.key("begin_at"); out.int(pad.high)
                out.key("end_below"); out.int(pad.low)
                out.key("palm_above"); out.int(pad.palmThreshold)
                out.key("pressure_ignored"); if let v = pad.ignored { out.string(v.explanation) } else { out.null() }
                out.key("thumb_jail_line"); out.int(pad.jailLine)
                out.key("thumb_pressure_threshold"); out.int(pad.thumbPressureThreshold)
            }
            if let pen = result.tablet {
                // Keys in order: each "_with_range" after its plain one.
                out.key("tip_down_at"); out.int(pen.upper)
                if let ranged = result.tabletWithRange { out.key("tip_down_at_with_range"); out.int(ranged.upper) }
                out.key("tip_up_at"); out.int(pen.lower)
                if let ranged = result.tabletWithRange { out.key("tip_up_at_with_range"); out.int(ranged.lower) }
            }
            out.endObject()
            out.key("totals"); out.beginObject()
            out.key("begins"); out.int(result.totals.begins)
            out.key("chatter"); out.int(result.totals.chatter)
            out.key("ends"); out.int(result.totals.ends)
            out.key("palms"); out.int(result.totals.palms)
            out.key("sequences"); out.int(result.sequences)
            out.key("thumbs"); out.int(result.totals.thumbs)
            out.endObject()
            out.endObject()
        }
        out.endArray()
        out.key("recording"); out.string(recording)
        out.key("trials"); out.int(trials.count)
        out.endObject()
        return String(decoding: out.finish(), as: UTF8.self) + "\n"
    }

    /// The comment `suggest` puts in a quirks file: how the candidate set
    /// (the last result) does against the first, on the classes that matter.
    public var comparisonComment: String? {
        guard results.count >= 2, !trials.isEmpty, let base = results.first, let candidate = results.last else { return nil }
        func outcome(_ result: Result, _ c: TrialClass) -> ClassOutcome? { result.classes.first { $0.trialClass == c } }
        var parts: [String] = []
        let items: [(TrialClass, String, (ClassOutcome) -> Int)] = kind == .touchpad
            ? [(.light, "light touches begin", \.began), (.palm, "palms ignored", \.palms),
               (.normal, "normal touches taken for palms", \.palms), (.thumb, "thumbs taken for palms", \.palms),
               (.thumb, "thumbs jailed", \.thumbs)]
            : [(.strokeLight, "light strokes put the tip down", \.began), (.hover, "hovers put the tip down", \.began)]
        for (c, words, value) in items {
            guard let new = outcome(candidate, c), let old = outcome(base, c) else { continue }
            parts.append("\(value(new))/\(new.trials) \(words) (defaults: \(value(old))/\(old.trials))")
        }
        let chatterNew = candidate.classes.reduce(0) { $0 + $1.chatter }, chatterOld = base.classes.reduce(0) { $0 + $1.chatter }
        parts.append("\(chatterNew) touches lost mid-stroke (defaults: \(chatterOld))")
        return "with this section: " + parts.joined(separator: ", ")
    }
}
