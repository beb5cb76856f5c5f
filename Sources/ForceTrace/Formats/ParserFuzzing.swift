/// What the libFuzzer harnesses in Fuzz/ run, and what the regression test
/// replays: parse bytes as a recording, then do what import does next
/// (check the stream, decode it) and write it back out and read it again.
/// Bad input must end in an `InputError`; anything else (a trap, a
/// mismatch after the round trip) is a bug.
public enum ParserFuzzing {
    /// The device raw streams are read with: protocol B, pressure, 10 slots.
    public static let rawDescription: DeviceDescription = {
        var device = DeviceDescription(name: "fuzz touchscreen")
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtSlot, minimum: 0, maximum: 9))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtTrackingID, minimum: 0, maximum: 65535))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionX, minimum: 0, maximum: 4095))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPositionY, minimum: 0, maximum: 4095))
        device.setAxis(AxisInfo(code: AbsoluteAxis.mtPressure, minimum: 0, maximum: 255))
        device.enable(type: EventType.key, code: Button.touch)
        device.enable(type: EventType.syn, code: EventType.key)
        return device
    }()

    public static func evemu(_ bytes: [UInt8]) {
        guard let parsed = try? Evemu.parseSalvaging(bytes, file: "fuzz-input") else { return }
        exercise(parsed.recording)
        var text = ""
        Evemu.write(parsed.recording, to: &text)
        let again = try? Evemu.parse(Array(text.utf8), file: "fuzz-roundtrip")
        requireSame(parsed.recording, again, "evemu")
    }

    public static func libinput(_ bytes: [UInt8]) {
        guard let parsed = try? LibinputRecord.parseSalvaging(bytes, file: "fuzz-input") else { return }
        for item in parsed { exercise(item.recording) }
        var text = ""
        LibinputRecord.write(parsed.map(\.recording), to: &text)
        let again = try? LibinputRecord.parse(Array(text.utf8), file: "fuzz-roundtrip")
        precondition(again?.count == parsed.count, "libinput round trip lost devices")
        for (original, copy) in zip(parsed, again ?? []) { requireSame(original.recording, copy, "libinput") }
    }

    public static func raw(_ bytes: [UInt8]) {
        guard let parsed = try? RawEventStream.parseSalvaging(bytes, file: "fuzz-input", description: rawDescription) else { return }
        exercise(parsed.recording)
        var out: [UInt8] = []
        RawEventStream.write(parsed.recording) { out.append(contentsOf: $0) }
        let again = try? RawEventStream.parse(out, file: "fuzz-roundtrip", description: rawDescription)
        requireSame(parsed.recording, again, "raw")
    }

    private static func exercise(_ recording: Recording) {
        _ = StreamCheck.warnings(for: recording)
        var decoder = TraceDecoder(device: recording.device)
        for (index, event) in recording.events.enumerated() {
            var relative = event
            relative.timeNs = event.timeNs &- recording.t0Ns
            decoder.feed(relative, index: Int64(index))
        }
        decoder.finish()
        _ = decoder.takeOutput()
    }

    private static func requireSame(_ original: Recording, _ copy: Recording?, _ format: String) {
        guard let copy else { preconditionFailure("\(format): the exported recording does not parse") }
        precondition(copy.events == original.events, "\(format): events differ after the round trip")
        precondition(copy.device == original.device, "\(format): device differs after the round trip")
    }
}
