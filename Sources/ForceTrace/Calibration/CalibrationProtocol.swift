/// The label classes of calibration trials: what the person was asked to
/// do. Stored in the `labels` table's `class` column (docs/FORMAT.md). The
/// app protocol's classes are the press classes `report` scores.
public enum TrialClass: String, CaseIterable, Sendable {
    case tap
    case peekPress = "peek-press"
    case popPress = "pop-press"
    case light, normal, thumb, palm
    case hover
    case strokeLight = "stroke-light"
    case strokeNormal = "stroke-normal"
    case strokeFirm = "stroke-firm"
    case fullPress = "full-press"
    /// A `levels` trial: reach and hold a level (its number is in the labels' `level` column).
    case level
    /// Touchpad steady holds (`calibrate --holds`): a finger held still for 2 s; their noise sets the N–M gap.
    case holdLight = "hold-light"
    case holdNormal = "hold-normal"
    /// Force calibration (`--protocol force`, with a scale): a slow press held below the pen's maximum, and one to its maximum.
    case forceMedium = "force-medium"
    case forceFull = "force-full"

    /// The press class `report` knows, for the app protocol's classes.
    public var pressClass: PressClass? { PressClass(rawValue: rawValue) }

    /// What the prompt asks for.
    public var instruction: String {
        switch self {
        case .tap: "tap, as you would to select something"
        case .peekPress: "press until you would expect a preview (peek), then lift"
        case .popPress: "press through until it would open (pop), then lift"
        case .light: "touch as lightly as you still want a touch to register, then lift"
        case .normal: "touch as you normally do to move the pointer, then lift"
        case .thumb: "rest your thumb at the bottom edge, then lift"
        case .palm: "rest your palm on the touchpad as when typing, then lift"
        case .hover: "hold the pen just above the surface without touching, then take it away"
        case .strokeLight: "draw the lightest stroke you want to register, then lift"
        case .strokeNormal: "draw a stroke as you normally write, then lift"
        case .strokeFirm: "draw a firm stroke, then lift"
        case .fullPress: "press as hard as is still comfortable, then lift"
        case .level: "press into the marked band, hold it steady, then lift"
        case .holdLight: "touch lightly and hold the finger still for 2 seconds, then lift"
        case .holdNormal: "touch as you normally do and hold the finger still for 2 seconds, then lift"
        case .forceMedium: "press the pen slowly onto the scale to a medium force, hold it still for 2 seconds, release slowly, lift"
        case .forceFull: "press the pen slowly onto the scale as hard as it reads, hold 2 seconds, release slowly, lift"
        }
    }

    /// A pen hover is a proximity span without touching; every other trial is a contact.
    public var isHover: Bool { self == .hover }
}

/// A guided calibration session's protocol: which trials, in what order.
public enum CalibrationProtocol: String, CaseIterable, Sendable {
    /// Tap, peek-press and pop-press on a touchscreen: peek/pop thresholds.
    case app
    /// Light and normal touches, thumbs and palms on a touchpad: a libinput quirk.
    case touchpad
    /// Hover, light, normal and firm strokes and a full press with a pen: the
    /// tip threshold and the pressure curve (`PenProfile`).
    case pen
    /// Slow presses onto a scale (`--scale`), held and released: the pen's
    /// force in gram-force (`ForceAnalysis`, docs/ANALYSIS.md, "Force").
    case force

    /// The classes of one round, in the order they are asked for.
    public var classes: [TrialClass] {
        switch self {
        case .app: [.tap, .peekPress, .popPress]
        case .touchpad: [.light, .normal, .thumb, .palm]
        case .pen: [.hover, .strokeLight, .strokeNormal, .strokeFirm, .fullPress]
        case .force: [.forceMedium, .forceFull]
        }
    }

    /// `trials` rounds through the classes: each class is asked for `trials`
    /// times, interleaved, so that tiredness or practice affects all alike.
    public func schedule(trials: Int, holds: Bool = false) -> [TrialClass] {
        (0..<max(1, trials)).flatMap { _ in classes + (holds ? holdClasses : []) }
    }

    /// The steady holds a touchpad session adds to each round with `holds`.
    public var holdClasses: [TrialClass] { self == .touchpad ? [.holdLight, .holdNormal] : [] }

    /// Trials per class when `--trials` is not given.
    public static let defaultTrials = 10
}
