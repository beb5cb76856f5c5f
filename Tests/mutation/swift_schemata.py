"""Rule-made mutants of a Swift file, written as schemata: every site is
rewritten into a form that picks its variant at run time from
`Mutant.on(ID)` (FORCETRACE_MUTANT), so one build holds them all.

The scanner works on tokens, not a full parse: it finds an operand's extent by
Swift's precedence (comparison binds looser than arithmetic, ranges, casts and
`??`, tighter than `&&`, `||`, `?:` and assignment). What it cannot rewrite
safely it skips and counts; what it rewrites wrongly the compiler rejects, and
the runner rolls those sites back (see rules.py).
"""
import dataclasses
import re
from decimal import Decimal

HELPER = """// Added by Tests/mutation to the private copy only: the active mutant, read once.
// With FORCETRACE_MUTANT_TRACE=DIR every process also records which sites it reached
// (appended to DIR/PID.ids at exit): the runner's per-test coverage, so each mutant
// faces the tests that execute it, and a site no test reaches needs no run.
import Foundation

public enum Mutant {
    public static let active: Int = Int(ProcessInfo.processInfo.environment["FORCETRACE_MUTANT"] ?? "") ?? -1
    static let capacity = 1 << 16
    static let traceDirectory: String? = {
        guard let directory = ProcessInfo.processInfo.environment["FORCETRACE_MUTANT_TRACE"], !directory.isEmpty else {
            return nil
        }
        atexit { Mutant.writeTrace() }
        return directory
    }()
    static let tracing: Bool = traceDirectory != nil
    // Written without a lock from any thread: each byte only ever goes from 0 to 1.
    nonisolated(unsafe) static let seen: UnsafeMutablePointer<UInt8> = {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        pointer.initialize(repeating: 0, count: capacity)
        return pointer
    }()

    @inline(__always) public static func on(_ id: Int) -> Bool {
        if tracing, id >= 0, id < capacity { seen[id] = 1 }
        return active == id
    }

    static func writeTrace() {
        guard let directory = traceDirectory else { return }
        let ids = (0..<capacity).filter { seen[$0] != 0 }.map(String.init).joined(separator: "\\n")
        guard let file = fopen("\\(directory)/\\(getpid()).ids", "a") else { return }
        fputs(ids + "\\n", file)
        fclose(file)
    }
}
"""

FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
# Binding names whose literals are thresholds or margins (the literal-nudge rule's second half).
THRESHOLD_NAME = re.compile(r"(?i)(threshold|margin|limit|timeout|tolerance|epsilon|cutoff|minimum|maximum|"
                            r"^min[A-Z_]|^max[A-Z_]|min$|max$|fraction|window|hysteresis|band|slack|floor|ceiling)")
OPERATOR_CHARS = set("/=-+!*%<>&|^~?.")
# Stops an operand scan: anything that binds looser than a comparison, or ends an expression.
STOP_OPERATORS = {"&&", "||", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "->", "~=",
                  "<", "<=", ">", ">=", "==", "!=", "===", "!=="}
STOP_KEYWORDS = {"return", "if", "guard", "while", "for", "in", "where", "case", "else", "let", "var", "try", "await",
                 "throw", "switch", "repeat", "defer", "do", "catch", "func", "init", "static", "private", "public",
                 "internal", "fileprivate", "some", "any", "yield", "then"}
LITERAL = re.compile(r"^(0x[0-9a-fA-F_]+(\.[0-9a-fA-F_]+)?([pP][-+]?\d+)?|0b[01_]+|0o[0-7_]+|"
                     r"\d[\d_]*(\.\d[\d_]*)?([eE][-+]?\d+)?)$")


@dataclasses.dataclass
class Token:
    kind: str       # ident, number, string, op, punct, newline, directive
    text: str
    start: int      # offsets in the source text
    end: int
    line: int
    space_before: bool = False
    space_after: bool = False


