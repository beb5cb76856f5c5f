import Foundation

/// Writes to a hidden temporary file beside `path` and renames it into place
/// only on `commit()`, so a failed or interrupted run never leaves a file
/// that looks complete. Dropping it uncommitted removes the temporary file.
public final class AtomicOutput {
    public let path: String
    public let temporaryPath: String
    private var committed = false

    /// - Parameter replace: allow replacing an existing file at `path`.
    public init(path: String, replace: Bool) throws {
        self.path = path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw InputError(file: path, "is a directory; expected an output file path") }
            if !replace { throw InputError(file: path, "already exists", hint: "pass --force to replace it") }
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        guard FileManager.default.isWritableFile(atPath: directory.isEmpty ? "." : directory) else {
            throw InputError(file: path, "cannot be written: the directory \(directory) does not exist or is not writable")
        }
        temporaryPath = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
    }

    /// Moves the finished temporary file to `path`.
    public func commit() throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        guard rename(temporaryPath, path) == 0 else {
            throw InputError(file: path, "cannot rename \(temporaryPath) into place: \(String(cString: strerror(errno)))")
        }
        committed = true
    }

    public func discard() {
        if !committed { unlink(temporaryPath) }
    }

    deinit { discard() }
}

/// A one-line progress report on stderr, only when stderr is a terminal, at
/// most a few times a second.
public final class ProgressLine {
    private let enabled: Bool
    private var lastDraw = Date.distantPast
    private var drawn = false

    public init(enabled: Bool = isatty(STDERR_FILENO) == 1) { self.enabled = enabled }

    public func update(_ text: @autoclosure () -> String) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.2 else { return }
        lastDraw = now
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text()).utf8))
        drawn = true
    }

    public func clear() {
        guard enabled, drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
