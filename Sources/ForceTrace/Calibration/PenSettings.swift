import Foundation

/// A pen calibration as one desktop's setting: values, rendered by `text`
/// (docs/ANALYSIS.md, "Pen settings").
public enum PenSetting: Equatable, Sendable {
    /// xf86-input-wacom: `xsetwacom set DEVICE PressureCurve x1 y1 x2 y2` and
    /// `Threshold N` (the tip's press threshold on the driver's 0–2048 scale).
    case xsetwacom(device: String, curve: PressureCurve, threshold: Int?)
    /// GNOME: the relocatable schema at `path`. With gsettings-desktop-schemas
    /// 47 or later, `pressure-range` (whole percents of the axis) and
    /// `rangeCurve` over it; before, only `pressure-curve` = `curve` over the
    /// whole axis. The script asks gsettings which keys the schema has.
    case gsettings(path: String, curve: PressureCurve, range: ClosedRange<Int>, rangeCurve: PressureCurve)
    /// KWin's tablet properties `pressureCurve`, `pressureRangeMin`, `pressureRangeMax`.
    case kwin(curve: PressureCurve, rangeMinimum: Double, rangeMaximum: Double)
    /// libinput ≥ 1.26: `libinput_tablet_tool_config_pressure_range_set(tool, min, max)`.
    case libinputRange(minimum: Double, maximum: Double)
    /// Hyprland ≥ 0.56: `input:tablettool:pressure_range_min` and `_max`, set
    /// from hyprland.lua by `hl.config`. Hyprland has no pressure curve.
    case hyprland(minimum: Double, maximum: Double)

    public static let gnomeSchema = "org.gnome.desktop.peripherals.tablet.stylus"
    /// The driver's pressure scale for `Threshold` (wacom(4): default 27 of 2048).
    public static let wacomPressureScale = 2048.0

    /// The wacom driver's name for the stylus tool of kernel device `name`
    /// ('xsetwacom list' shows "<name> stylus").
    public static func wacomStylus(_ name: String) -> String { name + " stylus" }

    /// GNOME's settings path of a stylus without a serial number.
    public static func gnomePath(vendor: UInt16, product: UInt16) -> String {
        String(format: "/org/gnome/desktop/peripherals/stylus/default-%04x:%04x/", vendor, product)
    }

    /// Four decimals: libinput and KWin take doubles in 0–1.
    static func fraction(_ value: Double) -> String { String(format: "%.4f", value) }

    /// GNOME's `pressure-range` holds whole percents: the range widened to
    /// them, so that every calibrated stroke stays inside.
    public static func wholePercents(_ minimum: Double, _ maximum: Double) -> ClosedRange<Int> {
        let low = min(99, max(0, Int((minimum * 100 + 1e-9).rounded(.down))))
        let high = min(100, max(low + 1, Int((maximum * 100 - 1e-9).rounded(.up))))
        return low...high
    }

    /// The one line of hyprland.lua (Hyprland's own option names, a Lua table).
    static func hyprlandLine(_ minimum: Double, _ maximum: Double) -> String {
        "hl.config({ input = { tablettool = { pressure_range_min = \(fraction(minimum)), pressure_range_max = \(fraction(maximum)) } } })"
    }

    /// The lines to run or set, without comments.
    public var lines: [String] {
        switch self {
        case .xsetwacom(let device, let curve, let threshold):
            let (setup, word) = ShellText.word(device, variable: "device")
            return setup + ["xsetwacom set \(word) PressureCurve \(curve)"]
                + (threshold.map { ["xsetwacom set \(word) Threshold \($0)"] } ?? [])
        case .gsettings(let path, let curve, let range, let rangeCurve):
            // GVariant `ai`s in single quotes: digits, commas and blanks only.
            func array(_ values: [Int]) -> String { "'[" + values.map(String.init).joined(separator: ", ") + "]'" }
            let key = "\(Self.gnomeSchema):\(path)"
            return ["if gsettings range \(key) pressure-range >/dev/null 2>&1; then",
                    "    gsettings set \(key) pressure-range \(array([range.lowerBound, range.upperBound]))",
                    "    gsettings set \(key) pressure-curve \(array(rangeCurve.points))",
                    "else",
                    "    gsettings set \(key) pressure-curve \(array(curve.points))",
                    "fi"]
        case .kwin(let curve, let minimum, let maximum):
            return ["pressureCurve=\(curve.kwinString)", "pressureRangeMin=\(Self.fraction(minimum))",
                    "pressureRangeMax=\(Self.fraction(maximum))"]
        case .libinputRange(let minimum, let maximum):
            return ["minimum=\(Self.fraction(minimum))", "maximum=\(Self.fraction(maximum))"]
        case .hyprland(let minimum, let maximum):
            return [Self.hyprlandLine(minimum, maximum)]
        }
    }
}

