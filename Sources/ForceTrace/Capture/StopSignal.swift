import Foundation

/// The write end of the stop pipe, for the signal handler: the bare number,
/// since the handler must not touch a Swift string. Written once before the
/// handlers are installed.
nonisolated(unsafe) private var stopPipeWriteEnd: Int32 = -1

/// Only async-signal-safe work here: write the signal number to the pipe.
private func handleStopSignal(_ signal: Int32) {
    Syscall.writeInSignalHandler(stopPipeWriteEnd, UInt8(truncatingIfNeeded: signal))
}

/// Turns SIGINT and SIGTERM into a readable pipe, so a recorder waiting in
/// poll(2) wakes at once and closes its file cleanly. The handler is reset
/// after the first signal (SA_RESETHAND): a second Ctrl-C kills at once.
public final class StopSignal {
    /// Readable once a signal arrived; poll it with the device.
    public let descriptor: FileDescriptor
    private let writeEnd: FileDescriptor
    public private(set) var received: Int32?

    /// Installs the handlers. Make one per process.
    /// The corresponding C function is `sigaction(2)`.
    public init(signals: [Int32] = [SIGINT, SIGTERM]) throws {
        (descriptor, writeEnd) = try Syscall.pipe()
        stopPipeWriteEnd = writeEnd.raw
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handleStopSignal
            action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)  // 0x80000000: the sign bit
            sigemptyset(&action.sa_mask)
            _ = try Syscall.valueOrErrno("sigaction", "") { sigaction(signal, &action, nil) }.get()
        }
    }

    /// Whether a stop signal arrived; remembers which.
    public func check() -> Bool {
        if received != nil { return true }
        var byte: UInt8 = 0
        if (try? descriptor.read(into: &byte, count: 1)) == 1 { received = Int32(byte) }
        return received != nil
    }

    /// "SIGINT", "SIGTERM", or the number.
    public var receivedName: String? {
        received.map { $0 == SIGINT ? "SIGINT" : $0 == SIGTERM ? "SIGTERM" : "signal \($0)" }
    }
}
