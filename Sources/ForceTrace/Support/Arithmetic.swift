/// Arithmetic on values that come from files, where a trap would be a crash
/// on user input (docs/FORMAT.md bounds times to ±2^62 ns on read, so one
/// sum or difference fits; totals over many contacts may not).
extension Int64 {
    /// `self + other`, clamped to `Int64.min...Int64.max` instead of trapping.
    @inline(__always)
    public func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
