/// The values of `--save`'s `contacts/` datasets, one array per field, taken
/// in one pass over the contacts: each contact is read once, for every
/// field. A pass per field read the whole results array (hundreds of bytes
/// a contact) once per field, and copied each contact each time.
struct SavedContactColumns {
    /// One field's values, as its dataset stores them before narrowing to `ContactField.Storage`.
    enum Values: Equatable {
        case integers([Int64])
        case doubles([Double])
        case strings([String])
        /// `rows × ToleranceLanes.sweepLanes.count`, row-major.
        case lanes([Int64])
    }

    let fields: [ContactField]
    let values: [Values]

    init(_ fields: [ContactField], _ contacts: [ContactStatistics], lanes: ToleranceLanes) {
        self.fields = fields
        let count = contacts.count, width = ToleranceLanes.sweepLanes.count
        let entries = ContactJSONFields(fields).entries
        let storage = fields.map(\.storage), missing = fields.map(\.missing)
        // Every field's values side by side in one array of its kind; `start[f]` is where field f's begin.
        var start: [Int] = [], integerCount = 0, doubleCount = 0, stringCount = 0
        for field in fields {
            switch field.storage {
            case .double: start.append(doubleCount); doubleCount += count
            case .string: start.append(stringCount); stringCount += count
            default: start.append(integerCount); integerCount += field.isSweep ? count * width : count
            }
        }
        var integers = [Int64](repeating: 0, count: integerCount), doubles = [Double](repeating: 0, count: doubleCount)
        var strings = [String](repeating: "", count: stringCount)
        let applicable = ToleranceLanes.sweepLanes.map { lanes.applicable[$0] }
        integers.withUnsafeMutableBufferPointer { integers in
            doubles.withUnsafeMutableBufferPointer { doubles in
                contacts.withUnsafeBufferPointer { contacts in
                    for index in contacts.indices {
                        let contact = contacts[index]
                        for number in entries.indices {
                            let value = entries[number].value(contact), at = start[number] + index
                            switch storage[number] {
                            case .double: doubles[at] = Self.double(value)
                            case .string: if case .text(let text?) = value { strings[at] = text }
                            case .int64PerLane:
                                guard case .sweep(let counts) = value else { continue }
                                for (lane, sweepLane) in ToleranceLanes.sweepLanes.enumerated() {
                                    integers[start[number] + index * width + lane] = applicable[lane] ? counts[sweepLane] : missing[number]
                                }
                            default:
                                switch value {
                                case .integer(let integer): integers[at] = integer ?? missing[number]
                                case .flag(let flag): integers[at] = flag ? 1 : 0
                                default: integers[at] = missing[number]
                                }
                            }
                        }
                    }
                }
            }
        }
        values = fields.indices.map { number in
            let first = start[number]
            switch storage[number] {
            case .double: return .doubles(Array(doubles[first..<(first + count)]))
            case .string: return .strings(Array(strings[first..<(first + count)]))
            case .int64PerLane: return .lanes(Array(integers[first..<(first + count * width)]))
            default: return .integers(Array(integers[first..<(first + count)]))
            }
        }
    }

    /// A double dataset's value: seconds from nanoseconds, an inflation as
    /// `ReportFile.stored` has it, NaN for what has none.
    static func double(_ value: ContactValue) -> Double {
        switch value {
        case .real(let value): value ?? .nan
        case .seconds(let ns): ns.map { Double($0) / 1e9 } ?? .nan
        case .inflation(let inflation): ReportFile.stored(inflation)
        case .integer(let value): value.map(Double.init) ?? .nan
        default: .nan
        }
    }
}
