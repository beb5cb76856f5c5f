// The rows of the samples, contacts and markers tables, as the decoder makes
// them and the trace file stores them (TraceSchema binds each column to its
// field). A new field has a default value, so no row literal has to change.

/// One row of the per-contact sample table.
public struct Sample: Equatable, Sendable {
    public var tNs: Int64
    public var contact: Int32
    /// Slot index, or -1 on devices without slots.
    public var slot: Int16
    public var x: Int32
    public var y: Int32
    /// Raw pressure, or -1 where the contact has no pressure axis.
    public var pressure: Int32
    public var flags: SampleFlags

    public init(tNs: Int64, contact: Int32, slot: Int16, x: Int32, y: Int32, pressure: Int32, flags: SampleFlags) {
        self.tNs = tNs; self.contact = contact; self.slot = slot
        self.x = x; self.y = y; self.pressure = pressure; self.flags = flags
    }
}

/// Why a sample row exists.
public struct SampleFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The frame in which the contact went down.
    public static let down = SampleFlags(rawValue: 1 << 0)
    /// x or y differs from the previous frame.
    public static let moved = SampleFlags(rawValue: 1 << 1)
    /// Pressure differs from the previous frame.
    public static let pressureChanged = SampleFlags(rawValue: 1 << 2)
    /// First frame after a SYN_DROPPED: values may have jumped.
    public static let afterDrop = SampleFlags(rawValue: 1 << 3)
}

/// One row of the contacts table: a tracking id's life in a slot, or a
/// BTN_TOUCH 1 → 0 span on a device without slots.
public struct Contact: Equatable, Sendable {
    public var id: Int32
    public var slot: Int16
    /// ABS_MT_TRACKING_ID, or -1 without slots.
    public var trackingID: Int32
    /// The BTN_TOOL_* code of the tool, or 0 when unknown.
    public var tool: UInt16
    public var tDownNs: Int64
    /// -1 while the contact is still down at the end of the recording.
    public var tUpNs: Int64
    /// Row of the contact's down sample.
    public var firstSample: Int64
    /// Row of its last sample. Rows in between belong to overlapping contacts too.
    public var lastSample: Int64
    public var sampleCount: Int64
}

/// A row of the markers table.
public struct Marker: Equatable, Sendable {
    public var tNs: Int64
    public var kind: MarkerKind
    /// Row in the events table of the event that caused it.
    public var eventIndex: Int64
}

/// What a marker marks. Stored as its raw value.
public enum MarkerKind: UInt8, Sendable, CaseIterable {
    /// SYN_DROPPED in the stream: events up to the next SYN_REPORT are void
    /// and contact state may be stale until the device reports it again.
    case synDropped = 1
    /// The recorder re-read the device state after SYN_DROPPED (libevdev's
    /// sync pass); the events that follow the marker bring state up to date.
    case resync = 2
    /// A live recorder wrote the device's state at start as one synthetic
    /// frame at t = 0 (see `InitialState`): touches already down, slot values.
    case initialState = 3

    public var name: String {
        switch self {
        case .synDropped: "syn_dropped"
        case .resync: "resync"
        case .initialState: "initial_state"
        }
    }
}
