import Foundation

/// What libinput would have done with a recording's pressure under several
/// quirk sets, and under one release or several, side by side
/// (docs/ANALYSIS.md, "What libinput would do").
public struct WhatIfAnalysis: Sendable {
    public var file: String
    public var recording: String
    public var device: DeviceDescription
    public var kind: Kind
    public var durationNs: Int64
    /// The trials of a calibration, when the recording has labels.
    public var trials: [Trial]
    public var results: [Result]
    /// The libinput modelled, and how it was chosen.
    public var libinput: LibinputChoice
    /// What a reader must know about the whole comparison.
    public var generalNotes: [String] = []
    /// The tablet tool pressure range a desktop sets (`--pressure-range`).
    public var pressureRange: LibinputPressureRange?

    public enum Kind: String, Sendable { case touchpad, tablet }

    /// A labelled trial's class and time span (ns since the recording's first event).
    public struct Trial: Sendable {
        public var trialClass: TrialClass
        public var startNs: Int64
        public var endNs: Int64
    }

    /// One quirk set's outcome.
    public struct Result: Sendable {
        public var quirks: LibinputQuirkSet
        /// The releases this column stands for ("1.25.0", or "1.26 to 1.30.1" under `--libinput all`).
        public var libinputLabel = ""
        public var touchpad: TouchpadPressureSetup?
        public var tablet: TabletPressureSetup?
        /// The tip thresholds once `--pressure-range` applies; nil without one or before 1.26.
        public var tabletWithRange: TipThresholds?
        public var touchDecisions: [TouchDecision] = []
        public var tipDecisions: [TipDecision] = []
        /// Touch sequences (tracking ids, or BTN_TOOL_FINGER spans without slots).
        public var sequences = 0
        public var classes: [ClassOutcome] = []
        public var totals = Totals()
    }

    /// Per labelled class: how the trials of that class fared.
    public struct ClassOutcome: Sendable {
        public var trialClass: TrialClass
        public var trials = 0
        /// Trials with a touch that began (touchpads) or a tip that went down (pens).
        public var began = 0
        /// Delay from the trial's first contact to the first begin, per trial that began (ms).
        public var delaysMs: [Double] = []
        /// Ends followed by a begin again within the trial: touches lost mid-stroke.
        public var chatter = 0
        public var palms = 0
        public var thumbs = 0
        public var medianDelayMs: Double? { WhatIfAnalysis.median(delaysMs) }
    }

    /// Counts over the whole recording.
    public struct Totals: Sendable {
        public var begins = 0, ends = 0, chatter = 0, palms = 0, thumbs = 0
    }

    public var minutes: Double { Double(durationNs) / 60e9 }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Runs every quirk set over `trace` in one pass over its events.
    /// - Parameter progress: called after each block with the events done and the events in all.
    /// - Parameter libinput: the choice the sets' rules come from; under `all`,
    ///   neighbouring releases whose columns come out the same are merged.
    public static func run(_ trace: TraceRecording, file: String, quirkSets: [LibinputQuirkSet],
                           libinput: LibinputChoice = LibinputChoice(source: .given, version: LibinputRules.history[0].since),
                           pressureRange: LibinputPressureRange? = nil,
                           progress: ((_ done: Int64, _ total: Int64) -> Void)? = nil) throws -> WhatIfAnalysis {
        let device = trace.device
        let kind: Kind = device.isPen ? .tablet : .touchpad
        guard kind == .tablet || LibinputUdevType(device) == .touchpad else {
            throw ForceTraceError(file: file, "recording '\(trace.name)': \"\(device.name)\" is neither a touchpad nor a pen tablet",
                                  hint: "libinput's pressure rules apply to touchpads (BTN_TOOL_FINGER, not INPUT_PROP_DIRECT) and tablets (BTN_TOOL_PEN)")
        }
        var pads = quirkSets.map { TouchpadEmulator(setup: TouchpadPressureSetup(device: device, quirks: $0),
                                                    initialSlot: Int(device.slotAxis?.value ?? 0)) }
        var pens = quirkSets.map { TabletEmulator(setup: TabletPressureSetup(device: device, quirks: $0), device: device, rules: $0.rules,
                                                  pressureRange: pressureRange) }
        var lastNs: Int64 = 0
        var done: Int64 = 0
        let total = Int64(try trace.rowCount(.events))
        try trace.forEachEventBlock { block in
            for event in block {
                if kind == .touchpad { for index in pads.indices { pads[index].feed(event) } }
                else { for index in pens.indices { pens[index].feed(event) } }
            }
            if let last = block.last { lastNs = last.timeNs }
            done += Int64(block.count)
            progress?(done, total)
        }
        let trials = try Self.trials(trace, file: file)
        var analysis = WhatIfAnalysis(file: file, recording: trace.name, device: device, kind: kind, durationNs: lastNs,
                                      trials: trials, results: [], libinput: libinput, generalNotes: libinput.notes,
                                      pressureRange: kind == .tablet ? pressureRange : nil)
        if let pressureRange {
            if kind == .touchpad {
                analysis.generalNotes.append("--pressure-range \(pressureRange.description) is a tablet tool's setting: left out for a touchpad")
            } else {
                analysis.generalNotes.append("pressure range \(pressureRange.description) set for each tool when first seen, as a desktop does: it takes effect from the tool's second proximity (libinput 1.26 and later; earlier releases have no such setting)")
            }
        }
        for (index, quirks) in quirkSets.enumerated() {
            var result = Result(quirks: quirks)
            result.libinputLabel = libinput.columnLabel(quirks.rules, quirks.rules)
            if kind == .touchpad {
                result.touchpad = pads[index].setup
                result.touchDecisions = pads[index].decisions
                result.sequences = pads[index].sequences
            } else {
                result.tablet = pens[index].setup
                result.tabletWithRange = pens[index].rangeThresholds
                result.tipDecisions = pens[index].decisions
            }
            analysis.score(&result)
            analysis.results.append(result)
        }
        if libinput.source == .all { analysis.mergeReleases() }
        return analysis
    }

