import Foundation

/// What a force session says about a pen or pad, in gram-force
/// (docs/ANALYSIS.md, "Force"): the scale's lag, the initial activation
/// force, the pressure-vs-force curve on the presses and on the releases,
/// their hysteresis, the saturation force, and the force at libinput's tip
/// thresholds.
public struct ForceAnalysis: Sendable {
    /// One point of the curve: a raw pressure, and the force at which the
    /// pressure crossed it going up (press) and coming down (release),
    /// each the median over the presses that crossed it.
    public struct CurvePoint: Sendable, Equatable {
        public var fraction: Double
        public var pressure: Int32
        public var pressGrams: Double?
        public var releaseGrams: Double?
        /// press - release: how much more force the press needed.
        public var hysteresisGrams: Double? {
            guard let pressGrams, let releaseGrams else { return nil }
            return pressGrams - releaseGrams
        }
    }

    public var axis: AxisInfo
    public var lag: ScaleLag?
    /// The lag used: the estimate's, or the table's stored one, and its uncertainty.
    public var lagNs: Int64
    public var lagUncertaintyNs: Int64?
    public var activation: ActivationFit?
    /// The force at each press's first pressure above the axis minimum.
    public var activationPerPress: [Double]
    public var curve: [CurvePoint]
    public var saturationGrams: Double?
    /// libinput's tablet tip thresholds (5 % of the range down, 1 % up) and the force at each.
    public var tipDownPressure: Int32, tipUpPressure: Int32
    public var tipDownGrams: Double?, tipUpGrams: Double?
    public var presses: Int
    /// Each weighed reading (lag taken off) and the pen's pressure then: what the HTML panel draws.
    public var pairs: [(grams: Double, pressure: Int32)] = []
    public var readings: Int
    public var readingsWithoutWeight: Int
    public var notes: [String] = []

    /// The fractions of the axis range the curve is given at.
    public static let curveFractions = [0.1, 0.3, 0.5, 0.7, 0.9]

