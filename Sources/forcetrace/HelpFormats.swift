import ForceTrace
import Foundation

/// forcetrace itself, as `forcetrace --help` and forcetrace(1) show it: the
/// one text both are made from.
enum ProgramHelp {
    static let abstract: TerminalText = "Record, import and analyse touch, touchpad and pen pressure traces."
    static let usage = "forcetrace <subcommand> [options]"
    static let discussion: TerminalText = """
    Recording and calibrating read /dev/input/event*, which only root and the
    input group may read. The Debian package installs a udev rule
    (70-forcetrace.rules) that lets the user at the seat read touchpads,
    touchscreens and tablets, and not keyboards; 'make install' puts it in
    share/forcetrace/ to copy to /etc/udev/rules.d/. Adding yourself to the
    input group (usermod -aG input) works too, but also opens every keyboard.
    """
    static let options: [OptionSpec] = [
        .flag("version", "Show the version."),
        .flag("help", short: "h", "Show help information."),
    ]

    static var helpText: TerminalText {
        var text: TerminalText = "OVERVIEW: \(abstract)\n\n\(discussion)\n\nUSAGE: \(usage)\n\nSUBCOMMANDS:\n"
        for command in subcommands {
            text += "  \(TerminalText(escaping: command.spec.name).padded(to: 12))\(command.spec.abstract)\n"
        }
        text += "\nOPTIONS:\n"
        for option in options { text += option.helpLine }
        text += "\nSee 'forcetrace <subcommand> --help' for a subcommand's options.\n"
        return text
    }
}

extension OptionSpec {
    /// "-o, --output FILE.h5", as help and the man pages show the option.
    var synopsis: String {
        var left = short.map { "-\($0), " } ?? ""
        left += "--\(long)"
        if let valueName { left += " \(valueName)" }
        return left
    }

    /// The option's line (or two) in `--help`.
    var helpLine: TerminalText {
        let shown = TerminalText(escaping: synopsis)
        if synopsis.count >= 24 { return "  \(shown)\n                          \(help)\n" }
        return "  \(shown.padded(to: 24))\(help)\n"
    }

    /// What a shell offers for the option's value.
    var valueCompletion: ValueCompletion {
        guard valueName != nil else { return .none }
        if !choices.isEmpty { return .words(choices) }
        if ParsedArguments.inputOptions.contains(long) || ParsedArguments.outputOptions.contains(long) { return .files }
        // --quirks FILE, --quirks-dir DIR: paths the parser leaves as text.
        if valueName == "FILE" || valueName == "DIR" { return .files }
        return .text
    }
}

/// What a shell completes for a value: the parser's own knowledge of which
/// options and arguments name files (`ParsedArguments.inputOptions`,
/// `outputOptions`; every positional but a device is a file).
enum ValueCompletion: Equatable {
    /// A flag: no value.
    case none
    /// One of a fixed list (`OptionSpec.choices`).
    case words([String])
    /// Free text (a number, a name): nothing offered.
    case text
    case files
    /// Trace files (.h5) and folders.
    case traceFiles
    /// /dev/input/event* nodes.
    case devices
}

extension PositionalSpec {
    var valueCompletion: ValueCompletion {
        if name == "DEVICE" { return .devices }
        return name.hasSuffix(".h5") ? .traceFiles : .files
    }
}

/// Every subcommand's spec, in `subcommands`' order.
var commandSpecs: [CommandSpec] {
    var specs: [CommandSpec] = []
    for command in subcommands { specs.append(command.spec) }
    return specs
}

/// The hidden hooks the build uses (`make man`, `make completions`); kept
/// out of `--help` because they are for packagers, not users.
enum HelpHook: String, CaseIterable {
    /// `--help-man [SUBCOMMAND]`: the man page on standard output.
    case man = "--help-man"
    /// `--help-completion bash|zsh|fish`: the completion script.
    case completion = "--help-completion"
    /// `--help-commands`: the subcommands' names, one a line.
    case commands = "--help-commands"

    /// Runs the hook for `arguments` (the hook's own name first).
    func run(_ arguments: [String]) -> Int32 {
        let rest = Array(arguments.dropFirst())
        switch self {
        case .commands:
            printExact(commandSpecs.map { $0.name + "\n" }.joined())
            return ExitStatus.success
        case .man:
            let date = ManPage.date(environment: ProcessInfo.processInfo.environment)
            guard let name = rest.first else {
                printExact(ManPage.program(date: date))
                return ExitStatus.success
            }
            guard rest.count == 1, let spec = commandSpecs.first(where: { $0.name == name }) else {
                printError("Error: Unknown subcommand '\(name)' for \(rawValue)\n  See 'forcetrace --help-commands'.")
                return ExitStatus.usage
            }
            printExact(ManPage.command(spec, date: date))
            return ExitStatus.success
        case .completion:
            guard rest.count == 1, let shell = CompletionShell(rawValue: rest[0]) else {
                printError("Error: \(rawValue) takes one of \(CompletionShell.allCases.map(\.rawValue).joined(separator: ", "))")
                return ExitStatus.usage
            }
            printExact(shell.script(commandSpecs))
            return ExitStatus.success
        }
    }
}

