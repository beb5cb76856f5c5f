import Foundation

/// libinput's quirks files as libinput 1.22 reads them (`src/quirks.c`,
/// `src/util-prop-parsers.c`), for the pressure attributes `whatif` emulates.
/// Sections are `[name]`, then `Match*` lines, then `Attr*`/`Model*` lines;
/// a device takes the properties of every section whose matches all hold,
/// and a later section's value replaces an earlier one's
/// (`quirks_fetch_for_device` appends, `quirks_get_*` searches from the end).
public struct LibinputQuirksFile: Sendable {
    public struct Section: Sendable {
        public var name: String
        public var file: String
        public var line: Int
        public var matches: [(key: String, value: String)] = []
        public var attributes: [(key: String, value: String)] = []
    }

    public var path: String
    public var sections: [Section]

    /// Parses `text`; a line libinput refuses is an error naming the file and
    /// line, since libinput then loads no quirks at all (`libinput_init_quirks`).
    public init(path: String, text: String) throws {
        self.path = path
        sections = []
        var current: Section?
        var sawAttribute = false
        func fail(_ line: Int, _ message: String) -> ForceTraceError {
            ForceTraceError(file: path, location: .line(line), message,
                            hint: "libinput refuses the whole quirks folder over one bad line; check it with 'libinput quirks validate --data-dir DIR'")
        }
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw fail(number, "a section header must end in ']'") }
                if let done = current {
                    guard !done.attributes.isEmpty, !done.matches.isEmpty else { throw fail(done.line, "section [\(done.name)] needs a Match line and an Attr or Model line") }
                    sections.append(done)
                }
                current = Section(name: String(line.dropFirst().dropLast()), file: path, line: number)
                sawAttribute = false
                continue
            }
            guard current != nil else { throw fail(number, "a line outside any [section]") }
            // A comment may follow a value (libinput cuts the line at '#').
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let parts = content.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw fail(number, "expected KEY=VALUE") }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            if key.hasPrefix("Match") {
                guard !sawAttribute else { throw fail(number, "\(key) after an attribute: Match lines come first") }
                current!.matches.append((key, value))
            } else if key.hasPrefix("Attr") || key.hasPrefix("Model") {
                guard !current!.matches.isEmpty else { throw fail(number, "\(key) before any Match line: a section starts with its Match lines") }
                sawAttribute = true
                if let problem = LibinputQuirkAttribute(rawValue: key).flatMap({ $0.problem(with: value) }) {
                    throw fail(number, "\(key)=\(value): \(problem)")
                }
                current!.attributes.append((key, value))
            } else {
                throw fail(number, "unknown key '\(key)'")
            }
        }
        guard let done = current else { throw ForceTraceError(file: path, "holds no [section]", hint: "libinput refuses an empty quirks file") }
        guard !done.attributes.isEmpty, !done.matches.isEmpty else { throw fail(done.line, "section [\(done.name)] needs a Match line and an Attr or Model line") }
        sections.append(done)
    }

    public static func read(_ path: String) throws -> LibinputQuirksFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ForceTraceError(file: path, "cannot be read", hint: "give a libinput .quirks file, such as 'forcetrace suggest --format quirks' writes")
        }
        return try LibinputQuirksFile(path: path, text: String(decoding: data, as: UTF8.self))
    }

    /// The `*.quirks` files of a folder in libinput's order (scandir's alphasort).
    public static func folder(_ path: String) throws -> [LibinputQuirksFile] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return try names.filter { $0.hasSuffix(".quirks") }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .map { try read(path + "/" + $0) }
    }

    /// Where Debian's libinput10 installs the shipped quirks.
    public static let shippedFolder = "/usr/share/libinput"
}

/// The quirk attributes the pressure rules read.
public enum LibinputQuirkAttribute: String, Sendable {
    case pressureRange = "AttrPressureRange"
    case palmPressureThreshold = "AttrPalmPressureThreshold"
    case thumbPressureThreshold = "AttrThumbPressureThreshold"
    case touchSizeRange = "AttrTouchSizeRange"

