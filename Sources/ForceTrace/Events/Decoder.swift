/// Something odd in the stream that the decoder worked around.
public struct DecoderAnomaly: Equatable, Sendable {
    public var eventIndex: Int64
    public var message: String
}

/// Turns an evdev event stream into frames, contacts and sample rows,
/// following Documentation/input/multi-touch-protocol.rst.
///
/// Feed events in order, then call `finish()`. Output accumulates in
/// `samples`, `contacts` (in id order) and `markers`; callers drain it with
/// `takeOutput()` as often as they like, so memory stays bounded.
///
/// A worked example on a protocol-B device with ABS_MT_PRESSURE:
///
///     ABS_MT_SLOT 0, ABS_MT_TRACKING_ID 45, X 100, Y 200, PRESSURE 30, SYN_REPORT   -> down row (contact 0)
///     ABS_MT_PRESSURE 31, SYN_REPORT                                                -> row, pressureChanged
///     ABS_MT_PRESSURE 31, SYN_REPORT                                                -> nothing: a repeated value
///     ABS_MT_POSITION_X 101, ABS_MT_TRACKING_ID -1, SYN_REPORT                      -> contact 0 ends, no row
public struct TraceDecoder: Sendable {
    public enum SynDroppedPolicy: Sendable {
        /// A recorded kernel stream: discard events up to and including the
        /// next SYN_REPORT, as libevdev.h prescribes.
        case discardUntilReport
        /// A live stream from libevdev: the events after SYN_DROPPED are
        /// libevdev's resync deltas, so apply them.
        case applyFollowingEvents
    }

    public struct Output: Sendable {
        public var samples: [Sample] = []
        public var contacts: [Contact] = []
        public var markers: [Marker] = []
    }

    private struct Slot: Sendable {
        var trackingID: Int32 = -1
        var x: Int32 = 0
        var y: Int32 = 0
        var pressure: Int32 = 0
        var toolType: Int32 = 0
        // Open contact bookkeeping.
        var open = false
        var contact = Contact(id: -1, slot: -1, trackingID: -1, tool: 0, tDownNs: 0, tUpNs: -1,
                              firstSample: -1, lastSample: -1, sampleCount: 0)
        var lastX: Int32 = 0
        var lastY: Int32 = 0
        var lastPressure: Int32 = 0
        // Changes seen in the current frame.
        var endInFrame = false
        var startInFrame = false
    }

    public let device: DeviceDescription
    public let contactProtocol: ContactProtocol
    private let policy: SynDroppedPolicy
    private let hasContactPressure: Bool
    private let isPen: Bool

    private var slots: [Slot]
    private var currentSlot: Int
    private var currentSlotValid = true
    // Single-touch state; the slot array holds one slot for it.
    private var touchDown = false
    private var touchChanged = false
    /// BTN_TOUCH went to 0 in this frame: with a 1 after it, one contact ends and the next begins.
    private var touchReleased = false
    private var touchEverReported = false
    private var currentTool: UInt16 = 0

    private var discarding = false
    private var afterDrop = false
    private var nextContactID: Int32 = 0
    private var nextContactToEmit: Int32 = 0
    private var finishedContacts: [Int32: Contact] = [:]
    private var output = Output()

    /// Rows emitted so far, so contacts can point into the samples table.
    public private(set) var sampleRows: Int64 = 0
    public private(set) var frameCount: Int64 = 0
    public private(set) var contactCount: Int64 = 0
    public private(set) var anomalies: [DecoderAnomaly] = []
    /// Anomalies beyond this many are counted, not kept.
    public static let anomalyLimit = 100
    public private(set) var anomalyCount = 0

    public init(device: DeviceDescription, synDroppedPolicy: SynDroppedPolicy = .discardUntilReport) {
        self.device = device
        self.contactProtocol = device.contactProtocol
        self.policy = synDroppedPolicy
        self.hasContactPressure = device.contactPressureAxis != nil
        self.isPen = device.isPen
        let count = contactProtocol == .slots ? max(1, device.slotCount) : 1
        var initial = Slot()
        let axes = device.positionAxes
        initial.x = axes.x?.value ?? 0
        initial.y = axes.y?.value ?? 0
        initial.pressure = device.contactPressureAxis?.value ?? 0
        slots = Array(repeating: initial, count: count)
        let slotAxis = device.slotAxis
        currentSlot = Int(slotAxis?.value ?? 0) - Int(slotAxis?.minimum ?? 0)
        currentSlotValid = slots.indices.contains(currentSlot)
    }