def tokenize(source):
    tokens, i, line, n = [], 0, 1, len(source)
    interpolated = 0  # string interpolations holding a comparison (not rewritten, counted)

    def add(kind, start, end):
        tokens.append(Token(kind, source[start:end], start, end, line,
                            start == 0 or source[start - 1] in " \t\n", end >= n or source[end] in " \t\n"))

    while i < n:
        c = source[i]
        if c == "\n":
            add("newline", i, i + 1)
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif source.startswith("//", i):
            i = source.find("\n", i) if "\n" in source[i:] else n
        elif source.startswith("/*", i):
            depth, j = 0, i
            while j < n:
                if source.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif source.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                    if depth == 0:
                        break
                else:
                    j += 1
            line += source.count("\n", i, j)
            i = j
        elif c == "#" and re.match(r"#(if|elseif|else|endif|sourceLocation|warning|error)\b", source[i:i + 15]) \
                and source[source.rfind("\n", 0, i) + 1:i].strip() == "":
            j = source.find("\n", i)
            j = n if j < 0 else j
            add("directive", i, j)
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', source[i:])):
            j = _string_end(source, i)
            add("string", i, j)
            text = source[i:j]
            if "\\(" in text and re.search(r"\\\(.*\s(<|<=|>|>=|==|!=)\s", text):
                interpolated += 1
            line += text.count("\n")
            i = j
        elif c.isdigit():
            m = re.match(r"0x[0-9a-fA-F_]+(\.[0-9a-fA-F_]+)?([pP][-+]?\d+)?|0b[01_]+|0o[0-7_]+|"
                         r"\d[\d_]*(\.\d[\d_]*)?([eE][-+]?\d+)?", source[i:])
            add("number", i, i + m.end())
            i += m.end()
        elif c.isalpha() or c in "_$#@" or ord(c) > 127:
            j = i + 1
            while j < n and (source[j].isalnum() or source[j] in "_$" or ord(source[j]) > 127):
                j += 1
            if c == "`":
                j = source.find("`", i + 1) + 1
            add("ident", i, j)
            i = j
        elif c == "`":
            j = source.find("`", i + 1) + 1
            add("ident", i, j)
            i = j
        elif c in OPERATOR_CHARS:
            j = i + 1
            if c in "?!" and not (i > 0 and source[i - 1] in " \t\n(") :
                pass  # postfix ? and ! (optional chaining, force unwrap) stand alone
            elif c == ".":
                while j < n and source[j] == "." or (j < n and source[j] == "<" and source[i:j] == ".."):
                    j += 1
            else:
                while j < n and source[j] in OPERATOR_CHARS and source[j] != ".":
                    j += 1
            kind = "punct" if source[i:j] == "." else "op"
            add(kind, i, j)
            i = j
        else:
            add("punct", i, i + 1)
            i += 1
    return tokens, interpolated


def _string_end(source, i):
    hashes = 0
    while source[i] == "#":
        hashes, i = hashes + 1, i + 1
    close = '"' + "#" * hashes
    if source.startswith('"""', i):
        j = source.find('"""' + "#" * hashes, i + 3)
        return j + 3 + hashes
    j, depth = i + 1, 0
    escape = "\\" + "#" * hashes
    while j < len(source):
        if source.startswith(escape + "(", j):
            # Skip the interpolation, nested parentheses and strings included.
            j += len(escape) + 1
            depth = 1
            while depth:
                if source[j] == '"':
                    j = _string_end(source, j)
                    continue
                depth += {"(": 1, ")": -1}.get(source[j], 0)
                j += 1
        elif source.startswith(escape, j):
            j += len(escape) + 1
        elif source.startswith(close, j):
            return j + len(close)
        else:
            j += 1
    return j


@dataclasses.dataclass
class Site:
    rule: str           # comparison, literal, case-drop, guard, loop-exit
    start: int          # the source span the schemata replaces
    end: int
    line: int
    original: str       # what a reader sees: the original text and the mutated text
    mutated: str
    emit: object = None  # (render, id) -> the schemata text for the span
    id: int = -1
    key: str = ""
    text: str = ""      # the site's line, for reports
    disabled: bool = False


