/// Bad input: names the file, where in it, what was expected, and what to do.
public struct InputError: Error, CustomStringConvertible, Sendable {
    public enum Location: Sendable, Equatable {
        case line(Int)
        case byteOffset(Int)
        case whole
    }

    public let file: String
    public let location: Location
    public let message: String
    public let hint: String?

    public init(file: String, location: Location = .whole, _ message: String, hint: String? = nil) {
        self.file = file
        self.location = location
        self.message = message
        self.hint = hint
    }

    public var description: String {
        var text: String
        switch location {
        case .line(let line): text = "\(file):\(line): \(message)"
        case .byteOffset(let offset): text = "\(file): at byte \(offset): \(message)"
        case .whole: text = "\(file): \(message)"
        }
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }
}

/// A trace file that this forcetrace cannot use.
public struct TraceFileError: Error, CustomStringConvertible, Sendable {
    public let file: String
    public let message: String
    public let hint: String?

    public init(file: String, _ message: String, hint: String? = nil) {
        self.file = file
        self.message = message
        self.hint = hint
    }

    public var description: String {
        "\(file): \(message)" + (hint.map { "\n  hint: \($0)" } ?? "")
    }
}
