import Foundation
import XCTest

/// An independent reading of an evemu recording, for cross-checks: it takes
/// the text apart with plain string operations and follows docs/FORMAT.md's
/// rules for contacts and sample rows itself, using none of forcetrace's
/// parsing, decoding or writing code. A test that compares two forcetrace
/// pipelines with each other cannot see a bug they share; comparing either
/// with this can.
struct EvemuOracle {
    struct Contact: Equatable, CustomStringConvertible {
        var slot: Int
        var trackingID: Int
        /// Relative to the first event, like `contacts/t_down_ns`.
        var downNs: Int64
        var upNs: Int64 = -1
        var rows = 0

        var description: String { "slot \(slot) id \(trackingID) down \(downNs) up \(upNs) rows \(rows)" }
    }

    private(set) var contacts: [Contact] = []
    private(set) var events = 0
    private(set) var t0Ns: Int64 = 0

    private struct Slot {
        var id = -1, x = 0, y = 0, p = 0
        var lastX = 0, lastY = 0, lastP = 0
        var open: Int?          // index into contacts
        var idChanged = false   // a tracking id event with a new value in this frame
        var sawUp = false       // BTN_TOUCH 0 in this frame (single touch)
        var sawDown = false
    }

    init(path: String, descriptionPath: String? = nil) throws {
        var text = try String(contentsOfFile: path, encoding: .utf8)
        if let description = descriptionPath ?? Self.siblingDescription(path, text) {
            text = try String(contentsOfFile: description, encoding: .utf8) + "\n" + text
        }
        var axes: [Int: (min: Int, max: Int)] = [:]
        var eventLines: [[Substring]] = []
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let fields = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let tag = fields.first else { continue }
            if tag == "A:" && fields.count >= 4, let code = Int(fields[1], radix: 16), let low = Int(fields[2]), let high = Int(fields[3]) {
                axes[code] = (low, high)
            } else if tag == "E:" && fields.count >= 5 {
                eventLines.append(Array(fields[1...4]))
            }
        }
        // ABS_MT_SLOT 0x2f, ABS_MT_TRACKING_ID 0x39, X/Y 0x35/0x36, ABS_MT_PRESSURE 0x3a;
        // single touch: ABS_X/Y 0/1, ABS_PRESSURE 0x18, BTN_TOUCH 0x14a.
        // libevdev's "fake MT": with ABS_MT_SLOT - 1 (0x2e) present, 0x2f is no slot axis.
        let slotted = axes[0x2f] != nil && axes[0x2e] == nil
        let slotMinimum = axes[0x2f]?.min ?? 0
        let slotCount = slotted ? max(1, (axes[0x2f]!.max - slotMinimum) + 1) : 1
        let hasPressure = slotted ? axes[0x3a] != nil : axes[0x18] != nil
        let (xCode, yCode, pCode) = slotted ? (0x35, 0x36, 0x3a) : (0x00, 0x01, 0x18)

        var slots = [Slot](repeating: Slot(), count: slotCount)
        var current = 0
        var touch = false
        var discarding = false
        for (index, fields) in eventLines.enumerated() {
            let time = try Self.nanoseconds(fields[0], path)
            if index == 0 { t0Ns = time }
            let t = time - t0Ns
            events += 1
            guard let type = Int(fields[1], radix: 16), let code = Int(fields[2], radix: 16), let value = Int(fields[3]) else {
                throw BlackBox.Failure("\(path): an E: line the oracle cannot read: \(fields)")
            }
            if type == 0 && code == 3 { discarding = true; continue }      // SYN_DROPPED
            if type == 0 && code == 0 {                                     // SYN_REPORT
                if discarding {
                    discarding = false
                    for i in slots.indices { slots[i].idChanged = false; slots[i].sawUp = false; slots[i].sawDown = false }
                    continue
                }
                for i in slots.indices { endFrame(&slots[i], slot: slotted ? i : -1, at: t, slotted: slotted, hasPressure: hasPressure, touch: touch) }
                continue
            }
            if discarding || type == 0 { continue }
            if slotted {
                guard type == 3 else { continue }
                if code == 0x2f { current = value - slotMinimum; continue }
                guard slots.indices.contains(current) else { continue }
                switch code {
                case 0x39:
                    if value != slots[current].id {
                        slots[current].id = value
                        slots[current].idChanged = true
                    }
                case xCode: slots[current].x = value
                case yCode: slots[current].y = value
                case pCode: slots[current].p = value
                default: break
                }
            } else if type == 3 {
                switch code {
                case xCode: slots[0].x = value
                case yCode: slots[0].y = value
                case pCode: slots[0].p = value
                default: break
                }
            } else if type == 1 && code == 0x14a {
                let down = value != 0
                if down != touch {
                    touch = down
                    if down { slots[0].sawDown = true } else { slots[0].sawUp = true }
                }
            }
        }
    }

    private mutating func endFrame(_ slot: inout Slot, slot index: Int, at t: Int64, slotted: Bool, hasPressure: Bool, touch: Bool) {
        let ends = slotted ? slot.idChanged : slot.sawUp
        let starts = slotted ? (slot.idChanged && slot.id >= 0) : (slot.sawDown && touch)
        if ends, let open = slot.open {
            contacts[open].upNs = t
            slot.open = nil
        }
        if starts {
            contacts.append(Contact(slot: index, trackingID: slotted ? slot.id : -1, downNs: t))
            slot.open = contacts.count - 1
            addRow(&slot)
        } else if slot.open != nil, slot.x != slot.lastX || slot.y != slot.lastY || (hasPressure && slot.p != slot.lastP) {
            addRow(&slot)
        }
        slot.idChanged = false; slot.sawUp = false; slot.sawDown = false
    }

    private mutating func addRow(_ slot: inout Slot) {
        guard let open = slot.open else { return }
        contacts[open].rows += 1
        slot.lastX = slot.x; slot.lastY = slot.y; slot.lastP = slot.p
    }

    /// Events without a header take it from "NAME.desc" beside them, with
    /// extensions dropped one at a time ("X.leftmove.events" → "X.leftmove.desc", "X.desc").
    private static func siblingDescription(_ path: String, _ text: String) -> String? {
        guard !text.split(separator: "\n").contains(where: { $0.hasPrefix("N:") }) else { return nil }
        var stem = URL(fileURLWithPath: path).deletingPathExtension()
        while !stem.lastPathComponent.isEmpty {
            let candidate = stem.appendingPathExtension("desc").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let shorter = stem.deletingPathExtension()
            if shorter.lastPathComponent == stem.lastPathComponent { return nil }
            stem = shorter
        }
        return nil
    }

    /// Every E: line of an evemu text as (ns, type, code, value), read with
    /// string operations only.
    static func events(inText text: String) throws -> [[Int64]] {
        try text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).compactMap { line -> [Int64]? in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.first == "E:", fields.count >= 5, let type = Int64(fields[2], radix: 16), let code = Int64(fields[3], radix: 16),
                  let value = Int64(fields[4]) else { return nil }
            return [try nanoseconds(fields[1], "evemu text"), type, code, value]
        }
    }

    /// "SEC[.FRACTION]" as nanoseconds, the fraction padded to nine digits.
    private static func nanoseconds(_ text: Substring, _ path: String) throws -> Int64 {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard let seconds = Int64(parts[0]) else { throw BlackBox.Failure("\(path): a timestamp the oracle cannot read: \(text)") }
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        fraction += String(repeating: "0", count: max(0, 9 - fraction.count))
        return seconds * 1_000_000_000 + (Int64(fraction.prefix(9)) ?? 0)
    }
}

