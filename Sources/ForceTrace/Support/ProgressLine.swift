import Foundation

/// A one-line progress report on stderr, only when stderr is a terminal, at
/// most a few times a second. Its text is `TerminalText` (file names in the
/// label are shown escaped); its own controls are the `\r` and erase-line
/// (`ESC [ K`) that redraw it.
public final class ProgressLine {
    private let enabled: Bool
    private var lastDraw = Date.distantPast
    private var drawn = false
    /// When counting began: the first `count` call.
    private var countStarted: Date?

    public init(enabled: Bool = FileDescriptor.standardError.isTerminal) { self.enabled = enabled }

    /// Off with `--quiet`, or when standard error is not a terminal.
    public convenience init(quiet: Bool) { self.init(enabled: !quiet && FileDescriptor.standardError.isTerminal) }

    /// Whether the line is drawn at all.
    public var isEnabled: Bool { enabled }

    /// Shows `done` items, their rate and, when `fraction` (of the whole,
    /// 0...1) is known, the time left: "importing x.evemu: 1.20 M events,
    /// 1.95 M events/s, 3 s left".
    public func count(_ label: @autoclosure () -> TerminalText, done: Int64, unit: String, fraction: @autoclosure () -> Double? = nil) {
        guard enabled else { return }
        let now = Date()
        let started = countStarted ?? now
        if countStarted == nil { countStarted = now }
        update(Self.countText(label(), done: done, unit: unit, elapsed: now.timeIntervalSince(started), fraction: fraction()))
    }

    /// The text `count` shows.
    public static func countText(_ label: TerminalText, done: Int64, unit: String, elapsed: Double, fraction: Double?) -> TerminalText {
        var text: TerminalText = "\(label): \(amount(Double(done))) \(unit)"
        if elapsed > 0 { text += ", \(amount(Double(done) / elapsed)) \(unit)/s" }
        if let left = timeLeft(elapsed: elapsed, fraction: fraction) { text += ", \(left)" }
        return text
    }

    /// "12 s left" (or "2 min 5 s left") when `fraction` of the work took `elapsed` seconds.
    public static func timeLeft(elapsed: Double, fraction: Double?) -> String? {
        guard let fraction, fraction > 0, fraction <= 1, elapsed > 0 else { return nil }
        let left = Int((elapsed * (1 - fraction) / fraction).rounded())
        return left >= 60 ? "\(left / 60) min \(left % 60) s left" : "\(left) s left"
    }

    /// 1234 as "1234", 1234567 as "1.23 M".
    static func amount(_ value: Double) -> String {
        value >= 1_000_000 ? String(format: "%.2f M", value / 1_000_000)
            : value >= 100_000 ? String(format: "%.0f k", value / 1000) : String(format: "%.0f", value)
    }

    public func update(_ text: @autoclosure () -> TerminalText) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.2 else { return }
        lastDraw = now
        StandardError.write("\r\u{1B}[K" + text().rendered)
        drawn = true
    }

    public func clear() {
        guard enabled, drawn else { return }
        StandardError.write("\r\u{1B}[K")
        drawn = false
    }
}
