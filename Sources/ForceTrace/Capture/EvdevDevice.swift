import CEvdev
import Foundation

extension ForceTraceError {
    /// A device that could not be opened or used, with what to do about it.
    public static func device(_ path: String, _ message: String, hint: String? = nil, errno: Int32? = nil) -> ForceTraceError {
        ForceTraceError(file: path, message, hint: hint, kind: .device, errno: errno)
    }

    /// Turns a failed call into a message naming the device and the fix.
    static func device(_ error: SystemCallError, path: String) -> ForceTraceError {
        let reason = error.reason
        switch error.errno {
        case EACCES, EPERM:
            return .device(path, "cannot be opened: \(reason)",
                               hint: "evdev nodes belong to the 'input' group: add yourself (usermod -aG input $USER, then log in again) or run as root",
                               errno: error.errno)
        case ENOENT:
            return .device(path, "does not exist", hint: "'forcetrace devices' lists the devices there are", errno: error.errno)
        case ENODEV, ENXIO:
            return .device(path, "is gone (the device was unplugged)", errno: error.errno)
        case ENOTTY, EINVAL:
            return .device(path, "is not an evdev device (\(error.function): \(reason))",
                               hint: "give a /dev/input/eventN node or a device name; 'forcetrace devices' lists them",
                               errno: error.errno)
        case EBUSY:
            return .device(path, "is grabbed by another program (\(error.function): \(reason))",
                               hint: "'fuser -v \(path)' shows who holds it", errno: error.errno)
        default:
            return .device(path, ForceTraceError(error).message, errno: error.errno)
        }
    }
}

/// One event node opened through libevdev. Owns the descriptor and the
/// libevdev context and frees both in `close()` or `deinit`.
public final class EvdevDevice {
    public let path: String
    /// The descriptor to poll for input.
    public let descriptor: FileDescriptor
    private var device: OpaquePointer?