extension EvemuOracle {
    /// Checks a trace file's recording against the oracle and against its
    /// own samples table: the contacts (slot, tracking id, down, up, rows),
    /// and for each contact that first_sample, last_sample and n_samples are
    /// the first, last and number of its rows in `samples`, the first a down row.
    func assertMatches(_ trace: BlackBox.Trace, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let table = try trace.table("contacts")
        let samples = try trace.table("samples")
        XCTAssertEqual(try trace.table("events")["t_ns"]?.count, events, "\(what): events", file: file, line: line)
        XCTAssertEqual(try trace.attribute("t0_ns")?.intValue, t0Ns, "\(what): t0_ns", file: file, line: line)
        let count = table["id"]?.count ?? 0
        let actual = (0..<count).map { row in
            Contact(slot: Int(table["slot"]![row]), trackingID: Int(table["tracking_id"]![row]), downNs: table["t_down_ns"]![row],
                    upNs: table["t_up_ns"]![row], rows: Int(table["n_samples"]![row]))
        }
        XCTAssertEqual(actual.count, contacts.count, "\(what): contacts", file: file, line: line)
        for (index, (found, expected)) in zip(actual, contacts).enumerated() where found != expected {
            XCTFail("\(what): contact \(index) is \(found), the evemu text says \(expected)", file: file, line: line)
            break
        }
        XCTAssertEqual(table["id"], (0..<Int64(count)).map { $0 }, "\(what): ids", file: file, line: line)

        // The contacts table's row pointers against the samples table.
        let owners = samples["contact"] ?? [], flags = samples["flags"] ?? [], times = samples["t_ns"] ?? []
        var rows = [[Int]](repeating: [], count: count)
        for (row, owner) in owners.enumerated() {
            guard owner >= 0 && Int(owner) < count else {
                XCTFail("\(what): samples row \(row) names contact \(owner)", file: file, line: line)
                return
            }
            rows[Int(owner)].append(row)
        }
        for id in 0..<count {
            let mine = rows[id]
            let first = table["first_sample"]![id], last = table["last_sample"]![id], n = table["n_samples"]![id]
            guard let firstRow = mine.first, let lastRow = mine.last else {
                XCTFail("\(what): contact \(id) has no samples rows", file: file, line: line)
                continue
            }
            if first != Int64(firstRow) || last != Int64(lastRow) || n != Int64(mine.count) {
                XCTFail("\(what): contact \(id) says first_sample \(first), last_sample \(last), n_samples \(n); the samples table has rows \(firstRow)...\(lastRow), \(mine.count) of them",
                        file: file, line: line)
                break
            }
            XCTAssertEqual(flags[firstRow] & 1, 1, "\(what): contact \(id)'s first row is not a down row", file: file, line: line)
            XCTAssertEqual(mine.dropFirst().filter { flags[$0] & 1 != 0 }, [], "\(what): contact \(id) has a second down row", file: file, line: line)
            XCTAssertEqual(times[firstRow], table["t_down_ns"]![id], "\(what): contact \(id)'s down row time", file: file, line: line)
        }
    }
}
