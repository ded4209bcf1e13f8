"""Traceable twins: an application helper's source, copied with LibCST (untouched code keeps its
comments and layout) and rewritten only where the rewrite provably keeps the values.

One module per rewrite, each applying only at the places the scan flagged and to values derived
from them: `negative_stride`, `unsigned_astype`, `library_adapter`, `array_items`, `math_functions`,
`scalar_extraction`, `scalar_types` and `branch_where`. This driver composes them into one pass over the helper. Anything no rewrite
covers (a loop with a data-dependent trip count, a side effect in a branch, a Python number that has
become a tensor reaching a call that needs a number, a library call without an adapter) refuses the
twin and names the line that blocked it.
"""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper

from leapp_codemod.generate.twin.array_items import (
    ArrayItems,
    array_lists,
    number_tables,
)
from leapp_codemod.generate.twin.base import (
    ALL_HELPERS,
    Blocked,
    Context,
    Example,
    Flag,
    Refused,
    Twin,
    dotted,
)
from leapp_codemod.generate.twin.branch_where import BranchWhere, loop_indices
from leapp_codemod.generate.twin.fresh_writes import FreshWrites, item_params
from leapp_codemod.generate.twin.library_adapter import LibraryAdapter, flagged_adapters
from leapp_codemod.generate.twin.math_functions import MathFunctions
from leapp_codemod.generate.twin.negative_stride import NegativeStride
from leapp_codemod.generate.twin.scalar_extraction import ScalarExtraction
from leapp_codemod.generate.twin.scalar_types import ScalarTypes
from leapp_codemod.generate.twin.unsigned_astype import UnsignedAstype

# Earlier rules see a node first; a rule hands a node it does not rewrite on to the next.
RULES = (NegativeStride, UnsignedAstype, ScalarTypes, LibraryAdapter, ArrayItems, MathFunctions, ScalarExtraction, BranchWhere,
         FreshWrites)
REWRITTEN = tuple(c for rule in RULES for c in rule.CATEGORIES)

__all__ = ["RULES", "Blocked", "Flag", "Twin", "build_twin", "flags_for", "run_example"]


class _Rewriter(*RULES):
    """All rewrites over the one helper named `name`, written out as `fn_name`."""

    def __init__(self, ctx: Context, name: str, fn_name: str):
        super().__init__(ctx)
        self.name = name
        self.fn_name = fn_name
        self.result: cst.FunctionDef | None = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self.depth == 0 and node.name.value != self.name:
            return False
        self.depth += 1
        return True

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return self.depth > 0

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef):
        if self.depth == 0:
            return updated
        self.depth -= 1
        if self.depth == 0:
            body = self.block(original.body.body, updated.body.body)
            self.result = updated.with_changes(name=cst.Name(self.fn_name), decorators=[],
                                               body=updated.body.with_changes(body=body))
        return updated

    def block(self, original, updated) -> list:
        """One block with the statement rewrites applied (`original` carries the positions)."""
        original, updated = list(original), list(updated)
        out: list = []
        while updated:
            offset = len(original) - len(updated)
            step = self.statement(out, original[offset:], updated)
            if step is None:
                out.append(self._nested(original[offset], updated[0]))
                updated = updated[1:]
                continue
            if step.done:
                return step.out
            out, updated = step.out, step.rest
        return out

    def _nested(self, orig, new):
        """The same rewrites inside the blocks of a compound statement that is not itself rewritten."""
        if isinstance(new, (cst.If, cst.For, cst.While, cst.With)) and isinstance(new.body, cst.IndentedBlock):
            new = new.with_changes(body=new.body.with_changes(body=self.block(orig.body.body, new.body.body)))
            if isinstance(new, (cst.If, cst.For, cst.While)) and isinstance(new.orelse, cst.Else):
                body = self.block(orig.orelse.body.body, new.orelse.body.body)
                new = new.with_changes(orelse=new.orelse.with_changes(body=new.orelse.body.with_changes(body=body)))
            elif isinstance(new, cst.If) and isinstance(new.orelse, cst.If):
                new = new.with_changes(orelse=self._nested(orig.orelse, new.orelse))
        return new


