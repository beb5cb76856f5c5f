import Foundation

/// A libinput quirks file as libinput's parser reads it (`parse_file` in
/// `src/quirks.c`, `src/util-prop-parsers.c`): sections are `[name]`, then
/// `Match*` lines, then `Attr*`/`Model*` lines; a device takes the
/// properties of every section whose matches all hold, and a later
/// section's value replaces an earlier one's.
///
/// The syntax is the same in every release; which keys and values are
/// known is not (`LibinputQuirksDialect`). A file one release refuses makes
/// that release load no quirks at all, so a refusal is a result
/// (`refusal(_:)`), not an error.
public struct LibinputQuirksFile: Sendable {
    public struct Entry: Sendable {
        public var key: String
        public var value: String
        public var line: Int
    }

    public struct Section: Sendable {
        public var name: String
        public var file: String
        public var line: Int
        public var matches: [Entry] = []
        public var attributes: [Entry] = []
    }

    /// Why libinput refuses a file: its path, the line (1-based; libinput's own messages count from 0) and the reason.
    public struct Refusal: Equatable, Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int?
        public var reason: String
        public var description: String {
            "\(InputPath.displayName(file))\(line.map { ":\($0)" } ?? ""): \(reason)"
        }
    }

    public var path: String
    public var sections: [Section]
    /// The first line no release accepts, or nil.
    public var syntaxError: Refusal?

    public init(path: String, text: String) {
        self.path = path
        sections = []
        syntaxError = nil
        enum State { case section, match, matchOrValue, valueOrSection }
        var state = State.section
        func refuse(_ line: Int?, _ reason: String) { syntaxError = Refusal(file: path, line: line, reason: reason) }
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            // fgets reads 511 bytes at a time: a longer line is two lines to libinput.
            guard raw.utf8.count < 511 else { refuse(number, "a line longer than libinput's 511 bytes"); return }
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") {
                line = line[..<hash]
                while let last = line.last, last == " " || last == "\t" { line = line.dropLast() }
            }
            if line.isEmpty { continue }
            if line.last == " " || line.last == "\t" { refuse(number, "trailing whitespace"); return }
            switch line.first! {
            case " ", "\t": refuse(number, "whitespace before the key"); return
            case "[":
                guard line.last == "]" else { refuse(number, "a section header must end in ']'"); return }
                guard state == .section || state == .valueOrSection else {
                    refuse(number, "a section with no Attr or Model line before [\(line.dropFirst().dropLast())]"); return
                }
                sections.append(Section(name: String(line.dropFirst().dropLast()), file: path, line: number))
                state = .match
            case "A"..."Z":
                let isMatch = line.hasPrefix("Match")
                switch state {
                case .section: refuse(number, "a line outside any [section]"); return
                case .match:
                    guard isMatch else { refuse(number, "a section starts with its Match lines"); return }
                    state = .matchOrValue
                case .matchOrValue: if !isMatch { state = .valueOrSection }
                case .valueOrSection:
                    guard !isMatch else { refuse(number, "a Match line after an Attr or Model line"); return }
                }
                let parts = line.split(separator: "=")
                // strv_from_string skips empty words: "Key==V" is Key and V.
                guard parts.count == 2 else { refuse(number, "expected KEY=VALUE"); return }
                guard parts[1].first != "\"", parts[1].first != "'" else { refuse(number, "a value in quotes"); return }
                let key = String(parts[0]), value = String(parts[1])
                guard isMatch || key.hasPrefix("Attr") || key.hasPrefix("Model") else { refuse(number, "unknown key '\(key)'"); return }
                let entry = Entry(key: key, value: value, line: number)
                if isMatch {
                    guard !sections[sections.count - 1].matches.contains(where: { $0.key == key }) else {
                        refuse(number, "\(key) twice in one section"); return
                    }
                    sections[sections.count - 1].matches.append(entry)
                } else {
                    sections[sections.count - 1].attributes.append(entry)
                }
            default: refuse(number, "a line must start with '[' or a capital letter"); return
            }
        }
        if sections.isEmpty { refuse(nil, "holds no [section]") }
        else if let last = sections.last, last.attributes.isEmpty { refuse(last.line, "section [\(last.name)] has no Attr or Model line") }
    }

    /// The first line `dialect`'s release refuses, or nil when it reads the whole file.
    public func refusal(_ dialect: LibinputQuirksDialect) -> Refusal? {
        if let syntaxError { return syntaxError }
        for section in sections {
            for entry in section.matches {
                if let reason = dialect.matchProblem(entry.key, entry.value) { return Refusal(file: path, line: entry.line, reason: reason) }
            }
            for entry in section.attributes {
                if let reason = dialect.attributeProblem(entry.key, entry.value) { return Refusal(file: path, line: entry.line, reason: reason) }
            }
        }
        return nil
    }

    public static func read(_ path: String) throws -> LibinputQuirksFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ForceTraceError(file: path, "cannot be read", hint: "give a libinput .quirks file, such as 'forcetrace suggest --format quirks' writes")
        }
        return LibinputQuirksFile(path: path, text: String(decoding: data, as: UTF8.self))
    }

    /// The `*.quirks` files of a folder in libinput's order (scandir's versionsort).
    public static func folder(_ path: String) throws -> [LibinputQuirksFile] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return try names.filter { $0.hasSuffix(".quirks") }.sorted { versionOrder($0, $1) }
            .map { try read(path + "/" + $0) }
    }

    /// `strverscmp`'s order (glibc), as scandir's versionsort uses it: runs of
    /// digits compare as numbers, so "9-a" comes before "10-a"; a run with a
    /// leading zero compares bytewise, which is strverscmp's order too for
    /// the names quirks folders hold.
    static func versionOrder(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        func digit(_ c: UInt8) -> Bool { (0x30...0x39).contains(c) }
        var i = 0
        while i < x.count && i < y.count && x[i] == y[i] { i += 1 }
        if i == x.count || i == y.count { return x.count < y.count }
        var start = i
        while start > 0 && digit(x[start - 1]) { start -= 1 }
        func run(_ s: [UInt8]) -> Int { var end = start; while end < s.count && digit(s[end]) { end += 1 }; return end - start }
        let runX = run(x), runY = run(y)
        // Inside a run of digits (or at two digits), the longer number is the larger.
        let numeric = start < i || (digit(x[i]) && digit(y[i]))
        if numeric && x[start] != 0x30 && y[start] != 0x30 && runX != runY {
            return runX < runY
        }
        return x[i] < y[i]
    }

    /// Where Debian's libinput installs the shipped quirks.
    public static let shippedFolder = "/usr/share/libinput"
}

