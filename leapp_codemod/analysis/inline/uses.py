"""Which names the statements of an inline range read and write, and in what order: the events the range's
classification (inputs, state, constants, outputs) is made from."""
from __future__ import annotations

import ast
import copy

from leapp_codemod.analysis.inline.mutated import LOOP_MUTATORS


class _Uses(ast.NodeVisitor):
    """Name reads and writes in evaluation order: (name, 'r'|'w', line)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, int]] = []
        self._hidden: list[set[str]] = []

    def _hidden_name(self, name: str) -> bool:
        return any(name in h for h in self._hidden)

    def visit_Name(self, node: ast.Name) -> None:
        if self._hidden_name(node.id):
            return
        kind = "r" if isinstance(node.ctx, ast.Load) else "w"
        self.events.append((node.id, kind, node.lineno))

    def _store_into(self, node) -> None:
        """`a.b[i] = v`: reads and mutates `a` ('m'), reads what the subscripts read."""
        if isinstance(node.ctx, ast.Load):
            self.generic_visit(node)
            return
        base = node
        while isinstance(base, (ast.Attribute, ast.Subscript, ast.Starred)):
            if isinstance(base, ast.Subscript):
                self.visit(base.slice)
            base = base.value
        if isinstance(base, ast.Name) and not self._hidden_name(base.id):
            self.events.append((base.id, "r", base.lineno))
            self.events.append((base.id, "m", base.lineno))
        elif not isinstance(base, ast.Name):
            self.visit(base)

    visit_Attribute = visit_Subscript = _store_into

    def visit_Call(self, node: ast.Call) -> None:
        """`hist.append(x)`: reads `hist`, then changes it in place ('m'), as a store into it does."""
        self.generic_visit(node)
        func = node.func
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in LOOP_MUTATORS
                and not self._hidden_name(func.value.id)):
            self.events.append((func.value.id, "m", node.lineno))

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for t in node.targets:
            self.visit(t)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self.visit(node.target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self.events.append((node.target.id, "r", node.lineno))
        else:
            self.visit(node.target)
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self.events.append((node.target.id, "w", node.lineno))

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.visit(node.target)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self.visit(node.target)
        for s in (*node.body, *node.orelse):
            self.visit(s)

    visit_AsyncFor = visit_For

    def _comprehension(self, node) -> None:
        bound: set[str] = set()
        for gen in node.generators:
            bound |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
        self.visit(node.generators[0].iter)
        self._hidden.append(bound)
        for i, gen in enumerate(node.generators):
            if i:
                self.visit(gen.iter)
            for cond in gen.ifs:
                self.visit(cond)
        for part in ("elt", "key", "value"):
            if getattr(node, part, None) is not None:
                self.visit(getattr(node, part))
        self._hidden.pop()

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def _definition(self, node) -> None:
        for d in getattr(node, "decorator_list", []):
            self.visit(d)
        if isinstance(node, ast.Lambda) or not isinstance(node, ast.ClassDef):
            args = node.args
            for d in (*args.defaults, *[k for k in args.kw_defaults if k is not None]):
                self.visit(d)
            params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
            params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        else:
            params = set()
        inner = _Uses()
        inner._hidden = [*self._hidden, params | _assigned_in(node)]
        for child in ([node.body] if isinstance(node, ast.Lambda) else node.body):
            inner.visit(child)
        self.events += [(n, "r", line) for n, k, line in inner.events if k == "r"]
        if not isinstance(node, ast.Lambda):
            self.events.append((node.name, "w", node.lineno))

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _definition

    def _import(self, node) -> None:
        for alias in node.names:
            name = alias.asname or alias.name.split(".")[0]
            if name != "*":
                self.events.append((name, "w", node.lineno))

    visit_Import = visit_ImportFrom = _import

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self.events.append((node.name, "w", node.lineno))
        for s in node.body:
            self.visit(s)


def _assigned_in(node: ast.AST) -> set[str]:
    """Names a function/class body binds locally (its own scope only)."""
    out: set[str] = set()
    stack = list(node.body) if isinstance(node.body, list) else []
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            continue
        if isinstance(n, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return out


def uses(nodes) -> list[tuple[str, str, int]]:
    visitor = _Uses()
    for node in nodes:
        visitor.visit(node)
    return visitor.events


_EXITS = (ast.Continue, ast.Break, ast.Return, ast.Raise)


def first_reads(statements: list[ast.stmt], written: set[str], out: list[str], steady=None) -> set[str]:
    """Names some path reads before a write on that path has set them (added to `out` in first-use order):
    what an iteration of the range takes from the one before. `written` holds the names every path has set so
    far; the names every path through `statements` sets are returned. A write under an `if`, in a loop body
    or a `try` covers the reads after it in the same block only (a feature reused on frames without a new
    camera image is carried); an inner loop's target and a branch's local written before each read are not.
    `steady` (an `inline.steady.Steady`) adds what branches on settings and first passes of inner loops decide."""
    written = set(written)

    def reads(nodes) -> None:
        for name, kind, _ in uses(nodes):
            if kind == "w":
                written.add(name)
            elif kind == "r" and name not in written and name not in out:
                out.append(name)

    for stmt in statements:
        if isinstance(stmt, ast.If):
            reads([stmt.test])
            first_pass = steady is not None and steady.first_pass_test(stmt.test)
            body = first_reads(stmt.body, written, out, steady)
            orelse = first_reads(stmt.orelse, written | body if first_pass else written, out, steady)
            if _exits(stmt.body):
                written |= orelse
            elif _exits(stmt.orelse):
                written |= body
            elif steady is not None and not first_pass and steady.setting_test(stmt.test) and not stmt.orelse:
                written |= body    # a chain on a setting lists the configured value: its arm runs
            else:
                written |= body & orelse
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            reads([stmt.iter])
            inner = set(written)
            for name, kind, _ in uses([stmt.target]):
                inner.add(name)
            passes = first_reads(stmt.body, inner, out, steady.entering(stmt) if steady is not None else None)
            first_reads(stmt.orelse, written, out, steady)
            if steady is not None and steady.runs(stmt):
                written |= passes     # a loop over range(16) runs: what every pass writes is written after it
        elif isinstance(stmt, ast.While):
            reads([stmt.test])
            first_reads(stmt.body, written, out, steady)
            first_reads(stmt.orelse, written, out, steady)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            reads(stmt.items)
            written |= first_reads(stmt.body, written, out, steady)
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            first_reads(stmt.body, written, out, steady)
            for handler in stmt.handlers:
                first_reads(handler.body, written | ({handler.name} if handler.name else set()), out, steady)
            first_reads(stmt.orelse, written, out, steady)
            written |= first_reads(stmt.finalbody, written, out, steady)
        else:
            reads([stmt])
    return written


def _exits(block: list[ast.stmt]) -> bool:
    return bool(block) and isinstance(block[-1], _EXITS)


class _FullSliceAsRebinding(ast.NodeTransformer):
    """`buf[:] = v` / `buf[...] = v` read as `buf = v`: every element is replaced, nothing of before is read."""

    def visit_Assign(self, node: ast.Assign) -> ast.Assign:
        node.targets = [ast.copy_location(ast.Name(t.value.id, ast.Store()), t) if _full_slice_store(t) else t
                        for t in node.targets]
        return node


def _full_slice_store(target: ast.expr) -> bool:
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return False
    index = target.slice
    return (isinstance(index, ast.Slice) and index.lower is None and index.upper is None and index.step is None
            or isinstance(index, ast.Constant) and index.value is Ellipsis)


def overwritten_before_read(statements: list[ast.stmt], read_first: list[str]) -> set[str]:
    """Of the names an iteration reads first (`read_first`), those every path fills whole (`buf[:] = v`) before
    reading: a scratch buffer allocated before the loop and refilled each pass carries nothing between passes.
    (Branches on settings are not decided here: a path they would rule out only keeps a name carried.)"""
    if not any(_full_slice_store(t) for stmt in statements for node in ast.walk(stmt)
               if isinstance(node, ast.Assign) for t in node.targets):
        return set()
    rebound = [_FullSliceAsRebinding().visit(copy.deepcopy(stmt)) for stmt in statements]
    still: list[str] = []
    first_reads(rebound, set(), still)
    return set(read_first) - set(still)
