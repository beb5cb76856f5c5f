/// One candidate trial as the tracker saw it: a contact from the moment the
/// first finger (or the pen tip) went down until the last one lifted, or for
/// a pen hover, a proximity span.
public struct TrialObservation: Equatable, Sendable {
    /// Frame times (absolute on the recording's clock) of the first and last frame.
    public var startNs: Int64
    public var endNs: Int64
    /// Slot and tracking id of the first contact; -1 without slots or for a hover.
    public var slot: Int16 = -1
    public var trackingID: Int32 = -1
    /// The largest raw pressure during the span (for a hover: the noise).
    public var peak: Int32 = 0
    /// Most contacts down at once.
    public var maxContacts = 1
    /// A hover during which the tip touched the surface.
    public var touched = false
    /// The first contact's pressure per frame: (absolute time, raw pressure).
    public var curve: [PressurePoint] = []

    public var durationNs: Int64 { endNs - startNs }
}

public struct PressurePoint: Equatable, Sendable {
    public var tNs: Int64
    public var pressure: Int32
}

/// Follows the raw event stream frame by frame and reports each contact span
/// (or pen proximity span) once it ends. It reads the events as the kernel
/// sent them, independently of the trace decoder, so a calibration can be
/// driven by a live source before anything is written.
public struct TrialTracker: Sendable {
    public enum Span: Sendable { case contact, proximity }

    private let slotted: Bool
    private var trackingIDs: [Int32]
    private var pressures: [Int32]
    private var slot = 0
    private var touch = false
    private var fingers = 0
    private var proximity = false
    private var singlePressure: Int32
    private var open: TrialObservation?
    private var openSpan: Span?
    /// What the next span is: contacts, or pen proximity for a hover trial.
    public var span: Span = .contact

    public init(device: DeviceDescription) {
        slotted = device.contactProtocol == .slots
        let slots = max(1, device.slotCount)
        trackingIDs = Array(repeating: -1, count: slots)
        pressures = Array(repeating: device.axis(AbsoluteAxis.mtPressure)?.value ?? 0, count: slots)
        slot = Int(device.slotAxis?.value ?? 0)
        singlePressure = device.axis(AbsoluteAxis.pressure)?.value ?? 0
    }

    /// Contacts down now.
    public var contactsDown: Int {
        slotted ? trackingIDs.filter { $0 >= 0 }.count : (touch ? max(1, fingers) : 0)
    }

    /// The largest pressure among the contacts down now (or the pen's pressure
    /// while in proximity), for the live bar; nil when nothing is down.
    public var currentPressure: Int32? {
        if slotted {
            let down = trackingIDs.indices.filter { trackingIDs[$0] >= 0 }
            return down.isEmpty ? nil : down.map { pressures[$0] }.max()
        }
        return touch || proximity ? singlePressure : nil
    }

    /// Feeds one event; returns a trial when this event's frame ended one.
    public mutating func feed(_ event: InputEvent) -> TrialObservation? {
        switch event.type {
        case EventType.abs:
            switch event.code {
            case AbsoluteAxis.mtSlot: slot = Int(event.value)
            case AbsoluteAxis.mtTrackingID where trackingIDs.indices.contains(slot): trackingIDs[slot] = event.value
            case AbsoluteAxis.mtPressure where pressures.indices.contains(slot): pressures[slot] = event.value
            case AbsoluteAxis.pressure: singlePressure = event.value
            default: break
            }
        case EventType.key:
            switch event.code {
            case Button.touch: touch = event.value != 0
            case Button.toolPen, Button.toolRubber: proximity = event.value != 0
            case Button.toolFinger: if event.value != 0 { fingers = 1 }
            case Button.toolDoubleTap: fingers = event.value != 0 ? 2 : min(fingers, 1)
            case 0x14e, Button.toolQuadTap: if event.value != 0 { fingers = 3 }   // BTN_TOOL_TRIPLETAP, QUADTAP
            default: break
            }
        case EventType.syn where event.code == Synchronization.report:
            return endFrame(at: event.timeNs)
        default: break
        }
        return nil
    }

    private mutating func endFrame(at timeNs: Int64) -> TrialObservation? {
        let active: Bool
        switch openSpan ?? span {
        case .contact: active = contactsDown > 0
        case .proximity: active = proximity || touch
        }
        if var trial = open {
            if active {
                trial.endNs = timeNs
                if let pressure = currentPressure { trial.peak = max(trial.peak, pressure) }
                trial.maxContacts = max(trial.maxContacts, contactsDown)
                if touch { trial.touched = true }
                if let pressure = firstContactPressure(trial) { trial.curve.append(PressurePoint(tNs: timeNs, pressure: pressure)) }
                open = trial
                return nil
            }
            trial.endNs = timeNs
            open = nil
            openSpan = nil
            return trial
        }
        guard active else { return nil }
        var trial = TrialObservation(startNs: timeNs, endNs: timeNs)
        if slotted, openSpan ?? span == .contact, let first = trackingIDs.firstIndex(where: { $0 >= 0 }) {
            trial.slot = Int16(first)
            trial.trackingID = trackingIDs[first]
        }
        trial.peak = currentPressure ?? 0
        trial.maxContacts = (span == .contact) ? contactsDown : 0
        trial.touched = touch
        openSpan = span
        if let pressure = firstContactPressure(trial) { trial.curve.append(PressurePoint(tNs: timeNs, pressure: pressure)) }
        open = trial
        return nil
    }

    private func firstContactPressure(_ trial: TrialObservation) -> Int32? {
        if slotted && trial.slot >= 0 {
            let index = Int(trial.slot)
            return trackingIDs[index] >= 0 ? pressures[index] : nil
        }
        return currentPressure
    }
}
