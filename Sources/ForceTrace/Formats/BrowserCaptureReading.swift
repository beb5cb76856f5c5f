import Foundation

// Reading a browser capture's JSON: typed members, with errors that name
// the file and the path inside it.

extension BrowserCapture {
    /// Typed access to one object's members, with errors naming the file and path.
    struct Members {
        let object: JSONObject
        let path: String
        let file: String

        func fail(_ key: String?, _ message: String) -> ForceTraceError {
            let at = key.map { path + (JSONReader.isPlainKey($0) ? "." + $0 : "[" + JSONReader.quoted($0) + "]") } ?? path
            return ForceTraceError(file: file, "\(at): \(message)", hint: "docs/FORMAT.md, \"Browser captures\", lists every member")
        }

        func number(_ key: String) throws -> Double? {
            switch object[key] {
            case nil, .null?: return nil
            case .number(let value)?: return value
            case let other?: throw fail(key, "expected a number, found \(other.kind)")
            }
        }

        func requiredNumber(_ key: String) throws -> Double {
            guard let value = try number(key) else { throw fail(key, "missing; expected a number") }
            return value
        }

        func string(_ key: String) throws -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            case let other?: throw fail(key, "expected a string, found \(other.kind)")
            }
        }

        func requiredString(_ key: String) throws -> String {
            guard let value = try string(key) else { throw fail(key, "missing; expected a string") }
            return value
        }

        func bool(_ key: String) throws -> Bool? {
            switch object[key] {
            case nil, .null?: return nil
            case .bool(let value)?: return value
            case let other?: throw fail(key, "expected true or false, found \(other.kind)")
            }
        }

        func identifier(_ key: String) throws -> Int64 {
            let value = try requiredNumber(key)
            guard value == value.rounded(), abs(value) <= 9_007_199_254_740_991 else { throw fail(key, "expected a whole number, found \(value)") }
            return Int64(value)
        }

        func members(_ key: String) throws -> Members? {
            switch object[key] {
            case nil, .null?: return nil
            case .object(let inner)?: return Members(object: inner, path: path + "." + key, file: file)
            case let other?: throw fail(key, "expected an object, found \(other.kind)")
            }
        }

        /// Each object of the array `key` (an absent array is empty).
        func objects(_ key: String) throws -> [Members] {
            switch object[key] {
            case nil, .null?: return []
            case .array(let items)?:
                return try items.enumerated().map { index, item in
                    let itemPath = "\(path).\(key)[\(index)]"
                    guard case .object(let inner) = item else {
                        throw ForceTraceError(file: file, "\(itemPath): expected an object, found \(item.kind)")
                    }
                    return Members(object: inner, path: itemPath, file: file)
                }
            case let other?: throw fail(key, "expected an array, found \(other.kind)")
            }
        }
    }

    /// Reads and checks a capture's JSON.
    static func read(_ bytes: [UInt8], file: String) throws -> Capture {
        let root = try JSONReader.parse(bytes, file: file, limits: limits)
        guard case .object(let object) = root else {
            throw ForceTraceError(file: file, "$: expected an object, found \(root.kind); not a browser capture")
        }
        let top = Members(object: object, path: "$", file: file)
        let format = try top.string("format")
        guard format == formatName else {
            throw top.fail("format", "is \(format.map { "'" + TextEscaping.escaped(String($0.prefix(60))) + "'" } ?? "missing"); "
                                     + "expected '\(formatName)': this JSON is not a browser capture")
        }
        let version = try top.requiredNumber("version")
        guard version == Double(Self.version) else {
            throw top.fail("version", "is \(version); this forcetrace reads version \(Self.version)").withHint("a newer page wrote it: update forcetrace")
        }
        let timeOrigin = try top.requiredNumber("timeOrigin")
        // Milliseconds since 1970: a wall-clock time in nanoseconds must fit Int64 (until 2262).
        guard timeOrigin >= 0, timeOrigin < 9.2e12 else { throw top.fail("timeOrigin", "is \(timeOrigin); expected milliseconds since 1970") }
        guard let screen = try top.members("screen") else { throw top.fail("screen", "missing; expected {width, height, devicePixelRatio}") }
        let ratio = try screen.requiredNumber("devicePixelRatio")
        guard ratio > 0, ratio <= 16 else { throw screen.fail("devicePixelRatio", "is \(ratio); expected a ratio above 0 and at most 16") }
        let width = try screen.requiredNumber("width"), height = try screen.requiredNumber("height")
        for (key, value) in [("width", width), ("height", height)] where !(value >= 1 && value * ratio <= 1_000_000) {
            throw screen.fail(key, "is \(value); expected CSS pixels, at least 1 and at most 1000000 device pixels")
        }
        var capture = Capture(timeOrigin: timeOrigin, devicePixelRatio: ratio, screenWidth: width, screenHeight: height,
                              userAgent: try top.string("userAgent") ?? "")
        if let name = try top.string("protocol") {
            guard let found = CalibrationProtocol(rawValue: name), found != .touchpad else {
                throw top.fail("protocol", "is '\(TextEscaping.escaped(String(name.prefix(40))))'; expected app or pen")
            }
            capture.calibrationProtocol = found
        }
        // Touch events, where the browser has them; else touch-type pointer events.
        var touch: [Sample] = []
        for item in try top.objects("touch") {
            let type = try item.requiredString("type")
            let phase: Sample.Phase
            switch type {
            case "start": phase = .down
            case "move": phase = .move
            case "end", "cancel": phase = .up
            default: throw item.fail("type", "is '\(TextEscaping.escaped(String(type.prefix(40))))'; expected start, move, end or cancel")
            }
            // A pencil's touches are also pen pointer events: read there.
            if try item.string("touchType") == "stylus" { continue }
            var sample = try position(item, phase: phase)
            sample.pressure = try unit(item, "force")
            let radiusX = try item.number("radiusX"), radiusY = try item.number("radiusY")
            if let radiusX, let radiusY {
                guard radiusX >= 0, radiusY >= 0, radiusX < 1e6, radiusY < 1e6 else { throw item.fail("radiusX", "radii must be 0 or more CSS pixels") }
                sample.major = 2 * max(radiusX, radiusY)
                sample.minor = 2 * min(radiusX, radiusY)
            }
            sample.pressed = phase != .up
            touch.append(sample)
        }
        var pen: [Sample] = [], pointerTouch: [Sample] = []
        for item in try top.objects("pointer") {
            let type = try item.requiredString("type")
            let phase: Sample.Phase
            switch type {
            case "down": phase = .down
            case "move": phase = .move
            case "up", "cancel": phase = .up
            case "leave": phase = .leave
            default: throw item.fail("type", "is '\(TextEscaping.escaped(String(type.prefix(40))))'; expected down, move, up, cancel or leave")
            }
            let pointerType = try item.requiredString("pointerType")
            guard pointerType == "pen" || pointerType == "touch" else { continue }
            var sample = try position(item, phase: phase)
            sample.pressure = try unit(item, "pressure")
            let buttons = try item.number("buttons") ?? 0
            sample.pressed = phase == .down || (phase == .move && Int64(exactly: buttons.rounded()).map { $0 & 1 == 1 } ?? false)
            if let width = try item.number("width"), let height = try item.number("height") {
                guard width >= 0, height >= 0, width < 1e6, height < 1e6 else { throw item.fail("width", "contact sizes must be 0 or more CSS pixels") }
                sample.major = max(width, height)
                sample.minor = min(width, height)
            }
            if pointerType == "pen" {
                var tiltX = try item.number("tiltX"), tiltY = try item.number("tiltY")
                if tiltX == nil || tiltY == nil, let altitude = try item.number("altitudeAngle"), let azimuth = try item.number("azimuthAngle") {
                    (tiltX, tiltY) = tilt(altitude: altitude, azimuth: azimuth)
                }
                for (key, value) in [("tiltX", tiltX), ("tiltY", tiltY)] {
                    if let value, !(value >= -90 && value <= 90) { throw item.fail(key, "is \(value); expected degrees from -90 to 90") }
                }
                sample.tiltX = tiltX
                sample.tiltY = tiltY
                pen.append(sample)
            } else {
                pointerTouch.append(sample)
            }
        }
        var mouse: [Sample] = []
        var held = false
        for item in try top.objects("mouseForce") {
            let type = try item.requiredString("type")
            var sample = try position(item, phase: .move, identified: false)
            let force = try item.requiredNumber("force")
            guard force >= 0, force <= webkitForceMaximum else { throw item.fail("force", "is \(force); webkitForce is 0 to \(webkitForceMaximum)") }
            sample.pressure = force / webkitForceMaximum
            switch type {
            case "mousedown": sample.phase = .down; held = true
            case "mouseup": sample.phase = .up; held = false
            case "willbegin", "down", "up", "changed", "mousemove": guard held else { continue }
            default:
                throw item.fail("type", "is '\(TextEscaping.escaped(String(type.prefix(40))))'; expected mousedown, mouseup, mousemove, willbegin, down, up or changed")
            }
            sample.id = 0
            sample.pressed = sample.phase != .up
            mouse.append(sample)
        }
        capture.samples[.touch] = touch.isEmpty ? pointerTouch : touch
        if !touch.isEmpty { capture.noPressure[.touch] = 0 }
        capture.samples[.pen] = pen
        capture.samples[.mouse] = mouse
        for item in try top.objects("trials") {
            let name = try item.requiredString("class")
            guard let trialClass = TrialClass(rawValue: name), let calibrationProtocol = capture.calibrationProtocol,
                  calibrationProtocol.classes.contains(trialClass) else {
                let expected = capture.calibrationProtocol.map { $0.classes.map(\.rawValue).joined(separator: ", ") } ?? "a top-level protocol first"
                throw item.fail("class", "is '\(TextEscaping.escaped(String(name.prefix(40))))'; expected \(expected)")
            }
            let inputName = try item.requiredString("input")
            guard let input = InputKind(rawValue: inputName) else { throw item.fail("input", "expected touch, pen or mouse") }
            let start = try item.requiredNumber("start"), end = try item.requiredNumber("end")
            guard end >= start else { throw item.fail("end", "is before start") }
            capture.trials.append(Trial(trialClass: trialClass, input: input, id: trialClass.isHover ? -1 : try item.identifier("id"),
                                        start: start, end: end, path: item.path))
        }
        return capture
    }

    private static func position(_ item: Members, phase: Sample.Phase, identified: Bool = true) throws -> Sample {
        let t = try item.requiredNumber("t")
        guard t >= -1e9, t <= 1e11 else { throw item.fail("t", "is \(t); expected milliseconds since timeOrigin") }
        let x = try item.requiredNumber("x"), y = try item.requiredNumber("y")
        guard abs(x) <= 1e6, abs(y) <= 1e6 else { throw item.fail("x", "positions are CSS pixels within a million of the origin") }
        return Sample(t: t, phase: phase, id: identified ? try item.identifier("id") : 0, x: x, y: y, pressed: false)
    }

    private static func unit(_ item: Members, _ key: String) throws -> Double? {
        guard let value = try item.number(key) else { return nil }
        guard value >= 0, value <= 1 else { throw item.fail(key, "is \(value); expected 0 to 1") }
        return value
    }

    /// Pointer Events 3's conversion from altitude and azimuth (radians) to tilt (degrees).
    static func tilt(altitude: Double, azimuth: Double) -> (Double, Double) {
        guard altitude > 0.0001 else { return (cos(azimuth) * 90, sin(azimuth) * 90) }
        let tanAltitude = tan(altitude)
        let degrees = 180 / Double.pi
        return (atan(cos(azimuth) / tanAltitude) * degrees, atan(sin(azimuth) / tanAltitude) * degrees)
    }
}