class SwiftFile:
    def __init__(self, path, source):
        self.path, self.source = path, source
        self.tokens, self.interpolated = tokenize(source)
        self.match = self._match_brackets()
        self.sites, self.skipped = [], {}
        self.lines = source.split("\n")

    def skip(self, reason):
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def _match_brackets(self):
        match, stack = {}, []
        for index, token in enumerate(self.tokens):
            if token.kind == "punct" and token.text in "([{":
                stack.append(index)
            elif token.kind == "punct" and token.text in ")]}" and stack:
                opening = stack.pop()
                match[opening], match[index] = index, opening
        return match

    # -- operand extents ---------------------------------------------------
    def _is_stop(self, token):
        if token.kind in ("directive",):
            return True
        if token.kind == "punct" and token.text in ",;:":
            return True
        if token.kind == "op" and (token.text in STOP_OPERATORS and token.space_before and token.space_after
                                   or token.text in ("&&", "||", "=", "->")):
            return True
        if token.kind == "op" and token.text == "?" and token.space_before:
            return True  # the ternary's ?
        return token.kind == "ident" and token.text in STOP_KEYWORDS

    def _continues(self, index):
        """Whether the token at index, first on its line, continues the previous line's expression."""
        token = self.tokens[index]
        return token.kind == "punct" and token.text == "." or (
            token.kind == "op" and token.space_after and token.text not in ("!", "?") and not self._is_stop(token))

    def operand_right(self, op_index, loose=False):
        """A right operand's extent: up to an operator of lower precedence, or
        (`loose`, an initialiser) up to the end of its statement or argument."""
        i, last = op_index + 1, None
        while i < len(self.tokens):
            token = self.tokens[i]
            if token.kind == "newline":
                following = self._next(i)
                if last is None or following is None or not self._continues(following):
                    break
                i = following
                continue
            if token.kind == "punct" and token.text in "([":
                last = i = self.match.get(i, len(self.tokens))
                i += 1
                continue
            if loose:
                if token.kind == "punct" and token.text in ")]}{,;" or token.kind == "directive":
                    break
            elif token.kind == "punct" and token.text in ")]}{" or self._is_stop(token):
                break
            last, i = i, i + 1
        return last

    def operand_left(self, op_index):
        i, first = op_index - 1, None
        while i >= 0:
            token = self.tokens[i]
            if token.kind == "newline":
                if first is None or not self._continues(first):
                    break
                i -= 1
                continue
            if token.kind == "punct" and token.text in ")]}" and i in self.match:
                if token.text == "}" and not self._closure_operand(i):
                    break
                first = i = self.match[i]
                i -= 1
                continue
            if token.kind == "punct" and token.text in "([{" or self._is_stop(token):
                break
            first, i = i, i - 1
        return first

    def _closure_operand(self, close):
        """A `}` ends a closure within the operand (xs.map { … }.count), not a block before it."""
        following = self.tokens[close + 1] if close + 1 < len(self.tokens) else None
        return following is not None and following.kind == "punct" and following.text in ".)"

    def _next(self, i):
        i += 1
        while i < len(self.tokens) and self.tokens[i].kind == "newline":
            i += 1
        return i if i < len(self.tokens) else None

    def _prev(self, i):
        i -= 1
        while i >= 0 and self.tokens[i].kind == "newline":
            i -= 1
        return i if i >= 0 else None

    def text(self, a, b):
        return self.source[a:b]

    # -- the operators ----------------------------------------------------
    def find_sites(self, escaping):
        comparisons = self._comparisons()
        self._literals(comparisons)
        self._guards()
        self._loop_exits()
        if escaping:
            self._case_drops()
        # Equal spans: the guard or case holds the comparison, the comparison the literal.
        rank = {"guard": 0, "case-drop": 0, "loop-exit": 1, "comparison": 1, "literal": 2}
        self.sites.sort(key=lambda s: (s.start, -s.end, rank[s.rule]))

    def _comparisons(self):
        spans = []
        for index, token in enumerate(self.tokens):
            if token.kind != "op" or token.text not in FLIP:
                continue
            if not (token.space_before and token.space_after):
                if token.text not in "<>":
                    self.skip("comparison without spaces around it")
                continue
            previous = self._prev(index)
            if previous is not None and self.tokens[previous].text in ("func", "operator"):
                continue  # an operator's declaration
            left, right = self.operand_left(index), self.operand_right(index)
            if left is not None and left > 0 and self.tokens[left - 1].text == "where" and \
                    re.match(r"\s*(\S+\s+)*(extension|func|struct|class|enum|protocol|init)\b",
                             self.lines[token.line - 1]):
                self.skip("same-type requirement of a generic where clause")
                continue
            if left is None or right is None:
                self.skip("comparison whose operands were not found")
                continue
            a, b = self.tokens[left].start, self.tokens[right].end
            op_start, op_end, flipped = token.start, token.end, FLIP[token.text]

            def emit(render, id, a=a, b=b, op_start=op_start, op_end=op_end, op=token.text, flipped=flipped):
                lhs, rhs = render(a, op_start).rstrip(), render(op_end, b).lstrip()
                return f"(Mutant.on({id}) ? ({lhs} {flipped} {rhs}) : ({lhs} {op} {rhs}))"

            self.sites.append(Site("comparison", a, b, token.line, token.text, flipped, emit))
            spans.append((left, right))
        return spans

    def _literals(self, comparisons):
        chosen = set()
        for left, right in comparisons:
            chosen.update(i for i in range(left, right + 1) if self.tokens[i].kind == "number")
        # Literals bound to a name like timeout, threshold, margin, limit (let, var, argument, default value).
        for index, token in enumerate(self.tokens):
            if token.kind != "ident" or not THRESHOLD_NAME.search(token.text):
                continue
            j = self._next(index)
            if j is None or self.tokens[j].text not in ("=", ":"):
                continue
            if self.tokens[j].text == ":":
                # A type annotation (let x: Double = 1): move on to its `=`; else an argument label.
                k = j + 1
                while k < len(self.tokens) and self.tokens[k].kind in ("ident", "punct", "op") \
                        and self.tokens[k].text not in ("=", ",", ")", "{", "}", "\n") \
                        and not (self.tokens[k].kind == "op" and self.tokens[k].text == "-"):
                    if self.tokens[k].kind == "ident" and self.tokens[k].text[0].islower():
                        break
                    k += 1
                if k < len(self.tokens) and self.tokens[k].text == "=":
                    j = k
            end = self.operand_right(j, loose=True)
            chosen.update(i for i in range(j + 1, (end or j) + 1) if self.tokens[i].kind == "number")
        for index in sorted(chosen):
            token = self.tokens[index]
            previous = self._prev(index)
            if previous is not None and self.tokens[previous].text == "." and not self.tokens[previous].space_before:
                continue  # a tuple element (.0), not a number
            if self._in_raw_value(index):
                self.skip("literal in an enum raw value or attribute")
                continue
            nudged = nudge(token.text)
            if nudged is None:
                self.skip("literal without a step")
                continue

            def emit(render, id, text=token.text, nudged=nudged):
                return f"(Mutant.on({id}) ? {nudged} : {text})"

            self.sites.append(Site("literal", token.start, token.end, token.line, token.text, nudged, emit))

    def _in_raw_value(self, index):
        line = self.lines[self.tokens[index].line - 1].strip()
        return bool(re.match(r"(case\s+\w+\s*=|@)", line))

    def _guards(self):
        for index, token in enumerate(self.tokens):
            if token.kind != "ident" or token.text != "guard":
                continue
            # The condition list runs to the `else` at this bracket depth.
            i, conditions, start = index + 1, [], index + 1
            while i < len(self.tokens) and not (self.tokens[i].kind == "ident" and self.tokens[i].text == "else"):
                t = self.tokens[i]
                if t.kind == "punct" and t.text in "([{":
                    i = self.match.get(i, len(self.tokens) - 1)
                elif t.kind == "punct" and t.text == ",":
                    conditions.append((start, i))
                    start = i + 1
                i += 1
            if i >= len(self.tokens):
                continue
            conditions.append((start, i))
            texts = [self.text(self.tokens[a].start, self.tokens[b - 1].end) for a, b in conditions if b > a]
            if any(re.match(r"(let|var|case|#available|#unavailable)\b", t.strip()) for t in texts):
                self.skip("guard that binds (let, var, case) or checks availability")
                continue
            spans = [(self.tokens[a].start, self.tokens[b - 1].end) for a, b in conditions]

            def emit(render, id, spans=spans):
                parts = [render(a, b) for a, b in spans]
                joined = " && ".join(f"({p})" for p in parts) if len(parts) > 1 else parts[0]
                return f"(Mutant.on({id}) ? !({joined}) : ({joined}))"

            original = ", ".join(texts)
            self.sites.append(Site("guard", spans[0][0], spans[-1][1], token.line, f"guard {original}",
                                   f"guard !({original})", emit))

    def _blocks(self):
        """Each `{`'s kind: loop, switch, guard-else, barrier (closure, function, type) or block."""
        kinds, pending, paren_depth = {}, None, 0
        heads = {"for", "while", "repeat", "switch", "guard", "if", "do", "catch", "defer", "func", "init", "deinit",
                 "get", "set", "willSet", "didSet", "struct", "class", "enum", "extension", "protocol", "actor", "var"}
        for index, token in enumerate(self.tokens):
            previous = self._prev(index)
            previous = self.tokens[previous] if previous is not None else None
            if token.kind == "punct" and token.text in "([":
                paren_depth += 1
            elif token.kind == "punct" and token.text in ")]":
                paren_depth -= 1
            elif token.kind == "ident" and token.text == "else":
                if pending and pending[0] == "guard" and pending[1] == paren_depth:
                    pending = ("guard-else", paren_depth)
            elif token.kind == "ident" and token.text in heads:
                closes_repeat = token.text == "while" and previous is not None and previous.text == "}" \
                    and kinds.get(self.match.get(self._prev(index))) == "loop-repeat"
                pending = None if closes_repeat else (token.text, paren_depth)
            elif token.kind == "punct" and token.text == "{":
                if pending and pending[1] == paren_depth:
                    kind = {"for": "loop", "while": "loop", "repeat": "loop-repeat", "switch": "switch",
                            "guard-else": "guard-else", "if": "block", "do": "block", "catch": "block",
                            "defer": "block"}.get(pending[0], "barrier")
                    if previous is not None and previous.text == "else" and pending[0] != "guard-else":
                        kind = "block"
                    pending = None
                elif previous is not None and previous.text == "else":
                    kind = "block"
                else:
                    kind = "barrier"  # a closure
                kinds[index] = kind
        return kinds

    def _loop_exits(self):
        kinds = self._blocks()
        stack = []
        for index, token in enumerate(self.tokens):
            if token.kind == "punct" and token.text == "{":
                stack.append(kinds.get(index, "barrier"))
            elif token.kind == "punct" and token.text == "}" and stack:
                stack.pop()
            elif token.kind == "ident" and token.text in ("break", "continue"):
                target = None
                for kind in reversed(stack):
                    if kind in ("loop", "loop-repeat"):
                        target = "loop"
                        break
                    if kind == "barrier" or (kind == "switch" and token.text == "break"):
                        target = kind
                        break
                if target != "loop":
                    continue
                end = token.end
                following = self.tokens[index + 1] if index + 1 < len(self.tokens) else None
                if following is not None and following.kind == "ident" and following.line == token.line \
                        and following.text not in ("case", "default"):
                    end = following.end  # a label: break outer
                if stack and stack[-1] == "guard-else":
                    self.skip(f"{token.text} that a guard's else needs to exit")
                    continue
                statement = self.text(token.start, end)

                def emit(render, id, statement=statement):
                    return f"if !Mutant.on({id}) {{ {statement} }}"

                self.sites.append(Site("loop-exit", token.start, end, token.line, statement, "(removed)", emit))

    def _case_drops(self):
        """Each case of a switch over literals (characters, code points) stops matching."""
        for index, token in enumerate(self.tokens):
            if token.kind != "ident" or token.text != "switch":
                continue
            brace = index + 1
            while brace < len(self.tokens) and not (self.tokens[brace].kind == "punct" and self.tokens[brace].text == "{"):
                brace = self.match.get(brace, brace) + 1 if self.tokens[brace].text in "([" else brace + 1
            close = self.match.get(brace)
            if close is None:
                continue
            cases, depth, i = [], 0, brace + 1
            while i < close:
                t = self.tokens[i]
                if t.kind == "punct" and t.text in "([{":
                    i = self.match.get(i, close)
                elif t.kind == "ident" and t.text == "case":
                    colon, j = None, i + 1
                    while j < close:
                        u = self.tokens[j]
                        if u.kind == "punct" and u.text in "([{":
                            j = self.match.get(j, close)
                        elif u.kind == "punct" and u.text == ":":
                            colon = j
                            break
                        j += 1
                    if colon is not None:
                        cases.append((i, colon))
                        i = colon
                i += 1
            if not any(self.tokens[c + 1].kind in ("string", "number") or self.tokens[c + 1].text == "..<"
                       for c, _ in cases):
                continue
            for case, colon in cases:
                patterns, start, j = [], case + 1, case + 1
                while j < colon:
                    u = self.tokens[j]
                    if u.kind == "punct" and u.text in "([{":
                        j = self.match.get(j, colon)
                    elif u.kind == "punct" and u.text == ",":
                        patterns.append((start, j))
                        start = j + 1
                    j += 1
                patterns.append((start, colon))
                spans = []
                for a, b in patterns:
                    where = next((k for k in range(a, b) if self.tokens[k].text == "where"), None)
                    spans.append((self.tokens[a].start, self.tokens[b - 1].end,
                                  self.tokens[where].end if where is not None else None))
                first, last = spans[0][0], spans[-1][1]

                def emit(render, id, spans=spans, first=first, last=last):
                    out, position = [], first
                    for a, b, where_end in spans:
                        out.append(render(position, a))
                        if where_end is None:
                            out.append(f"{render(a, b)} where !Mutant.on({id})")
                        else:
                            out.append(f"{render(a, where_end)} !Mutant.on({id}) && ({render(where_end, b).strip()})")
                        position = b
                    return "".join(out)

                text = self.text(first, last)
                self.sites.append(Site("case-drop", first, last, self.tokens[case].line, f"case {text}:",
                                       "(case dropped)", emit))

    # -- writing ------------------------------------------------------------
    def render(self, a=0, b=None, exclude=None):
        b = len(self.source) if b is None else b
        out, position, covered = [], a, a
        for site in self.sites:
            if site is exclude or site.start < covered or site.start < a or site.end > b:
                continue
            if site.disabled:
                continue
            # Sites nested in this one are rendered inside its emit.
            out.append(self.source[position:site.start])
            out.append(site.emit(lambda x, y, s=site: self.render(x, y, exclude=s), site.id))
            position = covered = site.end
        out.append(self.source[position:b])
        return "".join(out)


