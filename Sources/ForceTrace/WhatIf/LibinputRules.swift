import CEvdev
import Foundation

/// A libinput release, as `libinput --version` prints it ("1.25.0"), or a
/// series ("1.30") when the patch release was not given.
public struct LibinputVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int?

    public init(_ major: Int, _ minor: Int, _ patch: Int? = nil) {
        self.major = major; self.minor = minor; self.patch = patch
    }

    /// "1.25", "1.25.0", or a package version such as "1.22.1-1+deb12u1"
    /// (the upstream part is taken).
    public init?(_ text: String) {
        let upstream = text.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let parts = upstream.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 }),
              let major = Int(parts[0]), let minor = Int(parts[1]) else { return nil }
        self.init(major, minor, parts.count == 3 ? Int(parts[2]) : nil)
        if parts.count == 3 && patch == nil { return nil }
    }

    public var description: String { patch.map { "\(major).\(minor).\($0)" } ?? "\(major).\(minor)" }

    /// A series sorts after each of its releases: "1.30" stands for its newest.
    public static func < (a: LibinputVersion, b: LibinputVersion) -> Bool {
        (a.major, a.minor, a.patch ?? Int.max) < (b.major, b.minor, b.patch ?? Int.max)
    }
}

/// What one libinput release does with pressure and quirks: one entry per
/// release where a behaviour changed (docs/ANALYSIS.md, "Which libinput").
/// Every rule that differs between versions is a named field here, read by
/// the touchpad and tablet emulators and the quirks parser; a new release
/// takes one entry in `LibinputRules.history`.
public struct LibinputRules: Equatable, Sendable {
    /// The first release with these rules, and what it changed (with the libinput commit).
    public var since: LibinputVersion
    public var change: String

    // Touchpads (src/evdev-mt-touchpad.c)
    /// `tp_init_pressure`'s default range term: max − min + 1 instead of max − min.
    public var touchpadRangeAddsOne = false
    /// `tp_init_pressurepad`: `ModelPressurePad=1` turns pressure off.
    public var pressurePadByModelQuirk = false
    /// MT protocol A pads read through mtdev with this many pretended slots
    /// (libinput-plugin-mtdev.c), so touch size and ABS_MT_PRESSURE apply to them; nil before.
    public var protocolASlots: Int?
    /// `tp_init_pressurepad`: `INPUT_PROP_PRESSUREPAD` turns pressure off.
    public var pressurePadByProperty = false
    /// `tp_init_palmdetect_pressure`: `AttrPalmPressureThreshold=0` turns pressure palms off
    /// (before, every touch with pressure > 0 was a palm).
    public var palmThresholdZeroIsOff = false

    // Tablets (src/evdev-tablet.c)
    /// `axis_range_percentage` on max − min + 1 (the default tip thresholds).
    public var tabletRangeAddsOne = false
    /// The largest pressure offset taken, as a percentage of the range.
    public var tabletOffsetLimitPercent = 20
    /// Offsets also on pens without ABS_DISTANCE (from the third proximity in),
    /// with `update_pressure_offset` split from `detect_pressure_offset`.
    public var tabletOffsetWithoutDistance = false
    /// `tablet_get_quirked_pressure_thresholds` reads `AttrPressureRange=A:B` as tip down at B, up at A.
    public var tabletQuirkRangeSwapped = false
    /// Normalized pressure clamped to [0, 1].
    public var tabletPressureClamped = false
    /// `libinput_tablet_tool_config_pressure_range_set`.
    public var pressureRangeAPI = false
    /// Setting the full range 0–1 counts as a configured range, which stops the offset heuristics.
    public var fullPressureRangeIsSetting = false
    /// The range is applied at every proximity in (`update_pressure_range`), not once at proximity out.
    public var pressureRangeAtEachProximity = false
    /// Thresholds and offsets kept per tablet for a pen moved between tablets.
    public var perTabletThresholds = false

    // Quirks (src/quirks.c)
    public var quirks = LibinputQuirksDialect.v1_22
    /// `$XDG_RUNTIME_DIR/libinput/*.quirks` is read after the system folders.
    public var userQuirksFolder = false
    /// Lua plugins (`--enable-plugins`).
    public var luaPlugins = false

    init(since: LibinputVersion, change: String) { self.since = since; self.change = change }

    /// This entry with the next release's changes.
    func then(_ since: LibinputVersion, _ change: String, _ edit: (inout LibinputRules) -> Void) -> LibinputRules {
        var next = self
        next.since = since; next.change = change
        edit(&next)
        return next
    }