    /// Contacts down right now.
    public var activeContacts: Int { slots.reduce(0) { $0 + ($1.open ? 1 : 0) } }

    /// Largest raw pressure among contacts down right now, or nil.
    public var currentMaxPressure: Int32? {
        hasContactPressure ? slots.filter(\.open).map(\.pressure).max() : nil
    }

    /// Drains accumulated rows.
    public mutating func takeOutput() -> Output {
        defer { output = Output() }
        return output
    }

    /// Hands the accumulated rows to `body`, then empties them keeping
    /// their storage: a writer draining every frame then allocates nothing.
    public mutating func drainOutput(_ body: (Output) throws -> Void) rethrows {
        defer {
            output.samples.removeAll(keepingCapacity: true)
            output.contacts.removeAll(keepingCapacity: true)
            output.markers.removeAll(keepingCapacity: true)
        }
        try body(output)
    }

    private mutating func note(_ index: Int64, _ message: String) {
        anomalyCount += 1
        if anomalies.count < Self.anomalyLimit { anomalies.append(DecoderAnomaly(eventIndex: index, message: message)) }
    }

    /// Feeds one event. `index` is its row in the events table.
    public mutating func feed(_ event: InputEvent, index: Int64) {
        if event.type == EventType.syn {
            switch event.code {
            case Synchronization.dropped:
                output.markers.append(Marker(tNs: event.timeNs, kind: .synDropped, eventIndex: index))
                afterDrop = true
                if policy == .discardUntilReport { discarding = true }
                return
            case Synchronization.report:
                if discarding {
                    discarding = false
                    clearFrameChanges()
                    return
                }
                endFrame(at: event.timeNs)
                return
            default:
                return
            }
        }
        if discarding { return }
        switch contactProtocol {
        case .slots: feedSlotted(event, index: index)
        case .singleTouch: feedSingleTouch(event)
        }
    }

    private mutating func feedSlotted(_ event: InputEvent, index: Int64) {
        guard event.type == EventType.abs else { return }
        switch event.code {
        case AbsoluteAxis.mtSlot:
            let slotAxisMinimum = Int(device.slotAxis?.minimum ?? 0)
            currentSlot = Int(event.value) - slotAxisMinimum
            currentSlotValid = slots.indices.contains(currentSlot)
            if !currentSlotValid {
                note(index, "ABS_MT_SLOT \(event.value) is beyond the \(slots.count) declared slots; its events are kept but not decoded")
            }
            return
        case AbsoluteAxis.mtTrackingID, AbsoluteAxis.mtPositionX, AbsoluteAxis.mtPositionY,
             AbsoluteAxis.mtPressure, AbsoluteAxis.mtToolType:
            break
        default:
            return
        }
        guard currentSlotValid else { return }
        switch event.code {
        case AbsoluteAxis.mtTrackingID:
            let previous = slots[currentSlot].trackingID
            guard event.value != previous else { return }
            if previous >= 0 && event.value >= 0 {
                note(index, "slot \(currentSlot): tracking id \(event.value) replaced \(previous) without -1 in between")
            }
            if slots[currentSlot].startInFrame {
                // A tracking id that lived for no frame at all: drop it.
                slots[currentSlot].startInFrame = false
            } else if slots[currentSlot].open {
                // Only an open contact can end: the frame's end closes open ones alone.
                slots[currentSlot].endInFrame = true
            }
            slots[currentSlot].trackingID = event.value
            if event.value >= 0 { slots[currentSlot].startInFrame = true }
        case AbsoluteAxis.mtPositionX: slots[currentSlot].x = event.value
        case AbsoluteAxis.mtPositionY: slots[currentSlot].y = event.value
        case AbsoluteAxis.mtPressure: slots[currentSlot].pressure = event.value
        case AbsoluteAxis.mtToolType: slots[currentSlot].toolType = event.value
        default: break
        }
    }

