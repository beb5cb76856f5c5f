/// The byte-level parse of evemu's event lines, import's hottest loop: one
/// call per event. Anything it does not take goes to `Evemu.readLines`'s
/// general parser, which words the errors.
extension Evemu {
    /// "E: SECONDS.FRACTION TYPE CODE VALUE" in its plain form (no sign on
    /// the time, at most 4 hex digits without 0x, no comment), or nil.
    @inline(__always)
    static func fastEvent(_ line: UnsafeBufferPointer<UInt8>) -> InputEvent? {
        recordLayoutEvent(line) ?? plainEvent(line)
    }

    /// evemu-record's own layout, `"E: %lu.%06u %04x %04x %d"`: after the
    /// seconds every field has its place, so the six fraction digits are read
    /// in one 8-byte word and the hex digits without loops. Any other line
    /// (tabs, more blanks, another fraction length) is nil here and left to
    /// `plainEvent`, which gives the same event for every line this takes.
    @inline(__always)
    static func recordLayoutEvent(_ line: UnsafeBufferPointer<UInt8>) -> InputEvent? {
        guard let base = line.baseAddress, line.count >= 23, base[0] == UInt8(ascii: "E"), base[1] == UInt8(ascii: ":"),
              base[2] == UInt8(ascii: " ") else { return nil }
        let end = base + line.count
        var p = base + 3
        guard let seconds = wordSeconds(&p, end) else { return nil }
        // ".FFFFFF TTTT CCCC " and at least one byte of the value.
        guard end - p >= 19, p[0] == UInt8(ascii: "."), p[7] == UInt8(ascii: " "), p[12] == UInt8(ascii: " "),
              p[17] == UInt8(ascii: " ") else { return nil }
        // Bytes p[1] to p[8], inside the line: the fraction's six digits are the low six.
        let word = UnsafeRawPointer(p + 1).loadUnaligned(as: UInt64.self).littleEndian & 0x0000_FFFF_FFFF_FFFF
        // Each byte 0x30...0x39: high nibble 3, and still 3 after adding 6 (no carry can leave a byte).
        guard word & 0x0000_F0F0_F0F0_F0F0 == 0x0000_3030_3030_3030,
              (word &+ 0x0000_0606_0606_0606) & 0x0000_F0F0_F0F0_F0F0 == 0x0000_3030_3030_3030 else { return nil }
        let fraction = eightDigits(word << 16)
        guard let type = hex4(p + 8), let code = hex4(p + 13) else { return nil }
        p += 18
        guard let value = value(&p, end) else { return nil }
        return InputEvent(timeNs: seconds * 1_000_000_000 + fraction * 1000, type: type, code: code, value: value)
    }

    /// Any plain line, field by field.
    @inline(__always)
    static func plainEvent(_ line: UnsafeBufferPointer<UInt8>) -> InputEvent? {
        guard var p = line.baseAddress, line.count >= 12, p[0] == UInt8(ascii: "E"), p[1] == UInt8(ascii: ":") else { return nil }
        let end = p + line.count
        p += 2
        // Plain loops over a pointer: nested closures here did not inline.
        var spaced = p
        while p < end && (p.pointee == 0x20 || p.pointee == 0x09) { p += 1 }
        guard p > spaced, let seconds = seconds(&p, end) else { return nil }
        var nanoseconds: Int64 = 0
        if p < end && p.pointee == UInt8(ascii: ".") {
            p += 1
            let fractionStart = p
            while p < end, p.pointee &- 0x30 < 10 { nanoseconds = nanoseconds &* 10 &+ Int64(p.pointee &- 0x30); p += 1 }
            let digits = p - fractionStart
            guard digits > 0, digits <= 9 else { return nil }
            for _ in digits..<9 { nanoseconds &*= 10 }
        }
        var fields: (UInt16, UInt16) = (0, 0)
        for field in 0..<2 {
            spaced = p
            while p < end && (p.pointee == 0x20 || p.pointee == 0x09) { p += 1 }
            guard p > spaced else { return nil }
            let hexStart = p
            var value: UInt16 = 0
            while p < end {
                let byte = p.pointee
                let digit: UInt8
                if byte &- 0x30 < 10 { digit = byte &- 0x30 }
                else if (byte | 0x20) &- 0x61 < 6 { digit = ((byte | 0x20) &- 0x61) + 10 }
                else { break }
                guard p - hexStart < 4 else { return nil }
                value = value << 4 | UInt16(digit)
                p += 1
            }
            guard p > hexStart else { return nil }
            if field == 0 { fields.0 = value } else { fields.1 = value }
        }
        spaced = p
        while p < end && (p.pointee == 0x20 || p.pointee == 0x09) { p += 1 }
        guard p > spaced, let value = value(&p, end) else { return nil }
        return InputEvent(timeNs: seconds * 1_000_000_000 + nanoseconds, type: fields.0, code: fields.1, value: value)
    }