    /// Every modelled release where a pressure or quirks rule changed, oldest first.
    public static let history: [LibinputRules] = {
        var entries = [LibinputRules(since: LibinputVersion(1, 22, 0), change: "the rules forcetrace models first (Debian 12)")]
        func add(_ version: LibinputVersion, _ change: String, _ edit: (inout LibinputRules) -> Void) {
            entries.append(entries.last!.then(version, change, edit))
        }
        add(LibinputVersion(1, 23, 0), "ModelPressurePad turns a pad's pressure off (1d717248); AttrEventCode/AttrInputProp with +/- replace the …Enable/…Disable keys (a7e4cbc2)") {
            $0.pressurePadByModelQuirk = true
            $0.quirks = .v1_23
        }
        add(LibinputVersion(1, 24, 0), "tablet pressure offsets up to 50 % (3dba0084), and on pens without ABS_DISTANCE from the third proximity in (a244b9e3, eea10aef)") {
            $0.tabletOffsetLimitPercent = 50
            $0.tabletOffsetWithoutDistance = true
        }
        add(LibinputVersion(1, 25, 0), "AttrPalmPressureThreshold=0 turns pressure palms off (fe3ae87b); default thresholds on max − min + 1 (4effe6b1)") {
            $0.palmThresholdZeroIsOff = true
            $0.touchpadRangeAddsOne = true
            $0.tabletRangeAddsOne = true
        }
        add(LibinputVersion(1, 26, 0), "the tool pressure-range setting (4bc27543), with a tablet AttrPressureRange read swapped; tablet percentages on max − min again (7cffd28e); MatchUniq") {
            $0.tabletRangeAddsOne = false
            $0.tabletQuirkRangeSwapped = true
            $0.tabletPressureClamped = true
            $0.pressureRangeAPI = true
            $0.fullPressureRangeIsSetting = true
            $0.quirks.matchKeys.insert("MatchUniq")
        }
        add(LibinputVersion(1, 27, 0), "MatchProduct takes a list separated by ';'") {
            $0.quirks.productList = true
        }
        add(LibinputVersion(1, 28, 0), "pressure thresholds per tablet (48cd4c72)") {
            $0.perTabletThresholds = true
        }
        add(LibinputVersion(1, 29, 0), "one threshold per tool again, the offset kept as a fraction (e9f3fc08); MT protocol A pads get ten slots from the mtdev plugin (27f4b0ae); AttrIsVirtual") {
            $0.perTabletThresholds = false
            $0.pressureRangeAtEachProximity = true
            $0.protocolASlots = 10
            $0.quirks.attributeKeys.formUnion(["AttrIsVirtual", "ModelLogitechMXMaster3"])
        }
        add(LibinputVersion(1, 30, 0), "Lua plugins (d557a649); user quirks in $XDG_RUNTIME_DIR/libinput (ce87da63); a 0–1 pressure range is no longer a setting (48a3391f)") {
            $0.luaPlugins = true
            $0.userQuirksFolder = true
            $0.fullPressureRangeIsSetting = false
            $0.quirks.attributeKeys.remove("ModelLogitechMXMaster3")
            $0.quirks.attributeKeys.insert("ModelScrollOnMiddleClick")
        }
        add(LibinputVersion(1, 30, 1), "INPUT_PROP_PRESSUREPAD turns a pad's pressure off (db6a0466, picked as b5b2d92e)") {
            $0.pressurePadByProperty = true
        }
        add(LibinputVersion(1, 30, 2), "a tablet AttrPressureRange is read the right way round again (b58d5a16, picked as edc25c07)") {
            $0.tabletQuirkRangeSwapped = false
        }
        add(LibinputVersion(1, 31, 0), "ModelPressurePad is gone: AttrInputProp=+INPUT_PROP_PRESSUREPAD replaces it, by name (bde6d07d)") {
            $0.pressurePadByModelQuirk = false
            $0.quirks.attributeKeys.remove("ModelPressurePad")
            $0.quirks.pressurePadPropertyByName = true
        }
        return entries
    }()

    /// The oldest and newest releases forcetrace models.
    public static let oldest = LibinputVersion(1, 22, 0)
    public static let newest = LibinputVersion(1, 31, 3)

    /// The rules in force at `version`; nil before 1.22. A series ("1.30")
    /// takes its newest rules; a release after the newest modelled one takes the newest rules.
    public static func at(_ version: LibinputVersion) -> LibinputRules? {
        guard version >= oldest else { return nil }
        return history.last { $0.since <= version }
    }

