import Foundation

/// One line of a serial scale's continuous output, the "header, weight,
/// unit" form that A&D balances send (EK-i, EJ, FX-i manuals, "Data format":
/// `ST,+00123.45  g` CR LF, header ST stable, US unstable, OL over range,
/// QT counting) and that many bench and kitchen scales share with a
/// gross/net field (`ST,GS,+  123.4 g`, `US,NT,- 12.3,kg`). docs/FORMAT.md,
/// "The force table", says what is accepted.
///
/// A line that is not such a reading gives a row flagged `unreadable`, an
/// over-range line one flagged `overload`, both without a weight: never a 0.
public enum SerialScaleLine {
    /// Longest line taken as a reading (A&D's is 17 bytes with CR LF).
    public static let maximumLength = 64

    /// Units by their serial spelling, lower-cased.
    static let units: [String: WeightUnit] = [
        "g": .gram, "kg": .kilogram, "mg": .milligram, "oz": .ounce, "lb": .pound, "lbs": .pound,
        "ozt": .troyOunce, "ct": .carat, "gn": .grain, "dwt": .pennyweight,
    ]

    /// The reading `line` (without its line ending) holds, read at `timeNs`.
    public static func parse(_ line: some Collection<UInt8>, timeNs: Int64) -> ScaleReading {
        let unreadable = ScaleReading.withoutWeight(timeNs: timeNs, status: .unreadable)
        guard line.count <= maximumLength, line.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0x09 || $0 == 0x0D }) else {
            return unreadable
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var fields = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let header = fields.first else { return unreadable }
        fields.removeFirst()
        var status: ScaleStatus
        switch header {
        case "ST": status = .stable
        case "US": status = .inMotion
        case "OL": status = .overload
        default: return unreadable // QT (a count), or not this format
        }
        if let mode = fields.first, ["GS", "GR", "NT"].contains(mode) {
            if mode == "NT" { status.insert(.net) }
            fields.removeFirst()
        }
        // An over-range line may carry no number at all.
        if status.contains(.overload) && fields.allSatisfy(\.isEmpty) { return .withoutWeight(timeNs: timeNs, status: status) }
        // The weight and its unit, in one field or two ("+  123.4 g", " 123.4,kg").
        guard let (value, unitText) = splitNumber(fields.joined(separator: " ")) else { return unreadable.with(status) }
        if status.contains(.overload) { return .withoutWeight(timeNs: timeNs, status: status, rawValue: value, rawUnit: unitText) }
        guard let unit = units[unitText.lowercased()] else {
            return .withoutWeight(timeNs: timeNs, status: status.union(.unreadable), rawValue: value, rawUnit: unitText)
        }
        if value < 0 { status.insert(.underZero) }
        return ScaleReading(timeNs: timeNs, grams: value * unit.grams, status: status, rawValue: value, rawUnit: unitText)
    }

    /// "±  123.45 unit" into the number and the unit; nil when it is not that.
    static func splitNumber(_ text: String) -> (Double, String)? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var sign = 1.0
        if let first = rest.first, first == "+" || first == "-" {
            if first == "-" { sign = -1 }
            rest = rest.dropFirst().drop(while: { $0 == " " })
        }
        let number = rest.prefix(while: { $0.isASCII && ($0.isNumber || $0 == ".") })
        let unit = rest.dropFirst(number.count).trimmingCharacters(in: .whitespaces)
        guard !number.isEmpty, number.count <= 12, number.filter({ $0 == "." }).count <= 1,
              number.contains(where: \.isNumber), let magnitude = Double(number),
              unit.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return (sign * magnitude, unit)
    }
}

extension ScaleReading {
    /// This reading with `status` added.
    func with(_ status: ScaleStatus) -> ScaleReading {
        var copy = self
        copy.status.formUnion(status)
        return copy
    }
}

/// Bytes from a serial scale into lines, bounded: a line longer than
/// `SerialScaleLine.maximumLength` is given back as over-long (a reading
/// flagged `unreadable`) and the rest of it up to the next newline dropped,
/// so a scale at the wrong baud rate cannot grow a buffer.
public struct ScaleLineAssembler: Sendable {
    private var line: [UInt8] = []
    private var overlong = false

    public init() {}

    /// The complete lines in `bytes` (CR, LF or CR LF end a line; empty
    /// lines are skipped), each either its bytes or nil for an over-long one.
    public mutating func append(_ bytes: some Sequence<UInt8>) -> [[UInt8]?] {
        var lines: [[UInt8]?] = []
        for byte in bytes {
            if byte == 0x0A || byte == 0x0D {
                if overlong { lines.append(nil) } else if !line.isEmpty { lines.append(line) }
                line.removeAll(keepingCapacity: true)
                overlong = false
            } else if !overlong {
                line.append(byte)
                if line.count > SerialScaleLine.maximumLength {
                    overlong = true
                    line.removeAll(keepingCapacity: true)
                }
            }
        }
        return lines
    }
}
