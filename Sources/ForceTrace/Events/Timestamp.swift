/// An event time in nanoseconds, split and written once for every format.
///
/// Two ways of writing a time, each exact, are used by the formats:
/// - `timeval`: evdev's `struct timeval` (seconds, microseconds) with the
///   microseconds always in 0...999999, as the kernel normalises it. A
///   negative time floors: −0.5 s is (−1, 500000). libinput record YAML
///   and raw input_event records store these two fields.
/// - `decimal`: the signed decimal number of seconds, with six fraction
///   digits, or nine when the time is finer than a microsecond (a converted
///   or edited file; rounding would lose it). −0.5 s is "-0.500000". evemu
///   `E:` lines and ground-truth labels write this.
public struct Timestamp: Equatable, Comparable, Hashable, Sendable {
    public var ns: Int64

    public init(ns: Int64) { self.ns = ns }

    /// From evdev's split fields; `microseconds` may be any value.
    public init(seconds: Int64, microseconds: Int64) {
        ns = seconds &* 1_000_000_000 &+ microseconds &* 1000
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.ns < rhs.ns }

    /// Whole seconds, rounded towards −∞ (`tv_sec`).
    public var flooredSeconds: Int64 {
        let (quotient, remainder) = ns.quotientAndRemainder(dividingBy: 1_000_000_000)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// Nanoseconds past `flooredSeconds`, 0...999_999_999.
    public var nanosecondsInSecond: Int64 {
        let remainder = ns % 1_000_000_000
        return remainder < 0 ? remainder + 1_000_000_000 : remainder
    }

    /// (`tv_sec`, `tv_usec`), microseconds in 0...999999; finer parts are dropped.
    public var timeval: (seconds: Int64, microseconds: Int64) {
        (flooredSeconds, nanosecondsInSecond / 1000)
    }

    /// Whether the time is a whole number of microseconds, as evdev's are.
    public var isWholeMicroseconds: Bool { ns % 1000 == 0 }

    /// "SECONDS.FRACTION": six fraction digits, nine when finer than a microsecond.
    public var decimal: String {
        var bytes: [UInt8] = []
        appendDecimal(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `decimal` as ASCII, without building a String.
    public func appendDecimal(to bytes: inout [UInt8]) {
        let magnitude = ns.magnitude
        if ns < 0 { bytes.append(UInt8(ascii: "-")) }
        Self.appendDigits(magnitude / 1_000_000_000, minimumWidth: 1, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        let fraction = magnitude % 1_000_000_000
        if fraction % 1000 == 0 {
            Self.appendDigits(fraction / 1000, minimumWidth: 6, to: &bytes)
        } else {
            Self.appendDigits(fraction, minimumWidth: 9, to: &bytes)
        }
    }

    /// Parses `decimal`'s form: an optional sign, digits, and optionally a
    /// point with 1 to 9 fraction digits. Nil for anything else or for
    /// times beyond ±9e9 s.
    public static func parseDecimal(_ token: some Collection<UInt8>) -> Timestamp? {
        var index = token.startIndex
        var negative = false
        if index < token.endIndex, token[index] == UInt8(ascii: "-") || token[index] == UInt8(ascii: "+") {
            negative = token[index] == UInt8(ascii: "-")
            index = token.index(after: index)
        }
        var seconds: Int64 = 0
        var secondDigits = 0
        while index < token.endIndex, token[index] != UInt8(ascii: ".") {
            let byte = token[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), secondDigits < 18 else { return nil }
            seconds = seconds * 10 + Int64(byte - UInt8(ascii: "0"))
            secondDigits += 1
            index = token.index(after: index)
        }
        guard secondDigits > 0, seconds < 9_000_000_000 else { return nil }
        var nanoseconds: Int64 = 0
        if index < token.endIndex {
            index = token.index(after: index)   // the point
            var fractionDigits = 0
            while index < token.endIndex {
                let byte = token[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), fractionDigits < 9 else { return nil }
                nanoseconds = nanoseconds * 10 + Int64(byte - UInt8(ascii: "0"))
                fractionDigits += 1
                index = token.index(after: index)
            }
            guard fractionDigits > 0 else { return nil }
            for _ in fractionDigits..<9 { nanoseconds *= 10 }
        }
        let value = seconds * 1_000_000_000 + nanoseconds
        return Timestamp(ns: negative ? -value : value)
    }

    /// Decimal digits of `value`, zero-padded to `minimumWidth`.
    static func appendDigits(_ value: UInt64, minimumWidth: Int, to bytes: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            for _ in count..<max(count, minimumWidth) { bytes.append(UInt8(ascii: "0")) }
            for position in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[position]) }
        }
    }
}