/// Text for a POSIX shell script or a `#` comment: what it holds reaches
/// the program exactly, and the script shows only printable characters.
public enum ShellText {
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool { scalar.isControlCode || scalar.reordersOrBreaksText }

    /// A shell word that is exactly `text`. Plain text is single-quoted
    /// (`'` as `'\''`); text with controls or direction marks is built by
    /// `printf` with octal escapes into `variable` (a trailing `_` keeps a
    /// final newline from the command substitution, then is cut off), and
    /// the word is `"$variable"`.
    public static func word(_ text: String, variable: String) -> (setup: [String], word: String) {
        guard text.unicodeScalars.contains(where: needsEscape) else {
            return ([], "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'")
        }
        var format = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "'": format += "'\\''"
            case "\\": format += "\\\\"
            case "%": format += "%%"
            case _ where needsEscape(scalar):
                for byte in String(scalar).utf8 { format += String(format: "\\%03o", byte) }
            default: format.unicodeScalars.append(scalar)
            }
        }
        return (["\(variable)=$(printf '\(format)_')", "\(variable)=${\(variable)%_}"], "\"$\(variable)\"")
    }

    /// A comment line (`# `, or `-- ` for Lua): controls, direction marks and
    /// `\` shown as escapes.
    public static func comment(_ text: String, marker: String = "#") -> String {
        var line = marker + " "
        for scalar in text.unicodeScalars {
            if scalar == "\\" { line += "\\\\" } else if needsEscape(scalar) {
                line += scalar.value < 0x100 ? String(format: "\\x%02x", scalar.value) : String(format: "\\u%04x", scalar.value)
            } else { line.unicodeScalars.append(scalar) }
        }
        return line
    }
}

extension CalibrationSuggestion {
    /// The pen setting for `format`, or why there is none.
    public func penSetting(_ format: SuggestionFormat) -> Result<PenSetting, ForceTraceError> {
        guard calibrationProtocol == .pen, let profile = pen?.profile else {
            return .failure(ForceTraceError(file: file, "--format \(format.rawValue) is a pen setting; this is a \(calibrationProtocol.rawValue) calibration",
                                       hint: "use --format text, json or quirks"))
        }
        guard let range = profile.usableRange, let rangeFit = profile.rangeFit, let axisFit = profile.axisFit else {
            return .failure(ForceTraceError(file: file, "no pen curve can be fitted: " + profile.notes.joined(separator: "; "),
                                       hint: "repeat the pen calibration with every trial; 'forcetrace suggest \(file)' shows the peaks"))
        }
        switch format {
        case .xsetwacom:
            let threshold = pen?.tip.value.flatMap { tip in axis.normalized(tip).map { Int(($0 * PenSetting.wacomPressureScale).rounded()) } }
            return .success(.xsetwacom(device: PenSetting.wacomStylus(device.name), curve: axisFit.curve, threshold: threshold))
        case .gsettings:
            guard let fit = gnomeRangeFit(profile) else {
                return .failure(ForceTraceError(file: file, "no pen curve can be fitted over GNOME's whole-percent range"))
            }
            return .success(.gsettings(path: PenSetting.gnomePath(vendor: device.vendor, product: device.product), curve: axisFit.curve,
                                       range: fit.percents, rangeCurve: fit.fit.curve))
        case .kwin:
            return .success(.kwin(curve: rangeFit.curve, rangeMinimum: axis.normalized(range.lowerBound) ?? 0,
                                  rangeMaximum: axis.normalized(range.upperBound) ?? 1))
        case .libinputRange:
            return .success(.libinputRange(minimum: axis.normalized(range.lowerBound) ?? 0, maximum: axis.normalized(range.upperBound) ?? 1))
        case .hyprland:
            return .success(.hyprland(minimum: axis.normalized(range.lowerBound) ?? 0, maximum: axis.normalized(range.upperBound) ?? 1))
        case .text, .json, .quirks, .libinputPlugin:
            return .failure(ForceTraceError(file: file, "--format \(format.rawValue) is not a pen setting"))
        }
    }

    /// GNOME 47's range: the usable range widened to whole percents of the
    /// axis, and the curve fitted over that range.
    func gnomeRangeFit(_ profile: PenProfile) -> (percents: ClosedRange<Int>, fit: CurveFit)? {
        guard let range = profile.usableRange, let low = axis.normalized(range.lowerBound), let high = axis.normalized(range.upperBound) else { return nil }
        let percents = PenSetting.wholePercents(low, high)
        func raw(_ percent: Int) -> Double { Double(axis.minimum) + (Double(axis.maximum) - Double(axis.minimum)) * Double(percent) / 100 }
        return profile.fit(over: raw(percents.lowerBound)...raw(percents.upperBound)).map { (percents, $0) }
    }