def build_twin(source: str, name: str, fn_name: str, flags: list[Flag], bindings: dict[str, str],
               registry: dict[str, str], origin: str) -> Twin | Blocked:
    """The twin of module-level function `name` in `source`, or why it cannot be written."""
    unknown = sorted({f for f in flags if f.category not in REWRITTEN}, key=lambda f: f.line)
    if unknown:
        return Blocked(unknown[0].line, f"no rewrite rule for {unknown[0].category}")
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError as exc:
        return Blocked(exc.raw_line, f"cannot parse: {exc.message}")
    except RecursionError:
        return Blocked(0, "the module is nested too deeply to rewrite")
    ctx = Context(flags=flags, bindings=bindings, registry=registry,
                  flagged_adapters=flagged_adapters(source, flags, bindings, registry), tables=number_tables(source),
                  array_lists=array_lists(source, flags), item_params=item_params(source, name, flags),
                  loop_indices=loop_indices(source, name))
    rewriter = _Rewriter(ctx, name, fn_name)
    try:
        wrapper.visit(rewriter)
    except Refused as exc:
        return Blocked(exc.line, exc.reason)
    except RecursionError:
        return Blocked(0, "the module is nested too deeply to rewrite")
    if rewriter.result is None:
        return Blocked(0, f"no module-level function {name}")
    left = sorted(set(flags) - ctx.used, key=lambda f: (f.line, f.col))
    if left:
        return Blocked(left[0].line, _uncovered_reason(left[0]))
    fn = _with_docstring(rewriter.result, f"Traceable twin of {origin}: {'; '.join(sorted(ctx.rules))}.")
    fn = fn.with_changes(body=fn.body.with_changes(body=[_fit(stmt) for stmt in fn.body.body]))
    text = cst.Module(body=[fn]).code.strip("\n")
    used = {n for n in ALL_HELPERS if n in _ast_names(text)}
    return Twin(source=text, helpers=tuple(sorted(used)), rules=tuple(sorted(ctx.rules)))


def _uncovered_reason(flag: Flag) -> str:
    if flag.category in LibraryAdapter.CATEGORIES:
        return "the library call has no torch adapter in leapp_codemod.adapters"
    if flag.category in ScalarExtraction.CATEGORIES:
        return "this scalar extraction is not in a form the twin rules rewrite (`.item()`, `float()`, `int()`, " \
               "or an elementwise `tolist()` loop)"
    if flag.category in BranchWhere.CATEGORIES:
        return "this value-dependent control flow is not a choice between side-effect-free values"
    if flag.category in FreshWrites.CATEGORIES:
        return ("no rewrite rule for inplace-state: a write into a value the helper did not allocate itself (an "
                "argument or persistent state)")
    return f"no rewrite rule matched this {flag.category}"


def _fit(stmt, width: int = 100):
    """A long `return twin_*(...)` / `x = twin_*(...)` written by a rule, one argument per line."""
    inner = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
    value = getattr(inner, "value", None)
    if not isinstance(inner, (cst.Return, cst.Assign)) or not isinstance(value, cst.Call) or len(value.args) < 2 \
            or dotted(value.func) not in ALL_HELPERS:
        return stmt         # untouched code keeps its layout
    if max(len(line) for line in cst.Module(body=[]).code_for_node(stmt).splitlines()) + 4 <= width:
        return stmt

    def newline(extra: str) -> cst.ParenthesizedWhitespace:
        return cst.ParenthesizedWhitespace(first_line=cst.TrailingWhitespace(), empty_lines=[], indent=True,
                                           last_line=cst.SimpleWhitespace(extra))

    last = len(value.args) - 1
    args = [a.with_changes(comma=cst.Comma(whitespace_after=newline("" if i == last else "    ")))
            for i, a in enumerate(value.args)]
    call = value.with_changes(whitespace_before_args=newline("    "), args=args)
    return stmt.with_changes(body=[inner.with_changes(value=call)])


def _with_docstring(fn: cst.FunctionDef, doc: str) -> cst.FunctionDef:
    lines = textwrap.wrap(doc, 92, break_on_hyphens=False)
    text = '"""' + "\n    ".join(lines) + '"""'
    stmt = cst.SimpleStatementLine([cst.Expr(cst.SimpleString(text))])
    return fn.with_changes(body=fn.body.with_changes(body=[stmt, *_without_docstring(fn.body.body)]))


def _without_docstring(body) -> list:
    body = list(body)
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        return body[1:]
    return body


def _ast_names(text: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}


def flags_for(findings) -> list[Flag]:
    """Scan findings (1-based columns, end exclusive) as twin flags (0-based columns)."""
    return [Flag(f.category, f.line, max(f.column - 1, 0), f.end_line or f.line,
                 max(f.end_column - 1, f.column)) for f in findings]


def run_example(example: Example, registry: dict[str, str]) -> Twin | Blocked:
    """A rule's example through the whole driver: the twin of `f` in `example.before`, docstring
    left out, or why it was refused."""
    from leapp_codemod.analysis.model.index import build_index
    from leapp_codemod.source.files import SourceFile
    from leapp_codemod.source.parse import ParsedFile, parse_text

    text = example.before
    parsed = ParsedFile(SourceFile(Path("example.py"), "example.py", "example", False), text,
                        parse_text(text, "example.py"))
    flags = []
    for category, snippet in example.flags:
        line_no, col = next((n, line.find(snippet)) for n, line in enumerate(text.splitlines(), 1)
                            if snippet in line)
        flags.append(Flag(category, line_no, col, line_no, col + len(snippet)))
    result = build_twin(text, "f", "f", flags, build_index(parsed).imports, registry, "example:f")
    if isinstance(result, Blocked):
        return result
    fn = cst.parse_module(result.source).body[0]
    body = fn.body.with_changes(body=_without_docstring(fn.body.body))
    return Twin(cst.Module(body=[fn.with_changes(body=body)]).code, result.helpers, result.rules)