    /// The whole seconds' most digits, and the bound they stay below so
    /// that the time in nanoseconds fits an Int64.
    static let secondsDigits = 10
    static let secondsLimit: Int64 = 9_000_000_000

    /// The whole seconds: 1 to `secondsDigits` digits, below `secondsLimit`.
    @inline(__always)
    private static func seconds(_ p: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Int64? {
        var seconds: Int64 = 0
        let start = p
        while p < end, p.pointee &- 0x30 < 10 { seconds = seconds &* 10 &+ Int64(p.pointee &- 0x30); p += 1 }
        guard p > start, p - start <= secondsDigits, seconds < secondsLimit else { return nil }
        return seconds
    }

    /// `seconds`, its first eight digits read as one word: the digit loop's
    /// chain of multiplies was most of a line's time.
    @inline(__always)
    private static func wordSeconds(_ p: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Int64? {
        guard end - p >= 8 else { return seconds(&p, end) }
        let word = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self).littleEndian
        // A byte's high bit marks a byte that is no digit. A carry can only
        // reach the bytes after the first such byte, which are not counted.
        let shifted = word ^ 0x3030_3030_3030_3030
        let outside = ((shifted &+ 0x7676_7676_7676_7676) | shifted) & 0x8080_8080_8080_8080
        let count = outside.trailingZeroBitCount / 8
        guard count > 0 else { return nil }
        // The digits moved up to the word's end, zeros (leading zero digits) before them.
        var seconds = eightDigits(count == 8 ? word : word << (64 - 8 * count))
        p += count
        guard count == 8 else { return seconds }
        let start = p
        while p < end, p.pointee &- 0x30 < 10 { seconds = seconds &* 10 &+ Int64(p.pointee &- 0x30); p += 1 }
        guard p - start <= secondsDigits - 8, seconds < secondsLimit else { return nil }
        return seconds
    }

    /// The number eight ASCII digits make, the first in the low byte (a zero
    /// byte counts as a leading 0): pairs, fours, then eights combined.
    @inline(__always)
    private static func eightDigits(_ word: UInt64) -> Int64 {
        var digits = word & 0x0F0F_0F0F_0F0F_0F0F
        digits = (digits &* 10 &+ (digits >> 8)) & 0x00FF_00FF_00FF_00FF
        digits = (digits &* 100 &+ (digits >> 16)) & 0x0000_FFFF_0000_FFFF
        digits = (digits &* 10_000 &+ (digits >> 32)) & 0x0000_0000_FFFF_FFFF
        return Int64(digits)
    }

    /// Four hex digits, either case.
    @inline(__always)
    private static func hex4(_ p: UnsafePointer<UInt8>) -> UInt16? {
        var value: UInt16 = 0
        var bad = false
        for index in 0..<4 {
            let byte = p[index]
            let decimal = byte &- 0x30, letter = (byte | 0x20) &- 0x61
            bad = bad || (decimal >= 10 && letter >= 6)
            value = value << 4 | UInt16(decimal < 10 ? decimal : letter &+ 10)
        }
        return bad ? nil : value
    }

    /// The value, a sign and 1 to 10 digits within Int32, then only blanks
    /// to the end of the line.
    @inline(__always)
    private static func value(_ p: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Int32? {
        guard p < end else { return nil }
        var negative = false
        if p.pointee == UInt8(ascii: "-") { negative = true; p += 1 } else if p.pointee == UInt8(ascii: "+") { p += 1 }
        let start = p
        var value: Int64 = 0
        while p < end, p.pointee &- 0x30 < 10 { value = value &* 10 &+ Int64(p.pointee &- 0x30); p += 1 }
        guard p > start, p - start <= 10 else { return nil }
        if negative { value = -value }
        guard value >= Int64(Int32.min), value <= Int64(Int32.max) else { return nil }
        while p < end && (p.pointee == 0x20 || p.pointee == 0x09) { p += 1 }
        guard p == end else { return nil }
        return Int32(value)
    }
}