extension LibinputQuirksDialect {
    /// Why this release refuses a Match line, or nil.
    func matchProblem(_ key: String, _ value: String) -> String? {
        guard matchKeys.contains(key) else { return "unknown match key '\(key)' in this release" }
        switch key {
        case "MatchBus": return Self.buses.contains(value) ? nil : "MatchBus takes \(Self.buses.sorted().joined(separator: ", "))"
        case "MatchVendor", "MatchVersion": return Self.hexID(value) == nil ? "\(key) takes 0x and four upper-case hex digits" : nil
        case "MatchProduct":
            let ids = value.split(separator: ";")
            if ids.count > 1 && !productList { return "MatchProduct takes one id in this release (a list from 1.27)" }
            return ids.count <= 63 && ids.allSatisfy({ Self.hexID($0) != nil }) ? nil : "MatchProduct takes 0x and upper-case hex digits"
        case "MatchDMIModalias": return value.hasPrefix("dmi:") ? nil : "MatchDMIModalias must start with 'dmi:'"
        case "MatchUdevType": return Self.udevTypes.contains(value) ? nil : "MatchUdevType takes \(Self.udevTypes.sorted().joined(separator: ", "))"
        default: return nil
        }
    }

    /// Why this release refuses an Attr or Model line, or nil. Values are
    /// checked for the keys the pressure rules read and for every Model key;
    /// other attributes' values are taken as libinput would read them.
    func attributeProblem(_ key: String, _ value: String) -> String? {
        if key.hasPrefix("Model") {
            guard value == "0" || value == "1" else { return "\(key) takes 0 or 1" }
        }
        guard attributeKeys.contains(key) else { return "unknown key '\(key)' in this release" }
        switch key {
        case "AttrPressureRange", "AttrTouchSizeRange":
            return LibinputRange(value) == nil ? "\(key) takes N:M with N > M, or none" : nil
        case "AttrPalmPressureThreshold", "AttrThumbPressureThreshold", "AttrPalmSizeThreshold", "AttrThumbSizeThreshold":
            return LibinputQuirksDialect.unsigned(value) == nil ? "\(key) takes an unsigned integer" : nil
        case "AttrInputProp":
            return signedEntries(value).flatMap { $0.allSatisfy { inputProperty($0.name) != nil } ? $0 : nil } == nil
                ? "AttrInputProp takes +NAME or -NAME entries (or hex) separated by ';'" : nil
        case "AttrInputPropEnable", "AttrInputPropDisable":
            let names = value.split(separator: ";")
            return !names.isEmpty && names.allSatisfy({ inputProperty($0) != nil }) ? nil : "\(key) takes property names separated by ';'"
        case "AttrEventCode":
            return signedEntries(value).flatMap { $0.allSatisfy { Self.eventCode($0.name) != nil } ? $0 : nil } == nil
                ? "AttrEventCode takes +CODE or -CODE entries separated by ';'" : nil
        case "AttrEventCodeEnable", "AttrEventCodeDisable":
            let names = value.split(separator: ";")
            return !names.isEmpty && names.allSatisfy({ Self.eventCode($0) != nil }) ? nil : "\(key) takes event codes separated by ';'"
        default: return nil
        }
    }

