import Foundation

/// Standard output, checked: `print` goes through C stdio, whose write
/// errors are sticky (`ferror`); the final `fflush` reports the errno when
/// bytes are still buffered.
public enum StandardOutput {
    /// How writing standard output ended.
    public enum Outcome: Equatable, Sendable {
        case written
        /// The reader went away (`| head`): not an error, end quietly.
        case closedByReader
        case failed(errno: Int32)
    }

    /// Flushes standard output and says whether everything printed reached
    /// it. A write that failed earlier, mid-output, leaves only `ferror` set.
    /// The corresponding C functions are `fflush(3)` and `ferror(3)`.
    public static func finish() -> Outcome {
        guard let stream = cStandardOutput() else {
            return firstErrno == 0 ? .written : firstErrno == EPIPE ? .closedByReader : .failed(errno: firstErrno)
        }
        errno = 0
        let flushed = fflush(stream) == 0
        let code = errno != 0 ? errno : firstErrno
        if flushed && ferror(stream) == 0 { return .written }
        if code == EPIPE { return .closedByReader }
        return .failed(errno: code)
    }

    /// The errno of the first failed write, when known (see `write`).
    nonisolated(unsafe) private static var firstErrno: Int32 = 0

    /// C's `stdout`, looked up by name: Swift 6 refuses to read the C global
    /// (shared mutable state), and only this one thread reads it, at the end.
    private static func cStandardOutput() -> UnsafeMutablePointer<FILE>? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "stdout") else { return nil }  // RTLD_DEFAULT
        return symbol.load(as: UnsafeMutablePointer<FILE>?.self)
    }

    /// Writes `text` to standard output, remembering the errno of the
    /// first failed write, which the final `finish()` reports.
    /// The corresponding C function is `fputs(3)`.
    public static func write(_ text: String) {
        guard let stream = cStandardOutput() else { var text = text; text.withUTF8 { writeUnbuffered(UnsafeRawBufferPointer($0)) }; return }
        if fputs(text, stream) == EOF, firstErrno == 0 { firstErrno = errno }
    }

    /// Writes `buffer` to standard output without copying it first (the
    /// JSON report hands over a megabyte at a time).
    public static func write(_ buffer: UnsafeRawBufferPointer) {
        guard let stream = cStandardOutput() else { writeUnbuffered(buffer); return }
        let written = fwrite(buffer.baseAddress, 1, buffer.count, stream)
        if written < buffer.count, firstErrno == 0 { firstErrno = errno }
    }

    /// Without C's `stdout`: write(2), its errno kept for `finish()`
    /// (FileHandle's write would trap on EBADF or EPIPE).
    private static func writeUnbuffered(_ buffer: UnsafeRawBufferPointer) {
        do throws(SystemCallError) { try FileDescriptor.standardOutput.writeAll(buffer) } catch {
            if firstErrno == 0 { firstErrno = error.errno }
        }
    }

    /// The error line for a failed write, naming the device when it is full.
    public static func message(forErrno code: Int32) -> String {
        if code == ENOSPC || code == EDQUOT {
            return "standard output: write failed: no space left on the device holding it; the output is cut short"
        }
        return "standard output: write failed" + (code == 0 ? "" : ": \(String(cString: strerror(code)))") + "; the output is cut short"
    }
}

/// Standard error: errors, warnings, notes and the progress line, each
/// written at once through write(2).
public enum StandardError {
    /// Writes `text`. A failed write (stderr closed: EBADF; its reader gone:
    /// EPIPE; a full disk) is dropped: there is nowhere left to say it, and a
    /// warning that cannot be shown must not stop the work or change the exit status.
    public static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            do throws(SystemCallError) { try FileDescriptor.standardError.writeAll(UnsafeRawBufferPointer(bytes)) } catch {}
        }
    }
}

/// The three standard streams, as the process was given them.
public enum StandardStreams {
    /// Puts /dev/null, opened the wrong way round (standard input for
    /// writing, output and error for reading), on each standard stream that
    /// is closed: its reads and writes still fail with EBADF as if closed,
    /// and no file opened later takes its number (an output opened as fd 2
    /// would receive the warnings; `import -` read its own output as fd 0).
    /// Call first, before anything opens a file.
    public static func holdClosed() {
        let streams: [(FileDescriptor, Int32)] = [(.standardInput, O_WRONLY), (.standardOutput, O_RDONLY), (.standardError, O_RDONLY)]
        for (stream, flags) in streams where !stream.isOpen {
            // The lowest free number, which is this one: the lower ones are open by now.
            guard let held = try? FileDescriptor.open("/dev/null", flags) else { continue }
            if held.raw != stream.raw { held.closeIgnoringErrors() }
        }
    }
}
