import ForceTrace
import Foundation

/// One option a command accepts.
struct OptionSpec {
    /// Long name without dashes: "output".
    let long: String
    /// Short letter, if any: "o".
    let short: Character?
    /// Name of the value in help ("FILE"), or nil for a flag.
    let valueName: String?
    let help: TerminalText
    var repeatable = false
    /// The only values accepted, checked while parsing; shells offer them.
    var choices: [String] = []

    static func flag(_ long: String, short: Character? = nil, _ help: TerminalText) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, help: help)
    }

    static func value(_ long: String, short: Character? = nil, _ valueName: String, _ help: TerminalText, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: valueName, help: help, repeatable: repeatable)
    }

    /// A value from a fixed list, e.g. `CaseIterable` raw values.
    static func choice(_ long: String, short: Character? = nil, _ valueName: String, _ help: TerminalText, _ choices: [String]) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: valueName, help: help, choices: choices)
    }
}

/// One positional argument.
struct PositionalSpec {
    let name: String
    let help: TerminalText
    var optional = false
    var repeating = false
}

/// What a command is called, what it does and what it takes. The texts are
/// `TerminalText`: literals of this source, with their own newlines.
struct CommandSpec {
    let name: String
    let abstract: TerminalText
    var discussion: TerminalText = ""
    var positionals: [PositionalSpec] = []
    var options: [OptionSpec] = []
}

/// A usage error: it carries the bad token so the message can show it
/// (escaped: `message` is interpolated into terminal text).
enum ParseError: Error, Equatable {
    case unknownOption(String)
    case missingValue(option: String)
    case missingArgument(String)
    case unexpectedArgument(String)
    case repeatedOption(String)
    case invalidValue(option: String, value: String, expected: String)
    case conflict(String)

    var message: String {
        switch self {
        case .unknownOption(let token): "Unknown option '\(token)'"
        case .missingValue(let option): "Missing value for '\(option)'"
        case .missingArgument(let name): "Missing expected argument '\(name)'"
        case .unexpectedArgument(let token): "Unexpected argument '\(token)'"
        case .repeatedOption(let option): "'\(option)' was given more than once"
        case .invalidValue(let option, let value, let expected): "Invalid value '\(value)' for '\(option)': expected \(expected)"
        case .conflict(let text): text
        }
    }
}

/// Refuses a `FORCETRACE_LIBINPUT` that names no release forcetrace models,
/// in each command that models libinput, before anything is read or written.
func refuseUnmodelledLibinputSetting() throws {
    if case .failure(let bad) = LibinputChoice.fromEnvironment() {
        throw ParseError.invalidValue(option: "FORCETRACE_LIBINPUT", value: bad.text,
                                      expected: "one libinput release from \(LibinputRules.oldest) on, such as 1.25.0; unset it to model the installed libinput")
    }
}

/// Refuses two output options that name one file (`OutputPath.areOneFile`),
/// naming both: the second would replace the first, or fail after it was published.
func refuseOutputsOnOneFile(_ outputs: [(option: String, path: String?)]) throws {
    let given = outputs.compactMap { output in output.path.map { (option: output.option, path: $0) } }
    for (index, first) in given.enumerated() {
        for second in given[(index + 1)...] where OutputPath.areOneFile(first.path, second.path) {
            throw ParseError.conflict("\(first.option) \(first.path) and \(second.option) \(second.path) are one file; each output needs its own")
        }
    }
}