    /// Mean hysteresis over the curve's points, in gram-force.
    public var hysteresisGrams: Double? {
        let values = curve.compactMap(\.hysteresisGrams)
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// Analyses `readings` (times relative to t0) against `pressure`. With
    /// `lagNs` given it is used as is; else the lag is estimated.
    public static func analyze(pressure: PressureSteps, readings: [ScaleReading], axis: AxisInfo, lagNs given: Int64? = nil,
                               lagUncertaintyNs givenUncertainty: Int64? = nil) -> ForceAnalysis {
        let floor = axis.minimum
        var notes: [String] = []
        let lag = given == nil ? ScaleLag.estimate(pressure: pressure, readings: readings, axis: axis) : nil
        let lagNs = given ?? lag?.lagNs ?? 0
        if given == nil && lag == nil { notes.append("fewer than 2 presses stop below the pen's maximum with a hold the scale saw: no lag estimated, none taken off") }
        let force = ForceSeries(readings, lagNs: lagNs)
        let presses = pressure.presses(above: floor)
        func median(_ values: [Double]) -> Double? {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        // The force where each press first reached `level` going up, and left it coming down.
        func crossings(_ level: Int32) -> (press: [Double], release: [Double]) {
            var up: [Double] = [], down: [Double] = []
            for press in presses {
                if let step = press.steps.first(where: { pressure.values[$0] >= level }), step <= press.peak,
                   let grams = force.grams(at: pressure.times[step]) { up.append(grams) }
                let after = (press.peak + 1)...press.steps.upperBound
                if pressure.values[press.peak] >= level, let step = after.first(where: { pressure.values[$0] < level }),
                   let grams = force.grams(at: pressure.times[step]) { down.append(grams) }
            }
            return (up, down)
        }
        let range = Double(axis.maximum) - Double(axis.minimum)
        func level(_ fraction: Double) -> Int32 { axis.minimum + Int32((fraction * range).rounded(.up)) }
        let curve = curveFractions.map { fraction in
            let (up, down) = crossings(level(fraction))
            return CurvePoint(fraction: fraction, pressure: level(fraction), pressGrams: median(up), releaseGrams: median(down))
        }
        // The logistic fit: every reading from a second before a press to its peak, active or not.
        var forces: [Double] = [], active: [Bool] = []
        for press in presses {
            let window = (pressure.times[press.steps.lowerBound] - ScaleLag.leadInNs)...pressure.times[press.peak]
            for index in force.times.indices where window.contains(force.times[index]) {
                forces.append(force.grams[index])
                active.append(pressure.value(at: force.times[index], initial: axis.minimum) > floor)
            }
        }
        let activation = ActivationFit.fit(forces: forces, active: active)
        if activation == nil { notes.append("no readings on both sides of the pen's activation: no initial activation force") }
        let onsets = crossings(floor + 1).press
        let saturation = median(crossings(axis.maximum).press)
        if saturation == nil && !presses.isEmpty { notes.append("no press reached the axis maximum (\(axis.maximum)): no saturation force") }
        let tipDown = level(CalibrationSuggestion.libinputTipDownFraction), tipUp = level(CalibrationSuggestion.libinputTipUpFraction)
        return ForceAnalysis(axis: axis, lag: lag, lagNs: lagNs, lagUncertaintyNs: given == nil ? lag?.uncertaintyNs : givenUncertainty,
                             activation: activation, activationPerPress: onsets, curve: curve,
                             saturationGrams: saturation, tipDownPressure: tipDown, tipUpPressure: tipUp,
                             tipDownGrams: median(crossings(tipDown).press), tipUpGrams: median(crossings(tipUp).release),
                             presses: presses.count,
                             pairs: zip(force.times, force.grams).map { ($1, pressure.value(at: $0, initial: axis.minimum)) },
                             readings: readings.count,
                             readingsWithoutWeight: readings.filter { $0.grams.isNaN }.count, notes: notes)
    }

    /// The recording's pressure and force table, analysed; nil when it has no force table.
    public static func analyze(_ recording: TraceRecording, reestimateLag: Bool = false) throws -> ForceAnalysis? {
        guard let table = try recording.force() else { return nil }
        guard let axis = recording.device.contactPressureAxis else {
            throw ForceTraceError(file: recording.filePath, "recording '\(recording.name)' has a force table but no pressure axis to hold it against")
        }
        return analyze(pressure: try PressureSteps(recording, axis: axis), readings: table.readings, axis: axis,
                       lagNs: reestimateLag ? nil : table.lagNs, lagUncertaintyNs: reestimateLag ? nil : table.lagUncertaintyNs)
    }
}

extension ForceAnalysis {
    private static func grams(_ value: Double?) -> String { value.map { String(format: "%.1f gf", $0) } ?? "-" }

    /// The analysis for a person.
    public var text: TerminalText {
        var text: TerminalText = "force (\(presses) presses, \(readings) scale readings, \(readingsWithoutWeight) without a weight)\n"
        if let lag {
            text += "  scale lag               \(String(format: "%.1f ± %.1f ms", Double(lag.lagNs) / 1e6, Double(lag.uncertaintyNs) / 1e6)) (from \(lag.presses) presses' end of rise)\n"
        } else {
            let uncertainty = lagUncertaintyNs.map { String(format: " ± %.1f", Double($0) / 1e6) } ?? ""
            text += "  scale lag               \(String(format: "%.1f", Double(lagNs) / 1e6))\(uncertainty) ms (as stored)\n"
        }
        if let activation {
            let how = activation.separated ? "the gap between inactive and active readings" : "95 % interval of the logistic fit"
            text += "  initial activation      \(Self.grams(activation.grams)) (\(String(format: "%.1f", activation.low))–\(String(format: "%.1f", activation.high)) gf, \(how))\n"
        } else {
            text += "  initial activation      -\n"
        }
        text += "  saturation              \(Self.grams(saturationGrams)) (pressure \(axis.maximum))\n"
        text += "  libinput tip down       \(Self.grams(tipDownGrams)) (pressure \(tipDownPressure)); tip up \(Self.grams(tipUpGrams)) (pressure \(tipUpPressure))\n"
        text += "  hysteresis              \(Self.grams(hysteresisGrams)) (mean of press - release)\n"
        text += "  pressure    press       release     hysteresis\n"
        for point in curve {
            let row = String(format: "  %5.0f%% %6d", point.fraction * 100, point.pressure)
            text += "\(row)  \(Self.grams(point.pressGrams).padding(toLength: 11, withPad: " ", startingAt: 0)) \(Self.grams(point.releaseGrams).padding(toLength: 11, withPad: " ", startingAt: 0)) \(Self.grams(point.hysteresisGrams))\n"
        }
        for note in notes { text += "  note: \(note)\n" }
        return text
    }

    /// The analysis as JSON, keys in byte order (docs/ANALYSIS.md, "Force").
    public var json: String {
        var w = JSONWriter(capacity: 1 << 12)
        write(&w)
        return String(decoding: w.finish(), as: UTF8.self)
    }

    /// The object `json` holds, into `w` (`suggest --format json`'s `force`).
    func write(_ w: inout JSONWriter) {
        w.beginObject()
        w.key("activation")
        if let activation {
            w.beginObject()
            w.key("gf"); w.double(activation.grams)
            w.key("high_gf"); w.double(activation.high)
            w.key("low_gf"); w.double(activation.low)
            w.key("per_press_gf"); w.doubles(activationPerPress)
            w.key("readings"); w.int(activation.readings)
            w.key("separated"); w.bool(activation.separated)
            w.key("slope_per_gf"); w.double(activation.slope)
            w.endObject()
        } else {
            w.null()
        }
        w.key("curve"); w.beginArray(flat: false)
        for point in curve {
            w.beginObject()
            w.key("fraction"); w.double(point.fraction)
            w.key("hysteresis_gf"); w.double(point.hysteresisGrams)
            w.key("press_gf"); w.double(point.pressGrams)
            w.key("pressure"); w.int(point.pressure)
            w.key("release_gf"); w.double(point.releaseGrams)
            w.endObject()
        }
        w.endArray()
        w.key("hysteresis_gf"); w.double(hysteresisGrams)
        w.key("lag"); w.beginObject()
        w.key("estimated"); w.bool(lag != nil)
        w.key("ms"); w.double(Double(lagNs) / 1e6)
        w.key("presses"); w.int(lag?.presses)
        w.key("uncertainty_ms"); w.double(lagUncertaintyNs.map { Double($0) / 1e6 })
        w.endObject()
        w.key("notes"); w.strings(notes)
        w.key("presses"); w.int(presses)
        w.key("pressure_axis"); w.beginObject()
        w.key("max"); w.int(axis.maximum)
        w.key("min"); w.int(axis.minimum)
        w.key("name"); w.string(axis.name)
        w.endObject()
        w.key("readings"); w.int(readings)
        w.key("readings_without_weight"); w.int(readingsWithoutWeight)
        w.key("saturation_gf"); w.double(saturationGrams)
        w.key("tip"); w.beginObject()
        w.key("down_gf"); w.double(tipDownGrams)
        w.key("down_pressure"); w.int(tipDownPressure)
        w.key("up_gf"); w.double(tipUpGrams)
        w.key("up_pressure"); w.int(tipUpPressure)
        w.endObject()
        w.endObject()
    }
}