    /// "curve X: role output (target), ...": how well a fit meets its points.
    static func fitComment(_ fit: CurveFit) -> String {
        "curve \(fit.curve): " + fit.points.map {
            String(format: "%@ %.1f %% (target %g)", $0.role.rawValue, $0.output * 100, $0.target * 100)
        }.joined(separator: ", ")
    }

    /// `--format xsetwacom|gsettings|kwin|libinput-range|hyprland`: the
    /// setting with comments saying where it came from and how well the curve fits.
    public func penSettingText(_ format: SuggestionFormat) -> Result<String, ForceTraceError> {
        penSetting(format).map { setting in
            var comments = ["forcetrace \(ForceTraceVersion.string) suggest --format \(format.rawValue), pen calibration of \"\(device.name)\"",
                            "from \(InputPath.displayName(file)):/recordings/\(recording)"]
            let profile = pen!.profile!
            let fit: CurveFit
            switch setting {
            case .xsetwacom:
                fit = profile.axisFit!
                comments.append("the wacom driver calls the stylus \"\(PenSetting.wacomStylus(device.name))\"; check with 'xsetwacom list'")
                if device.name.unicodeScalars.contains("\u{FFFD}") {
                    comments.append("the device name was not valid UTF-8, so its bytes are not known: use the name 'xsetwacom list' shows")
                }
            case .gsettings(_, _, let percents, _):
                fit = profile.axisFit!
                comments.append("a stylus with a serial number reads /org/gnome/desktop/peripherals/stylus/SERIAL/ instead")
                comments.append("GNOME 47 or later (gsettings-desktop-schemas 47 has pressure-range): the usable range in whole percents, "
                                + "\(percents.lowerBound)..\(percents.upperBound), and " + Self.fitComment(gnomeRangeFit(profile)!.fit))
                comments.append("the eraser was not calibrated: eraser-pressure-range and eraser-pressure-curve are left as they are")
                comments.append("older GNOME, over the whole axis:")
            case .kwin, .libinputRange, .hyprland:
                fit = profile.rangeFit!
            }
            switch setting {
            case .libinputRange:
                comments.append("libinput_tablet_tool_config_pressure_range_set(tool, minimum, maximum), libinput 1.26 or later")
            case .hyprland(let minimum, let maximum):
                let (low, high) = (PenSetting.fraction(minimum), PenSetting.fraction(maximum))
                comments += ["Hyprland 0.56 or later, in hyprland.lua; it applies to every tablet tool, and Hyprland has no pressure curve",
                             "(a device block, hl.device({ name = ..., pressure_range_min = ... }), takes the tool's name from 'hyprctl devices')",
                             "at run time: hyprctl eval '\(PenSetting.hyprlandLine(minimum, maximum))'",
                             "hyprland.conf (Hyprland 0.56's older config language) takes instead:",
                             "input {", "    tablettool {", "        pressure_range_min = \(low)", "        pressure_range_max = \(high)", "    }", "}",
                             "and at run time: hyprctl keyword input:tablettool:pressure_range_min \(low)",
                             "                 hyprctl keyword input:tablettool:pressure_range_max \(high)"]
            default:
                comments.append(Self.fitComment(fit))
            }
            let marker = if case .hyprland = setting { "--" } else { "#" }
            return (comments.map { ShellText.comment($0, marker: marker) } + setting.lines).map { $0 + "\n" }.joined()
        }
    }
}

extension CalibrationSuggestion {
    /// The pen profile's lines of `suggest`'s text.
    func penProfileText(_ profile: PenProfile) -> TerminalText {
        var text: TerminalText = ""
        if let activation = profile.activation { text += "\(String(format: "  activation: strokes start at a median %.0f", activation))\n" }
        if let range = profile.usableRange {
            text += "  usable range: \(range.lowerBound)..\(range.upperBound) (\(percent(range.lowerBound)) to \(percent(range.upperBound)) of the axis)\n"
        }
        for peaks in profile.classes {
            text += "\(String(format: "  %@: %d, peaks %d..%d, median %.1f", peaks.trialClass.rawValue, peaks.count, peaks.minimum, peaks.median, peaks.maximum))\n"
        }
        for (name, fit) in [("over the usable range (kwin, libinput-range, libinput-plugin)", profile.rangeFit), ("over the whole axis (xsetwacom, gsettings before GNOME 47)", profile.axisFit)] {
            guard let fit else { continue }
            text += "  curve \(name): \(fit.curve.description)\n"
            for point in fit.points {
                text += "    \(point.role.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0) + String(format: "input %5.1f %%  output %5.1f %%  target %5.1f %%  error %4.1f points", point.input * 100, point.output * 100, point.target * 100, point.errorPoints))\n"
            }
        }
        for note in profile.notes { text += "  pen: \(note)\n" }
        return text
    }
}
