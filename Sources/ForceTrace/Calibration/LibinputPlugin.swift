import Foundation

/// A pen calibration as a Lua plugin for libinput 1.30 or later
/// (`suggest --format libinput-plugin`; docs/ANALYSIS.md, "Pen settings").
///
/// Facts it rests on (libinput 1.31.3's doc/user/lua-plugins.rst and
/// src/libinput-plugin-lua.c): a plugin calls `libinput:register({1})`, gets
/// each device in "new-evdev-device" before libinput sets the device up, reads
/// `device:info()` (`bustype`, `vid`, `pid`) and `device:name()` (the kernel's
/// name), can change an axis with `set_absinfo`, and sees each frame as
/// `{ {usage=..., value=...}, ... }` in "evdev-frame", returning a table to
/// replace it or nil to keep it. Plugins run in a sandbox without `io` and `os`.
/// libinput's tablet code reads libevdev's stored pressure, not the frame a
/// plugin returns, so on a tablet only the absinfo change takes effect
/// (the ft-plugin kernel scenario measures it with libinput 1.31.3).
public struct LibinputPlugin: Equatable, Sendable {
    /// The one device to act on: all four must match.
    public var name: String
    public var bus: UInt16, vendor: UInt16, product: UInt16
    /// ABS_PRESSURE as recorded: a device with another range is left alone.
    public var axisMinimum: Int32, axisMaximum: Int32
    /// The usable range, raw: ABS_PRESSURE's new minimum and maximum.
    public var range: ClosedRange<Int32>
    /// The curve over the usable range (`PenProfile.rangeFit`).
    public var curve: PressureCurve
    /// Where it came from, for the header.
    public var provenance: [String] = []

    public init(name: String, bus: UInt16, vendor: UInt16, product: UInt16, axisMinimum: Int32, axisMaximum: Int32,
                range: ClosedRange<Int32>, curve: PressureCurve, provenance: [String] = []) {
        self.name = name; self.bus = bus; self.vendor = vendor; self.product = product
        self.axisMinimum = axisMinimum; self.axisMaximum = axisMaximum
        self.range = range; self.curve = curve; self.provenance = provenance
    }

