/// Names and versions of trace format v1 (docs/FORMAT.md). Everything that
/// writes or reads a trace file takes its names from here.
public enum TraceSchema {
    public static let formatName = "forcetrace"
    /// Bumped only for changes that old readers would misread.
    public static let formatVersion: Int64 = 1
    public static let recordingsGroup = "recordings"

    public enum Table: String, CaseIterable, Sendable {
        case axes, capabilities, events, samples, contacts, markers
    }

    public static let eventColumns = ["t_ns", "type", "code", "value"]
    public static let sampleColumns = ["t_ns", "contact", "slot", "x", "y", "pressure", "flags"]
    public static let contactColumns = ["id", "slot", "tracking_id", "tool", "t_down_ns", "t_up_ns",
                                        "first_sample", "last_sample", "n_samples"]
    public static let markerColumns = ["t_ns", "kind", "event_index"]
    public static let axisColumns = ["code", "name", "min", "max", "fuzz", "flat", "resolution", "value"]
}

/// The version of this build of forcetrace.
public enum ForceTraceVersion {
    public static let string = "0.1.0"
}