// MARK: - Man pages

/// forcetrace(1) and forcetrace-COMMAND(1) in man(7) roff, made from the
/// specs `--help` prints, so the two cannot drift.
enum ManPage {
    /// The pages' date: SOURCE_DATE_EPOCH when set (reproducible builds; the
    /// Makefile passes the last commit's), otherwise today.
    static func date(environment: [String: String]) -> String {
        let seconds = environment["SOURCE_DATE_EPOCH"].flatMap(TimeInterval.init) ?? Date().timeIntervalSince1970
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    static func program(date: String) -> String {
        var page = header(title: "forcetrace", date: date)
        page += ".SH NAME\n\(text("forcetrace - " + ProgramHelp.abstract.rendered))\n"
        page += ".SH SYNOPSIS\n.B forcetrace\n.I subcommand\n[options]\n"
        page += ".SH DESCRIPTION\n" + body(ProgramHelp.discussion.rendered)
        page += ".SH SUBCOMMANDS\n"
        for command in subcommands {
            page += ".TP\n.BR forcetrace\\-\(text(command.spec.name)) (1)\n\(text(command.spec.abstract.rendered))\n"
        }
        page += ".SH OPTIONS\n" + options(ProgramHelp.options)
        page += ".SH SEE ALSO\n"
        page += subcommands.map { ".BR forcetrace\\-\(text($0.spec.name)) (1)" }.joined(separator: ",\n")
        page += ",\n.BR libinput (1),\n.BR evemu\\-record (1)\n"
        return page
    }

    static func command(_ spec: CommandSpec, date: String) -> String {
        var page = header(title: "forcetrace-\(spec.name)", date: date)
        page += ".SH NAME\n\(text("forcetrace-\(spec.name) - " + spec.abstract.rendered))\n"
        page += ".SH SYNOPSIS\n.B forcetrace \(text(spec.name))\n"
        let rest = spec.usageLine.dropFirst("forcetrace \(spec.name)".count).trimmingCharacters(in: .whitespaces)
        if !rest.isEmpty { page += text(rest) + "\n" }
        if !spec.discussion.isEmpty { page += ".SH DESCRIPTION\n" + body(spec.discussion.rendered) }
        if !spec.positionals.isEmpty {
            page += ".SH ARGUMENTS\n"
            for positional in spec.positionals {
                page += ".TP\n.I \(text(positional.name))\n\(text(positional.help.rendered))\n"
            }
        }
        page += ".SH OPTIONS\n" + options(spec.options + [OptionSpec.flag("help", short: "h", "Show help information.")])
        page += ".SH SEE ALSO\n.BR forcetrace (1)\n"
        return page
    }

    private static func header(title: String, date: String) -> String {
        ".\\\" Made by 'forcetrace --help-man' from the text of --help; edit the command's spec, not this file.\n"
            + ".TH \(text(title.uppercased())) 1 \(date) \"forcetrace \(text(ForceTraceVersion.string))\" \"forcetrace manual\"\n"
    }

    private static func options(_ options: [OptionSpec]) -> String {
        var out = ""
        for option in options {
            var line = option.short.map { "\\fB\\-\(text(String($0)))\\fR, " } ?? ""
            line += "\\fB\\-\\-\(text(option.long))\\fR"
            if let valueName = option.valueName { line += " \\fI\(text(valueName))\\fR" }
            out += ".TP\n\(line)\n\(text(option.help.rendered))\n"
        }
        return out
    }

    /// A help discussion as roff: paragraphs (blank lines) become `.PP`,
    /// runs of indented lines (the tables in help) keep their layout in an
    /// indented no-fill block, other lines are filled.
    static func body(_ discussion: String) -> String {
        var out = ""
        var indented: [Substring] = []
        var startsParagraph = false
        func flush() {
            guard !indented.isEmpty else { return }
            let margin = indented.map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
            out += ".RS 2\n.nf\n" + indented.map { text(String($0.dropFirst(margin)), wrap: false) + "\n" }.joined() + ".fi\n.RE\n"
            indented = []
        }
        for line in discussion.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy({ $0 == " " }) {
                flush()
                startsParagraph = !out.isEmpty
                continue
            }
            if startsParagraph { out += ".PP\n"; startsParagraph = false }
            if line.first == " " {
                indented.append(line)
            } else {
                flush()
                out += text(String(line)) + "\n"
            }
        }
        flush()
        return out
    }

