/// What the libFuzzer harnesses in Fuzz/ run, and what the regression test
/// replays: decode bytes with a codec, then do what import does next
/// (check the stream, decode it), encode it with the same codec and decode
/// that again. Bad input must end in an `ForceTraceError`; anything else (a
/// trap, a mismatch after the round trip) is a bug.
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

    /// Decodes, checks, encodes and decodes again `bytes` in `format`.
    public static func run(_ format: RecordingFormat, _ bytes: [UInt8]) {
        let codec = RecordingCodecs.codec(format)
        let options = DecodeOptions(description: rawDescription, salvage: true)
        guard let parsed = try? codec.decode(bytes, file: "fuzz-input", options: options) else { return }
        for item in parsed { exercise(item.recording) }
        let output = ByteOutput()
        do {
            try codec.encode(parsed.map(\.recording), to: output)
        } catch {
            preconditionFailure("\(format): a decoded recording does not encode: \(error)")
        }
        let again = try? codec.decode(output.memory, file: "fuzz-roundtrip", options: DecodeOptions(description: rawDescription))
        guard let again else { preconditionFailure("\(format): the exported recording does not parse") }
        precondition(again.count == parsed.count, "\(format) round trip lost devices")
        for (original, copy) in zip(parsed, again) {
            precondition(copy.recording.events == original.recording.events, "\(format): events differ after the round trip")
            precondition(copy.recording.device == original.recording.device, "\(format): device differs after the round trip")
            precondition(copy.recording.groundTruth == original.recording.groundTruth, "\(format): labels differ after the round trip")
        }
    }

    /// For a format forcetrace only reads: decodes and checks as `run`
    /// does, then round-trips each recording through evemu, as an import
    /// followed by `export --format evemu` would.
    public static func runImportOnly(_ format: RecordingFormat, _ bytes: [UInt8]) {
        let codec = RecordingCodecs.codec(format)
        let options = DecodeOptions(description: rawDescription, salvage: true)
        guard let parsed = try? codec.decode(bytes, file: "fuzz-input", options: options) else { return }
        for item in parsed {
            exercise(item.recording)
            let output = ByteOutput()
            do {
                try EvemuCodec().encode([item.recording], to: output)
            } catch {
                preconditionFailure("\(format): a decoded recording does not encode as evemu: \(error)")
            }
            guard let again = try? EvemuCodec().decode(output.memory, file: "fuzz-roundtrip") else {
                preconditionFailure("\(format): the evemu export does not parse")
            }
            precondition(again.count == 1 && again[0].recording.events == item.recording.events, "\(format): events differ after the evemu round trip")
            precondition(again[0].recording.device == item.recording.device, "\(format): device differs after the evemu round trip")
        }
    }

    public static func evemu(_ bytes: [UInt8]) { run(.evemu, bytes) }
    public static func getevent(_ bytes: [UInt8]) { runImportOnly(.getevent, bytes) }
    public static func inkml(_ bytes: [UInt8]) { runImportOnly(.inkml, bytes) }
    public static func libinput(_ bytes: [UInt8]) { run(.libinput, bytes) }
    public static func svc2004(_ bytes: [UInt8]) { runImportOnly(.svc2004, bytes) }
    public static func raw(_ bytes: [UInt8]) { run(.raw, bytes) }

    /// Browser captures are read only, like getevent, InkML and SVC2004.
    public static func browser(_ bytes: [UInt8]) { runImportOnly(.browserCapture, bytes) }

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
}
