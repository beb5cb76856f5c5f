import Foundation

/// Frames (SYN_REPORTs) must come in time order: samples are in time order
/// and contacts in touch-down order (docs/FORMAT.md), so a clock that steps
/// back between frames would make a file every reader refuses. Events
/// within a frame may go back (kept, with StreamCheck's warning).
struct FrameOrder {
    private var previousNs = Int64.min
    private var index = 0

    /// Checks the next event; the message when its frame ends before the previous one.
    @inline(__always)
    mutating func check(_ event: InputEvent, t0Ns: Int64?) -> String? {
        defer { index += 1 }
        guard event.isSynReport else { return nil }
        defer { previousNs = max(previousNs, event.timeNs) }
        guard event.timeNs < previousNs else { return nil }
        let origin = t0Ns ?? 0
        func seconds(_ ns: Int64) -> String { String(format: "%.6f", Double(ns &- origin) / 1e9) }
        return "the clock steps back at event \(index): its frame ends at \(seconds(event.timeNs)) s, before the previous frame's \(seconds(previousNs)) s; forcetrace keeps frames in time order"
    }
}