    /// `+X;-Y` entries (empty ones skipped, as strv_from_string does); nil when one lacks its sign.
    func signedEntries(_ value: String) -> [(enable: Bool, name: Substring)]? {
        var entries: [(Bool, Substring)] = []
        for item in value.split(separator: ";") {
            guard let sign = item.first, sign == "+" || sign == "-" else { return nil }
            entries.append((sign == "+", item.dropFirst()))
        }
        return entries.isEmpty ? nil : entries
    }

    /// `parse_hex`: "0x", then upper-case hex digits, at most 0xFFFF.
    static func hexID<S: StringProtocol>(_ text: S) -> UInt16? {
        guard text.hasPrefix("0x"), text.count > 2,
              text.dropFirst(2).allSatisfy({ ("0"..."9").contains($0) || ("A"..."F").contains($0) }) else { return nil }
        return UInt16(text.dropFirst(2), radix: 16)
    }

    /// `safe_atou`: decimal digits, at most UInt32's largest.
    static func unsigned(_ text: String) -> UInt32? {
        guard !text.isEmpty, text.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return UInt32(text)
    }

    /// An event code by name (`EV_ABS`, `ABS_MT_PRESSURE`) or `EV_ABS:0x18`, as (type, code); a type alone has no code.
    static func eventCode(_ text: Substring) -> (type: UInt16, code: UInt16?)? {
        if let colon = text.firstIndex(of: ":") {
            var hex = text[text.index(after: colon)...]
            if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex = hex.dropFirst(2) }
            guard let type = EventNames.type(named: String(text[..<colon])), !hex.isEmpty, let code = UInt16(hex, radix: 16),
                  code <= EventNames.maxCode(type: type) ?? 0 else { return nil }
            return (type, code)
        }
        if text.hasPrefix("EV_") { return EventNames.type(named: String(text)).map { ($0, nil) } }
        return EventNames.typeAndCode(named: String(text)).map { ($0.type, $0.code) }
    }
}

/// `AttrPressureRange`'s value (`parse_range_property`): `none` is 0:0,
/// which turns detection off; otherwise `%d:%d` with the second below the first.
public struct LibinputRange: Equatable, Sendable {
    public var high: Int32
    public var low: Int32
    public init(high: Int32, low: Int32) { self.high = high; self.low = low }
    public init?(_ text: String) {
        if text == "none" { self.init(high: 0, low: 0); return }
        // sscanf("%d:%d"): blanks before each number, a sign, digits; anything may follow the second.
        var rest = Substring(text)
        func number() -> Int32? {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            var digits = ""
            if let sign = rest.first, sign == "-" || sign == "+" { digits.append(sign); rest = rest.dropFirst() }
            let run = rest.prefix { ("0"..."9").contains($0) }
            guard !run.isEmpty else { return nil }
            rest = rest.dropFirst(run.count)
            return Int32(digits + run)
        }
        guard let first = number(), rest.first == ":" else { return nil }
        rest = rest.dropFirst()
        guard let second = number(), second < first else { return nil }
        self.init(high: first, low: second)
    }
    public var isOff: Bool { high == 0 && low == 0 }
}

/// What libinput's udev setup says about a device, which quirks match on.
public enum LibinputUdevType: String, Sendable {
    case touchpad, tablet, touchscreen, other

    public init(_ device: DeviceDescription) {
        if device.isPen { self = .tablet }
        else if device.properties.contains(InputProperty.direct) { self = .touchscreen }
        else if device.has(type: EventType.key, code: Button.toolFinger) || device.contactProtocol == .slots { self = .touchpad }
        else { self = .other }
    }
}

/// The pressure attributes that apply to one device under one libinput
/// release: its defaults overlaid with every matching section of the given
/// files, in order. When the release refuses one file, it loads none.
public struct LibinputQuirkSet: Sendable {
    public var name: String
    /// The release whose parser and rules apply.
    public var rules: LibinputRules
    public var pressureRange: LibinputRange?
    public var palmThreshold: UInt32?
    public var thumbThreshold: UInt32?
    public var touchSizeRange: LibinputRange?
    /// `ModelPressurePad=1` (read only by releases that know the key).
    public var modelPressurePad = false
    /// Input properties and pressure axes set or cleared by `AttrInputProp`/`AttrEventCode` (or their 1.22 forms).
    public var properties: [UInt16: Bool] = [:]
    public var pressureCodes: [UInt16: Bool] = [:]
    /// The sections that matched, as "file:line [name]".
    public var matched: [String] = []
    /// Sections that could not be decided for this recording (a DMI match without the recording's DMI).
    public var undecided: [String] = []
    /// The file this release refuses, which leaves it with no quirks at all.
    public var refused: LibinputQuirksFile.Refusal?