    /// `value` as roff text: backslashes and dashes escaped, anything
    /// outside ASCII as a \[uXXXX] escape (both mandoc and groff read those
    /// whatever the locale), broken at spaces into input lines of at most
    /// 80 bytes unless `wrap` is false (no-fill text keeps its lines), and a
    /// line's leading control character or space neutralized.
    static func text(_ value: String, wrap: Bool = true) -> String {
        let escaped = escape(value)
        guard wrap, escaped.utf8.count > 80 else { return guarded(escaped) }
        var lines: [String] = []
        var line = ""
        for word in escaped.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty, line.utf8.count + 1 + word.utf8.count > 80 {
                lines.append(guarded(line))
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(guarded(line)) }
        return lines.joined(separator: "\n")
    }

    /// A text line that would otherwise read as a request (. or ') or start a break (a space).
    private static func guarded(_ line: String) -> String {
        if let first = line.first, first == "." || first == "'" || first == " " { return "\\&" + line }
        return line
    }

    private static func escape(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case "\n": out += " "
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: continue
            case _ where scalar.value >= 0x80:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

// MARK: - Shell completions

/// The shells forcetrace writes completions for.
enum CompletionShell: String, CaseIterable {
    case bash, zsh, fish

    func script(_ commands: [CommandSpec]) -> String {
        switch self {
        case .bash: BashCompletion.script(commands)
        case .zsh: ZshCompletion.script(commands)
        case .fish: FishCompletion.script(commands)
        }
    }

    var generatedNote: String {
        "# forcetrace \(ForceTraceVersion.string) \(rawValue) completion, made by 'forcetrace --help-completion \(rawValue)' from its argument parser.\n"
    }
}

/// `value` in single quotes for a POSIX-like shell (bash, zsh, fish).
private func singleQuoted(_ value: String) -> String {
    "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// fish quotes differently: a backslash escapes a quote or a backslash inside single quotes.
private func fishQuoted(_ value: String) -> String {
    "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
}

/// The options a command's completion offers: its spec's and --help.
private func completedOptions(_ spec: CommandSpec) -> [OptionSpec] {
    spec.options + [OptionSpec.flag("help", short: "h", "Show help information.")]
}

private enum BashCompletion {
    static func script(_ commands: [CommandSpec]) -> String {
        let top = commands.map(\.name) + ProgramHelp.options.flatMap(names)
        var out = CompletionShell.bash.generatedNote
        out += """
        _forcetrace_files() {
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$1")
        }
        _forcetrace_traces() {
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$1"; compgen -f -X '!*.h5' -- "$1")
        }
        _forcetrace_devices() {
            mapfile -t COMPREPLY < <(compgen -W "$(compgen -G '/dev/input/event*')" -- "$1")
        }
        _forcetrace() {
            local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command="" i
            # --option=VALUE: bash splits at '=', so the option is one word further back.
            if [[ $cur == = ]]; then prev=${COMP_WORDS[COMP_CWORD-1]}; cur=""
            elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi
            for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in -*) ;; *) command=${COMP_WORDS[i]}; break ;; esac
            done
            if [[ -z $command ]]; then
                mapfile -t COMPREPLY < <(compgen -W \(singleQuoted(top.joined(separator: " "))) -- "$cur")
                return
            fi
            case $command in

        """
        for spec in commands {
            let options = completedOptions(spec)
            out += "    \(singleQuoted(spec.name)))\n        case $prev in\n"
            for kind in [ValueCompletion.files, .text] {
                let words = options.filter { $0.valueCompletion == kind }.flatMap(names)
                guard !words.isEmpty else { continue }
                let action = kind == .files ? "_forcetrace_files \"$cur\"; return" : "return"
                out += "        \(words.joined(separator: "|"))) \(action) ;;\n"
            }
            for option in options where !option.choices.isEmpty {
                let words = singleQuoted(option.choices.joined(separator: " "))
                out += "        \(names(option).joined(separator: "|"))) mapfile -t COMPREPLY < <(compgen -W \(words) -- \"$cur\"); return ;;\n"
            }
            out += "        esac\n"
            out += "        if [[ $cur == -* ]]; then\n"
            out += "            mapfile -t COMPREPLY < <(compgen -W \(singleQuoted(options.flatMap(names).joined(separator: " "))) -- \"$cur\")\n"
            out += "            return\n        fi\n"
            switch spec.positionals.first?.valueCompletion {
            case .traceFiles: out += "        _forcetrace_traces \"$cur\" ;;\n"
            case .devices: out += "        _forcetrace_devices \"$cur\" ;;\n"
            case .files: out += "        _forcetrace_files \"$cur\" ;;\n"
            default: out += "        ;;\n"
            }
        }
        out += "    esac\n}\ncomplete -F _forcetrace forcetrace\n"
        return out
    }

    static func names(_ option: OptionSpec) -> [String] {
        ["--\(option.long)"] + (option.short.map { ["-\($0)"] } ?? [])
    }
}

private enum ZshCompletion {
    static func script(_ commands: [CommandSpec]) -> String {
        var out = "#compdef forcetrace\n" + CompletionShell.zsh.generatedNote
        out += "_forcetrace() {\n    local curcontext=$curcontext state line\n    typeset -A opt_args\n"
        out += "    _arguments -C \\\n"
        for option in ProgramHelp.options { out += "        \(spec(option, exclusive: "(- *)")) \\\n" }
        out += "        '1: :->command' \\\n        '*:: :->args'\n"
        out += "    case $state in\n    command)\n        local -a commands\n        commands=(\n"
        for command in commands {
            out += "            \(singleQuoted(command.name + ":" + command.abstract.rendered))\n"
        }
        out += "        )\n        _describe -t commands 'forcetrace subcommand' commands ;;\n"
        out += "    args)\n        case $line[1] in\n"
        for command in commands {
            out += "        \(singleQuoted(command.name)))\n            _arguments \\\n"
            var specs = completedOptions(command).map { spec($0, exclusive: nil) }
            for positional in command.positionals {
                let prefix = positional.repeating ? "*" : positional.optional ? ":" : ""
                specs.append(singleQuoted("\(prefix):\(message(positional.name)):\(action(positional.valueCompletion))"))
            }
            out += specs.map { "                \($0)" }.joined(separator: " \\\n") + " ;;\n"
        }
        out += "        esac ;;\n    esac\n}\n_forcetrace \"$@\"\n"
        return out
    }

    /// One `_arguments` spec: '(excluded)'{-o,--output}'[help]:VALUE:action'.
    static func spec(_ option: OptionSpec, exclusive: String?) -> String {
        let described = "[\(bracketed(option.help.rendered))]"
            + (option.valueName.map { ":\(message($0)):\(action(option.valueCompletion))" } ?? "")
        let repeated = option.repeatable ? "*" : ""
        guard let short = option.short else {
            return singleQuoted((exclusive ?? "") + repeated + "--\(option.long)" + described)
        }
        let excluded = exclusive ?? "(-\(short) --\(option.long))"
        return singleQuoted(excluded + repeated) + "{-\(short),--\(option.long)}" + singleQuoted(described)
    }

    static func action(_ completion: ValueCompletion) -> String {
        switch completion {
        case .none, .text: " "
        case .words(let words): "(\(words.joined(separator: " ")))"
        case .files: "_files"
        case .traceFiles: "_files -g \"*.h5(-.)\""
        case .devices: "_files -g \"/dev/input/event*\""
        }
    }

    /// Text inside an option's [description]: brackets and backslashes escaped.
    static func bracketed(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]")
    }

    /// A value's message (between colons): colons and backslashes escaped.
    static func message(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
    }
}

private enum FishCompletion {
    static func script(_ commands: [CommandSpec]) -> String {
        var out = CompletionShell.fish.generatedNote
        out += "complete -c forcetrace -f\n"
        for option in ProgramHelp.options { out += line(option, condition: "__fish_use_subcommand") }
        for command in commands {
            out += "complete -c forcetrace -n __fish_use_subcommand -a \(fishQuoted(command.name)) -d \(fishQuoted(command.abstract.rendered))\n"
        }
        for command in commands {
            let seen = "__fish_seen_subcommand_from \(command.name)"
            for option in completedOptions(command) { out += line(option, condition: seen) }
            switch command.positionals.first?.valueCompletion {
            case .traceFiles: out += "complete -c forcetrace -n \(fishQuoted(seen)) -k -a '(__fish_complete_suffix .h5)'\n"
            case .devices: out += "complete -c forcetrace -n \(fishQuoted(seen)) -a '(string match -- \"/dev/input/event*\" /dev/input/event*)'\n"
            case .files: out += "complete -c forcetrace -n \(fishQuoted(seen)) -F\n"
            default: break
            }
        }
        return out
    }

    static func line(_ option: OptionSpec, condition: String) -> String {
        var out = "complete -c forcetrace -n \(fishQuoted(condition))"
        if let short = option.short { out += " -s \(short)" }
        out += " -l \(option.long)"
        switch option.valueCompletion {
        case .none: break
        case .files, .traceFiles: out += " -r -F"
        case .text, .devices: out += " -x"
        case .words(let words): out += " -x -a \(fishQuoted(words.joined(separator: " ")))"
        }
        return out + " -d \(fishQuoted(option.help.rendered))\n"
    }
}