    /// Why libinput's parser refuses `value`, or nil.
    func problem(with value: String) -> String? {
        switch self {
        case .pressureRange, .touchSizeRange:
            // parse_range_property: "none", or "%d:%d" with the second below the first (so 0:0 is refused).
            LibinputRange(value) == nil ? "expected N:M with N > M, or none" : nil
        case .palmPressureThreshold, .thumbPressureThreshold:
            UInt32(value) == nil ? "expected an unsigned integer" : nil
        }
    }
}

/// `AttrPressureRange`'s value: `none` is 0:0, which turns detection off.
public struct LibinputRange: Equatable, Sendable {
    public var high: Int32
    public var low: Int32
    public init(high: Int32, low: Int32) { self.high = high; self.low = low }
    public init?(_ text: String) {
        if text == "none" { self.init(high: 0, low: 0); return }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int32(parts[0].trimmingCharacters(in: .whitespaces)),
              let second = Int32(parts[1].trimmingCharacters(in: .whitespaces)), second < first else { return nil }
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

/// The pressure attributes that apply to one device: libinput's defaults
/// overlaid with every matching section of the given files, in order.
public struct LibinputQuirkSet: Sendable {
    public var name: String
    public var pressureRange: LibinputRange?
    public var palmThreshold: UInt32?
    public var thumbThreshold: UInt32?
    public var touchSizeRange: LibinputRange?
    /// The sections that matched, as "file:line [name]".
    public var matched: [String] = []
    /// Sections that could not be decided for this recording (a DMI match without the recording's DMI).
    public var undecided: [String] = []

    public init(name: String) { self.name = name }

    public init(name: String, files: [LibinputQuirksFile], device: DeviceDescription) {
        self.name = name
        for file in files {
            for section in file.sections {
                switch Self.matches(section, device) {
                case .some(false): continue
                case .none: undecided.append("\(section.file):\(section.line) [\(section.name)]"); continue
                case .some(true): break
                }
                matched.append("\(section.file):\(section.line) [\(section.name)]")
                for (key, value) in section.attributes {
                    switch LibinputQuirkAttribute(rawValue: key) {
                    case .pressureRange: pressureRange = LibinputRange(value)
                    case .palmPressureThreshold: palmThreshold = UInt32(value)
                    case .thumbPressureThreshold: thumbThreshold = UInt32(value)
                    case .touchSizeRange: touchSizeRange = LibinputRange(value)
                    case nil: break
                    }
                }
            }
        }
    }

    /// Whether every `Match*` line holds for `device`; nil when one cannot be decided from a recording.
    static func matches(_ section: LibinputQuirksFile.Section, _ device: DeviceDescription) -> Bool? {
        var decided = true
        for (key, value) in section.matches {
            switch key {
            case "MatchName": if fnmatch(value, device.name, 0) != 0 { return false }
            case "MatchBus":
                guard let bus = CalibrationSuggestion.libinputBus(device.bus), bus == value else { return false }
            case "MatchVendor": if UInt32(value.dropFirst(2), radix: 16) != UInt32(device.vendor) || !value.hasPrefix("0x") { return false }
            case "MatchProduct":
                // 1.22 takes a list separated by ';'.
                let ids = value.split(separator: ";").map { UInt32($0.dropFirst(2), radix: 16) }
                if !ids.contains(UInt32(device.product)) { return false }
            case "MatchVersion": if UInt32(value.dropFirst(2), radix: 16) != UInt32(device.version) { return false }
            case "MatchUdevType":
                let type = LibinputUdevType(device)
                // libinput's touchpads also carry ID_INPUT_MOUSE-like types only when udev says so; these two are what matters here.
                if value != type.rawValue { return false }
            case "MatchDMIModalias":
                guard let dmi = device.system.dmi else { decided = false; continue }
                if fnmatch(value, dmi, 0) != 0 { return false }
            default:
                // MatchUniq, MatchDeviceTree and others: a recording does not say.
                decided = false
            }
        }
        return decided ? true : nil
    }
}
