import Foundation

/// `suggest --format json`, written through `JSONWriter` (keys in byte
/// order, as every JSON forcetrace writes; docs/ANALYSIS.md, "Calibration").
extension CalibrationSuggestion {
    public var json: String {
        var w = JSONWriter(capacity: 1 << 14)
        w.beginObject()
        if let app { w.key("app"); writeApp(app, &w) }
        w.key("device"); w.beginObject()
        w.key("bus"); w.int(device.bus)
        w.key("name"); w.string(device.name)
        w.key("product"); w.int(device.product)
        w.key("vendor"); w.int(device.vendor)
        w.endObject()
        w.key("file"); w.string(InputPath.displayName(file))
        if calibrationProtocol == .force {
            w.key("force")
            if let force { force.write(&w) } else { w.null() }
        }
        w.key("notes"); w.strings(notes)
        if let pen { w.key("pen"); writePen(pen, &w) }
        w.key("pressure_axis"); w.beginObject()
        w.key("max"); w.int(axis.maximum)
        w.key("min"); w.int(axis.minimum)
        w.key("name"); w.string(axis.name)
        w.key("units_per_gram"); if let grams { w.int(grams.unitsPerGram) } else { w.null() }
        w.endObject()
        w.key("protocol"); w.string(calibrationProtocol.rawValue)
        w.key("recording"); w.string(recording)
        if let touchpad { w.key("touchpad"); writeTouchpad(touchpad, &w) }
        w.key("trials"); w.beginObject()
        for trialClass in calibrationProtocol.classes.sorted(by: { $0.rawValue.utf8.lexicographicallyPrecedes($1.rawValue.utf8) }) {
            w.key(trialClass.jsonKey); w.int(counts[trialClass] ?? 0)
        }
        w.endObject()
        w.endObject()
        return String(decoding: w.finish(), as: UTF8.self)
    }

    private func writeQuirk(_ value: QuirkValue, _ w: inout JSONWriter) {
        w.beginObject()
        switch value {
        case .value(let raw, let note):
            w.key("gf"); w.double(grams?.grams(raw))
            w.key("normalized"); w.double(axis.normalized(raw))
            w.key("note"); w.string(note)
            w.key("value"); w.int(raw)
        case .omitted(let reason):
            w.key("gf"); w.null()
            w.key("omitted"); w.string(reason)
            w.key("value"); w.null()
        }
        w.endObject()
    }

    private static func writeSeparation(_ value: Separation?, _ w: inout JSONWriter) {
        guard let value else { return w.null() }
        w.beginObject()
        w.key("balanced_accuracy"); w.double(value.balancedAccuracy)
        w.key("lower_max"); w.int(value.lowerMax)
        w.key("overlap"); w.bool(value.overlaps)
        w.key("threshold"); w.int(value.threshold)
        w.key("upper_min"); w.int(value.upperMin)
        w.endObject()
    }


    private func writeApp(_ app: App, _ w: inout JSONWriter) {
        let t = app.thresholds
        w.beginObject()
        w.key("balanced_accuracy"); w.double(t.balancedAccuracy)
        w.key("before_long_press"); w.beginArray(flat: false)
        for entry in app.beforeTimeout {
            w.beginObject()
            w.key("count"); w.int(entry.count)
            w.key("median_saved_ms"); w.double(entry.medianSavedMs)
            w.key("timeout_ms"); w.int(entry.timeoutMs)
            w.endObject()
        }
        w.endArray()
        w.key("confusion")
        if let confusion = t.confusion { w.integers(Self.cells(confusion)) } else { w.null() }
        w.key("median_time_to_pop_ms"); w.double(app.medianTimeToPopMs)
        w.key("peek"); w.double(t.peek)
        w.key("peek_raw"); w.int(app.peekRaw)
        w.key("pop"); w.double(t.pop)
        w.key("pop_presses"); w.int(app.popPresses)
        w.key("pop_raw"); w.int(app.popRaw)
        w.key("reached_pop"); w.int(app.reachedPop)
        w.endObject()
    }