/// Parsed arguments with typed getters that throw usage errors.
struct ParsedArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String: [String]] = [:]

    func flag(_ long: String) -> Bool { flags.contains(long) }
    func string(_ long: String) -> String? { values[long]?.last }
    /// An output option where "-" means standard output (nil), as in most Unix tools.
    func outputPath(_ long: String) -> String? { string(long).flatMap { $0 == "-" ? nil : $0 } }
    func strings(_ long: String) -> [String] { values[long] ?? [] }
    func positional(_ name: String) -> String? { positionals[name]?.first }
    func positionalList(_ name: String) -> [String] { positionals[name] ?? [] }

    func int(_ long: String, in range: ClosedRange<Int>? = nil) throws -> Int? {
        guard let text = string(long) else { return nil }
        guard let number = Int(text), range.map({ $0.contains(number) }) ?? true else {
            let expected = range.map { "an integer from \($0.lowerBound) to \($0.upperBound)" } ?? "an integer"
            throw ParseError.invalidValue(option: "--\(long)", value: text, expected: expected)
        }
        return number
    }

    func double(_ long: String, in range: ClosedRange<Double>? = nil) throws -> Double? {
        guard let text = string(long) else { return nil }
        guard let number = Double(text), number.isFinite, range.map({ $0.contains(number) }) ?? true else {
            let expected = range.map { "a number from \($0.lowerBound) to \($0.upperBound)" } ?? "a number"
            throw ParseError.invalidValue(option: "--\(long)", value: text, expected: expected)
        }
        return number
    }

    /// Parses `arguments` against `spec`. "--" ends options; "--name=value"
    /// and "-o value" both work.
    static func parse(_ arguments: [String], spec: CommandSpec) throws -> ParsedArguments {
        var result = ParsedArguments()
        var loose: [String] = []
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if optionsEnded || token == "-" || !token.hasPrefix("-") {
                loose.append(token)
                continue
            }
            if token == "--" { optionsEnded = true; continue }
            var name: String
            var inlineValue: String?
            let option: OptionSpec?
            if token.hasPrefix("--") {
                name = String(token.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                option = spec.options.first { $0.long == name }
            } else {
                guard token.count == 2, let letter = token.last else { throw ParseError.unknownOption(token) }
                option = spec.options.first { $0.short == letter }
            }
            guard let option else {
                // A negative number is a value, not an option.
                if Double(token) != nil { loose.append(token); continue }
                throw ParseError.unknownOption(token)
            }
            let display = "--\(option.long)"
            if option.valueName == nil {
                if inlineValue != nil { throw ParseError.invalidValue(option: display, value: inlineValue!, expected: "no value") }
                result.flags.insert(option.long)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw ParseError.missingValue(option: display) }
                value = arguments[index]
                index += 1
            }
            if InputPath.isNotUTF8(value) { try Self.checkNotUTF8(value, option: option.long) }
            if !option.choices.isEmpty && !option.choices.contains(value) {
                throw ParseError.invalidValue(option: display, value: value, expected: "one of " + option.choices.joined(separator: ", "))
            }
            if !option.repeatable && result.values[option.long] != nil { throw ParseError.repeatedOption(display) }
            result.values[option.long, default: []].append(value)
        }
        for positional in spec.positionals {
            if positional.repeating {
                if loose.isEmpty && !positional.optional { throw ParseError.missingArgument(positional.name) }
                result.positionals[positional.name] = loose
                loose = []
            } else if !loose.isEmpty {
                result.positionals[positional.name] = [loose.removeFirst()]
            } else if !positional.optional {
                throw ParseError.missingArgument(positional.name)
            }
        }
        if let extra = loose.first { throw ParseError.unexpectedArgument(extra) }
        return result
    }
}

extension ParsedArguments {
    /// Options that name a file to read, which may be any bytes (positionals are all such files).
    static let inputOptions: Set = ["desc", "replay"]
    /// Options that name a file to write.
    static let outputOptions: Set = ["output", "save", "html"]

    /// A value that is not UTF-8 (`InputPath`) is a file to read, or refused.
    static func checkNotUTF8(_ value: String, option: String) throws {
        guard !inputOptions.contains(option) else { return }
        if outputOptions.contains(option) {
            throw ParseError.conflict("--\(option) \(value): forcetrace writes only to names that are UTF-8; "
                                      + "write to another name and rename the file after (mv)")
        }
        throw ParseError.invalidValue(option: "--\(option)", value: value, expected: "UTF-8 text")
    }
}

extension CommandSpec {
    var usageLine: String {
        var parts = ["forcetrace", name]
        for positional in positionals {
            var text = positional.name + (positional.repeating ? " ..." : "")
            if positional.optional { text = "[\(text)]" }
            parts.append(text)
        }
        if !options.isEmpty { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    var helpText: TerminalText {
        var text: TerminalText = "OVERVIEW: \(abstract)\n"
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        text += "\nUSAGE: \(usageLine)\n"
        if !positionals.isEmpty {
            text += "\nARGUMENTS:\n"
            for positional in positionals {
                text += "  \(TerminalText(escaping: positional.name).padded(to: 24))\(positional.help)\n"
            }
        }
        text += "\nOPTIONS:\n"
        for option in options + [OptionSpec.flag("help", short: "h", "Show help information.")] { text += option.helpLine }
        return text
    }
}
