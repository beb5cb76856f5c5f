/// The version of this build of forcetrace.
public enum ForceTraceVersion {
    public static let string = "0.1.0"
}
