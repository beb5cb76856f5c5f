/// The synthetic frame that starts a live recording from the device's state.
///
/// The kernel sends only changes, so a recording that starts mid-touch, or
/// in a slot whose last pressure differs from the axis value in the
/// description, would decode wrongly from the description alone. The
/// recorder therefore writes one frame at t = 0 (events at `t0_ns`, marked
/// by an `initial_state` marker) that sets every value the decoder would
/// otherwise assume wrongly. For a touch already down in slot 1:
///
///     ABS_MT_SLOT 1, ABS_MT_TRACKING_ID 7, ABS_MT_POSITION_X 300, ABS_MT_POSITION_Y 410,
///     ABS_MT_PRESSURE 52, ABS_MT_SLOT 0, SYN_REPORT              -> contact 0 goes down at t = 0
///
/// The decoder assumes, as for an imported recording: every slot holds the
/// description's axis value for each ABS_MT_* code and tracking id -1, the
/// current slot is `ABS_MT_SLOT`'s value, and no key is down. When the
/// device agrees, there is no frame at all.
public enum InitialState {
    /// Events that bring a decoder built from `description` to `state`,
    /// ending with SYN_REPORT, all at `timeNs`; empty when nothing differs.
    public static func events(description: DeviceDescription, state: DeviceState, timeNs: Int64) -> [InputEvent] {
        var events: [InputEvent] = []
        func abs(_ code: UInt16, _ value: Int32) {
            events.append(InputEvent(timeNs: timeNs, type: EventType.abs, code: code, value: value))
        }
        for key in state.keysDown {
            events.append(InputEvent(timeNs: timeNs, type: EventType.key, code: key, value: 1))
        }
        if let slotAxis = description.slotAxis, !state.slots.isEmpty {
            let assumedSlot = slotAxis.value
            var selected = assumedSlot
            for (index, values) in state.slots.enumerated() {
                let slot = Int32(index) + slotAxis.minimum
                var changes: [(UInt16, Int32)] = []
                for code in values.keys.sorted(by: mtOrder) {
                    let assumed = code == AbsoluteAxis.mtTrackingID ? -1 : (description.axis(code)?.value ?? 0)
                    if let value = values[code], value != assumed { changes.append((code, value)) }
                }
                guard !changes.isEmpty else { continue }
                if slot != selected { abs(AbsoluteAxis.mtSlot, slot); selected = slot }
                for (code, value) in changes { abs(code, value) }
            }
            if selected != state.currentSlot { abs(AbsoluteAxis.mtSlot, state.currentSlot) }
        }
        guard !events.isEmpty else { return [] }
        events.append(InputEvent(timeNs: timeNs, type: EventType.syn, code: Synchronization.report, value: 0))
        return events
    }

    /// Tracking id first, as the kernel sends a new touch, then by code.
    private static func mtOrder(_ lhs: UInt16, _ rhs: UInt16) -> Bool {
        if lhs == AbsoluteAxis.mtTrackingID { return rhs != AbsoluteAxis.mtTrackingID }
        if rhs == AbsoluteAxis.mtTrackingID { return false }
        return lhs < rhs
    }
}
