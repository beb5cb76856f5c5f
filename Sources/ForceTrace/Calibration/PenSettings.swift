import Foundation

/// A pen calibration as one desktop's setting: values, rendered by `text`
/// (docs/ANALYSIS.md, "Pen settings").
public enum PenSetting: Equatable, Sendable {
    /// xf86-input-wacom: `xsetwacom set DEVICE PressureCurve x1 y1 x2 y2` and
    /// `Threshold N` (the tip's press threshold on the driver's 0–2048 scale).
    case xsetwacom(device: String, curve: PressureCurve, threshold: Int?)
    /// GNOME: the relocatable schema's `pressure-curve` at `path`.
    case gsettings(path: String, curve: PressureCurve)
    /// KWin's tablet properties `pressureCurve`, `pressureRangeMin`, `pressureRangeMax`.
    case kwin(curve: PressureCurve, rangeMinimum: Double, rangeMaximum: Double)
    /// libinput ≥ 1.26: `libinput_tablet_tool_config_pressure_range_set(tool, min, max)`.
    case libinputRange(minimum: Double, maximum: Double)

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

    /// The lines to run or set, without comments.
    public var lines: [String] {
        switch self {
        case .xsetwacom(let device, let curve, let threshold):
            let (setup, word) = ShellText.word(device, variable: "device")
            return setup + ["xsetwacom set \(word) PressureCurve \(curve)"]
                + (threshold.map { ["xsetwacom set \(word) Threshold \($0)"] } ?? [])
        case .gsettings(let path, let curve):
            // A GVariant `ai` in single quotes: digits, commas and blanks only.
            return ["gsettings set \(Self.gnomeSchema):\(path) pressure-curve '[\(curve.points.map(String.init).joined(separator: ", "))]'"]
        case .kwin(let curve, let minimum, let maximum):
            return ["pressureCurve=\(curve.kwinString)", "pressureRangeMin=\(Self.fraction(minimum))",
                    "pressureRangeMax=\(Self.fraction(maximum))"]
        case .libinputRange(let minimum, let maximum):
            return ["minimum=\(Self.fraction(minimum))", "maximum=\(Self.fraction(maximum))"]
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

    /// A `# ` comment line: controls, direction marks and `\` shown as escapes.
    public static func comment(_ text: String) -> String {
        var line = "# "
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
            return .success(.gsettings(path: PenSetting.gnomePath(vendor: device.vendor, product: device.product), curve: axisFit.curve))
        case .kwin:
            return .success(.kwin(curve: rangeFit.curve, rangeMinimum: axis.normalized(range.lowerBound) ?? 0,
                                  rangeMaximum: axis.normalized(range.upperBound) ?? 1))
        case .libinputRange:
            return .success(.libinputRange(minimum: axis.normalized(range.lowerBound) ?? 0, maximum: axis.normalized(range.upperBound) ?? 1))
        case .text, .json, .quirks:
            return .failure(ForceTraceError(file: file, "--format \(format.rawValue) is not a pen setting"))
        }
    }

    /// `--format xsetwacom|gsettings|kwin|libinput-range`: the setting with
    /// comments saying where it came from and how well the curve fits.
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
            case .gsettings:
                fit = profile.axisFit!
                comments.append("a stylus with a serial number reads /org/gnome/desktop/peripherals/stylus/SERIAL/ instead")
            case .kwin, .libinputRange:
                fit = profile.rangeFit!
            }
            if case .libinputRange = setting {
                comments.append("libinput_tablet_tool_config_pressure_range_set(tool, minimum, maximum), libinput 1.26 or later")
            } else {
                comments.append("curve \(fit.curve): " + fit.points.map {
                    String(format: "%@ %.1f %% (target %g)", $0.role.rawValue, $0.output * 100, $0.target * 100)
                }.joined(separator: ", "))
            }
            return (comments.map(ShellText.comment) + setting.lines).map { $0 + "\n" }.joined()
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
        for (name, fit) in [("over the usable range (kwin, libinput-range)", profile.rangeFit), ("over the whole axis (xsetwacom, gsettings)", profile.axisFit)] {
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
