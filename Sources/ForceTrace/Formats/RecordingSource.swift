/// Where a recording came from: the `source` attribute of its group in a
/// trace file, written as `KIND:DETAIL` (docs/FORMAT.md).
public indirect enum RecordingSource: Sendable, Equatable, CustomStringConvertible {
    /// An evemu file: `evemu:PATH`.
    case evemu(path: String)
    /// A libinput record file: `libinput:PATH`, plus `#deviceN` when the file
    /// holds several devices.
    case libinput(path: String, device: Int?)
    /// Raw `struct input_event` records: `raw:PATH`.
    case raw(path: String)
    /// `forcetrace simulate`: `simulate:seed=N`.
    case simulated(seed: UInt64)
    /// A live device: `evdev:/dev/input/eventN`.
    case evdev(node: String)
    /// `record --replay` of another recording: `replay:SOURCE`.
    case replay(RecordingSource)
    /// A source this forcetrace does not know (a newer writer), kept as written.
    case other(String)

    /// Parses the attribute text; text of an unknown kind becomes `.other`.
    public init(_ text: String) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let kind = parts.first.map(String.init) ?? ""
        let detail = parts.count > 1 ? String(parts[1]) : ""
        switch kind {
        case "evemu" where parts.count > 1: self = .evemu(path: detail)
        case "raw" where parts.count > 1: self = .raw(path: detail)
        case "evdev" where parts.count > 1: self = .evdev(node: detail)
        case "replay" where parts.count > 1: self = .replay(RecordingSource(detail))
        case "libinput" where parts.count > 1:
            if let mark = detail.range(of: "#device", options: .backwards), let index = Int(detail[mark.upperBound...]) {
                self = .libinput(path: String(detail[..<mark.lowerBound]), device: index)
            } else {
                self = .libinput(path: detail, device: nil)
            }
        case "simulate" where detail.hasPrefix("seed="):
            if let seed = UInt64(detail.dropFirst(5)) { self = .simulated(seed: seed) } else { self = .other(text) }
        default: self = .other(text)
        }
    }

    /// The attribute text.
    public var description: String {
        switch self {
        case .evemu(let path): "evemu:\(path)"
        case .libinput(let path, let device): "libinput:\(path)" + (device.map { "#device\($0)" } ?? "")
        case .raw(let path): "raw:\(path)"
        case .simulated(let seed): "simulate:seed=\(seed)"
        case .evdev(let node): "evdev:\(node)"
        case .replay(let source): "replay:\(source)"
        case .other(let text): text
        }
    }

    /// The device node, for a live recording.
    public var deviceNode: String? { if case .evdev(let node) = self { node } else { nil } }
}