    private func writeTouchpad(_ touchpad: Touchpad, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("holds")
        if let holds = touchpad.holds {
            w.beginObject()
            w.key("default_chatter"); w.int(holds.defaultChatter)
            w.key("default_end"); w.int(holds.defaultEnd)
            w.key("holds"); w.int(holds.holds)
            w.key("holds_with_default_chatter"); w.int(holds.holdsWithDefaultChatter)
            w.key("lowest_held"); w.int(holds.lowestHeld)
            w.key("never_begin"); w.int(holds.neverBegin)
            w.endObject()
        } else {
            w.null()
        }
        w.key("lowest_light_peak"); w.int(touchpad.lowestLight)
        w.key("palm_pressure_threshold"); writeQuirk(touchpad.palm, &w)
        w.key("palm_separation"); Self.writeSeparation(touchpad.palmSeparation, &w)
        w.key("pressure_range_begin"); writeQuirk(touchpad.begin, &w)
        w.key("pressure_range_end"); writeQuirk(touchpad.end, &w)
        w.key("thumb_pressure_threshold"); writeQuirk(touchpad.thumb, &w)
        w.key("thumb_separation"); Self.writeSeparation(touchpad.thumbSeparation, &w)
        w.endObject()
    }

    private func writePen(_ pen: Pen, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("hover_max"); w.int(pen.hoverMax)
        w.key("lowest_light_peak"); w.int(pen.lowestLight)
        w.key("profile")
        if let profile = pen.profile { Self.writeProfile(profile, &w) } else { w.null() }
        w.key("release"); writeQuirk(pen.release, &w)
        w.key("tip"); writeQuirk(pen.tip, &w)
        w.endObject()
    }

    /// `pen.profile` (docs/ANALYSIS.md, "Pen curve"); `forcetrace.pen` reads it.
    private static func writeProfile(_ profile: PenProfile, _ w: inout JSONWriter) {
        func fit(_ value: CurveFit?) {
            guard let value else { return w.null() }
            w.beginObject()
            w.key("curve"); w.integers(value.curve.points)
            w.key("kwin"); w.string(value.curve.kwinString)
            w.key("max_error_points"); w.double(value.maxErrorPoints)
            w.key("points"); w.beginArray(flat: false)
            for point in value.points {
                w.beginObject()
                w.key("error_points"); w.double(point.errorPoints)
                w.key("input"); w.double(point.input)
                w.key("output"); w.double(point.output)
                w.key("role"); w.string(point.role.rawValue)
                w.key("target"); w.double(point.target)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.beginObject()
        w.key("activation"); w.double(profile.activation)
        w.key("axis_fit"); fit(profile.axisFit)
        w.key("classes"); w.beginArray(flat: false)
        for peaks in profile.classes {
            w.beginObject()
            w.key("class"); w.string(peaks.trialClass.rawValue)
            w.key("count"); w.int(peaks.count)
            w.key("max"); w.int(peaks.maximum)
            w.key("median"); w.double(peaks.median)
            w.key("min"); w.int(peaks.minimum)
            w.endObject()
        }
        w.endArray()
        w.key("hover_noise"); w.int(profile.hoverNoise)
        w.key("notes"); w.strings(profile.notes)
        w.key("range_fit"); fit(profile.rangeFit)
        w.key("targets"); w.doubles(profile.targets.values)
        w.key("usable_range")
        if let range = profile.usableRange { w.integers([range.lowerBound, range.upperBound]) } else { w.null() }
        w.endObject()
    }
}

extension TrialClass {
    /// The class as a JSON key (`JSONWriter` takes keys as literals).
    var jsonKey: StaticString {
        switch self {
        case .tap: "tap"
        case .peekPress: "peek-press"
        case .popPress: "pop-press"
        case .light: "light"
        case .normal: "normal"
        case .thumb: "thumb"
        case .palm: "palm"
        case .hover: "hover"
        case .strokeLight: "stroke-light"
        case .strokeNormal: "stroke-normal"
        case .strokeFirm: "stroke-firm"
        case .fullPress: "full-press"
        case .level: "level"
        case .holdLight: "hold-light"
        case .holdNormal: "hold-normal"
        case .forceMedium: "force-medium"
        case .forceFull: "force-full"
        }
    }
}