    private mutating func feedSingleTouch(_ event: InputEvent) {
        switch event.type {
        case EventType.abs:
            switch event.code {
            case AbsoluteAxis.x: slots[0].x = event.value
            case AbsoluteAxis.y: slots[0].y = event.value
            case AbsoluteAxis.pressure: slots[0].pressure = event.value
            default: break
            }
        case EventType.key:
            if event.code == Button.touch {
                let down = event.value != 0
                if down != touchDown { touchDown = down; touchChanged = true; touchReleased = touchReleased || !down }
            } else if Button.isTool(event.code) {
                if event.value != 0 { currentTool = event.code } else if currentTool == event.code { currentTool = 0 }
            }
        default:
            break
        }
    }

    private mutating func clearFrameChanges() {
        for index in slots.indices {
            slots[index].endInFrame = false
            slots[index].startInFrame = false
        }
        touchChanged = false
        touchReleased = false
    }

    private mutating func endFrame(at time: Int64) {
        frameCount += 1
        let dropFlag: SampleFlags = afterDrop ? .afterDrop : []
        afterDrop = false
        if contactProtocol == .singleTouch {
            if touchChanged {
                if touchReleased && slots[0].open { slots[0].endInFrame = true }
                if touchDown { slots[0].startInFrame = true }
                touchChanged = false
                touchReleased = false
            }
        }
        for index in slots.indices {
            if slots[index].endInFrame {
                slots[index].endInFrame = false
                if slots[index].open { closeContact(slot: index, at: time) }
            }
            if slots[index].startInFrame {
                slots[index].startInFrame = false
                openContact(slot: index, at: time, flags: dropFlag)
            } else if slots[index].open {
                var flags = dropFlag
                let slot = slots[index]
                if slot.x != slot.lastX || slot.y != slot.lastY { flags.insert(.moved) }
                if hasContactPressure && slot.pressure != slot.lastPressure { flags.insert(.pressureChanged) }
                if flags.contains(.moved) || flags.contains(.pressureChanged) { emitSample(slot: index, at: time, flags: flags) }
            }
        }
    }

    private mutating func toolFor(slot index: Int) -> UInt16 {
        if contactProtocol == .singleTouch {
            return currentTool != 0 ? currentTool : (isPen ? Button.toolPen : 0)
        }
        // ABS_MT_TOOL_TYPE: MT_TOOL_FINGER 0, MT_TOOL_PEN 1.
        if device.axis(AbsoluteAxis.mtToolType) != nil {
            return slots[index].toolType == 1 ? Button.toolPen : (slots[index].toolType == 0 ? Button.toolFinger : 0)
        }
        return Button.toolFinger
    }

    private mutating func openContact(slot index: Int, at time: Int64, flags: SampleFlags) {
        let id = nextContactID
        nextContactID += 1
        contactCount += 1
        slots[index].open = true
        slots[index].contact = Contact(
            id: id, slot: contactProtocol == .slots ? Int16(clamping: index) : -1,
            trackingID: contactProtocol == .slots ? slots[index].trackingID : -1,
            tool: toolFor(slot: index), tDownNs: time, tUpNs: -1,
            firstSample: sampleRows, lastSample: sampleRows, sampleCount: 0)
        emitSample(slot: index, at: time, flags: flags.union(.down))
    }

    private mutating func emitSample(slot index: Int, at time: Int64, flags: SampleFlags) {
        let slot = slots[index]
        output.samples.append(Sample(
            tNs: time, contact: slot.contact.id, slot: slot.contact.slot, x: slot.x, y: slot.y,
            pressure: hasContactPressure ? slot.pressure : -1, flags: flags))
        slots[index].lastX = slot.x
        slots[index].lastY = slot.y
        slots[index].lastPressure = slot.pressure
        slots[index].contact.lastSample = sampleRows
        slots[index].contact.sampleCount += 1
        sampleRows += 1
    }

    private mutating func closeContact(slot index: Int, at time: Int64?) {
        var contact = slots[index].contact
        contact.tUpNs = time ?? -1
        slots[index].open = false
        finishedContacts[contact.id] = contact
        while let next = finishedContacts.removeValue(forKey: nextContactToEmit) {
            output.contacts.append(next)
            nextContactToEmit += 1
        }
    }

    /// Ends the stream: contacts still down get `tUpNs = -1`.
    public mutating func finish() {
        for index in slots.indices where slots[index].open {
            closeContact(slot: index, at: nil)
        }
    }
}