    public init(name: String, rules: LibinputRules = LibinputRules.history[0]) {
        self.name = name
        self.rules = rules
    }

    public init(name: String, files: [LibinputQuirksFile], device: DeviceDescription,
                rules: LibinputRules = LibinputRules.history[0]) {
        self.init(name: name, rules: rules)
        if let refusal = files.lazy.compactMap({ $0.refusal(rules.quirks) }).first {
            refused = refusal
            return
        }
        for file in files {
            for section in file.sections {
                switch Self.matches(section, device) {
                case .some(false): continue
                case .none: undecided.append("\(section.file):\(section.line) [\(section.name)]"); continue
                case .some(true): break
                }
                matched.append("\(section.file):\(section.line) [\(section.name)]")
                for entry in section.attributes { apply(entry) }
            }
        }
    }

    private mutating func apply(_ entry: LibinputQuirksFile.Entry) {
        let dialect = rules.quirks
        switch entry.key {
        case "AttrPressureRange": pressureRange = LibinputRange(entry.value)
        case "AttrPalmPressureThreshold": palmThreshold = LibinputQuirksDialect.unsigned(entry.value)
        case "AttrThumbPressureThreshold": thumbThreshold = LibinputQuirksDialect.unsigned(entry.value)
        case "AttrTouchSizeRange": touchSizeRange = LibinputRange(entry.value)
        case "ModelPressurePad": modelPressurePad = entry.value == "1"
        case "AttrInputProp":
            for item in dialect.signedEntries(entry.value) ?? [] {
                if let property = dialect.inputProperty(item.name) { properties[property] = item.enable }
            }
        case "AttrInputPropEnable", "AttrInputPropDisable":
            for name in entry.value.split(separator: ";") {
                if let property = dialect.inputProperty(name) { properties[property] = entry.key.hasSuffix("Enable") }
            }
        case "AttrEventCode":
            for item in dialect.signedEntries(entry.value) ?? [] { setCode(item.name, item.enable) }
        case "AttrEventCodeEnable", "AttrEventCodeDisable":
            for name in entry.value.split(separator: ";") { setCode(name, entry.key.hasSuffix("Enable")) }
        default: break
        }
    }

    /// Only the pressure axes matter to the rules modelled here.
    private mutating func setCode(_ name: Substring, _ enable: Bool) {
        guard let (type, code) = LibinputQuirksDialect.eventCode(name) else { return }
        let pressure: [UInt16] = [AbsoluteAxis.pressure, AbsoluteAxis.mtPressure]
        if type == EventType.abs {
            for axis in pressure where code == nil || code == axis { pressureCodes[axis] = enable }
        }
    }

    /// The device as libinput sees it after `evdev_pre_configure_model_quirks`:
    /// properties and pressure axes switched on or off by the quirks.
    /// (A pressure axis a quirk enables is not made up: the recording has no values for it.)
    public func applied(to device: DeviceDescription) -> DeviceDescription {
        var device = device
        for (property, on) in properties.sorted(by: { $0.key < $1.key }) {
            if on { if !device.properties.contains(property) { device.properties.append(property) } }
            else { device.properties.removeAll { $0 == property } }
        }
        for (code, on) in pressureCodes where !on {
            device.axes.removeAll { $0.code == code }
            device.codes[EventType.abs]?.removeAll { $0 == code }
        }
        return device
    }

    /// Whether every `Match*` line holds for `device`; nil when one cannot be decided from a recording.
    static func matches(_ section: LibinputQuirksFile.Section, _ device: DeviceDescription) -> Bool? {
        var decided = true
        for entry in section.matches {
            let value = entry.value
            switch entry.key {
            case "MatchName": if fnmatch(value, device.name, 0) != 0 { return false }
            case "MatchBus":
                guard let bus = CalibrationSuggestion.libinputBus(device.bus), bus == value else { return false }
            case "MatchVendor": if LibinputQuirksDialect.hexID(value) != device.vendor { return false }
            case "MatchProduct":
                let ids = value.split(separator: ";").map { LibinputQuirksDialect.hexID($0) }
                if !ids.contains(device.product) { return false }
            case "MatchVersion": if LibinputQuirksDialect.hexID(value) != device.version { return false }
            case "MatchUdevType": if value != LibinputUdevType(device).rawValue { return false }
            case "MatchDMIModalias":
                guard let dmi = device.system.dmi else { decided = false; continue }
                if fnmatch(value, dmi, 0) != 0 { return false }
            default:
                // MatchUniq, MatchDeviceTree: a recording does not say.
                decided = false
            }
        }
        return decided ? true : nil
    }
}
