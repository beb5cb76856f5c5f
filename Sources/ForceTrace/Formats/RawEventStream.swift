import Foundation

/// Raw `struct input_event` records, as `read()` on /dev/input/eventN
/// returns them on x86-64 Linux: 24 bytes each, little-endian,
///
///     offset  0  tv_sec   int64
///     offset  8  tv_usec  int64
///     offset 16  type     uint16
///     offset 18  code     uint16
///     offset 20  value    int32
///
/// The stream carries no device description; it comes from an evemu header.
public enum RawEventStream {
    public static let recordSize = 24

    /// Parses a whole stream; any damage is an error.
    public static func parse(_ bytes: [UInt8], file: String, description: DeviceDescription) throws -> Recording {
        let parsed = try parseSalvaging(bytes, file: file, description: description)
        if let damage = parsed.damage { throw damage }
        return parsed.recording
    }

    /// Parses a stream, ending it at the last complete frame before the
    /// first bad record or a trailing partial record.
    public static func parseSalvaging(_ bytes: [UInt8], file: String, description: DeviceDescription) throws -> ParsedRecording {
        if bytes.isEmpty {
            throw InputError(file: file, "the file is empty; expected raw 24-byte input_event records")
        }
        let whole = bytes.count / recordSize
        var events: [InputEvent] = []
        events.reserveCapacity(whole)
        var damage: InputError?
        bytes.withUnsafeBytes { raw in
            for index in 0..<whole {
                let offset = index * recordSize
                let seconds = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
                let microseconds = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self))
                let type = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt16.self))
                let code = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 18, as: UInt16.self))
                let value = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 20, as: Int32.self))
                // The kernel keeps tv_usec below a second; anything else means
                // this is not (or no longer) an aligned x86-64 event stream.
                guard (0..<1_000_000).contains(microseconds), (0...9_000_000_000).contains(seconds) else {
                    damage = InputError(file: file, location: .byteOffset(offset),
                                        "record \(index) has tv_sec \(seconds), tv_usec \(microseconds); expected a struct input_event with 0 <= tv_usec < 1000000 (is this a 24-byte x86-64 stream, aligned at byte 0?)")
                    break
                }
                events.append(InputEvent(timeNs: seconds * 1_000_000_000 + microseconds * 1000, type: type, code: code, value: value))
            }
        }
        if damage == nil, bytes.count % recordSize != 0 {
            damage = InputError(file: file, location: .byteOffset(whole * recordSize),
                                "the stream ends mid-record: \(bytes.count % recordSize) trailing bytes; expected whole \(recordSize)-byte input_event records (the file was cut off)")
        }
        if let damage {
            events.removeAfterLastFrame()
            // Nothing complete to keep: the damage is the whole story.
            if events.isEmpty { throw damage }
        }
        let clock: RecordingClock = (events.first?.timeNs ?? 0) >= 100_000_000 * 1_000_000_000 ? .realtime : .relative
        let name = file == "standard input" ? "stdin" : URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let recording = Recording(device: description, events: events, clock: clock, source: .raw(path: file), name: name)
        return ParsedRecording(recording: recording, damage: damage)
    }

    /// Writes the events as raw records, times as they are (absolute on the
    /// recording's clock).
    public static func write(_ recording: Recording, to sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        let batch = 4096
        var buffer = [UInt8](repeating: 0, count: batch * recordSize)
        var start = 0
        let events = recording.events
        while start < events.count {
            let end = min(events.count, start + batch)
            buffer.withUnsafeMutableBytes { raw in
                for index in start..<end {
                    let event = events[index]
                    let offset = (index - start) * recordSize
                    var seconds = event.timeNs / 1_000_000_000
                    var nanoseconds = event.timeNs % 1_000_000_000
                    if nanoseconds < 0 { seconds -= 1; nanoseconds += 1_000_000_000 }
                    raw.storeBytes(of: seconds.littleEndian, toByteOffset: offset, as: Int64.self)
                    raw.storeBytes(of: (nanoseconds / 1000).littleEndian, toByteOffset: offset + 8, as: Int64.self)
                    raw.storeBytes(of: event.type.littleEndian, toByteOffset: offset + 16, as: UInt16.self)
                    raw.storeBytes(of: event.code.littleEndian, toByteOffset: offset + 18, as: UInt16.self)
                    raw.storeBytes(of: event.value.littleEndian, toByteOffset: offset + 20, as: Int32.self)
                }
            }
            try buffer.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<(end - start) * recordSize])) }
            start = end
        }
    }
}