    /// Merges neighbouring releases whose columns agree for every quirk set
    /// into one column each, labelled with the releases they stand for.
    mutating func mergeReleases() {
        var byRules: [(rules: LibinputRules, results: [Result])] = []
        for result in results {
            if let last = byRules.last, last.rules == result.quirks.rules { byRules[byRules.count - 1].results.append(result) }
            else { byRules.append((result.quirks.rules, [result])) }
        }
        var runs: [(first: LibinputRules, last: LibinputRules, results: [Result])] = []
        for entry in byRules {
            if let last = runs.last, last.results.count == entry.results.count,
               zip(last.results, entry.results).allSatisfy({ sameOutcome($0, $1) }) {
                runs[runs.count - 1].last = entry.rules
            } else {
                runs.append((entry.rules, entry.rules, entry.results))
            }
        }
        results = runs.flatMap { run in
            run.results.map { result in
                var result = result
                result.libinputLabel = libinput.columnLabel(run.first, run.last)
                return result
            }
        }
    }

    /// Whether two columns show the same rules, decisions and notes.
    func sameOutcome(_ a: Result, _ b: Result) -> Bool {
        a.quirks.name == b.quirks.name && a.touchpad == b.touchpad && a.tablet == b.tablet && a.tabletWithRange == b.tabletWithRange
            && a.touchDecisions == b.touchDecisions && a.tipDecisions == b.tipDecisions && notes(a) == notes(b)
    }

    /// The labelled trials with their spans: the label's start to its `t_end_ns`, or to the next label.
    static func trials(_ trace: TraceRecording, file: String) throws -> [Trial] {
        guard try trace.calibrationProtocol() != nil, trace.has(.labels) else { return [] }
        typealias L = TraceSchema.Labels
        let table = try trace.open(.labels)
        let classes = try table.read(L.pressClass)
        let starts = try table.read(L.tNs)
        let ends = table.contains(L.tEndNs.schema) ? try table.read(L.tEndNs) : []
        guard starts.count == classes.count, ends.isEmpty || ends.count == classes.count else {
            throw ForceTraceError(file: file, "recording '\(trace.name)': the labels columns differ in length")
        }
        var result: [Trial] = []
        for row in classes.indices {
            guard let trialClass = TrialClass(rawValue: PressClass(label: classes[row])?.rawValue ?? classes[row]) else { continue }
            let end = row < ends.count ? ends[row] : (row + 1 < starts.count ? starts[row + 1] : Int64.max)
            result.append(Trial(trialClass: trialClass, startNs: starts[row], endNs: end))
        }
        return result
    }

    /// Tallies a result per class (when labelled) and over the recording.
    mutating func score(_ result: inout Result) {
        var totals = Totals()
        // Chatter: a begin after a pressure end within one touch sequence (the finger never lifted).
        var ended: Set<Int> = []
        for decision in result.touchDecisions {
            switch decision.kind {
            case .begin:
                totals.begins += 1
                if ended.remove(decision.sequence) != nil { totals.chatter += 1 }
            case .end: totals.ends += 1; ended.insert(decision.sequence)
            case .palm: totals.palms += 1
            case .thumb: totals.thumbs += 1
            case .unjail: break
            }
        }
        for tip in result.tipDecisions {
            if tip.down { totals.begins += 1 } else { totals.ends += 1 }
        }
        result.totals = totals
        guard !trials.isEmpty else { return }
        var outcomes: [TrialClass: ClassOutcome] = [:]
        for trial in trials {
            var outcome = outcomes[trial.trialClass] ?? ClassOutcome(trialClass: trial.trialClass)
            outcome.trials += 1
            let span = trial.startNs...max(trial.startNs, trial.endNs)
            if kind == .touchpad {
                let inside = result.touchDecisions.filter { span.contains($0.tNs) }
                if let first = inside.first(where: { $0.kind == .begin }) {
                    outcome.began += 1
                    outcome.delaysMs.append(Double(first.tNs - trial.startNs) / 1e6)
                }
                var ended: Set<Int> = []
                for decision in inside {
                    if decision.kind == .end { ended.insert(decision.sequence) }
                    if decision.kind == .begin, ended.remove(decision.sequence) != nil { outcome.chatter += 1 }
                }
                if inside.contains(where: { $0.kind == .palm }) { outcome.palms += 1 }
                if inside.contains(where: { $0.kind == .thumb }) { outcome.thumbs += 1 }
            } else {
                let inside = result.tipDecisions.filter { span.contains($0.tNs) }
                if let first = inside.first(where: \.down) {
                    outcome.began += 1
                    outcome.delaysMs.append(Double(first.tNs - trial.startNs) / 1e6)
                }
                var wasUp = false
                for tip in inside {
                    if !tip.down { wasUp = true } else if wasUp { outcome.chatter += 1; wasUp = false }
                }
            }
            outcomes[trial.trialClass] = outcome
        }
        result.classes = TrialClass.allCases.compactMap { outcomes[$0] }
    }
}