def nudge(text):
    """The literal moved by one step of its last written digit (400 → 401, 0.25 → 0.26, 0x1F → 0x20)."""
    clean = text.replace("_", "")
    try:
        if clean.startswith(("0x", "0X")):
            if "." in clean or "p" in clean.lower():
                return None
            return hex(int(clean, 16) + 1)
        if clean.startswith("0b"):
            return bin(int(clean, 2) + 1)
        if clean.startswith("0o"):
            return oct(int(clean, 8) + 1)
        if re.fullmatch(r"\d+", clean):
            return str(int(clean) + 1)
        mantissa, _, exponent = clean.lower().partition("e")
        value = Decimal(mantissa)
        step = Decimal(1).scaleb(value.as_tuple().exponent)
        result = str(value + step)
        if "." not in result:
            result += ".0"
        return result + (f"e{exponent}" if exponent else "")
    except (ValueError, ArithmeticError):
        return None


def is_escaping_file(path):
    """The files whose switches over characters escape text (the case-drop rule's scope)."""
    return pathlib_name(path) in {"TerminalText.swift", "TextEscaping.swift", "HTMLReport.swift", "JSONWriter.swift",
                                  "JSONText.swift", "Quirks.swift"}


def pathlib_name(path):
    return str(path).rsplit("/", 1)[-1]


