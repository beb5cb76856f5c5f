import Foundation

/// Reads a scale on a thread of its own while a device is recorded, each
/// reading stamped on CLOCK_MONOTONIC when it arrives (the clock the live
/// recorder sets on the evdev node, so force and events share one time
/// line). Kept in memory (at most `maximumReadings`, about 10 days at 10
/// readings a second) and written as the `force` table when the recording
/// stops. A scale that goes away ends the reading, not the recording:
/// `finish()` gives back the error with the readings so far.
public final class ScaleCapture: @unchecked Sendable {
    public static let maximumReadings = 8_000_000

    public let scale: any ScaleDevice
    private let lock = NSLock()
    private var readings: [ScaleReading] = []
    private var failure: ForceTraceError?
    private var dropped = 0
    private let stopReadEnd: FileDescriptor
    private let stopWriteEnd: FileDescriptor
    private let finished = DispatchSemaphore(value: 0)
    private var stopped = false

    public init(_ scale: any ScaleDevice) throws {
        self.scale = scale
        (stopReadEnd, stopWriteEnd) = try Syscall.pipe()
        let thread = Thread { [self] in
            nameCurrentThread("ft scale reader")
            run()
        }
        thread.name = "forcetrace scale reader"
        thread.start()
    }

    private func run() {
        defer { finished.signal() }
        while true {
            do {
                let ready = try Syscall.poll([scale.descriptor, stopReadEnd], timeoutMs: -1)
                if ready[1] != 0 { return }
                if ready[0] == 0 { continue }
                let got = try scale.readAvailable(timeNs: Syscall.monotonicNs())
                lock.withLock {
                    let room = max(0, Self.maximumReadings - readings.count)
                    readings.append(contentsOf: got.prefix(room))
                    dropped += max(0, got.count - room)
                }
            } catch {
                let shown = (error as? ForceTraceError) ?? ForceTraceError(file: scale.path, "\(error)", kind: .device)
                lock.withLock { failure = shown }
                return
            }
        }
    }

    /// The readings so far (for a status line).
    public var count: Int { lock.withLock { readings.count } }

    /// Stops the thread, closes the scale, and gives back what was read and
    /// why reading ended early, if it did.
    public func finish() -> (readings: [ScaleReading], failure: ForceTraceError?, dropped: Int) {
        if !stopped {
            stopped = true
            Syscall.wake(stopWriteEnd)
            finished.wait()
            scale.close()
            stopReadEnd.closeIgnoringErrors()
            stopWriteEnd.closeIgnoringErrors()
        }
        return lock.withLock { (readings, failure, dropped) }
    }

    deinit { _ = finish() }
}