    /// The releases of a series whose rules differ from its newest's, to say so when a series is given.
    public static func differentWithin(_ version: LibinputVersion) -> [LibinputRules] {
        guard version.patch == nil else { return [] }
        return history.filter { $0.since.major == version.major && $0.since.minor == version.minor && $0.since.patch != 0 }
    }

    /// The first release after these rules' own, or nil for the newest entry.
    public var until: LibinputVersion? {
        guard let index = Self.history.firstIndex(of: self), index + 1 < Self.history.count else { return nil }
        return Self.history[index + 1].since
    }
}

/// Which quirks a libinput release's parser knows (`quirk_get_name`,
/// `parse_match`, `parse_input_prop_property`): a key it does not know makes
/// it drop every quirk, not only that section.
public struct LibinputQuirksDialect: Equatable, Sendable {
    public var matchKeys: Set<String>
    /// `MatchProduct=0x1;0x2` (before: one id).
    public var productList: Bool
    /// The Attr* and Model* keys.
    public var attributeKeys: Set<String>
    /// `AttrInputProp` / `AttrEventCode` with +/- entries (before: the …Enable/…Disable keys).
    public var signedCodeLists: Bool
    /// `INPUT_PROP_PRESSUREPAD` by name whatever libevdev knows.
    public var pressurePadPropertyByName = false

    static let commonAttributes: Set<String> = [
        "AttrKeyboardIntegration", "AttrLidSwitchReliability", "AttrMscTimestamp", "AttrPalmPressureThreshold",
        "AttrPalmSizeThreshold", "AttrPointingStickIntegration", "AttrPressureRange", "AttrResolutionHint",
        "AttrSizeHint", "AttrTPKComboLayout", "AttrTabletSmoothing", "AttrThumbPressureThreshold",
        "AttrThumbSizeThreshold", "AttrTouchSizeRange", "AttrTrackpointMultiplier", "AttrUseVelocityAveraging",
        "ModelALPSSerialTouchpad", "ModelAppleTouchpad", "ModelAppleTouchpadOneButton", "ModelBouncingKeys",
        "ModelChromebook", "ModelClevoW740SU", "ModelDellCanvasTotem", "ModelHPPavilionDM4Touchpad",
        "ModelHPZBookStudioG3", "ModelInvertHorizontalScrolling", "ModelLenovoScrollPoint", "ModelLenovoT450Touchpad",
        "ModelLenovoX1Gen6Touchpad", "ModelLenovoX230", "ModelSynapticsSerialTouchpad", "ModelSystem76Bonobo",
        "ModelSystem76Galago", "ModelSystem76Kudu", "ModelTabletModeNoSuspend", "ModelTabletModeSwitchUnreliable",
        "ModelTouchpadVisibleMarker", "ModelTrackball", "ModelWacomTouchpad",
    ]
    static let commonMatches: Set<String> = [
        "MatchName", "MatchBus", "MatchVendor", "MatchProduct", "MatchVersion", "MatchDMIModalias", "MatchUdevType",
        "MatchDeviceTree",
    ]

    static let v1_22 = LibinputQuirksDialect(
        matchKeys: commonMatches, productList: false,
        attributeKeys: commonAttributes.union(["AttrEventCodeEnable", "AttrEventCodeDisable", "AttrInputPropEnable", "AttrInputPropDisable"]),
        signedCodeLists: false)
    static let v1_23 = LibinputQuirksDialect(
        matchKeys: commonMatches, productList: false,
        attributeKeys: commonAttributes.union(["AttrEventCode", "AttrInputProp", "ModelPressurePad", "ModelTouchpadPhantomClicks"]),
        signedCodeLists: true)

    /// The udev types `MatchUdevType` takes (every version; "touchscreen" is not one).
    public static let udevTypes: Set<String> = ["touchpad", "mouse", "pointingstick", "keyboard", "joystick", "tablet", "tablet-pad"]
    public static let buses: Set<String> = ["usb", "bluetooth", "ps2", "rmi", "i2c", "spi"]

    /// An input property by name or hex, as `parse_input_prop_property` reads it; nil when refused.
    func inputProperty(_ text: Substring) -> UInt16? {
        // safe_atou_base(s, 16): hex digits, "0x" before them allowed.
        let digits = text.hasPrefix("0x") ? text.dropFirst(2) : text
        if !digits.isEmpty, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) {
            return value <= 0x1f ? UInt16(value) : nil
        }
        if pressurePadPropertyByName && text == "INPUT_PROP_PRESSUREPAD" { return InputProperty.pressurePad }
        // Older releases ask libevdev, so the name's fate is the machine's libevdev's.
        let value = String(text).withCString { libevdev_property_from_name($0) }
        return value >= 0 ? UInt16(value) : nil
    }
}