DECLARATIONS = {"func", "init", "deinit", "subscript", "struct", "class", "enum", "extension", "protocol", "actor"}
# What starts a new declaration: a signature that reaches one before its `{` has no body (a protocol's requirement).
DECLARATION_STARTS = DECLARATIONS | {"var", "let", "case", "public", "private", "fileprivate", "internal", "static",
                                     "mutating", "nonmutating", "override", "final", "typealias", "import"}


def declarations(swift):
    """(body's first offset, body's end offset, name) of every type, extension and function with a body."""
    tokens, found = swift.tokens, []
    for index, token in enumerate(tokens):
        if token.kind != "ident" or token.text not in DECLARATIONS:
            continue
        if index > 0 and tokens[index - 1].kind == "punct" and tokens[index - 1].text == ".":
            continue  # `.init(...)`, `Foo.self.init`
        name, j = (token.text if token.text in ("init", "deinit", "subscript") else None), index + 1
        while j < len(tokens):
            current = tokens[j]
            if current.kind == "punct" and current.text in "([" and j in swift.match:
                j = swift.match[j] + 1
                continue
            if current.kind == "punct" and current.text == "{":
                break
            if current.kind == "newline":
                following = swift._next(j)
                if following is None or tokens[following].kind == "ident" and tokens[following].text in DECLARATION_STARTS \
                        or tokens[following].kind in ("directive",) or tokens[following].text in ("}", "@"):
                    j = len(tokens)
                    break
                j = following
                continue
            if name is None and current.kind in ("ident", "op"):
                name = current.text
            elif token.text == "extension" and current.kind == "punct" and current.text == "." and name:
                if j + 1 < len(tokens) and tokens[j + 1].kind == "ident":
                    name += "." + tokens[j + 1].text
                    j += 2
                    continue
            j += 1
        if j < len(tokens) and j in swift.match:
            found.append((tokens[j].start, tokens[swift.match[j]].end, name or token.text))
    return found


def scope_of(offset, scopes, fallback):
    """The dotted names of the declarations around an offset, outermost first."""
    names = [name for start, end, name in scopes if start <= offset < end]
    return ".".join(names) or fallback


def module_name(path):
    """`ForceTrace` for Sources/ForceTrace/...: keys name the module, not the file, so code may move between files."""
    parts = str(path).split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "Sources" else parts[0]


def analyse(path, source):
    swift = SwiftFile(path, source)
    swift.find_sites(is_escaping_file(path))
    scopes = sorted(declarations(swift))
    fallback = "(top level of " + pathlib_name(path) + ")"
    counts = {}
    for site in swift.sites:
        # The key: the module, the declarations around the site, the rule, the operator and its ordinal
        # there; no line's text, so it survives edits to its line and to code elsewhere, and moves.
        scope = scope_of(site.start, scopes, fallback)
        ordinal = (scope, site.rule, site.original)
        counts[ordinal] = counts.get(ordinal, 0) + 1
        site.key = f"{module_name(path)}:{scope}|{site.rule}|{site.original}|{counts[ordinal]}"
        site.text = " ".join(swift.lines[site.line - 1].split())
    if swift.interpolated:
        swift.skipped["comparison inside a string interpolation"] = swift.interpolated
    return swift