    /// Opens `path` read-only and non-blocking and reads its state.
    /// - Throws: `ForceTraceError.device` naming the path, with a hint for EACCES and
    ///   for files that are not evdev nodes.
    /// The corresponding C functions are `open(2)` and `libevdev_new_from_fd`.
    /// - Parameter monotonicClock: switch timestamps to CLOCK_MONOTONIC
    ///   before libevdev reads the state (the switch flushes the queue; done
    ///   later, it would drop events that came in between).
    public init(path: String, monotonicClock: Bool = false) throws {
        self.path = path
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
        } catch {
            throw ForceTraceError.device(error, path: path)
        }
        // A regular file passes open() and fails the ioctl with ENOTTY; say
        // what it is instead, since a recording given as DEVICE is a likely slip.
        if let status = try? fd.status(), (status.st_mode & S_IFMT) != S_IFCHR {
            fd.closeIgnoringErrors()
            throw ForceTraceError.device(path, "is a regular file or directory, not an evdev device node",
                              hint: "to feed a recording through the recorder use 'forcetrace record --replay \(path)'")
        }
        // A failure here is reported after libevdev's, which names what the node is.
        let clockResult: Result<Int32, SystemCallError> = monotonicClock
            ? Syscall.valueOrErrno("EVIOCSCLOCKID", path) { CEvdev_set_clock_id(fd.raw, CLOCK_MONOTONIC) } : .success(0)
        var created: OpaquePointer?
        if case .failure(let error) = Syscall.negativeErrno("libevdev_new_from_fd", path, { libevdev_new_from_fd(fd.raw, &created) }) {
            fd.closeIgnoringErrors()
            throw ForceTraceError.device(error, path: path)
        }
        if case .failure(let error) = clockResult {
            libevdev_free(created)
            fd.closeIgnoringErrors()
            throw ForceTraceError.device(error, path: path)
        }
        descriptor = fd
        device = created
    }

    private var handle: OpaquePointer {
        guard let device else { preconditionFailure("EvdevDevice used after close()") }
        return device
    }

    public var name: String { libevdev_get_name(handle).map { String(cString: $0) } ?? "" }

    /// Identity, properties, capabilities and absinfo, with every axis's
    /// current value, in the form evemu headers and trace files use.
    public func describe() -> DeviceDescription {
        let dev = handle
        var description = DeviceDescription(name: name)
        description.bus = UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev))
        description.vendor = UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev))
        description.product = UInt16(truncatingIfNeeded: libevdev_get_id_product(dev))
        description.version = UInt16(truncatingIfNeeded: libevdev_get_id_version(dev))
        description.properties = (0...InputProperty.max).filter { libevdev_has_property(dev, UInt32($0)) == 1 }
        for type in 0...EventType.max where libevdev_has_event_type(dev, UInt32(type)) == 1 {
            // Type 0's codes are the supported types, as EVIOCGBIT(0) gives them.
            description.enable(type: EventType.syn, code: type)
            guard type != EventType.syn, let maximum = EventNames.maxCode(type: type) else { continue }
            let codes = (0...maximum).filter { libevdev_has_event_code(dev, UInt32(type), UInt32($0)) == 1 }
            if !codes.isEmpty { description.codes[type] = codes }
        }
        description.axes = (description.codes[EventType.abs] ?? []).compactMap { code in
            guard let info = libevdev_get_abs_info(dev, UInt32(code))?.pointee else { return nil }
            return AxisInfo(code: code, minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz, flat: info.flat,
                            resolution: info.resolution, value: info.value)
        }
        description.ledStates = (description.codes[EventType.led] ?? []).map {
            ($0, libevdev_get_event_value(dev, UInt32(EventType.led), UInt32($0)))
        }
        description.switchStates = (description.codes[EventType.sw] ?? []).map {
            ($0, libevdev_get_event_value(dev, UInt32(EventType.sw), UInt32($0)))
        }
        return description
    }

    /// The state a recording must start from: every slot's ABS_MT_* values,
    /// the current slot and the keys held down.
    /// The corresponding C functions are `libevdev_get_slot_value`,
    /// `libevdev_get_current_slot` and `libevdev_get_event_value`.
    public func state() -> DeviceState {
        let dev = handle
        var state = DeviceState()
        let slotCount = libevdev_get_num_slots(dev)
        if slotCount > 0 {
            let mtCodes = (AbsoluteAxis.mtFirst...AbsoluteAxis.mtLast).filter {
                $0 != AbsoluteAxis.mtSlot && libevdev_has_event_code(dev, UInt32(EventType.abs), UInt32($0)) == 1
            }
            state.currentSlot = libevdev_get_current_slot(dev)
            state.slots = (0..<slotCount).map { slot in
                Dictionary(uniqueKeysWithValues: mtCodes.map { ($0, libevdev_get_slot_value(dev, UInt32(slot), UInt32($0))) })
            }
        }
        if libevdev_has_event_type(dev, UInt32(EventType.key)) == 1, let maximum = EventNames.maxCode(type: EventType.key) {
            state.keysDown = (0...maximum).filter {
                libevdev_has_event_code(dev, UInt32(EventType.key), UInt32($0)) == 1
                    && libevdev_get_event_value(dev, UInt32(EventType.key), UInt32($0)) != 0
            }
        }
        return state
    }

    /// Switches event timestamps to CLOCK_MONOTONIC. Do it right after
    /// opening: the kernel flushes the device's queue when the clock changes.
    /// The corresponding C function is `libevdev_set_clock_id`.
    public func useMonotonicClock() throws {
        let dev = handle
        if case .failure(let error) = Syscall.negativeErrno("libevdev_set_clock_id", path, { libevdev_set_clock_id(dev, CLOCK_MONOTONIC) }) {
            throw ForceTraceError.device(error, path: path)
        }
    }

    /// Takes the device for this reader alone (EVIOCGRAB): other readers,
    /// the desktop included, see no events until it is closed.
    /// The corresponding C function is `libevdev_grab`.
    public func grab() throws {
        let dev = handle
        if case .failure(let error) = Syscall.negativeErrno("libevdev_grab", path, { libevdev_grab(dev, LIBEVDEV_GRAB) }) {
            throw ForceTraceError.device(error, path: path)
        }
    }

    /// What one read gave.
    public enum ReadResult: Equatable {
        case event(InputEvent)
        /// The kernel dropped events: `event` is the SYN_DROPPED. Call
        /// `nextSyncEvent()` until it returns nil to get libevdev's resync deltas.
        case dropped(InputEvent)
        /// Nothing more to read now.
        case wouldBlock
    }

    /// Reads the next event in normal mode.
    /// - Throws: `SystemCallError` (errno ENODEV when the device is gone).
    /// The corresponding C function is `libevdev_next_event` with `LIBEVDEV_READ_FLAG_NORMAL`.
    public func nextEvent() throws -> ReadResult {
        var raw = input_event()
        let status = libevdev_next_event(handle, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &raw)
        switch status {
        case Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue): return .event(InputEvent(raw))
        case Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue): return .dropped(InputEvent(raw))
        case -EAGAIN, -EINTR: return .wouldBlock
        default: throw SystemCallError(function: "libevdev_next_event", path: path, errno: -status)
        }
    }

    /// The next event of libevdev's resync delta after SYN_DROPPED, or nil
    /// when the delta is complete.
    /// The corresponding C function is `libevdev_next_event` with `LIBEVDEV_READ_FLAG_SYNC`.
    public func nextSyncEvent() throws -> InputEvent? {
        var raw = input_event()
        let status = libevdev_next_event(handle, LIBEVDEV_READ_FLAG_SYNC.rawValue, &raw)
        switch status {
        case Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue): return InputEvent(raw)
        case -EAGAIN, Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue): return nil
        default: throw SystemCallError(function: "libevdev_next_event", path: path, errno: -status)
        }
    }

    /// Frees libevdev's context and closes the descriptor, which also
    /// releases a grab.
    /// The corresponding C functions are `libevdev_free` and `close(2)`.
    public func close() {
        guard let device else { return }
        libevdev_free(device)
        self.device = nil
        descriptor.closeIgnoringErrors()
    }

    deinit { close() }
}

/// Device state beyond absinfo that a recording must start from.
public struct DeviceState: Equatable, Sendable {
    /// Per slot, the value of every ABS_MT_* code the device has except ABS_MT_SLOT.
    public var slots: [[UInt16: Int32]] = []
    /// The slot that ABS_MT_* events apply to until the next ABS_MT_SLOT.
    public var currentSlot: Int32 = 0
    /// EV_KEY codes held down.
    public var keysDown: [UInt16] = []

    public init(slots: [[UInt16: Int32]] = [], currentSlot: Int32 = 0, keysDown: [UInt16] = []) {
        self.slots = slots
        self.currentSlot = currentSlot
        self.keysDown = keysDown
    }
}

extension InputEvent {
    /// The corresponding C type is `struct input_event`.
    init(_ raw: input_event) {
        self.init(timeNs: Int64(raw.time.tv_sec) * 1_000_000_000 + Int64(raw.time.tv_usec) * 1_000,
                  type: raw.type, code: raw.code, value: raw.value)
    }
}

extension AbsoluteAxis {
    /// `ABS_MT_TOUCH_MAJOR`, the first multitouch code.
    static let mtFirst: UInt16 = 0x30
    /// `ABS_MT_TOOL_Y`, the last multitouch code.
    static let mtLast: UInt16 = 0x3d
}
