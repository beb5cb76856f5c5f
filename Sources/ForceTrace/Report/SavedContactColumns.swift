/// The values of `--save`'s `contacts/` datasets, one array per field. The
/// contacts are read a block at a time, every field over the block while it
/// is in cache: a pass per field over all of them read the whole results
/// array (hundreds of bytes a contact) from memory once per field.
struct SavedContactColumns {
    /// One field's values, as its dataset stores them before narrowing to `ContactField.Storage`.
    enum Values: Equatable {
        case integers([Int64])
        case doubles([Double])
        case strings([String])
        /// `rows × ToleranceLanes.sweepLanes.count`, row-major.
        case lanes([Int64])
    }

    /// Contacts per block: a few hundred kilobytes of results.
    static let blockContacts = 512

    let fields: [ContactField]
    let values: [Values]

    init(_ fields: [ContactField], _ contacts: [ContactStatistics], lanes: ToleranceLanes) {
        self.fields = fields
        let entries = ContactJSONFields(fields).entries
        var integers = fields.map { _ in [Int64]() }, doubles = fields.map { _ in [Double]() }, strings = fields.map { _ in [String]() }
        contacts.withUnsafeBufferPointer { contacts in
            for start in stride(from: 0, to: contacts.count, by: Self.blockContacts) {
                let block = UnsafeBufferPointer(rebasing: contacts[start..<min(contacts.count, start + Self.blockContacts)])
                for (number, entry) in entries.enumerated() {
                    let missing = fields[number].missing
                    switch fields[number].storage {
                    case .double:
                        for contact in block { doubles[number].append(Self.double(entry.value(contact))) }
                    case .string:
                        for contact in block {
                            if case .text(let text) = entry.value(contact) { strings[number].append(text ?? "") } else { strings[number].append("") }
                        }
                    case .int64PerLane:
                        for contact in block {
                            guard case .sweep(let counts) = entry.value(contact) else { continue }
                            for lane in ToleranceLanes.sweepLanes { integers[number].append(lanes.applicable[lane] ? counts[lane] : missing) }
                        }
                    default:
                        for contact in block {
                            switch entry.value(contact) {
                            case .integer(let integer): integers[number].append(integer ?? missing)
                            case .flag(let flag): integers[number].append(flag ? 1 : 0)
                            default: integers[number].append(missing)
                            }
                        }
                    }
                }
            }
        }
        values = fields.indices.map { number in
            switch fields[number].storage {
            case .double: .doubles(doubles[number])
            case .string: .strings(strings[number])
            case .int64PerLane: .lanes(integers[number])
            default: .integers(integers[number])
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
