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

extension Array where Element == Int64 {
    /// The element-wise sum, or nil when one overflows (counts read from files).
    public func addingChecked(_ other: [Int64]) -> [Int64]? {
        guard count == other.count else { return nil }
        var sum = self
        for index in indices {
            let (value, overflow) = self[index].addingReportingOverflow(other[index])
            if overflow { return nil }
            sum[index] = value
        }
        return sum
    }
}

extension Collection where Element == Int64 {
    /// Whether these are counts every total of which fits: none below 0 and
    /// their sum within Int64, so any sum of some of them (a row, a
    /// cumulative count) fits too.
    public var areCountsWithATotal: Bool {
        var total: Int64 = 0
        for value in self {
            guard value >= 0 else { return false }
            let (sum, overflow) = total.addingReportingOverflow(value)
            if overflow { return false }
            total = sum
        }
        return true
    }
}
