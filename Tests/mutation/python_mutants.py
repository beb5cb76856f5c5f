"""Rule-made mutants of a Python file, as plain source rewrites (Python needs no
build): comparison flips, literal nudges, guard negation (an `if` whose whole
body leaves: return, raise, continue, break) and loop-exit removal. Python has
no switch, so no case drops."""
import ast
import dataclasses
import io
import re
import tokenize

from swift_schemata import FLIP, THRESHOLD_NAME, nudge

OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


@dataclasses.dataclass
class PySite:
    rule: str
    line: int
    start: tuple     # (line, byte column) of the replaced text
    end: tuple
    original: str
    mutated: str
    replacement: str
    id: int = -1
    key: str = ""
    text: str = ""     # the site's line, for reports
    lines: tuple = ()  # the lines of the statement (a compound one's header) that holds the site


class PythonFile:
    def __init__(self, path, source):
        self.path, self.source = path, source
        self.lines = source.split("\n")
        self.tree = ast.parse(source)
        self.sites, self.skipped = [], {}
        self.operators = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.OP]

    def segment(self, start, end):
        return "\n".join(self._bytes_lines(start, end))

    def _bytes_lines(self, start, end):
        lines = [line.encode() for line in self.lines[start[0] - 1:end[0]]]
        if len(lines) == 1:
            return [lines[0][start[1]:end[1]].decode()]
        return [lines[0][start[1]:].decode()] + [l.decode() for l in lines[1:-1]] + [lines[-1][:end[1]].decode()]

    def find_sites(self):
        chosen = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Compare):
                operands = [node.left] + node.comparators
                for op, left, right in zip(node.ops, operands, operands[1:]):
                    if type(op) in OPS:
                        self._comparison(OPS[type(op)], left, right)
                chosen += [n for operand in operands for n in ast.walk(operand) if self._number(n)]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if node.value is not None and any(isinstance(t, ast.Name) and THRESHOLD_NAME.search(t.id) for t in targets):
                    chosen += [n for n in ast.walk(node.value) if self._number(n)]
            elif isinstance(node, ast.keyword) and node.arg and THRESHOLD_NAME.search(node.arg):
                chosen += [n for n in ast.walk(node.value) if self._number(n)]
            elif isinstance(node, ast.arguments):
                names = node.posonlyargs + node.args
                pairs = list(zip(names[len(names) - len(node.defaults):], node.defaults)) + \
                    [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults) if d is not None]
                chosen += [n for a, d in pairs if THRESHOLD_NAME.search(a.arg) for n in ast.walk(d) if self._number(n)]
            elif isinstance(node, ast.If) and not node.orelse and len(node.body) == 1 \
                    and isinstance(node.body[0], (ast.Return, ast.Raise, ast.Continue, ast.Break)):
                start, end = (node.test.lineno, node.test.col_offset), (node.test.end_lineno, node.test.end_col_offset)
                text = self.segment(start, end)
                self.sites.append(PySite("guard", node.lineno, start, end, f"if {text}:", f"if not ({text}):",
                                         f"not ({text})"))
            elif isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
                self._loop_exits(node)
        seen = set()
        for n in chosen:
            if id(n) in seen:
                continue
            seen.add(id(n))
            start, end = (n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)
            text = self.segment(start, end)
            nudged = nudge(text)
            if nudged is None:
                self.skipped["literal without a step"] = self.skipped.get("literal without a step", 0) + 1
                continue
            self.sites.append(PySite("literal", n.lineno, start, end, text, nudged, nudged))
        self.sites.sort(key=lambda s: (s.start, s.rule))
        for site in self.sites:
            site.lines = self.statement_lines(site.start[0], site.end[0])
        # The key: the module, the functions and classes around the site, the rule, the operator and
        # its ordinal there; no line's text, so it survives edits to its line and to code elsewhere.
        scopes = []
        def visit(node, names):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner = names + [child.name]
                    scopes.append(((child.lineno, child.col_offset), (child.end_lineno, child.end_col_offset), ".".join(inner)))
                    visit(child, inner)
                else:
                    visit(child, names)
        visit(self.tree, [])
        module = self.path.removeprefix("python/").removesuffix(".py").replace("/", ".")
        counts = {}
        for site in self.sites:
            around = [name for start, end, name in scopes if start <= site.start < end]
            scope = around[-1] if around else "(top level)"
            ordinal = (scope, site.rule, site.original)
            counts[ordinal] = counts.get(ordinal, 0) + 1
            site.key = f"{module}:{scope}|{site.rule}|{site.original}|{counts[ordinal]}"
            site.text = " ".join(self.lines[site.line - 1].split())

    def statement_lines(self, first, last):
        """The lines of the innermost statement around lines first..last: what a line tracer
        reports when the site is executed (a compound statement: its header only)."""
        if not hasattr(self, "_statements"):
            self._statements = []
            for node in ast.walk(self.tree):
                if not isinstance(node, ast.stmt):
                    continue
                body = getattr(node, "body", None)
                end = node.end_lineno
                if isinstance(body, list) and body and isinstance(body[0], ast.AST):
                    end = max(node.lineno, body[0].lineno - 1)
                    decorators = getattr(node, "decorator_list", [])
                    if decorators:
                        end = max(end, node.lineno)
                self._statements.append((node.lineno, end))
        holding = [(a, b) for a, b in self._statements if a <= first and last <= b]
        a, b = min(holding, key=lambda r: r[1] - r[0]) if holding else (first, last)
        return tuple(range(a, b + 1))

    @staticmethod
    def _number(node):
        return isinstance(node, ast.Constant) and type(node.value) in (int, float)

    def _comparison(self, op, left, right):
        # The operator token between the two operands (positions in characters for tokenize, bytes for ast).
        after = (left.end_lineno, self._char_column(left.end_lineno, left.end_col_offset))
        before = (right.lineno, self._char_column(right.lineno, right.col_offset))
        for token in self.operators:
            if token.string == op and after <= token.start and token.end <= before:
                start = (token.start[0], len(self.lines[token.start[0] - 1][:token.start[1]].encode()))
                end = (start[0], start[1] + len(op))
                self.sites.append(PySite("comparison", token.start[0], start, end, op, FLIP[op], FLIP[op]))
                return
        self.skipped["comparison operator not found"] = self.skipped.get("comparison operator not found", 0) + 1

    def _char_column(self, line, byte_column):
        return len(self.lines[line - 1].encode()[:byte_column].decode(errors="replace"))

    def _loop_exits(self, loop):
        # break/continue of this loop, not of a nested loop or function.
        stack = list(loop.body) + list(loop.orelse if False else [])
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, (ast.Break, ast.Continue)):
                word = "break" if isinstance(node, ast.Break) else "continue"
                start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
                self.sites.append(PySite("loop-exit", node.lineno, start, end, word, "pass", "pass"))
                continue
            stack.extend(ast.iter_child_nodes(node))

    def mutated(self, site):
        """The file's text with `site` applied."""
        lines = [line.encode() for line in self.lines]
        (l1, c1), (l2, c2) = site.start, site.end
        head, tail = lines[l1 - 1][:c1], lines[l2 - 1][c2:]
        lines[l1 - 1:l2] = [head + site.replacement.encode() + tail]
        return b"\n".join(lines).decode()


def analyse(path, source):
    python = PythonFile(path, source)
    python.find_sites()
    return python