    /// A Lua string literal holding exactly the bytes of `text`: printable
    /// ASCII as itself, `"` and `\` escaped, every other byte as `\ddd`
    /// (always three digits, so a digit after it is not read into it).
    public static func luaString(_ text: String) -> String {
        var literal = "\""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): literal += "\\\""
            case UInt8(ascii: "\\"): literal += "\\\\"
            case 0x20...0x7E: literal.unicodeScalars.append(Unicode.Scalar(byte))
            default: literal += String(format: "\\%03d", byte)
            }
        }
        return literal + "\""
    }

    /// A `--` comment line in printable ASCII: `\\` and every other character as an escape.
    static func comment(_ text: String) -> String {
        var line = text.isEmpty ? "--" : "-- "
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x5C: line += "\\\\"
            case 0x20...0x7E: line.unicodeScalars.append(scalar)
            case 0..<0x100: line += String(format: "\\x%02x", scalar.value)
            default: line += String(format: "\\u{%04x}", scalar.value)
            }
        }
        return line
    }

    /// libinput's default tip threshold on the narrowed axis (5 % of the
    /// range above its minimum, truncated: `axis_range_percentage`, 1.26 and later).
    public var tipThreshold: Int32 {
        Int32((Double(range.upperBound - range.lowerBound) * 5 / 100 + Double(range.lowerBound)).rounded(.towardZero))
    }

    /// The plugin's text: only printable ASCII and newlines.
    public var text: String {
        let (low, high) = (range.lowerBound, range.upperBound)
        var header = ["libinput Lua plugin written by forcetrace \(ForceTraceVersion.string) suggest --format libinput-plugin"]
        header += provenance
        header += [
            "",
            "For one device only: bus, vendor, product and kernel name must all match,",
            String(format: "bus 0x%04x, vendor 0x%04x, product 0x%04x, name ", bus, vendor, product) + Self.luaString(name) + ",",
            "and its ABS_PRESSURE must be \(axisMinimum)..\(axisMaximum) as calibrated. On that device it",
            "1. sets ABS_PRESSURE's minimum and maximum to the usable range \(low)..\(high) when the device",
            "   is added: libinput's default tip thresholds (down at 5 %, up at 1 % of the range above",
            "   its minimum; down at \(tipThreshold) here) and its normalized pressure follow the calibration;",
            "2. maps each ABS_PRESSURE value inside the range through the fitted curve \(curve)",
            "   (cubic Bezier, input and output as percent of the range; values outside are kept).",
            "   libinput 1.30 and 1.31 do not use it on a tablet: their tablet code reads the pressure",
            "   libevdev stored before plugins run (libinput 1.31.3 measured: tips and reported pressure",
            "   follow step 1 alone). Set the curve where the desktop or the application takes one.",
            "",
            "Needs libinput 1.30 or later built with Lua plugins (plugin API version 1).",
            "Install: /etc/libinput/plugins/50-forcetrace-pen.lua. libinput loads plugins only when",
            "the compositor asks for them (libinput_plugin_system_load_plugins) or libinput was built",
            "with -Dautoload-plugins=true. Try it: libinput debug-events --verbose --enable-plugins",
        ]
        var lines = header.map(Self.comment)
        lines += [
            "",
            "libinput:register({ 1 })",
            "",
            "local NAME = \(Self.luaString(name))",
            String(format: "local BUS, VENDOR, PRODUCT = 0x%04x, 0x%04x, 0x%04x", bus, vendor, product),
            "local AXIS_MIN, AXIS_MAX = \(axisMinimum), \(axisMaximum)",
            "local LOW, HIGH = \(low), \(high)",
            "local X1, Y1, X2, Y2 = \(curve.x1), \(curve.y1), \(curve.x2), \(curve.y2)",
            "",
            "-- One coordinate of the Bezier from 0 to 1 with control values a and b, at t.",
            "local function bezier(t, a, b)",
            "    local u = 1 - t",
            "    return 3 * u * u * t * a + 3 * u * t * t * b + t * t * t",
            "end",
            "",
            "-- The curve's output for an input, both 0..1: x(t) = input solved by bisection",
            "-- (x rises, as X1 <= X2), the same steps as forcetrace's PressureCurve.",
            "local function curve(input)",
            "    if input <= 0 then return 0 end",
            "    if input >= 1 then return 1 end",
            "    local a, b = X1 / 100, X2 / 100",
            "    local low, high = 0.0, 1.0",
            "    for _ = 1, 48 do",
            "        local mid = (low + high) / 2",
            "        if bezier(mid, a, b) < input then low = mid else high = mid end",
            "    end",
            "    return bezier((low + high) / 2, Y1 / 100, Y2 / 100)",
            "end",
            "",
            "-- A raw pressure through the curve; outside the range it is kept.",
            "local function mapped(value)",
            "    if value <= LOW or value >= HIGH then return value end",
            "    return math.floor(LOW + curve((value - LOW) / (HIGH - LOW)) * (HIGH - LOW) + 0.5)",
            "end",
            "",
            "libinput:connect(\"new-evdev-device\", function(device)",
            "    local info = device:info()",
            "    if info.bustype ~= BUS or info.vid ~= VENDOR or info.pid ~= PRODUCT or device:name() ~= NAME then",
            "        return",
            "    end",
            "    local pressure = device:absinfos()[evdev.ABS_PRESSURE]",
            "    if pressure == nil or pressure.minimum ~= AXIS_MIN or pressure.maximum ~= AXIS_MAX then",
            "        libinput:log_error(\"forcetrace: ABS_PRESSURE is not the calibrated \" .. AXIS_MIN .. \"..\" .. AXIS_MAX .. \": left alone\")",
            "        return",
            "    end",
            "    device:set_absinfo(evdev.ABS_PRESSURE, { minimum = LOW, maximum = HIGH })",
            "    device:connect(\"evdev-frame\", function(_, frame)",
            "        local changed = false",
            "        for _, event in ipairs(frame) do",
            "            if event.usage == evdev.ABS_PRESSURE then",
            "                local value = mapped(event.value)",
            "                if value ~= event.value then",
            "                    event.value = value",
            "                    changed = true",
            "                end",
            "            end",
            "        end",
            "        if changed then return frame end",
            "    end)",
            "    libinput:log_info(\"forcetrace: pressure range \" .. LOW .. \"..\" .. HIGH .. \", curve \(curve)\")",
            "end)",
        ]
        return lines.map { $0 + "\n" }.joined()
    }
}

extension CalibrationSuggestion {
    /// `--format libinput-plugin`: the plugin for this pen calibration's
    /// device, or why there is none.
    public func libinputPlugin() -> Result<LibinputPlugin, ForceTraceError> {
        guard calibrationProtocol == .pen, let profile = pen?.profile else {
            return .failure(ForceTraceError(file: file, "--format libinput-plugin is for a pen calibration; this is a \(calibrationProtocol.rawValue) calibration",
                                       hint: "use --format quirks for a touchpad, or text or json"))
        }
        guard let range = profile.usableRange, let fit = profile.rangeFit else {
            return .failure(ForceTraceError(file: file, "no pen curve can be fitted: " + profile.notes.joined(separator: "; "),
                                       hint: "repeat the pen calibration with every trial; 'forcetrace suggest \(file)' shows the peaks"))
        }
        // The plugin matches the kernel's name byte for byte; a name that was not UTF-8 lost its bytes.
        guard !device.name.unicodeScalars.contains("\u{FFFD}") else {
            return .failure(ForceTraceError(file: file, "the device name was not valid UTF-8, so its bytes are not known and the plugin could not match it",
                                       hint: "use --format libinput-range or quirks"))
        }
        return .success(LibinputPlugin(name: device.name, bus: device.bus, vendor: device.vendor, product: device.product,
                                       axisMinimum: axis.minimum, axisMaximum: axis.maximum, range: range, curve: fit.curve,
                                       provenance: ["from \(InputPath.displayName(file)):/recordings/\(recording)", Self.fitComment(fit)]))
    }
}
